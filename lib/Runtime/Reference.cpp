//===- Reference.cpp - a double-precision interpreter of row programs -----===//

#include "rkc/Reference.h"
#include "rkc/Pipeline.h"

#include "RkKernel.h"

#include "rk/RkDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Threading.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;

double rkc::roundTo(double v, const std::string &dtype) {
  if (dtype == "f32")
    return (double)(float)v;
  if (dtype == "bf16") {
    float f = (float)v;
    if (std::isnan(f))
      return f;
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    bits += 0x7fff + ((bits >> 16) & 1);
    bits &= 0xffff0000u;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  if (dtype == "f16")
    return (double)(_Float16)(float)v;
  return v;
}

namespace {

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Evaluates the scalar ops of a region block.
class ScalarEval {
public:
  llvm::DenseMap<Value, double> env;
  /// Values defined outside the region (constants hoisted to the function).
  const llvm::DenseMap<Value, double> *outer = nullptr;

  llvm::Error run(Block &block, SmallVectorImpl<double> &yields) {
    for (Operation &op : block) {
      if (isa<rk::YieldOp>(op)) {
        for (Value v : op.getOperands())
          yields.push_back(value(v));
        return llvm::Error::success();
      }
      auto r = eval(op);
      if (!r)
        return r.takeError();
      env[op.getResult(0)] = *r;
    }
    return llvm::createStringError("region without rk.yield");
  }

private:
  double in(Operation &op, unsigned i) { return value(op.getOperand(i)); }
  double value(Value v) {
    auto it = env.find(v);
    if (it != env.end())
      return it->second;
    return outer ? outer->lookup(v) : 0.0;
  }

  llvm::Expected<double> eval(Operation &op) {
    using R = llvm::Expected<double>;
    double a = op.getNumOperands() > 0 ? in(op, 0) : 0;
    double b = op.getNumOperands() > 1 ? in(op, 1) : 0;
    auto cmpf = [&](arith::CmpFPredicate p) -> double {
      bool uno = std::isnan(a) || std::isnan(b);
      using P = arith::CmpFPredicate;
      switch (p) {
      case P::OEQ: return !uno && a == b;
      case P::OGT: return !uno && a > b;
      case P::OGE: return !uno && a >= b;
      case P::OLT: return !uno && a < b;
      case P::OLE: return !uno && a <= b;
      case P::ONE: return !uno && a != b;
      case P::ORD: return !uno;
      case P::UEQ: return uno || a == b;
      case P::UGT: return uno || a > b;
      case P::UGE: return uno || a >= b;
      case P::ULT: return uno || a < b;
      case P::ULE: return uno || a <= b;
      case P::UNE: return uno || a != b;
      case P::UNO: return uno;
      case P::AlwaysTrue: return 1;
      case P::AlwaysFalse: return 0;
      }
      return 0;
    };
    auto cmpi = [&](arith::CmpIPredicate p) -> double {
      using P = arith::CmpIPredicate;
      int64_t x = (int64_t)a, y = (int64_t)b;
      switch (p) {
      case P::eq: return x == y;
      case P::ne: return x != y;
      case P::slt: return x < y;
      case P::sle: return x <= y;
      case P::sgt: return x > y;
      case P::sge: return x >= y;
      case P::ult: return (uint64_t)x < (uint64_t)y;
      case P::ule: return (uint64_t)x <= (uint64_t)y;
      case P::ugt: return (uint64_t)x > (uint64_t)y;
      case P::uge: return (uint64_t)x >= (uint64_t)y;
      }
      return 0;
    };
    double nan = std::numeric_limits<double>::quiet_NaN();
    return llvm::TypeSwitch<Operation *, R>(&op)
        .Case([&](arith::ConstantOp c) -> R {
          if (auto f = dyn_cast<FloatAttr>(c.getValue()))
            return f.getValueAsDouble();
          if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
            return (double)(i.getType().isInteger(1) ? (int64_t)i.getValue().getZExtValue()
                                                     : i.getValue().getSExtValue());
          return llvm::createStringError("unsupported constant");
        })
        .Case([&](arith::AddFOp) { return a + b; })
        .Case([&](arith::SubFOp) { return a - b; })
        .Case([&](arith::MulFOp) { return a * b; })
        .Case([&](arith::DivFOp) { return a / b; })
        .Case([&](arith::RemFOp) { return std::fmod(a, b); })
        .Case([&](arith::NegFOp) { return -a; })
        .Case([&](arith::MaximumFOp) { return (std::isnan(a) || std::isnan(b)) ? nan : std::max(a, b); })
        .Case([&](arith::MinimumFOp) { return (std::isnan(a) || std::isnan(b)) ? nan : std::min(a, b); })
        .Case([&](arith::MaxNumFOp) { return std::fmax(a, b); })
        .Case([&](arith::MinNumFOp) { return std::fmin(a, b); })
        .Case([&](arith::AddIOp) { return a + b; })
        .Case([&](arith::SubIOp) { return a - b; })
        .Case([&](arith::MulIOp) { return a * b; })
        .Case([&](arith::DivSIOp) { return (double)((int64_t)a / (int64_t)b); })
        .Case([&](arith::RemSIOp) { return (double)((int64_t)a % (int64_t)b); })
        .Case([&](arith::AndIOp) { return (double)((int64_t)a & (int64_t)b); })
        .Case([&](arith::OrIOp) { return (double)((int64_t)a | (int64_t)b); })
        .Case([&](arith::XOrIOp) { return (double)((int64_t)a ^ (int64_t)b); })
        .Case([&](arith::MaxSIOp) { return std::max(a, b); })
        .Case([&](arith::MinSIOp) { return std::min(a, b); })
        .Case([&](arith::SelectOp) { return a != 0 ? b : in(op, 2); })
        .Case([&](arith::CmpFOp c) { return cmpf(c.getPredicate()); })
        .Case([&](arith::CmpIOp c) { return cmpi(c.getPredicate()); })
        .Case([&](arith::ExtFOp) { return a; })
        .Case([&](arith::TruncFOp t) { return rkc::roundTo(a, typeName(t.getType())); })
        .Case<arith::SIToFPOp, arith::UIToFPOp, arith::IndexCastOp, arith::ExtSIOp,
              arith::ExtUIOp, arith::TruncIOp>([&](Operation *) { return a; })
        .Case([&](arith::FPToSIOp) { return std::trunc(a); })
        .Case([&](math::ExpOp) { return std::exp(a); })
        .Case([&](math::Exp2Op) { return std::exp2(a); })
        .Case([&](math::ExpM1Op) { return std::expm1(a); })
        .Case([&](math::LogOp) { return std::log(a); })
        .Case([&](math::Log2Op) { return std::log2(a); })
        .Case([&](math::Log1pOp) { return std::log1p(a); })
        .Case([&](math::SqrtOp) { return std::sqrt(a); })
        .Case([&](math::RsqrtOp) { return 1.0 / std::sqrt(a); })
        .Case([&](math::TanhOp) { return std::tanh(a); })
        .Case([&](math::ErfOp) { return std::erf(a); })
        .Case([&](math::AbsFOp) { return std::fabs(a); })
        .Case([&](math::SinOp) { return std::sin(a); })
        .Case([&](math::CosOp) { return std::cos(a); })
        .Case([&](math::TanOp) { return std::tan(a); })
        .Case([&](math::AtanOp) { return std::atan(a); })
        .Case([&](math::Atan2Op) { return std::atan2(a, b); })
        .Case([&](math::PowFOp) { return std::pow(a, b); })
        .Case([&](math::FmaOp) { return a * b + in(op, 2); })
        .Case([&](math::FloorOp) { return std::floor(a); })
        .Case([&](math::CeilOp) { return std::ceil(a); })
        .Case([&](math::RoundOp) { return std::round(a); })
        .Case([&](math::RoundEvenOp) { return std::nearbyint(a); })
        .Case([&](math::AbsIOp) { return std::fabs(a); })
        .Default([&](Operation *o) -> R {
          return llvm::createStringError("the reference interpreter does not know '" +
                                         o->getName().getStringRef().str() + "'");
        });
  }
};

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> data;
  std::string dtype;
};

} // namespace

llvm::Expected<std::unique_ptr<rkc::detail::RkKernel>>
rkc::detail::RkKernel::parse(const std::string &rkIR, llvm::StringRef what) {
  DialectRegistry registry;
  registerDialects(registry);
  auto k = std::make_unique<RkKernel>();
  k->ctx.appendDialectRegistry(registry);
  k->ctx.disableMultithreading();
  k->ctx.loadAllAvailableDialects();
  k->module = parseSourceString<ModuleOp>(rkIR, ParserConfig(&k->ctx));
  if (!k->module)
    return llvm::createStringError("reference: cannot parse the " + what.str());
  auto funcs = k->module->getOps<func::FuncOp>();
  if (funcs.empty())
    return llvm::createStringError("reference: no kernel");
  k->func = *funcs.begin();
  return k;
}

llvm::Expected<std::vector<rkc::HostTensor>>
rkc::evaluateRowProgram(const std::string &rkIR, const std::vector<HostTensor> &inputs) {
  auto parsed = detail::RkKernel::parse(rkIR, "row program");
  if (!parsed)
    return parsed.takeError();
  func::FuncOp func = (*parsed)->func;
  if (func.getNumArguments() != inputs.size())
    return llvm::createStringError("reference: wrong number of inputs");

  llvm::DenseMap<Value, Tensor> tensors;
  llvm::DenseMap<Value, double> scalars;
  // The run-time row count (the inputs may hold fewer rows than the
  // program's static M: the tuner checks the first 64).
  int64_t rows = -1;
  for (auto [arg, in] : llvm::zip(func.getArguments(), inputs)) {
    auto t = cast<RankedTensorType>(arg.getType());
    tensors[arg] = Tensor{in.shape, in.data, typeName(t.getElementType())};
    if (rows < 0 && t.getRank() == 2 && !in.shape.empty())
      rows = in.shape[0];
  }
  auto elemName = [](Value v) {
    return typeName(cast<RankedTensorType>(v.getType()).getElementType());
  };
  auto shapeOf = [](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
  };

  for (Operation &op : func.getBody().front()) {
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      if (auto f = dyn_cast<FloatAttr>(c.getValue()))
        scalars[c] = f.getValueAsDouble();
      else if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        scalars[c] = (double)i.getValue().getSExtValue();
      continue;
    }
    if (auto bc = dyn_cast<rk::BroadcastOp>(op)) {
      const Tensor &src = tensors[bc.getInput()];
      std::vector<int64_t> shape = shapeOf(bc.getResult());
      ArrayRef<int64_t> dims = bc.getDims();
      // A row vector broadcast over the rows ([N] -> [M, N]) takes the
      // run-time row count, not the static M.
      if (shape.size() == 2 && rows > 0 && !llvm::is_contained(dims, 0))
        shape[0] = rows;
      for (size_t k = 0; k < dims.size(); ++k)
        shape[dims[k]] = src.shape[k]; // the operand's run-time sizes
      Tensor out{shape, std::vector<double>(numel(shape)), src.dtype};
      std::vector<int64_t> idx(shape.size());
      for (int64_t i = 0; i < numel(shape); ++i) {
        // Unravel i over the result, pick the operand's dims.
        int64_t rem = i, srcIdx = 0;
        for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
          idx[d] = rem % shape[d];
          rem /= shape[d];
        }
        for (size_t k = 0; k < dims.size(); ++k)
          srcIdx = srcIdx * src.shape[k] + idx[dims[k]];
        out.data[i] = src.data[srcIdx];
      }
      tensors[bc.getResult()] = std::move(out);
      continue;
    }
    if (auto g = dyn_cast<rk::GatherOp>(op)) {
      const Tensor &x = tensors[g.getInput()];
      const Tensor &idx = tensors[g.getIndex()];
      int64_t m = x.shape[0], n = x.shape[1];
      Tensor out{{m}, std::vector<double>(m), x.dtype};
      for (int64_t r = 0; r < m; ++r) {
        int64_t c = (int64_t)idx.data[r];
        out.data[r] = (c >= 0 && c < n) ? x.data[r * n + c] : 0.0;
      }
      tensors[g.getResult()] = std::move(out);
      continue;
    }
    if (auto map = dyn_cast<rk::MapOp>(op)) {
      std::vector<int64_t> shape = shapeOf(map.getResult(0));
      for (Value o : map.getOperands_())
        if (isa<RankedTensorType>(o.getType())) {
          shape = tensors[o].shape; // the run-time shape (maybe fewer rows)
          break;
        }
      int64_t n = numel(shape);
      std::vector<Tensor> outs;
      // The f32 values of a quantized integer result are rounded half to
      // even and saturated to the integer type, NaN to its lowest value (the
      // kernel's store does it).
      std::vector<std::optional<std::pair<int64_t, int64_t>>> ranges;
      for (Value r : map.getResults()) {
        outs.push_back(Tensor{shape, std::vector<double>(n), elemName(r)});
        ranges.push_back(rk::quantizedRange(r.getType()));
      }
      Block &block = map.getBody().front();
      ScalarEval e;
      e.outer = &scalars;
      for (int64_t i = 0; i < n; ++i) {
        for (auto [arg, operand] : llvm::zip(block.getArguments(), map.getOperands_())) {
          if (isa<RankedTensorType>(operand.getType()))
            e.env[arg] = tensors[operand].data[i];
          else
            e.env[arg] = scalars.lookup(operand);
        }
        SmallVector<double> ys;
        if (llvm::Error err = e.run(block, ys))
          return std::move(err);
        for (size_t k = 0; k < outs.size(); ++k) {
          double y = ys[k];
          if (ranges[k])
            y = std::isnan(y) ? (double)ranges[k]->first
                              : std::fmin(std::fmax(std::nearbyint(y), (double)ranges[k]->first),
                                          (double)ranges[k]->second);
          outs[k].data[i] = roundTo(y, outs[k].dtype);
        }
      }
      for (auto [r, t] : llvm::zip(map.getResults(), outs))
        tensors[r] = std::move(t);
      continue;
    }
    if (auto red = dyn_cast<rk::ReduceOp>(op)) {
      std::vector<int64_t> shape = tensors[red.getInputs()[0]].shape;
      int64_t m = shape[0], n = shape[1];
      size_t k = red.getInputs().size();
      std::vector<Tensor> outs;
      for (Value r : red.getResults())
        outs.push_back(Tensor{{m}, std::vector<double>(m), elemName(r)});
      for (int64_t row = 0; row < m; ++row) {
        if (auto kind = red.getKind()) {
          const std::vector<double> &x = tensors[red.getInputs()[0]].data;
          double acc = 0;
          int64_t arg = 0;
          switch (*kind) {
          case rk::ReduceKind::add:
            acc = 0;
            for (int64_t c = 0; c < n; ++c) acc += x[row * n + c];
            break;
          case rk::ReduceKind::mul:
            acc = 1;
            for (int64_t c = 0; c < n; ++c) acc *= x[row * n + c];
            break;
          case rk::ReduceKind::max:
          case rk::ReduceKind::argmax:
          case rk::ReduceKind::min:
          case rk::ReduceKind::argmin: {
            bool isMax = *kind == rk::ReduceKind::max || *kind == rk::ReduceKind::argmax;
            acc = x[row * n];
            for (int64_t c = 1; c < n; ++c) {
              double v = x[row * n + c];
              if (std::isnan(acc))
                break;
              if (std::isnan(v) || (isMax ? v > acc : v < acc)) {
                acc = v;
                arg = c;
              }
            }
            break;
          }
          }
          outs[0].data[row] = roundTo(acc, outs[0].dtype);
          if (outs.size() > 1)
            outs[1].data[row] = (double)arg;
          continue;
        }
        // A custom combiner: fold the element states from init, in order.
        Block &block = red.getCombiner().front();
        SmallVector<double> state;
        ArrayAttr init = *red.getInit(); // not a range over a temporary
        for (Attribute a : init)
          state.push_back(isa<FloatAttr>(a) ? cast<FloatAttr>(a).getValueAsDouble()
                                            : (double)cast<IntegerAttr>(a).getInt());
        ScalarEval e;
        e.outer = &scalars;
        for (int64_t c = 0; c < n; ++c) {
          for (size_t j = 0; j < k; ++j) {
            e.env[block.getArgument(j)] = state[j];
            e.env[block.getArgument(k + j)] = tensors[red.getInputs()[j]].data[row * n + c];
          }
          SmallVector<double> ys;
          if (llvm::Error err = e.run(block, ys))
            return std::move(err);
          state.assign(ys.begin(), ys.end());
        }
        for (size_t j = 0; j < k; ++j)
          outs[j].data[row] = roundTo(state[j], outs[j].dtype);
      }
      for (auto [r, t] : llvm::zip(red.getResults(), outs))
        tensors[r] = std::move(t);
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      std::vector<HostTensor> results;
      for (Value v : ret.getOperands()) {
        const Tensor &t = tensors[v];
        results.push_back(HostTensor{t.shape, t.data});
      }
      return results;
    }
    return llvm::createStringError("the reference interpreter does not know '" +
                                   op.getName().getStringRef().str() + "'");
  }
  return llvm::createStringError("reference: kernel without return");
}

llvm::Expected<std::vector<rkc::HostTensor>>
rkc::evaluateRowProgramInParts(const std::string &rkIR, const std::vector<HostTensor> &inputs,
                               const std::vector<bool> &rowIndexed, unsigned parts) {
  int64_t rows = -1;
  for (size_t i = 0; i < inputs.size() && i < rowIndexed.size(); ++i)
    if (rowIndexed[i] && !inputs[i].shape.empty()) {
      rows = inputs[i].shape[0];
      break;
    }
  if (parts == 0)
    parts = llvm::hardware_concurrency().compute_thread_count();
  if (rows < 2 || parts < 2 || rowIndexed.size() != inputs.size())
    return evaluateRowProgram(rkIR, inputs);
  int64_t n = std::min<int64_t>(parts, rows);
  // Every row-indexed input must hold `rows` rows.
  for (size_t i = 0; i < inputs.size(); ++i)
    if (rowIndexed[i] && (inputs[i].shape.empty() || inputs[i].shape[0] != rows))
      return evaluateRowProgram(rkIR, inputs);
  std::vector<std::optional<std::vector<HostTensor>>> results(n);
  std::vector<std::string> errors(n);
  llvm::parallelFor(0, (size_t)n, [&](size_t p) {
    int64_t r0 = rows * (int64_t)p / n, r1 = rows * (int64_t)(p + 1) / n;
    std::vector<HostTensor> part;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const HostTensor &t = inputs[i];
      if (!rowIndexed[i]) {
        part.push_back(t);
        continue;
      }
      size_t per = t.data.size() / (size_t)rows;
      HostTensor s{t.shape, std::vector<double>(t.data.begin() + r0 * per,
                                                t.data.begin() + r1 * per)};
      s.shape[0] = r1 - r0;
      part.push_back(std::move(s));
    }
    auto out = evaluateRowProgram(rkIR, part);
    if (out)
      results[p] = std::move(*out);
    else
      errors[p] = llvm::toString(out.takeError());
  });
  for (const std::string &e : errors)
    if (!e.empty())
      return llvm::createStringError(e);
  // Concatenate the parts' results; each must be indexed by row.
  for (int64_t p = 0; p < n; ++p) {
    int64_t partRows = rows * (p + 1) / n - rows * p / n;
    if (results[p]->size() != results[0]->size())
      return evaluateRowProgram(rkIR, inputs);
    for (const HostTensor &t : *results[p])
      if (t.shape.empty() || t.shape[0] != partRows)
        return evaluateRowProgram(rkIR, inputs);
  }
  std::vector<HostTensor> whole = std::move(*results[0]);
  for (size_t k = 0; k < whole.size(); ++k) {
    whole[k].shape[0] = rows;
    for (int64_t p = 1; p < n; ++p) {
      const std::vector<double> &d = (*results[p])[k].data;
      whole[k].data.insert(whole[k].data.end(), d.begin(), d.end());
    }
  }
  return whole;
}
