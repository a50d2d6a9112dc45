// product_order_sim.cpp - why the tuner's reference check saw NaN products
// (session 22, docs/performance-notes.md): regenerates the harness's input
// rows (lib/Runtime/Run.cpp: chunks of 2^16 values of 2 N(0, 1), one
// mt19937_64 per chunk seeded by (seed, argument, chunk), rounded to bf16)
// for x = 128 x 2^20 and seed 7, and multiplies each row in float in the
// order of the streamed cluster kernel (16 CTAs of 256 threads, 8 passes of
// 32 values in 4 chains, warp butterflies, the cluster's 128 slots):
// rows 5 and 39 end in NaN (a partial that underflowed to 0 meets one that
// overflowed), the double-precision reference in +-inf, as on the H100.
// Build: g++ -O2 -o /tmp/sim bench/experiments/product_order_sim.cpp
#include <cstdio>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>
#include <cstdint>
static float bf16(double v) {  // RNE double->float->bf16
  float f = (float)v; uint32_t u; memcpy(&u, &f, 4);
  u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u; memcpy(&f, &u, 4); return f;
}
int main(int argc, char **argv) {
  const long N = 1 << 20; unsigned seed = 7;
  for (int row = 0; row < 64; ++row) {
    std::vector<float> x(N);
    for (long c = row * N / 65536; c < (row + 1) * N / 65536; ++c) {
      std::seed_seq seq{seed, 1u, (unsigned)c, (unsigned)(c >> 32)};
      std::mt19937_64 rng(seq);
      std::normal_distribution<double> normal(0.0, 1.0);
      for (long i = 0; i < 65536; ++i) x[(c * 65536 + i) - row * N] = bf16(2.0 * normal(rng));
    }
    std::vector<float> warpv(128);
    int zeros = 0, infs = 0;
    for (int rank = 0; rank < 16; ++rank)
      for (int w = 0; w < 8; ++w) {
        float lanes[32];
        for (int l = 0; l < 32; ++l) {
          int t = w * 32 + l; long base = (rank * 256 + t) * 8;
          float ch[4] = {1, 1, 1, 1};
          for (int p = 0; p < 8; ++p)
            for (int i = 0; i < 32; ++i) {
              long col = base + p * 131072 + (i / 8) * 32768 + (i % 8);
              ch[i % 4] *= x[col];
            }
          lanes[l] = (ch[0] * ch[1]) * (ch[2] * ch[3]);
          zeros += lanes[l] == 0; infs += std::isinf(lanes[l]);
        }
        for (int off = 16; off; off /= 2) {
          float n[32];
          for (int l = 0; l < 32; ++l) n[l] = lanes[l] * lanes[l ^ off];
          memcpy(lanes, n, sizeof n);
        }
        warpv[rank * 8 + w] = lanes[0];
      }
    float lanes[32];
    for (int r = 0; r < 32; ++r) lanes[r] = ((warpv[r] * warpv[r + 32]) * warpv[r + 64]) * warpv[r + 96];
    for (int off = 16; off; off /= 2) {
      float n[32];
      for (int l = 0; l < 32; ++l) n[l] = lanes[l] * lanes[l ^ off];
      memcpy(lanes, n, sizeof n);
    }
    int wz = 0, wi = 0, wn = 0;
    for (float v : warpv) wz += v == 0, wi += std::isinf(v), wn += std::isnan(v);
    double ref = 1; for (float v : x) ref *= v;
    printf("row %2d: kernel-order %g, reference %g; thread partials 0: %d, inf: %d; warp products 0: %d, inf: %d, nan: %d\n",
           row, lanes[0], ref, zeros, infs, wz, wi, wn);
  }
}
