//===- quantize_division_test.cpp - the quantizer's division, exhaustively ===//
//
// rk-decompose divides a per-token quantizer's values by an f16 scale s
// through the row's reciprocal with one correction (Markstein):
//   y = 1 / s (IEEE, once per row), q = x * y, r = fma(-q, s, x),
//   q' = fma(r, y, q)
// with y = s = 0 where s is 0 or inf. This checks, for every f16 scale and
// every x of the input type (f16, bf16) that a row with that scale can
// hold (|x| <= absmax, s = f16(absmax * fl32(1 / 127)), x finite), that q'
// equals the IEEE quotient wherever that is at least 2^-100 in magnitude
// (below it, bf16 x only, the correction can underflow) and that
// round_half_even(clamp(q', -127, 127)) equals the reference quantizer's
// integer: 1.4e9 f16 pairs and 1.1e9 bf16 pairs, ~45 s each on one core.
// Usage: rkc-quantize-division-test [f16|bf16] (both by default).
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

float fromF16(uint16_t h) {
  uint32_t sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0    ? std::ldexp((float)m, -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : std::ldexp((float)(m | 1024), (int)e - 25);
  return sign ? -v : v;
}
float fromBf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
/// Round to the nearest f16 (ties to even) and back: the scale's rounding.
float roundF16(float v) { return (float)(_Float16)v; }
float clampQ(float v) { return std::fmin(std::fmax(v, -127.0f), 127.0f); }

struct Counts {
  long pairs = 0, quotient = 0, integer = 0;
};

/// Scales with f16 bits in [lo, hi) against every x.
Counts check(bool bf16, int lo, int hi) {
  Counts c;
  const float inv127 = 1.0f / 127.0f;
  // The smallest scale of a row holding x (NaN: x not finite).
  std::vector<float> least(65536);
  for (int xb = 0; xb < 65536; ++xb) {
    float x = bf16 ? fromBf16((uint16_t)xb) : fromF16((uint16_t)xb);
    least[xb] = std::isfinite(x) ? roundF16(std::fabs(x) * inv127) : NAN;
  }
  for (int sb = lo; sb < hi; ++sb) {
    float s = fromF16((uint16_t)sb);
    if (std::signbit(s) || std::isnan(s))
      continue; // |x| * c >= 0: scales are +0 .. inf, or NaN (y = NaN: NaN out)
    bool odd = s == 0.0f || std::isinf(s);
    volatile float one = 1.0f; // the division the kernel does, not a constant
    float y = odd ? 0.0f : one / s;
    float sc = odd ? 0.0f : s;
    for (int xb = 0; xb < 65536; ++xb) {
      float x = bf16 ? fromBf16((uint16_t)xb) : fromF16((uint16_t)xb);
      if (!(least[xb] <= s))
        continue; // not in a row with this scale
      ++c.pairs;
      float q = x * y;
      float r = std::fma(-q, sc, x);
      float got = std::fma(r, y, q);
      float want = s == 0.0f ? 0.0f : x / s;
      if (std::fabs(want) >= 0x1p-100f && bitsOf(want) != bitsOf(got) &&
          !(want == 0.0f && got == 0.0f)) {
        if (c.quotient++ < 3)
          std::printf("  quotient: x = %a, s = %a: %a, IEEE %a\n", x, s, got, want);
      }
      if (std::nearbyint(clampQ(want)) != std::nearbyint(clampQ(got))) {
        if (c.integer++ < 3)
          std::printf("  integer: x = %a, s = %a: %a, IEEE %a\n", x, s, got, want);
      }
    }
  }
  return c;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> types;
  for (int i = 1; i < argc; ++i)
    types.push_back(argv[i]);
  if (types.empty())
    types = {"f16", "bf16"};
  int failed = 0;
  for (const std::string &t : types) {
    if (t != "f16" && t != "bf16") {
      std::fprintf(stderr, "unknown input type '%s' (f16 or bf16)\n", t.c_str());
      return 2;
    }
    // Positive finite scales and inf are bits 0 .. 0x7C00: split over threads.
    unsigned n = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    std::vector<Counts> parts(n);
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < n; ++i)
      pool.emplace_back([&, i] {
        parts[i] = check(t == "bf16", (int)(0x7C01 * i / n), (int)(0x7C01 * (i + 1) / n));
      });
    for (auto &th : pool)
      th.join();
    Counts all;
    for (const Counts &c : parts)
      all.pairs += c.pairs, all.quotient += c.quotient, all.integer += c.integer;
    std::printf("%s x, f16 scales: %ld pairs, %ld quotients differ, %ld integers differ\n",
                t.c_str(), all.pairs, all.quotient, all.integer);
    failed |= all.pairs == 0 || all.quotient != 0 || all.integer != 0;
  }
  return failed;
}
