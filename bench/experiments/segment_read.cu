// Experiment tool (not product code): how fast can a GEMV's weight matrix
// be read when each warp streams a tile of TW bytes per row over its own
// range of rows (the K split of rkc's column kernels)? Reads only (the
// words are XOR-folded so the loads stay), 48 copies of the matrix back to
// back so that every launch reads from HBM, like bench_quant's graph mode.
//
//   nvcc -O3 -arch=sm_90a -std=c++17 bench/experiments/segment_read.cu -o segment_read
//   ./segment_read K N   (K rows of N bytes: int8 weights, N a multiple of 512)
//
// Variants: flat (grid-stride 16-byte reads, the read roofline); reg<TW, LB,
// DEPTH> (each lane LB-byte loads, DEPTH of them in flight in registers,
// double-buffered); cpasync<TW, STAGES> (16-byte cp.async into a per-warp
// shared-memory ring, STAGES batches of 512 bytes a lane... in flight).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void flat(const uint4 *__restrict__ w, size_t n16, unsigned *sink) {
  unsigned x = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x) {
    uint4 v = __ldg(w + i);
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x12345678u) sink[0] = x;
}

template <int LB> struct Vec;
template <> struct Vec<8> { using T = uint2; __device__ static unsigned fold(uint2 v) { return v.x ^ v.y; } };
template <> struct Vec<16> { using T = uint4; __device__ static unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; } };

// grid: (N / TW) column tiles x KS CTAs; each warp of a CTA one of
// KS * WARPS contiguous row ranges of its column tile.
template <int TW, int LB, int DEPTH>
__global__ void reg_tiles(const unsigned char *__restrict__ w, int K, int N, int KS, unsigned *sink, int CH) {
  using V = typename Vec<LB>::T;
  constexpr int LPR = TW / LB;      // lanes per row
  constexpr int RPL = 32 / LPR;     // rows per warp load
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const int tile = blockIdx.x % (N / TW), ks = blockIdx.x / (N / TW);
  const int part = ks * warps + warp, parts = KS * warps;
  const unsigned char *base = w + (size_t)tile * TW + (lane % LPR) * LB;
  const int lr = lane / LPR;
  unsigned x = 0;
  V a[DEPTH], b[DEPTH];
  // The part's rows as one sequence i -> row: contiguous [r0, r1), or
  // (CH > 0) interleaved chunks of CH rows, chunk c belonging to part c % parts.
  const int r0 = (int)((long long)K * part / parts), r1 = (int)((long long)K * (part + 1) / parts);
  const int n = CH ? ((K / CH - part + parts - 1) / parts) * CH : r1 - r0;
  auto rowOf = [&](int i) { return CH ? (part + (i / CH) * parts) * CH + i % CH : r0 + i; };
  auto load = [&](int i0, V (&buf)[DEPTH]) {
#pragma unroll
    for (int d = 0; d < DEPTH; ++d) {
      const int i = i0 + d * RPL + lr;
      buf[d] = i < n ? __ldg(reinterpret_cast<const V *>(base + (size_t)rowOf(i) * N)) : V{};
    }
  };
  int i = 0;
  load(i, a);
  for (; i < n; i += 2 * DEPTH * RPL) {
    load(i + DEPTH * RPL, b);
#pragma unroll
    for (int d = 0; d < DEPTH; ++d) x ^= Vec<LB>::fold(a[d]);
    load(i + 2 * DEPTH * RPL, a);
#pragma unroll
    for (int d = 0; d < DEPTH; ++d) x ^= Vec<LB>::fold(b[d]);
  }
  if (x == 0x12345678u) sink[0] = x;
}

__device__ __forceinline__ void cp16(void *dst, const void *src, bool ok) {
  unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(ok ? 16 : 0));
}

// Each warp: a ring of STAGES batches, a batch = BATCH loads of 16 bytes a
// lane (BATCH * 512 bytes of the warp's rows), read back from shared memory.
template <int TW, int STAGES, int BATCH>
__global__ void cpasync_tiles(const unsigned char *__restrict__ w, int K, int N, int KS, unsigned *sink) {
  extern __shared__ uint4 ring[];
  constexpr int LPR = TW / 16, RPL = 32 / LPR;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const int tile = blockIdx.x % (N / TW), ks = blockIdx.x / (N / TW);
  const int part = ks * warps + warp, parts = KS * warps;
  const int r0 = (int)((long long)K * part / parts), r1 = (int)((long long)K * (part + 1) / parts);
  const unsigned char *base = w + (size_t)tile * TW + (lane % LPR) * 16;
  const int lr = lane / LPR;
  uint4 *mine = ring + (size_t)warp * STAGES * BATCH * 32;
  const int batches = (r1 - r0 + BATCH * RPL - 1) / (BATCH * RPL);
  auto issue = [&](int bi) {
    uint4 *dst = mine + (bi % STAGES) * BATCH * 32;
#pragma unroll
    for (int d = 0; d < BATCH; ++d) {
      const int row = r0 + (bi * BATCH + d) * RPL + lr;
      cp16(dst + d * 32 + lane, base + (size_t)min(row, K - 1) * N, bi < batches && row < r1);
    }
    asm volatile("cp.async.commit_group;\n");
  };
  for (int s = 0; s < STAGES - 1; ++s) issue(s);
  unsigned x = 0;
  for (int bi = 0; bi < batches; ++bi) {
    issue(bi + STAGES - 1);
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 1));
    __syncwarp();
    const uint4 *src = mine + (bi % STAGES) * BATCH * 32;
#pragma unroll
    for (int d = 0; d < BATCH; ++d) {
      uint4 v = src[d * 32 + lane];
      x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    __syncwarp();
  }
  if (x == 0x12345678u) sink[0] = x;
}

struct Bench {
  int K, N;
  std::vector<unsigned char *> copies;
  unsigned *sink;
  cudaStream_t st;
  double bytes() const { return (double)K * N; }
  template <class F> void time(const char *name, F launch) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (auto *c : copies) launch(c); // warm-up pass
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    std::vector<float> ms;
    for (int p = 0; p < 7; ++p) {
      CK(cudaEventRecord(e0, st));
      for (auto *c : copies) launch(c);
      CK(cudaEventRecord(e1, st));
      CK(cudaEventSynchronize(e1));
      float t;
      CK(cudaEventElapsedTime(&t, e0, e1));
      ms.push_back(t / copies.size());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-34s %8.2f us  %5.2f TB/s\n", name, ms[3] * 1e3, bytes() / (ms[3] * 1e-3) / 1e12);
    std::fflush(stdout);
  }
};

// ks = 0: enough CTAs for ctasPerSm per SM; smem pins the occupancy to
// ctasPerSm when given.
template <int TW, int LB, int DEPTH>
void runReg(Bench &b, int warps, int ctasPerSm, int ch = 0, int ks = 0, bool pin = false) {
  const int tiles = b.N / TW, sms = 132;
  if (!ks) ks = std::max(1, (sms * ctasPerSm + tiles - 1) / tiles);
  const int smem = pin ? 200 * 1024 / ctasPerSm : 0;
  auto k = reg_tiles<TW, LB, DEPTH>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  char name[96];
  std::snprintf(name, sizeof name, "reg TW=%d LB=%d D=%d w=%d ks=%d ch=%d%s", TW, LB, DEPTH, warps, ks, ch,
                pin ? " pinned" : "");
  b.time(name, [&](unsigned char *c) {
    k<<<tiles * ks, warps * 32, smem, b.st>>>(c, b.K, b.N, ks, b.sink, ch);
  });
}

template <int TW, int STAGES, int BATCH> void runCp(Bench &b, int warps, int ctasPerSm) {
  const int tiles = b.N / TW, sms = 132;
  const int ks = std::max(1, (sms * ctasPerSm + tiles - 1) / tiles);
  const int smem = warps * STAGES * BATCH * 512;
  auto k = cpasync_tiles<TW, STAGES, BATCH>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  char name[96];
  std::snprintf(name, sizeof name, "cp TW=%d S=%d B=%d w=%d ks=%d", TW, STAGES, BATCH, warps, ks);
  b.time(name, [&](unsigned char *c) { k<<<tiles * ks, warps * 32, smem, b.st>>>(c, b.K, b.N, ks, b.sink); });
}

int main(int argc, char **argv) {
  Bench b;
  b.K = argc > 1 ? std::atoi(argv[1]) : 14336;
  b.N = argc > 2 ? std::atoi(argv[2]) : 4096;
  const size_t bytes = (size_t)b.K * b.N;
  const int ncopies = (int)std::min<size_t>(48, std::max<size_t>(8, (size_t(512) << 20) / bytes));
  for (int i = 0; i < ncopies; ++i) {
    unsigned char *p;
    CK(cudaMalloc(&p, bytes));
    CK(cudaMemset(p, i + 1, bytes));
    b.copies.push_back(p);
  }
  CK(cudaMalloc(&b.sink, 4));
  CK(cudaStreamCreateWithFlags(&b.st, cudaStreamNonBlocking));
  std::printf("K=%d N=%d bytes=%.1f MB copies=%d\n", b.K, b.N, bytes / 1e6, ncopies);
  b.time("flat 16B grid-stride", [&](unsigned char *c) {
    flat<<<132 * 8, 256, 0, b.st>>>(reinterpret_cast<const uint4 *>(c), bytes / 16, b.sink);
  });
  // rkc's W8A16 M = 1 14336 x 4096 plan: 64-byte warp tiles, 8-byte loads,
  // 16 warps, 2 CTAs per tile, 1 CTA per SM (2 x 64 bytes in flight a lane).
  runReg<64, 8, 4>(b, 16, 1, 0, 2, true);
  runReg<64, 8, 4>(b, 16, 1, 16, 2, true);
  runReg<64, 8, 4>(b, 16, 1, 32, 2, true);
  runReg<64, 8, 4>(b, 16, 1, 64, 2, true);
  runReg<64, 8, 8>(b, 16, 1, 0, 2, true);
  runReg<64, 8, 8>(b, 16, 1, 64, 2, true);
  runReg<64, 16, 4>(b, 16, 1, 0, 2, true);
  runReg<64, 16, 4>(b, 16, 1, 64, 2, true);
  runReg<128, 16, 4>(b, 16, 1, 0, 4, true);
  runReg<128, 16, 4>(b, 16, 1, 64, 4, true);
  runReg<32, 8, 4>(b, 16, 1, 0, 1, true);
  runReg<32, 8, 4>(b, 16, 1, 64, 1, true);
  runReg<64, 8, 4>(b, 8, 2, 0, 4, true);
  runReg<64, 8, 4>(b, 8, 2, 64, 4, true);
  runReg<64, 8, 4>(b, 16, 2, 0, 4, true);
  runReg<64, 8, 4>(b, 16, 2, 64, 4, true);
  runCp<256, 6, 2>(b, 8, 2);
  return 0;
}
