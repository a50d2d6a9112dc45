//===- ColumnReference.cpp - the host reference of column programs --------===//
//
// rk.gemv, rk.dequantize and rk.quantize along K of a [K, N] tensor, in
// double precision on the logical values (quantized tensors as integers,
// not packed words), following docs/quantization.md rule by rule: the
// quantizer's arithmetic in float32 with round-half-even, dequantized
// values rounded to float32 then to the output type, GEMV results rounded
// to the output type. `rkc run` and the tuner judge GPU results with it.
//
//===----------------------------------------------------------------------===//

#include "rkc/Reference.h"

#include "RkKernel.h"

#include "rk/RkDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using rkc::ColumnArgument;
using rkc::HostTensor;

namespace {

std::string elemName(Value v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << cast<RankedTensorType>(v.getType()).getElementType();
  return s;
}

rk::QuantAttr quantOf(Value v) {
  return dyn_cast_or_null<rk::QuantAttr>(cast<RankedTensorType>(v.getType()).getEncoding());
}

ColumnArgument quantized(Value v) {
  ColumnArgument a;
  a.role = ColumnArgument::Role::Quantized;
  if (auto q = quantOf(v)) {
    a.bits = (int)q.getBits();
    a.symmetric = q.getSymmetric();
  }
  return a;
}

ColumnArgument withRole(ColumnArgument::Role r) {
  ColumnArgument a;
  a.role = r;
  return a;
}

/// The parsed kernel and its one quantized op (null: a row program).
struct Parsed {
  std::unique_ptr<rkc::detail::RkKernel> kernel;
  Operation *op = nullptr;

  func::FuncOp func() const { return kernel->func; }

  static llvm::Expected<std::unique_ptr<Parsed>> parse(const std::string &rkIR) {
    auto k = rkc::detail::RkKernel::parse(rkIR, "column program");
    if (!k)
      return k.takeError();
    auto p = std::make_unique<Parsed>();
    p->kernel = std::move(*k);
    p->func().walk([&](Operation *op) {
      if (isa<rk::GemvOp, rk::DequantizeOp, rk::QuantizeOp>(op))
        p->op = op;
    });
    return p;
  }

  /// The op's results in the order the function returns them (the
  /// kernel's output arguments).
  template <typename T> std::vector<T> inReturnOrder(std::vector<T> perResult) {
    std::vector<T> out;
    auto ret = cast<func::ReturnOp>(func().getBody().front().getTerminator());
    for (Value v : ret.getOperands())
      if (auto r = dyn_cast<OpResult>(v); r && r.getOwner() == op)
        out.push_back(perResult[r.getResultNumber()]);
    return out;
  }

  /// The function argument index of `v`.
  unsigned argIndex(Value v) const { return cast<BlockArgument>(v).getArgNumber(); }
};

int64_t groupOf(rk::QuantAttr q, int64_t k) {
  int64_t g = q ? q.getGroupSize() : 0;
  return g > 0 ? g : k;
}

/// dequant(q)[k, n] for `op`'s operands: scale x (q - zero), exact in double.
struct Dequant {
  const HostTensor &q, &s;
  const HostTensor *z;
  int64_t group, n;
  /// Columns [c0, c0 + len) of row k into `out`.
  void row(int64_t k, int64_t c0, int64_t len, double *out) const {
    const double *qr = &q.data[k * n + c0], *sr = &s.data[(k / group) * n + c0];
    const double *zr = z ? &z->data[(k / group) * n + c0] : nullptr;
    for (int64_t j = 0; j < len; ++j)
      out[j] = sr[j] * (qr[j] - (zr ? zr[j] : 0.0));
  }
};

llvm::Expected<std::vector<HostTensor>> gemv(Parsed &P, rk::GemvOp op,
                                             const std::vector<HostTensor> &in) {
  const HostTensor &x = in[P.argIndex(op.getAct())];
  const HostTensor &q = in[P.argIndex(op.getWeight())];
  const HostTensor &s = in[P.argIndex(op.getScales())];
  const HostTensor *z = op.getZeros() ? &in[P.argIndex(op.getZeros())] : nullptr;
  const HostTensor *bias = op.getBias() ? &in[P.argIndex(op.getBias())] : nullptr;
  if (x.shape.size() != 2 || q.shape.size() != 2 || x.shape[1] != q.shape[0])
    return llvm::createStringError("reference: rk.gemv needs x [M, K] and q [K, N]");
  int64_t m = x.shape[0], k = q.shape[0], n = q.shape[1];
  Dequant w{q, s, z, groupOf(quantOf(op.getWeight()), k), n};
  std::string dtype = elemName(op.getResult());
  HostTensor out{{m, n}, std::vector<double>(m * n)};
  // Column chunks on LLVM's thread pool; rows of K streamed in order.
  const int64_t chunk = 256;
  llvm::parallelFor(0, (n + chunk - 1) / chunk, [&](size_t c) {
    int64_t c0 = (int64_t)c * chunk, c1 = std::min(n, c0 + chunk), len = c1 - c0;
    std::vector<double> acc(m * len, 0.0), row(len);
    for (int64_t kk = 0; kk < k; ++kk) {
      w.row(kk, c0, len, row.data());
      for (int64_t r = 0; r < m; ++r) {
        double xv = x.data[r * k + kk];
        double *a = &acc[r * len];
        for (int64_t j = 0; j < len; ++j)
          a[j] += xv * row[j];
      }
    }
    for (int64_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < len; ++j)
        out.data[r * n + c0 + j] =
            rkc::roundTo(acc[r * len + j] + (bias ? bias->data[c0 + j] : 0.0), dtype);
  });
  return std::vector<HostTensor>{std::move(out)};
}

llvm::Expected<std::vector<HostTensor>> dequantize(Parsed &P, rk::DequantizeOp op,
                                                   const std::vector<HostTensor> &in) {
  const HostTensor &q = in[P.argIndex(op.getQuantized())];
  const HostTensor &s = in[P.argIndex(op.getScales())];
  const HostTensor *z = op.getZeros() ? &in[P.argIndex(op.getZeros())] : nullptr;
  if (q.shape.size() != 2)
    return llvm::createStringError("reference: rk.dequantize needs q [K, N]");
  int64_t k = q.shape[0], n = q.shape[1];
  Dequant w{q, s, z, groupOf(quantOf(op.getQuantized()), k), n};
  std::string dtype = elemName(op.getResult());
  HostTensor out{{k, n}, std::vector<double>(k * n)};
  for (int64_t kk = 0; kk < k; ++kk)
    w.row(kk, 0, n, &out.data[kk * n]);
  for (double &v : out.data)
    v = rkc::roundTo(rkc::roundTo(v, "f32"), dtype);
  return std::vector<HostTensor>{std::move(out)};
}

/// docs/quantization.md, "Quantization (exact rules)": float32 arithmetic,
/// round half to even.
llvm::Expected<std::vector<HostTensor>> quantize(Parsed &P, rk::QuantizeOp op,
                                                 const std::vector<HostTensor> &in) {
  const HostTensor &x = in[P.argIndex(op.getInput())];
  if (x.shape.size() != 2)
    return llvm::createStringError("reference: rk.quantize needs w [K, N]");
  rk::QuantAttr qa = quantOf(op.getQuantized());
  if (!qa)
    return llvm::createStringError("reference: the quantized result has no #rk.quant");
  int64_t k = x.shape[0], n = x.shape[1], group = groupOf(qa, k), groups = k / group;
  bool sym = qa.getSymmetric();
  float qmax = sym ? (qa.getBits() == 8 ? 127.f : 7.f) : 15.f;
  float r = 1.0f / qmax;
  std::string st = elemName(op.getScales());
  HostTensor q{{k, n}, std::vector<double>(k * n)};
  HostTensor s{{groups, n}, std::vector<double>(groups * n)};
  HostTensor z{{groups, n}, std::vector<double>(groups * n)};
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t c = 0; c < n; ++c) {
      float lo = 0, hi = 0, amax = 0;
      for (int64_t kk = g * group; kk < (g + 1) * group; ++kk) {
        float v = (float)x.data[kk * n + c];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        amax = std::max(amax, std::fabs(v));
      }
      float scale = (float)rkc::roundTo((double)((sym ? amax : hi - lo) * r), st);
      float zero = 0;
      if (!sym && scale != 0)
        zero = std::clamp(std::nearbyint(-lo / scale), 0.f, 15.f);
      s.data[g * n + c] = scale;
      z.data[g * n + c] = zero;
      for (int64_t kk = g * group; kk < (g + 1) * group; ++kk) {
        float v = (float)x.data[kk * n + c], out;
        if (scale == 0)
          out = zero;
        else if (sym)
          out = std::clamp(std::nearbyint(v / scale), -qmax, qmax);
        else
          out = std::clamp(std::nearbyint(v / scale) + zero, 0.f, 15.f);
        q.data[kk * n + c] = out;
      }
    }
  std::vector<HostTensor> res{std::move(q), std::move(s)};
  if (op.getZeros())
    res.push_back(std::move(z));
  return res; // per result of the op
}

} // namespace

llvm::Expected<std::vector<ColumnArgument>>
rkc::columnArguments(const std::string &rkIR) {
  auto parsed = Parsed::parse(rkIR);
  if (!parsed)
    return parsed.takeError();
  Parsed &P = **parsed;
  std::vector<ColumnArgument> args;
  if (!P.op)
    return args;
  args.assign(P.func().getNumArguments(), ColumnArgument{});
  auto set = [&](Value v, ColumnArgument a) {
    if (v && isa<BlockArgument>(v))
      args[P.argIndex(v)] = a;
  };
  using R = ColumnArgument::Role;
  std::vector<ColumnArgument> results; // per result of the op
  if (auto g = dyn_cast<rk::GemvOp>(P.op)) {
    set(g.getAct(), withRole(R::Activations));
    set(g.getWeight(), quantized(g.getWeight()));
    set(g.getScales(), withRole(R::Scales));
    set(g.getZeros(), withRole(R::Zeros));
    set(g.getBias(), withRole(R::Bias));
    results = {withRole(R::Float)};
  } else if (auto d = dyn_cast<rk::DequantizeOp>(P.op)) {
    set(d.getQuantized(), quantized(d.getQuantized()));
    set(d.getScales(), withRole(R::Scales));
    set(d.getZeros(), withRole(R::Zeros));
    results = {withRole(R::Float)};
  } else {
    auto qo = cast<rk::QuantizeOp>(P.op);
    set(qo.getInput(), withRole(R::Float));
    results = {quantized(qo.getQuantized()), withRole(R::Scales), withRole(R::Zeros)};
  }
  for (const ColumnArgument &a : P.inReturnOrder(results))
    args.push_back(a);
  return args;
}

llvm::Expected<std::vector<HostTensor>>
rkc::evaluateColumnProgram(const std::string &rkIR, const std::vector<HostTensor> &inputs) {
  auto parsed = Parsed::parse(rkIR);
  if (!parsed)
    return parsed.takeError();
  Parsed &P = **parsed;
  if (!P.op)
    return llvm::createStringError("reference: not a column program");
  if (P.func().getNumArguments() != inputs.size())
    return llvm::createStringError(
        llvm::formatv("reference: {0} inputs for {1} arguments", inputs.size(),
                      P.func().getNumArguments())
            .str());
  llvm::Expected<std::vector<HostTensor>> res =
      isa<rk::GemvOp>(P.op)         ? gemv(P, cast<rk::GemvOp>(P.op), inputs)
      : isa<rk::DequantizeOp>(P.op) ? dequantize(P, cast<rk::DequantizeOp>(P.op), inputs)
                                    : quantize(P, cast<rk::QuantizeOp>(P.op), inputs);
  if (!res)
    return res.takeError();
  return P.inReturnOrder(std::move(*res));
}
