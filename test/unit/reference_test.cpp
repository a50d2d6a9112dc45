// The host reference interpreter (lib/Runtime/Reference.cpp) against
// direct double-precision formulas, on all rows and on a row subset, for a
// named op (softmax), a custom combiner (logsumexp) and per-token int8
// quantization (an i8 result and [T, 1] scales): `rkc run` and the tuner
// trust it to judge GPU results.
#include "rkc/Compile.h"
#include "rkc/Reference.h"

#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

static int failures = 0;

static void expect(bool ok, const std::string &what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures += !ok;
}

static std::string rowProgram(const std::string &spec, int64_t m, int64_t n, const char *dtype,
                              const char *streaming = "auto") {
  auto buf = llvm::MemoryBuffer::getFile(spec);
  if (!buf) {
    std::printf("FAIL: cannot read %s\n", spec.c_str());
    std::exit(1);
  }
  rkc::CompileRequest req;
  req.specText = (*buf)->getBuffer().str();
  req.options.shapes = {"x=" + std::to_string(m) + "x" + std::to_string(n)};
  req.options.dtype = dtype;
  req.options.streaming = streaming;
  req.upTo = rkc::Emit::Rk;
  auto res = rkc::compile(req);
  if (!res) {
    std::printf("FAIL: %s\n", llvm::toString(res.takeError()).c_str());
    std::exit(1);
  }
  return res->rkIR;
}

int main(int argc, char **argv) {
  std::string examples = argc > 1 ? argv[1] : "examples";
  const int64_t m = 3, n = 4099;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal(0.0, 2.0);
  rkc::HostTensor x{{m, n}, std::vector<double>(m * n)};
  for (double &v : x.data)
    v = rkc::roundTo(normal(rng), "bf16");

  // softmax, all rows and the first row only.
  std::string sm = rowProgram(examples + "/softmax.mlir", m, n, "f32");
  for (int64_t rows : {m, int64_t(1)}) {
    rkc::HostTensor in{{rows, n}, std::vector<double>(x.data.begin(), x.data.begin() + rows * n)};
    auto out = rkc::evaluateRowProgram(sm, {in});
    expect((bool)out, "softmax evaluates (" + std::to_string(rows) + " rows)");
    if (!out) {
      llvm::consumeError(out.takeError());
      continue;
    }
    double worst = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double mx = -INFINITY, s = 0;
      for (int64_t c = 0; c < n; ++c) mx = std::fmax(mx, x.data[r * n + c]);
      for (int64_t c = 0; c < n; ++c) s += std::exp(x.data[r * n + c] - mx);
      for (int64_t c = 0; c < n; ++c) {
        double want = std::exp(x.data[r * n + c] - mx) / s;
        worst = std::fmax(worst, std::fabs((*out)[0].data[r * n + c] - want) / want);
      }
    }
    expect(worst < 1e-6, "softmax matches exp(x - max) / sum (" + std::to_string(rows) +
                             " rows), worst rel. error " + std::to_string(worst));
  }

  // logsumexp through its custom (m, l) combiner.
  std::string lse = rowProgram(examples + "/logsumexp.mlir", m, n, "f32");
  auto out = rkc::evaluateRowProgram(lse, {x});
  expect((bool)out, "logsumexp evaluates");
  if (out) {
    double worst = 0;
    for (int64_t r = 0; r < m; ++r) {
      double mx = -INFINITY, s = 0;
      for (int64_t c = 0; c < n; ++c) mx = std::fmax(mx, x.data[r * n + c]);
      for (int64_t c = 0; c < n; ++c) s += std::exp(x.data[r * n + c] - mx);
      double want = mx + std::log(s);
      worst = std::fmax(worst, std::fabs((*out)[0].data[r] - want) / std::fabs(want));
    }
    expect(worst < 1e-6, "logsumexp matches max + log(sum exp), worst rel. error " +
                             std::to_string(worst));
  } else {
    llvm::consumeError(out.takeError());
  }

  // RMSNorm on 2 of a static 2^18 rows: the weight's [N] -> [M, N]
  // broadcast takes the run-time rows (it once built all 2^27 static
  // elements, seconds per tuned shape).
  {
    const int64_t bigM = int64_t(1) << 18, rn = 512, rows = 2;
    std::string rms = rowProgram(examples + "/rms_norm.mlir", bigM, rn, "f32");
    rkc::HostTensor xr{{rows, rn}, std::vector<double>(rows * rn)}, w{{rn}, std::vector<double>(rn)};
    for (double &v : xr.data)
      v = normal(rng);
    for (double &v : w.data)
      v = normal(rng);
    auto t0 = std::chrono::steady_clock::now();
    auto y = rkc::evaluateRowProgram(rms, {xr, w});
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    expect((bool)y && (*y)[0].shape == std::vector<int64_t>{rows, rn},
           "rms_norm evaluates 2 of 2^18 rows into [2, 512]");
    if (y) {
      double worst = 0;
      for (int64_t r = 0; r < rows; ++r) {
        double ss = 0;
        for (int64_t c = 0; c < rn; ++c) ss += xr.data[r * rn + c] * xr.data[r * rn + c];
        double inv = 1.0 / std::sqrt(ss / rn + 1e-6);
        for (int64_t c = 0; c < rn; ++c) {
          double want = xr.data[r * rn + c] * inv * w.data[c];
          worst = std::fmax(worst, std::fabs((*y)[0].data[r * rn + c] - want) /
                                       std::fmax(std::fabs(want), 1e-3));
        }
      }
      expect(worst < 1e-5, "rms_norm matches x / sqrt(mean(x^2) + eps) * w, worst rel. error " +
                               std::to_string(worst));
    } else {
      llvm::consumeError(y.takeError());
    }
    expect(secs < 2.0, "rms_norm on 2 rows takes " + std::to_string(secs) +
                           " s (the broadcast follows the run-time rows)");
  }

  // Per-token int8: scale = f16(fl32(max|x| * fl32(1/127))) (exactly the
  // kernel's), q = clamp(round_half_even(x / scale), -127, 127), 0 for a
  // zero scale; row 1 is all zeros. The interpreter divides in double.
  {
    const int64_t tm = 4, tn = 128;
    rkc::HostTensor xq{{tm, tn}, std::vector<double>(tm * tn)};
    for (int64_t i = 0; i < tm * tn; ++i)
      xq.data[i] = i / tn == 1 ? 0.0 : rkc::roundTo(3.0 * normal(rng), "f16");
    std::string qt = rowProgram(examples + "/quantize_per_token_int8.mlir", tm, tn, "f16");
    auto q = rkc::evaluateRowProgram(qt, {xq});
    expect((bool)q, "quantize_per_token_int8 evaluates");
    if (q) {
      bool shapes = q->size() == 2 && (*q)[0].shape == std::vector<int64_t>{tm, tn} &&
                    (*q)[1].shape == std::vector<int64_t>{tm, 1};
      expect(shapes, "quantize_per_token_int8 gives q [T, D] and scales [T, 1]");
      int64_t badScale = 0, badQ = 0;
      for (int64_t r = 0; shapes && r < tm; ++r) {
        float mx = 0;
        for (int64_t c = 0; c < tn; ++c) mx = std::fmax(mx, (float)std::fabs(xq.data[r * tn + c]));
        double sc = (double)(_Float16)(mx * (1.0f / 127.0f));
        badScale += (*q)[1].data[r] != sc;
        for (int64_t c = 0; c < tn; ++c) {
          double want = sc == 0 ? 0.0
                                : std::fmin(std::fmax(std::nearbyint(xq.data[r * tn + c] / sc), -127.0),
                                            127.0);
          badQ += (*q)[0].data[r * tn + c] != want;
        }
      }
      expect(shapes && badScale == 0, "per-token scales are f16(max|x| * fl32(1/127)), " +
                                          std::to_string(badScale) + " wrong");
      expect(shapes && badQ == 0, "per-token q = clamp(rint(x / scale)), 0 for a zero scale, " +
                                      std::to_string(badQ) + " wrong");
    } else {
      llvm::consumeError(q.takeError());
    }
  }
  // LayerNorm with streaming forced: mean and variance come from one
  // Welford (count, mean, M2) reduction (FuseReductions); on rows with a
  // large mean (1000 + N(0, 2)) it must give the two-pass result. The
  // per-row sum is an f32 result (rounded: ulp(4e6) / N ~ 6e-5 on the
  // mean), hence errors relative to max(|y|, 1) of ~1e-4; a variance from
  // sum(x^2) - N mean^2 would be off by ~10 %.
  {
    std::string ln = rowProgram(examples + "/layer_norm.mlir", m, n, "f32", "always");
    expect(ln.find("rk.reduce add") == std::string::npos,
           "layer_norm streamed has no plain sum left (one Welford reduction)");
    rkc::HostTensor xl{{m, n}, std::vector<double>(m * n)}, w{{n}, std::vector<double>(n)},
        b{{n}, std::vector<double>(n)};
    for (double &v : xl.data)
      v = rkc::roundTo(1000.0 + normal(rng), "f32");
    for (double &v : w.data)
      v = rkc::roundTo(normal(rng), "f32");
    for (double &v : b.data)
      v = rkc::roundTo(normal(rng), "f32");
    auto y = rkc::evaluateRowProgram(ln, {xl, w, b});
    expect((bool)y, "layer_norm (Welford) evaluates");
    if (y) {
      double worst = 0;
      for (int64_t r = 0; r < m; ++r) {
        double mean = 0, var = 0;
        for (int64_t c = 0; c < n; ++c) mean += xl.data[r * n + c];
        mean /= n;
        for (int64_t c = 0; c < n; ++c)
          var += (xl.data[r * n + c] - mean) * (xl.data[r * n + c] - mean);
        double inv = 1.0 / std::sqrt(var / n + 1e-5);
        for (int64_t c = 0; c < n; ++c) {
          double want = (xl.data[r * n + c] - mean) * inv * w.data[c] + b.data[c];
          worst = std::fmax(worst, std::fabs((*y)[0].data[r * n + c] - want) /
                                       std::fmax(std::fabs(want), 1.0));
        }
      }
      expect(worst < 5e-4, "layer_norm (Welford) matches the two-pass formula on rows of mean "
                           "1000, worst rel. error " + std::to_string(worst));
    } else {
      llvm::consumeError(y.takeError());
    }
  }
  return failures ? 1 : 0;
}
