//===- quantize_division_test.cpp - the quantizer's division, exhaustively ===//
//
// rk-decompose divides a per-token quantizer's values by their row's scale
// s through the row's reciprocal with one correction (Markstein):
//   k = 2^64 where s < 2^-24 (bf16 and f32 scales), else 1
//   y = 1 / (s k) (IEEE, once per row), q = (x k) y, r = fma(-q, s k, x k),
//   q' = fma(r, y, q)
// with y = s k = 0 where s is 0 or inf. This checks, for every scale of
// the scale type (f16, bf16) and every x of the input type (f16, bf16) that
// a row with that scale can hold (|x| <= absmax, s = to_scale(absmax *
// fl32(1 / 127)), x finite), that q' equals the IEEE quotient wherever it
// and |x k| are at least 2^-100 (below, the remainder or the quotient can
// underflow) and that round_half_even(clamp(q', -127, 127)) equals the reference
// quantizer's integer; and the same on random f32 rows with f32 scales.
// ~1e9 pairs a combination, 2.5 min on two cores in all.
// Usage: rkc-quantize-division-test [XTYPE:STYPE ...] (default: all of
// f16:f16 bf16:f16 f16:bf16 bf16:bf16 f32:f32).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
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
/// Round to the nearest f16 / bf16 (ties to even) and back.
float roundF16(float v) { return (float)(_Float16)v; }
float roundBf16(float v) {
  uint32_t u = bitsOf(v);
  if (std::isnan(v))
    return v;
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
float clampQ(float v) { return std::fmin(std::fmax(v, -127.0f), 127.0f); }

enum class Ty { F16, Bf16, F32 };
Ty parse(const std::string &s, bool &ok) {
  ok = true;
  if (s == "f16") return Ty::F16;
  if (s == "bf16") return Ty::Bf16;
  if (s == "f32") return Ty::F32;
  ok = false;
  return Ty::F32;
}
float fromBits(Ty t, int b) { return t == Ty::F16 ? fromF16((uint16_t)b) : fromBf16((uint16_t)b); }
float toScale(Ty t, float v) {
  return t == Ty::F16 ? roundF16(v) : t == Ty::Bf16 ? roundBf16(v) : v;
}

struct Counts {
  long pairs = 0, quotient = 0, integer = 0;
  void add(const Counts &o) {
    pairs += o.pairs, quotient += o.quotient, integer += o.integer;
  }
};

/// The kernel's quotient of x by the scale s of its row.
struct RowDivider {
  float k, y, sk;
  RowDivider(Ty scaleType, float s) {
    bool odd = s == 0.0f || std::isinf(s);
    k = scaleType != Ty::F16 && s < 0x1p-24f ? 0x1p64f : 1.0f;
    volatile float one = 1.0f; // the division the kernel does, not a constant
    sk = odd ? 0.0f : s * k;
    y = odd ? 0.0f : one / sk;
  }
  float operator()(float x) const {
    float xk = k == 1.0f ? x : x * k;
    float q = xk * y;
    float r = std::fma(-q, sk, xk);
    return std::fma(r, y, q);
  }
};

/// `xk`: x as the kernel divides it (x k).
void compare(Counts &c, float x, float xk, float s, float got) {
  ++c.pairs;
  float want = s == 0.0f ? 0.0f : x / s;
  bool normal = std::fabs(xk) >= 0x1p-100f && std::fabs(want) >= 0x1p-100f;
  if (normal && bitsOf(want) != bitsOf(got) && !(want == 0.0f && got == 0.0f) &&
      c.quotient++ < 3)
    std::printf("  quotient: x = %a, s = %a: %a, IEEE %a\n", x, s, got, want);
  if (std::nearbyint(clampQ(want)) != std::nearbyint(clampQ(got)) && c.integer++ < 3)
    std::printf("  integer: x = %a, s = %a: %a, IEEE %a\n", x, s, got, want);
}

/// Scales with bits in [lo, hi) against every x (16-bit types).
Counts exhaustive(Ty xt, Ty st, int lo, int hi) {
  Counts c;
  const float inv127 = 1.0f / 127.0f;
  // The smallest scale of a row holding x (NaN: x not finite).
  std::vector<float> least(65536);
  for (int xb = 0; xb < 65536; ++xb) {
    float x = fromBits(xt, xb);
    least[xb] = std::isfinite(x) ? toScale(st, std::fabs(x) * inv127) : NAN;
  }
  for (int sb = lo; sb < hi; ++sb) {
    float s = fromBits(st, sb);
    if (std::isnan(s))
      continue; // y = NaN: NaN out, as x / NaN
    RowDivider div(st, s);
    for (int xb = 0; xb < 65536; ++xb)
      if (least[xb] <= s) // in a row with this scale
        compare(c, fromBits(xt, xb), fromBits(xt, xb) * div.k, s, div(fromBits(xt, xb)));
  }
  return c;
}

/// Random f32 rows with f32 scales: absmax 2^e x [1, 2) for e in [-149,
/// 127], x = absmax x u for u in [-1, 1] (and u near the quotient's half
/// integers), `n` pairs from `seed`.
Counts randomF32(unsigned seed, long n) {
  Counts c;
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> e(-149, 127);
  std::uniform_real_distribution<float> m(1.0f, 2.0f), u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> half(-127, 126);
  const float inv127 = 1.0f / 127.0f;
  for (long i = 0; i < n; ++i) {
    float absmax = std::ldexp(m(g), e(g));
    if (!std::isfinite(absmax) || absmax == 0.0f)
      continue;
    float s = absmax * inv127;
    RowDivider div(Ty::F32, s);
    float x = i % 2 ? absmax * u(g) : std::nextafter((half(g) + 0.5f) * s, (float)(i % 4) - 1.5f);
    if (!(std::fabs(x) <= absmax))
      continue;
    compare(c, x, x * div.k, s, div(x));
  }
  return c;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> cases;
  for (int i = 1; i < argc; ++i)
    cases.push_back(argv[i]);
  if (cases.empty())
    cases = {"f16:f16", "bf16:f16", "f16:bf16", "bf16:bf16", "f32:f32"};
  unsigned n = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  int failed = 0;
  for (const std::string &cs : cases) {
    size_t colon = cs.find(':');
    bool okX = false, okS = false;
    Ty xt = parse(cs.substr(0, colon), okX);
    Ty st = colon == std::string::npos ? Ty::F32 : parse(cs.substr(colon + 1), okS);
    bool f32 = okX && okS && xt == Ty::F32 && st == Ty::F32;
    if (!okX || !okS || (!f32 && (xt == Ty::F32 || st == Ty::F32))) {
      std::fprintf(stderr, "bad case '%s': XTYPE:STYPE of f16 / bf16, or f32:f32\n", cs.c_str());
      return 2;
    }
    // Non-negative scales and inf: bits 0 .. 0x7C00 (f16) or 0x7F80 (bf16).
    int top = (st == Ty::F16 ? 0x7C00 : 0x7F80) + 1;
    std::vector<Counts> parts(n);
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < n; ++i)
      pool.emplace_back([&, i] {
        parts[i] = f32 ? randomF32(1234 + i, 40000000 / n)
                       : exhaustive(xt, st, (int)(top * (long)i / n), (int)(top * (long)(i + 1) / n));
      });
    for (auto &th : pool)
      th.join();
    Counts all;
    for (const Counts &c : parts)
      all.add(c);
    std::printf("%s x, %s scales: %ld pairs, %ld quotients differ, %ld integers differ\n",
                cs.substr(0, colon).c_str(), cs.substr(colon + 1).c_str(), all.pairs,
                all.quotient, all.integer);
    failed |= all.pairs == 0 || all.quotient != 0 || all.integer != 0;
  }
  return failed;
}
