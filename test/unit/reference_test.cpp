// The host reference interpreter (lib/Runtime/Reference.cpp) against
// direct double-precision formulas, on all rows and on a row subset, for a
// named op (softmax), a custom combiner (logsumexp) and per-token int8
// quantization (an i8 result and [T, 1] scales), and the column programs
// (rk.gemv with zero points and bias, rk.dequantize, rk.quantize with
// exact ties): `rkc run` and the tuner trust them to judge GPU results.
#include "rkc/Compile.h"
#include "rkc/Reference.h"

#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

static int failures = 0;

static void expect(bool ok, const std::string &what) {
  std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
  failures += !ok;
}

/// The rk IR of an inline spec for explicit shapes.
static std::string compileRk(const std::string &text, std::vector<std::string> shapes,
                             const char *dtype, const char *streaming = "auto") {
  rkc::CompileRequest req;
  req.specText = text;
  req.options.shapes = std::move(shapes);
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

static std::string rowProgram(const std::string &spec, int64_t m, int64_t n, const char *dtype,
                              const char *streaming = "auto") {
  auto buf = llvm::MemoryBuffer::getFile(spec);
  if (!buf) {
    std::printf("FAIL: cannot read %s\n", spec.c_str());
    std::exit(1);
  }
  return compileRk((*buf)->getBuffer().str(),
                   {"x=" + std::to_string(m) + "x" + std::to_string(n)}, dtype, streaming);
}

static const char *kGemvAsymBias = R"(
func.func @g(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
    %q: tensor<?x?xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>> {rk.name = "q"},
    %s: tensor<?x?xf16> {rk.name = "scales"}, %z: tensor<?x?xf16> {rk.name = "zeros"},
    %b: tensor<?x!rk.dtype> {rk.name = "bias"}) -> tensor<?x?x!rk.dtype> {
  %o = rk.gemv %x, %q, %s zeros %z bias %b
      : (tensor<?x?x!rk.dtype>,
         tensor<?x?xi4, #rk.quant<bits = 4, group_size = 32, axis = 0, scale = f16, symmetric = false, packing = k8>>,
         tensor<?x?xf16>, tensor<?x?xf16>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %o : tensor<?x?x!rk.dtype>
})";

static const char *kDequantInt8 = R"(
func.func @d(%q: tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = bf16, symmetric = true, packing = k4>> {rk.name = "q"},
    %s: tensor<?x?xbf16> {rk.name = "scales"}) -> tensor<?x?x!rk.dtype> {
  %w = rk.dequantize %q, %s
      : (tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = bf16, symmetric = true, packing = k4>>,
         tensor<?x?xbf16>) -> tensor<?x?x!rk.dtype>
  return %w : tensor<?x?x!rk.dtype>
})";

// The results returned in the other order than rk.quantize's.
static const char *kQuantInt4 = R"(
func.func @qz(%w: tensor<?x?x!rk.dtype> {rk.name = "w"})
    -> (tensor<?x?xf16>, tensor<?x?xi4, #rk.quant<bits = 4, group_size = 8, axis = 0, scale = f16, symmetric = true, packing = k8>>) {
  %q, %s = rk.quantize %w : (tensor<?x?x!rk.dtype>)
      -> (tensor<?x?xi4, #rk.quant<bits = 4, group_size = 8, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<?x?xf16>)
  return %s, %q : tensor<?x?xf16>, tensor<?x?xi4, #rk.quant<bits = 4, group_size = 8, axis = 0, scale = f16, symmetric = true, packing = k8>>
})";

static void columnPrograms(std::mt19937_64 &rng) {
  using Role = rkc::ColumnArgument::Role;
  std::normal_distribution<double> normal(0.0, 1.0);
  // GEMV, asymmetric int4 in groups of 32 with bias: the naive per-element
  // sum of x * scale * (q - zero), rounded to f16.
  {
    const int64_t M = 3, K = 64, N = 5, G = 32;
    std::string ir = compileRk(kGemvAsymBias,
                               {"x=3x64", "q=64x5", "scales=2x5", "zeros=2x5", "bias=5"}, "f16");
    auto roles = rkc::columnArguments(ir);
    bool rolesOk = roles && roles->size() == 6 && (*roles)[0].role == Role::Activations &&
                   (*roles)[1].role == Role::Quantized && (*roles)[1].bits == 4 &&
                   !(*roles)[1].symmetric && (*roles)[2].role == Role::Scales &&
                   (*roles)[3].role == Role::Zeros && (*roles)[4].role == Role::Bias &&
                   (*roles)[5].role == Role::Float;
    if (!roles)
      llvm::consumeError(roles.takeError());
    expect(rolesOk, "gemv's arguments: activations, quantized (int4, asymmetric), scales, "
                    "zeros, bias; result");
    rkc::HostTensor x{{M, K}, {}}, q{{K, N}, {}}, sc{{K / G, N}, {}}, z{{K / G, N}, {}},
        b{{N}, {}};
    for (int64_t i = 0; i < M * K; ++i) x.data.push_back(rkc::roundTo(normal(rng), "f16"));
    for (int64_t i = 0; i < K * N; ++i) q.data.push_back((double)(rng() % 16));
    for (int64_t i = 0; i < K / G * N; ++i) {
      sc.data.push_back(rkc::roundTo(0.01 + 0.05 * std::fabs(normal(rng)), "f16"));
      z.data.push_back((double)(rng() % 16));
    }
    for (int64_t i = 0; i < N; ++i) b.data.push_back(rkc::roundTo(normal(rng), "f16"));
    auto out = rkc::evaluateColumnProgram(ir, {x, q, sc, z, b});
    expect((bool)out && out->size() == 1 && (*out)[0].shape == std::vector<int64_t>{M, N},
           "gemv evaluates to [M, N]");
    int64_t bad = 0;
    for (int64_t m = 0; out && m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double want = b.data[n];
        for (int64_t k = 0; k < K; ++k)
          want += x.data[m * K + k] * sc.data[(k / G) * N + n] *
                  (q.data[k * N + n] - z.data[(k / G) * N + n]);
        bad += (*out)[0].data[m * N + n] != rkc::roundTo(want, "f16");
      }
    if (!out)
      llvm::consumeError(out.takeError());
    expect(out && bad == 0, "gemv = f16(bias + sum x * scale * (q - zero)), " +
                                std::to_string(bad) + " wrong");
  }
  // Dequantize, int8 with one bf16 scale per column, to f32.
  {
    const int64_t K = 16, N = 3;
    std::string ir = compileRk(kDequantInt8, {"q=16x3", "scales=1x3"}, "f32");
    rkc::HostTensor q{{K, N}, {}}, sc{{1, N}, {0.5, 0.0078125, 3.0}};
    for (int64_t i = 0; i < K * N; ++i) q.data.push_back((double)((int64_t)(rng() % 255) - 127));
    auto out = rkc::evaluateColumnProgram(ir, {q, sc});
    int64_t bad = 0;
    for (int64_t i = 0; out && i < K * N; ++i)
      bad += (*out)[0].data[i] != sc.data[i % N] * q.data[i];
    if (!out)
      llvm::consumeError(out.takeError());
    expect(out && bad == 0, "dequantize int8 = scale[n] * q, " + std::to_string(bad) + " wrong");
  }
  // Quantize, symmetric int4 in groups of 8, results returned as (scales,
  // q): a group of absmax 7 has scale f16(7 * fl32(1/7)) = 1, so 2.5, 3.5,
  // -0.5 and -2.5 are exact ties (half to even: 2, 4, 0, -2); a zero group
  // gives scale 0 and q 0.
  {
    std::string ir = compileRk(kQuantInt4, {"w=16x1"}, "f32");
    auto roles = rkc::columnArguments(ir);
    bool rolesOk = roles && roles->size() == 3 && (*roles)[0].role == Role::Float &&
                   (*roles)[1].role == Role::Scales && (*roles)[2].role == Role::Quantized;
    if (!roles)
      llvm::consumeError(roles.takeError());
    expect(rolesOk, "quantize's arguments follow the returned order (w; scales, q)");
    rkc::HostTensor w{{16, 1}, {7, 2.5, 3.5, -0.5, -2.5, 1, 0.25, -7, 0, 0, 0, 0, 0, 0, 0, 0}};
    auto out = rkc::evaluateColumnProgram(ir, {w});
    std::vector<double> wantQ{7, 2, 4, 0, -2, 1, 0, -7, 0, 0, 0, 0, 0, 0, 0, 0};
    bool ok = out && out->size() == 2 && (*out)[0].data == std::vector<double>{1.0, 0.0} &&
              (*out)[1].data == wantQ;
    if (!out)
      llvm::consumeError(out.takeError());
    expect(ok, "quantize int4: scales (1, 0), q rounds ties to even, a zero group is 0");
  }
}

/// evaluateRowProgramInParts gives evaluateRowProgram's values exactly, for
/// programs with [N] operands (weights), [M] operands (targets), [M] and
/// several [M, N] results, in 1 to 7 parts of 7 rows (the parts' row
/// counts differ), and the default part count.
static void rowsInParts(const std::string &examples, std::mt19937_64 &rng) {
  const int64_t m = 7, n = 1000;
  std::normal_distribution<double> normal(0.0, 2.0);
  auto tensor = [&](std::vector<int64_t> shape) {
    int64_t size = 1;
    for (int64_t d : shape) size *= d;
    rkc::HostTensor t{shape, std::vector<double>(size)};
    for (double &v : t.data)
      v = rkc::roundTo(normal(rng), "bf16");
    return t;
  };
  rkc::HostTensor targets{{m}, {3, 999, -100, 0, 512, 7, 100}};
  struct Case {
    const char *spec;
    std::vector<rkc::HostTensor> inputs;
    std::vector<bool> rowIndexed;
  };
  std::vector<Case> cases = {
      {"softmax", {tensor({m, n})}, {true}},
      {"rms_norm", {tensor({m, n}), tensor({n})}, {true, false}},
      {"layer_norm", {tensor({m, n}), tensor({n}), tensor({n})}, {true, false, false}},
      {"cross_entropy", {tensor({m, n}), targets}, {true, true}},
      {"rms_norm_residual", {tensor({m, n}), tensor({n}), tensor({m, n})}, {true, false, true}},
  };
  for (const Case &c : cases) {
    std::string ir = rowProgram(examples + "/" + c.spec + ".mlir", m, n, "bf16");
    auto whole = rkc::evaluateRowProgram(ir, c.inputs);
    if (!whole) {
      expect(false, std::string(c.spec) + " evaluates: " + llvm::toString(whole.takeError()));
      continue;
    }
    for (unsigned parts : {1u, 2u, 3u, 7u, 0u}) {
      auto split = rkc::evaluateRowProgramInParts(ir, c.inputs, c.rowIndexed, parts);
      bool same = (bool)split && split->size() == whole->size();
      for (size_t k = 0; same && k < whole->size(); ++k)
        same = (*split)[k].shape == (*whole)[k].shape &&
               std::memcmp((*split)[k].data.data(), (*whole)[k].data.data(),
                           (*whole)[k].data.size() * sizeof(double)) == 0;
      if (!split)
        llvm::consumeError(split.takeError());
      expect(same, std::string(c.spec) + " in " + std::to_string(parts) +
                       " parts: the values of the whole evaluation");
    }
  }
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
  columnPrograms(rng);
  rowsInParts(examples, rng);
  return failures ? 1 : 0;
}
