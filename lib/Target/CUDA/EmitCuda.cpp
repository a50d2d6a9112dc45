//===- EmitCuda.cpp - tier kernels to CUDA C++ ----------------------------===//
//
// One CUDA kernel per planned function. The kernel body is generated from
// the tier ops: every region op becomes one C++ statement; the device
// templates (templates/rkc) only provide primitives: vector copies,
// per-tier reductions, cluster operations and conversions.
//
//===----------------------------------------------------------------------===//

#include "rkc/Target/CudaEmitter.h"

#include "KernelEmitter.h"

#include "rk/RkDialect.h"
#include "tier/TierDialect.h"
#include "rkc/Plan/KSplitPlan.h"
#include "rkc/Plan/RowPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>

using namespace mlir;
using llvm::formatv;

namespace rkc::emitter {

/// The planner's name for a tier staging (tier::Staging mirrors it).
static ::rkc::plan::Staging planStaging(tier::Staging s) {
  switch (s) {
  case tier::Staging::registers: return ::rkc::plan::Staging::Registers;
  case tier::Staging::smem: return ::rkc::plan::Staging::Smem;
  case tier::Staging::stream: return ::rkc::plan::Staging::Stream;
  case tier::Staging::async: return ::rkc::plan::Staging::Async;
  }
  return ::rkc::plan::Staging::Registers;
}


/// [N] operand bytes from which they are loaded with an L2 evict-last
/// policy (see the tier.load emission).
static constexpr int64_t kKeepRowOperandBytes = 2 << 20;
/// Where a thread reduction's fold starts and ends in its emitted text
/// (streamed sweeps only; the sweep moves the fold into its pass loop and
/// drops the markers).
static constexpr const char *kFoldBegin = "  //<fold>\n";
static constexpr const char *kFoldEnd = "  //</fold>\n";
/// Whether the column of a thread's value (kValueCol) lies in the row: the
/// thread reductions' element mask.
static constexpr const char *kColInRow = "FULL_ROW || col < N";
/// Whether all of a thread's values of a shifted row (or of its pass) lie
/// in the row: its thread reductions then fold them unmasked.
static constexpr const char *kValuesInShiftedRow =
    "col0 >= 0 && col0 + (V / W - 1) * COL_STEP + W <= N";
/// Independent fold chains of a streamed sweep's thread reduction.
static constexpr int64_t kFoldChains = 4;
/// The most state words (32-bit) those chains hold together.
static constexpr int64_t kFoldStateWords = 8;

FailureOr<std::string> cType(Type t, Operation *where) {
  if (isa<Float32Type, BFloat16Type, Float16Type>(t))
    return std::string("float");
  if (t.isInteger(1))
    return std::string("bool");
  if (t.isIndex() || t.isInteger(64))
    return std::string("long long");
  if (t.isInteger(8) || t.isInteger(16) || t.isInteger(32))
    return std::string("int");
  return where->emitError() << "type " << t << " has no CUDA lowering";
}

FailureOr<std::string> storageType(Type t, Operation *where) {
  if (t.isF32()) return std::string("float");
  if (t.isBF16()) return std::string("rkc::bf16");
  if (t.isF16()) return std::string("rkc::f16");
  if (t.isInteger(64)) return std::string("long long");
  if (t.isInteger(32)) return std::string("int");
  if (t.isInteger(8)) return std::string("signed char");
  return where->emitError() << "element type " << t << " has no CUDA storage type";
}

std::string dtypeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

std::string floatLiteral(double v) {
  if (std::isnan(v)) return "__int_as_float(0x7fffffff)";
  if (std::isinf(v)) return v > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
  std::string s = formatv("{0}", llvm::format("%.9g", v)).str();
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

std::string attrLiteral(Attribute a, Operation *where, bool &ok) {
  if (auto f = dyn_cast<FloatAttr>(a))
    return floatLiteral(f.getValueAsDouble());
  if (auto i = dyn_cast<IntegerAttr>(a)) {
    if (i.getType().isInteger(1))
      return i.getValue().isZero() ? "false" : "true";
    return formatv("{0}LL", i.getValue().getSExtValue()).str();
  }
  ok = false;
  where->emitError() << "unsupported constant " << a;
  return "";
}


/// Whether `frag` is a map's f32 result that its body clamps into [-128,
/// 127] (maxnumf then minnumf with constant bounds, either order): never
/// NaN, so its int8 store needs no saturation.
static bool clampedToInt8(Value frag) {
  auto m = frag.getDefiningOp<tier::MapOp>();
  if (!m)
    return false;
  auto ft = dyn_cast<tier::FragType>(frag.getType());
  if (!ft || !ft.getElementType().isF32())
    return false;
  Value y = m.getBody().front().getTerminator()->getOperand(
      cast<OpResult>(frag).getResultNumber());
  auto bound = [](Value c, double &v) {
    auto k = c.getDefiningOp<arith::ConstantOp>();
    auto f = k ? dyn_cast<FloatAttr>(k.getValue()) : nullptr;
    if (!f)
      return false;
    v = f.getValueAsDouble();
    return v >= -128.0 && v <= 127.0;
  };
  double lo, hi;
  if (auto mn = y.getDefiningOp<arith::MinNumFOp>()) {
    auto mx = mn.getLhs().getDefiningOp<arith::MaxNumFOp>();
    return mx && bound(mn.getRhs(), hi) && bound(mx.getRhs(), lo);
  }
  if (auto mx = y.getDefiningOp<arith::MaxNumFOp>()) {
    auto mn = mx.getLhs().getDefiningOp<arith::MinNumFOp>();
    return mn && bound(mx.getRhs(), lo) && bound(mn.getRhs(), hi);
  }
  return false;
}

FailureOr<std::string> KernelEmitter::expr(Operation &op) {
  auto n = [&](unsigned i) { return names.lookup(op.getOperand(i)); };
  auto bin = [&](StringRef o) { return formatv("({0} {1} {2})", n(0), o, n(1)).str(); };
  auto call = [&](StringRef f) {
    std::string s = f.str() + "(";
    for (unsigned i = 0; i < op.getNumOperands(); ++i)
      s += (i ? ", " : "") + n(i);
    return s + ")";
  };
  auto cast = [&](Type t) -> FailureOr<std::string> {
    auto ct = cType(t, &op);
    if (failed(ct)) return failure();
    return formatv("(({0}){1})", *ct, n(0)).str();
  };
  using R = FailureOr<std::string>;
  return llvm::TypeSwitch<Operation *, R>(&op)
      .Case([&](arith::ConstantOp c) -> R {
        bool ok = true;
        std::string s = attrLiteral(c.getValue(), &op, ok);
        if (!ok) return failure();
        return s;
      })
      .Case([&](arith::AddFOp) { return bin("+"); })
      .Case([&](arith::SubFOp) { return bin("-"); })
      .Case([&](arith::MulFOp) { return bin("*"); })
      .Case([&](arith::DivFOp d) {
        // fastmath<afn> on an f32 division: the approximate one (2 ulp,
        // no slow path; 0 for divisors beyond 2^126 in magnitude).
        if (d.getType().isF32() &&
            arith::bitEnumContainsAll(d.getFastmath(), arith::FastMathFlags::afn))
          return call("__fdividef");
        // 16-bit data (fastMath), a fragment's values over a divisor that
        // is the same for all of them (a per-row scalar: softmax's sum
        // written as a division): a multiply by its reciprocal, which
        // ptxas computes once (1.5 ulp of f32 against 0.5, far below the
        // storage precision), instead of an IEEE division with its slow
        // path per value. Measured on the H100 (docs/performance-notes.md,
        // session 22).
        // Not in a kernel that rounds floats to integers (quantization:
        // round(x / scale) must equal the reference quantizer's exactly).
        if (fastMath && !roundsToIntegers && d.getType().isF32() &&
            uniformValues.contains(d.getRhs()) && !uniformValues.contains(d.getLhs()))
          return formatv("({0} * (1.0f / {1}))", n(0), n(1)).str();
        return bin("/");
      })
      .Case([&](arith::RemFOp) { return call("fmodf"); })
      .Case([&](arith::NegFOp) { return "(-" + n(0) + ")"; })
      .Case([&](arith::MaximumFOp) { return call("rkc::maximumf"); })
      .Case([&](arith::MinimumFOp) { return call("rkc::minimumf"); })
      .Case([&](arith::MaxNumFOp) { return call("fmaxf"); })
      .Case([&](arith::MinNumFOp) { return call("fminf"); })
      .Case([&](arith::AddIOp) { return bin("+"); })
      .Case([&](arith::SubIOp) { return bin("-"); })
      .Case([&](arith::MulIOp) { return bin("*"); })
      .Case([&](arith::DivSIOp) { return bin("/"); })
      .Case([&](arith::RemSIOp) { return bin("%"); })
      .Case([&](arith::AndIOp) { return bin("&"); })
      .Case([&](arith::OrIOp) { return bin("|"); })
      .Case([&](arith::XOrIOp) { return bin("^"); })
      .Case([&](arith::ShLIOp) { return bin("<<"); })
      .Case([&](arith::ShRSIOp) { return bin(">>"); })
      .Case([&](arith::MaxSIOp) { return formatv("({0} > {1} ? {0} : {1})", n(0), n(1)).str(); })
      .Case([&](arith::MinSIOp) { return formatv("({0} < {1} ? {0} : {1})", n(0), n(1)).str(); })
      .Case([&](arith::SelectOp) { return formatv("({0} ? {1} : {2})", n(0), n(1), n(2)).str(); })
      .Case([&](arith::CmpFOp c) -> R {
        std::string a = n(0), b = n(1);
        using P = arith::CmpFPredicate;
        switch (c.getPredicate()) {
        case P::OEQ: return formatv("({0} == {1})", a, b).str();
        case P::OGT: return formatv("({0} > {1})", a, b).str();
        case P::OGE: return formatv("({0} >= {1})", a, b).str();
        case P::OLT: return formatv("({0} < {1})", a, b).str();
        case P::OLE: return formatv("({0} <= {1})", a, b).str();
        case P::ONE: return formatv("({0} < {1} || {0} > {1})", a, b).str();
        case P::ORD: return formatv("({0} == {0} && {1} == {1})", a, b).str();
        case P::UEQ: return formatv("!({0} < {1} || {0} > {1})", a, b).str();
        case P::UGT: return formatv("!({0} <= {1})", a, b).str();
        case P::UGE: return formatv("!({0} < {1})", a, b).str();
        case P::ULT: return formatv("!({0} >= {1})", a, b).str();
        case P::ULE: return formatv("!({0} > {1})", a, b).str();
        case P::UNE: return formatv("({0} != {1})", a, b).str();
        case P::UNO: return formatv("({0} != {0} || {1} != {1})", a, b).str();
        case P::AlwaysTrue: return std::string("true");
        case P::AlwaysFalse: return std::string("false");
        }
        return failure();
      })
      .Case([&](arith::CmpIOp c) -> R {
        using P = arith::CmpIPredicate;
        std::string a = n(0), b = n(1);
        std::string ua = "((unsigned long long)" + a + ")", ub = "((unsigned long long)" + b + ")";
        switch (c.getPredicate()) {
        case P::eq: return formatv("({0} == {1})", a, b).str();
        case P::ne: return formatv("({0} != {1})", a, b).str();
        case P::slt: return formatv("({0} < {1})", a, b).str();
        case P::sle: return formatv("({0} <= {1})", a, b).str();
        case P::sgt: return formatv("({0} > {1})", a, b).str();
        case P::sge: return formatv("({0} >= {1})", a, b).str();
        case P::ult: return formatv("({0} < {1})", ua, ub).str();
        case P::ule: return formatv("({0} <= {1})", ua, ub).str();
        case P::ugt: return formatv("({0} > {1})", ua, ub).str();
        case P::uge: return formatv("({0} >= {1})", ua, ub).str();
        }
        return failure();
      })
      .Case([&](arith::ExtFOp) { return n(0); })
      .Case([&](arith::TruncFOp t) -> R {
        Type to = t.getType();
        if (to.isBF16()) return "rkc::round_bf16(" + n(0) + ")";
        if (to.isF16()) return "rkc::round_f16(" + n(0) + ")";
        return op.emitError() << "truncf to " << to << " has no CUDA lowering";
      })
      .Case<arith::SIToFPOp, arith::FPToSIOp, arith::IndexCastOp, arith::ExtSIOp,
            arith::TruncIOp>([&](Operation *o) { return cast(o->getResult(0).getType()); })
      .Case([&](arith::ExtUIOp e) -> R {
        unsigned w = e.getIn().getType().getIntOrFloatBitWidth();
        if (w == 1) return cast(e.getType());
        return formatv("((long long)((unsigned long long){0} & {1}ULL))", n(0),
                       (w >= 64 ? ~0ULL : ((1ULL << w) - 1))).str();
      })
      .Case([&](arith::UIToFPOp) { return "((float)(unsigned long long)" + n(0) + ")"; })
      .Case([&](math::ExpOp) { return call(fastMath ? "rkc::fast_exp" : "expf"); })
      .Case([&](math::Exp2Op) { return call("exp2f"); })
      .Case([&](math::ExpM1Op) { return call("expm1f"); })
      .Case([&](math::LogOp) { return call(fastMath ? "__logf" : "logf"); })
      .Case([&](math::Log2Op) { return call("log2f"); })
      .Case([&](math::Log1pOp) { return call("log1pf"); })
      .Case([&](math::SqrtOp) { return call("sqrtf"); })
      .Case([&](math::RsqrtOp) { return call("rsqrtf"); })
      .Case([&](math::TanhOp) { return call("tanhf"); })
      .Case([&](math::ErfOp) { return call("erff"); })
      .Case([&](math::AbsFOp) { return call("fabsf"); })
      .Case([&](math::SinOp) { return call("sinf"); })
      .Case([&](math::CosOp) { return call("cosf"); })
      .Case([&](math::TanOp) { return call("tanf"); })
      .Case([&](math::AtanOp) { return call("atanf"); })
      .Case([&](math::Atan2Op) { return call("atan2f"); })
      .Case([&](math::PowFOp) { return call("powf"); })
      .Case([&](math::FmaOp) { return call("fmaf"); })
      .Case([&](math::FloorOp) { return call("floorf"); })
      .Case([&](math::CeilOp) { return call("ceilf"); })
      .Case([&](math::RoundOp) { return call("roundf"); })
      .Case([&](math::RoundEvenOp) { return call("rintf"); })
      .Case([&](math::AbsIOp) { return formatv("({0} < 0 ? -{0} : {0})", n(0)).str(); })
      .Default([&](Operation *o) -> R {
        return o->emitError() << "'" << o->getName()
                              << "' has no CUDA lowering in rkc";
      });
}

LogicalResult KernelEmitter::emitRegionOps(Block &block, llvm::raw_ostream &out,
                                           StringRef indent) {
  for (Operation &op : block.without_terminator()) {
    if (op.getNumResults() != 1)
      return op.emitError("region ops must have one result");
    auto e = expr(op);
    if (failed(e))
      return failure();
    auto t = cType(op.getResult(0).getType(), &op);
    if (failed(t))
      return failure();
    std::string name = fresh("v");
    names[op.getResult(0)] = name;
    out << indent << "const " << *t << " " << name << " = " << *e << ";\n";
  }
  return success();
}

/// The combiner functor of a reduction op (a template functor for builtin
/// kinds, a generated one for regions) and its state type.
FailureOr<std::string> KernelEmitter::combinerFor(Operation *op, Attribute kind,
                                                  Region &combiner, TypeRange state,
                                                  std::string &stateType) {
  if (auto k = dyn_cast_or_null<rk::ReduceKindAttr>(kind)) {
    auto t0 = cType(state[0], op);
    if (failed(t0))
      return failure();
    switch (k.getValue()) {
    case rk::ReduceKind::add: stateType = *t0; return std::string("rkc::OpAdd");
    case rk::ReduceKind::mul: stateType = *t0; return std::string("rkc::OpMul");
    case rk::ReduceKind::max: stateType = *t0; return std::string("rkc::OpMax");
    case rk::ReduceKind::min: stateType = *t0; return std::string("rkc::OpMin");
    case rk::ReduceKind::argmax:
    case rk::ReduceKind::argmin: {
      auto ti = cType(state[1], op);
      if (failed(ti))
        return failure();
      stateType = formatv("rkc::ValIdx<{0}, {1}>", *t0, *ti).str();
      return std::string(k.getValue() == rk::ReduceKind::argmax ? "rkc::OpArgMax"
                                                                : "rkc::OpArgMin");
    }
    }
  }
  // A generated functor over a struct state; states of the same component
  // types share one struct, so a value flows through the tiers unchanged.
  SmallVector<std::string> ctypes;
  std::string sig;
  for (Type t : state) {
    auto ct = cType(t, op);
    if (failed(ct))
      return failure();
    ctypes.push_back(*ct);
    sig += *ct + ";";
  }
  std::string &structName = stateStructs[sig];
  if (structName.empty()) {
    structName = "State" + std::to_string(stateStructs.size());
    declOs << "struct " << structName << " {";
    for (auto [i, ct] : llvm::enumerate(ctypes))
      declOs << " " << ct << " c" << i << ";";
    declOs << " };\n";
  }
  stateType = structName;
  std::string comb = "Combine" + fresh("");
  declOs << "struct " << comb << " {\n  RKC_DEVICE " << stateType << " operator()(const "
         << stateType << " &a, const " << stateType << " &b) const {\n";
  Block &blk = combiner.front();
  unsigned k = state.size();
  for (unsigned i = 0; i < k; ++i) {
    std::string an = fresh("v"), bn = fresh("v");
    names[blk.getArgument(i)] = an;
    names[blk.getArgument(k + i)] = bn;
    declOs << "    const " << ctypes[i] << " " << an << " = a.c" << i << ";\n";
    declOs << "    const " << ctypes[i] << " " << bn << " = b.c" << i << ";\n";
  }
  if (failed(emitRegionOps(blk, declOs, "    ")))
    return failure();
  declOs << "    return " << stateType << "{";
  for (auto [i, y] : llvm::enumerate(blk.getTerminator()->getOperands()))
    declOs << (i ? ", " : "") << names.lookup(y);
  declOs << "};\n  }\n};\n";
  return comb;
}

FailureOr<std::string> KernelEmitter::operandLoad(tier::LoadOp ld, StringRef dest) {
  unsigned i = cast<BlockArgument>(ld.getSource()).getArgNumber();
  auto st = storageType(ld.getSource().getType().getElementType(), ld);
  if (failed(st))
    return failure();
  // [N] operands (weights, biases) read again by every row: from 2 MiB
  // of them per row the row stream pushes them out of L2 between rows
  // (LayerNorm f32 N = 262144: 24.6 MB of DRAM reads beyond the model
  // bytes, ncu), so they are loaded with an evict-last policy. Measured
  // on the H100: +2-6.5% wherever they total >= 2 MiB (LayerNorm f32 256k,
  // every RMSNorm / LayerNorm at 1M), -1..-5% below (RMSNorm f32 256k,
  // 1 MiB, had no re-fetch to save and lost 5% to the hinted loads).
  // A shifted row's [N] operands are not aligned at its columns: read
  // realigned, given the row's head.
  bool keep = rowOperandBytes >= kKeepRowOperandBytes;
  const char *policy = shifted ? (keep ? "_unaligned_keep" : "_unaligned") : keep ? "_keep" : "";
  return formatv("rkc::load_frag{0}<{1}, V, W{2}>(a{3}, col0, COL_STEP, N, {4}{5}, 0.0f);\n", policy,
                 *st, shiftArg(), i, shifted ? "head, " : "", dest)
      .str();
}

bool KernelEmitter::rowScalarBeforeCut(Operation *op) {
  if (!deferredWait || !deferredArrive.empty())
    return false;
  bool scalar = isa<tier::LoadRowScalarOp, tier::GatherOp>(op);
  if (auto m = dyn_cast<tier::MapOp>(op))
    scalar = m->getNumResults() && !isa<tier::FragType>(m->getResult(0).getType()) &&
             llvm::all_of(m->getOperands(), [&](Value v) {
               Operation *d = v.getDefiningOp();
               return d && (isa<arith::ConstantOp>(d) || rowScalarOps.contains(d));
             });
  if (scalar)
    rowScalarOps.insert(op);
  return scalar;
}

LogicalResult KernelEmitter::emitOp(Operation *op) {
  // Deferred grid waits: the row's scalars (its own [M] inputs, gathers,
  // maps of them) go with the row's set-up, emitted for the sweep and for
  // the epilogue alike.
  raw_ostream &b = rowScalarBeforeCut(op) ? static_cast<raw_ostream &>(rowScalarOs)
                                          : static_cast<raw_ostream &>(bodyOs);
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto e = expr(*op);
    auto t = cType(c.getType(), op);
    if (failed(e) || failed(t))
      return failure();
    std::string n = fresh("c");
    names[c] = n;
    // Deferred grid waits: constants at the kernel's scope, where both the
    // sweep (a lambda) and the epilogue see them.
    (deferredWait ? kernelScopeOs : b) << "  const " << *t << " " << n << " = " << *e << ";\n";
    return success();
  }
  if (auto ld = dyn_cast<tier::LoadOp>(op)) {
    auto arg = cast<BlockArgument>(ld.getSource());
    unsigned i = arg.getArgNumber();
    auto st = storageType(ld.getSource().getType().getElementType(), op);
    if (failed(st))
      return failure();
    std::string n = fresh("f");
    names[ld] = n;
    bool isRow = ld.getSource().getType().getRank() == 2;
    // 16-bit data stays packed, two values per register, widened at each
    // use (rkc::PackedFrag), with async staging (the [N] operands held
    // across reductions cost half the registers; the staged row itself is
    // read back from shared memory where it is used) and in streamed sweeps
    // (bf16 at N = 1M: 79 -> 50 registers for RMSNorm, 128 -> 64 for
    // LayerNorm; measured 1.2-1.3x on the H100). Needs whole words per
    // access (even W). Registers staging widens at the load: packing there
    // saved no registers where the row already fits (log-softmax bf16 at N
    // = 32768, 1024 threads x 32 values: 59 either way) and cost 19% in the
    // extra widenings on the CTA's latency chain.
    bool packed = heldPacked(ld.getSource().getType().getElementType());
    std::string decl = packed ? formatv("  rkc::PackedFrag<{0}, V> {1};\n", *st, n).str()
                              : formatv("  float {0}[V];\n", n).str();
    if (packed)
      packedFrags.insert(ld);
    if (staged && isRow) {
      b << decl
        << formatv("  rkc::load_frag_staged<{0}, V, W, TPR>(st{1} + pass * V * TPR, t, {2});\n",
                   *st, i, n);
      return success();
    }
    if (asyncStaged && isRow) {
      // The copies were issued at the start; the first staged load waits
      // for them, so whatever comes before (a gathered element, [N]
      // operands, constants) is in flight with them.
      if (!asyncWaited)
        b << "  rkc::cp_async_wait_all();\n";
      asyncWaited = true;
      b << decl
        << formatv("  rkc::load_frag_staged<{0}, V, W, TPR>(st{1}{2}, t, {3});\n", *st, i,
                   inEpilogue ? " + chunk * (TPR * W)" : "", n);
      return success();
    }
    // The last of several streamed sweeps reads the row for the last time:
    // evict-first (ld.global.cs), so that it does not push out the parts of
    // other rows that their second sweep is about to read (measured with
    // the evict-first stores below: +5-11 % for 16-bit rows at N = 1M).
    const char *policy = "";
    if (isRow && streaming && sweepCount >= 2 && sweepCount == streamSweeps)
      policy = "_stream";
    // A row read once by a kernel without an [M, N] result (rowReadOnce);
    // the earlier sweeps of a swept row stay in L2 for the later ones.
    if (isRow && rowReadOnce && (!streaming || streamSweeps <= 1))
      policy = "_stream";
    // Schedule evict_last: the row's one sweep loads it evict-last in L2.
    if (isRow && evictLast)
      policy = "_keep";
    auto global = [&](const char *pol) {
      return formatv("rkc::load_frag{3}<{0}, V, W{4}>(a{1} + row * s{1}, col0, COL_STEP, N, {2}, 0.0f);\n",
                     *st, i, n, pol, shiftArg())
          .str();
    };
    b << decl;
    if (!isRow) {
      auto ring = prefetchRings.find(ld);
      if (ring == prefetchRings.end()) {
        auto stmt = operandLoad(ld, n);
        if (failed(stmt))
          return failure();
        b << "  " << *stmt;
        return success();
      }
      // Issued PF_D groups earlier (emitEpilogue): take this group's from
      // the ring and refill its slot with the group PF_D ahead.
      auto refill = operandLoad(ld, ring->second + "[pf_slot]");
      if (failed(refill))
        return failure();
      b << "  {\n    const int pf_slot = (chunk / PF_G) % PF_D;\n";
      if (packed)
        b << formatv("    {0} = {1}[pf_slot];\n", n, ring->second);
      else
        b << formatv("    #pragma unroll\n    for (int i = 0; i < V; ++i) {0}[i] = {1}[pf_slot][i];\n",
                     n, ring->second);
      b << "    if (chunk + PF_D * PF_G < PF_CHUNKS) {\n"
           "      const int col0 = col0_base + (chunk + PF_D * PF_G) * COL_STEP;\n      "
        << *refill << "    }\n  }\n";
      return success();
    }
    // Schedule keep: the first sweep keeps its first KEEP passes of the
    // row in shared memory (loaded evict-first: global memory will not be
    // asked for them again); later sweeps read those passes from there,
    // and the others, which the first sweep read last, from global memory.
    if (isRow && streaming && !staged && keep > 0 && streamSweeps >= 2 && sweepCount == 1) {
      // (keptArgs holds exactly the inputs kept here.)
      keptArgs.insert(i);
      b << "  if (pass < KEEP) {\n    " << global("_stream")
        << formatv("    rkc::keep_frag<{0}, V, W, TPR>(kp{1} + pass * V * TPR, t, {2});\n",
                   *st, i, n)
        << "  } else {\n    " << global(policy) << "  }\n";
      return success();
    }
    if (sweepCount >= 2 && keptArgs.contains(i)) {
      b << formatv("  if (pass < KEEP)\n    rkc::load_frag_staged<{0}, V, W, TPR>(kp{1} + pass * V * TPR, "
                   "t, {2});\n  else\n    ",
                   *st, i, n)
        << global(policy);
      return success();
    }
    b << "  " << global(policy);
    return success();
  }
  if (auto ld = dyn_cast<tier::LoadRowScalarOp>(op)) {
    unsigned i = cast<BlockArgument>(ld.getSource()).getArgNumber();
    auto t = cType(ld.getType(), op);
    if (failed(t))
      return failure();
    std::string n = fresh("sv");
    names[ld] = n;
    Type elem = ld.getSource().getType().getElementType();
    // [M] arguments are contiguous; an [M, 1] one has a row stride.
    std::string at = ld.getSource().getType().getRank() == 2 ? formatv("row * s{0}", i).str()
                                                             : std::string("row");
    if (rk::isDataFloat(elem))
      b << formatv("  const float {0} = rkc::to_f32(a{1}[{2}]);\n", n, i, at);
    else
      b << formatv("  const {0} {1} = ({0})a{2}[{3}];\n", *t, n, i, at);
    return success();
  }
  if (auto g = dyn_cast<tier::GatherOp>(op)) {
    unsigned i = cast<BlockArgument>(g.getSource()).getArgNumber();
    std::string n = fresh("sv");
    names[g] = n;
    b << formatv("  const float {0} = ({1} >= 0 && {1} < N) ? rkc::to_f32(a{2}[row * s{2} + {1}]) : 0.0f;\n",
                 n, names.lookup(g.getIndex()), i);
    return success();
  }
  if (auto m = dyn_cast<tier::MapOp>(op)) {
    Block &blk = m.getBody().front();
    bool isFrag = m.getNumResults() && isa<tier::FragType>(m.getResult(0).getType());
    SmallVector<std::string> outs;
    for (Value r : m.getResults()) {
      Type s = isFrag ? cast<tier::FragType>(r.getType()).getElementType() : r.getType();
      auto t = cType(s, op);
      if (failed(t))
        return failure();
      std::string n = fresh(isFrag ? "f" : "sv");
      names[r] = n;
      outs.push_back(n);
      b << "  " << *t << " " << n << (isFrag ? "[V]" : "") << ";\n";
    }
    std::string ind = isFrag ? "    " : "    ";
    if (isFrag)
      b << "  #pragma unroll\n  for (int i = 0; i < V; ++i) {\n";
    else
      b << "  {\n";
    for (auto [arg, in] : llvm::zip(blk.getArguments(), m.getInputs())) {
      auto t = cType(arg.getType(), op);
      if (failed(t))
        return failure();
      std::string n = fresh("v");
      names[arg] = n;
      bool frag = isa<tier::FragType>(in.getType());
      if (isFrag && !frag)
        uniformValues.insert(arg);
      b << ind << "const " << *t << " " << n << " = " << names.lookup(in)
        << (frag ? "[i]" : "") << ";\n";
    }
    if (isFrag)
      for (Operation &o : blk.without_terminator())
        if (llvm::all_of(o.getOperands(), [&](Value v) { return uniformValues.contains(v); }))
          uniformValues.insert(o.getResults().begin(), o.getResults().end());
    LogicalResult emitted = emitRegionOps(blk, b, ind);
    uniformValues.clear();
    if (failed(emitted))
      return failure();
    for (auto [i, y] : llvm::enumerate(blk.getTerminator()->getOperands()))
      b << ind << outs[i] << (isFrag ? "[i]" : "") << " = " << names.lookup(y) << ";\n";
    b << "  }\n";
    return success();
  }
  auto unpackInto = [&](Operation *o, const std::string &r, const std::string &stateType,
                        bool builtinScalar, bool isArg) -> LogicalResult {
    for (auto [i, res] : llvm::enumerate(o->getResults())) {
      if (builtinScalar) {
        names[res] = r;
        continue;
      }
      auto t = cType(res.getType(), o);
      if (failed(t))
        return failure();
      std::string n = fresh("sv");
      names[res] = n;
      std::string field = isArg ? (i == 0 ? "v" : "i") : "c" + std::to_string(i);
      b << "  const " << *t << " " << n << " = " << r << "." << field << ";\n";
    }
    return success();
  };
  if (auto tr = dyn_cast<tier::ThreadReduceOp>(op)) {
    std::string stateType;
    auto comb = combinerFor(op, tr.getKindAttr(), tr.getCombiner(),
                            tr.getResultTypes(), stateType);
    if (failed(comb))
      return failure();
    std::string r = fresh("r");
    bool ok = true;
    std::string init;
    for (auto [i, a] : llvm::enumerate(tr.getInit()))
      init += (i ? ", " : "") + attrLiteral(a, op, ok);
    if (!ok)
      return failure();
    bool isArg = isa_and_nonnull<rk::ReduceKindAttr>(tr.getKindAttr()) &&
                 tr.getNumResults() == 2;
    bool builtinScalar = isa_and_nonnull<rk::ReduceKindAttr>(tr.getKindAttr()) && !isArg;
    std::string initState = builtinScalar ? init : stateType + "{" + init + "}";
    // In a streamed sweep the fold (between the markers) goes inside the
    // sweep's pass loop, the declarations before it, the rest after it.
    const char *foldBegin = streaming ? kFoldBegin : "";
    const char *foldEnd = streaming ? kFoldEnd : "";
    // A streamed sweep folds its values into `chains` independent states
    // (value i into state i % chains), combined after the sweep: one chain
    // puts every combine of a pass (exp, division in the online and
    // Welford combiners) on one dependency chain between the pass's loads
    // and the next pass's. At most kFoldStateWords words of states in all
    // (four chains of one or two words, two of the three-word Welford
    // state): streamed LayerNorm bf16 at N = 1M, held to 64 registers by
    // min_blocks = 2, spilled 28 bytes with four. A row held on chip folds
    // once, in one chain.
    // An argmax / argmin folds a whole pass at once (below): one state.
    int64_t chains =
        streaming && !isArg
            ? std::min<int64_t>({kFoldChains, kFoldStateWords / (int64_t)tr.getNumResults(),
                                 (int64_t)layout.getValues()})
            : 1;
    chains = (int64_t)llvm::bit_floor((uint64_t)std::max<int64_t>(chains, 1));
    std::string acc = chains > 1 ? r + "_chain" : r;
    auto declareChains = [&]() {
      if (chains > 1) {
        b << "  " << stateType << " " << acc << "[" << chains << "] = {";
        for (int64_t c = 0; c < chains; ++c)
          b << (c ? ", " : "") << initState;
        b << "};\n";
      } else {
        b << "  " << stateType << " " << r << " = " << initState << ";\n";
      }
    };
    auto mergeChains = [&]() {
      if (chains == 1)
        return;
      // Pairwise: ((c0 + c1) + (c2 + c3)).
      std::function<std::string(int64_t, int64_t)> tree = [&](int64_t lo, int64_t n) {
        if (n == 1)
          return formatv("{0}[{1}]", acc, lo).str();
        return formatv("{0}()({1}, {2})", *comb, tree(lo, n / 2), tree(lo + n / 2, n / 2)).str();
      };
      b << "  const " << stateType << " " << r << " = " << tree(0, chains) << ";\n";
    };
    // A tagged state's thread fold: a template call per group of values
    // (`call(valid, slot)`), masked by the row's columns; a shifted row
    // masks every value (its ends are not the layout's), so where
    // `unmaskedIfShifted` a thread whose values all lie in the row folds
    // them unmasked.
    // After a thread fold: the chains merged and the state unpacked.
    auto finishFold = [&]() {
      b << foldEnd;
      mergeChains();
      stateNames[op] = r;
      return unpackInto(op, r, stateType, builtinScalar, isArg);
    };
    auto groupFold = [&](auto call, bool unmaskedIfShifted) {
      declareChains();
      std::string slot = chains > 1 ? formatv("{0}[c % {1}]", acc, chains).str() : acc;
      b << foldBegin;
      // `ascending`: the values' columns grow with their slots (not in a
      // shifted row whose first slots may wrap, unless all lie in the row).
      std::string masked = call(
          formatv("[&](int i) {{ const int col = {0}; return {1}; }", valueCol(), kColInRow).str(),
          slot, /*ascending=*/!shifted);
      if (shifted && unmaskedIfShifted)
        b << "  if (" << kValuesInShiftedRow << ")\n    "
          << call("[&](int) { return true; }", slot, /*ascending=*/true) << "  else\n    "
          << masked;
      else
        b << "  " << masked;
      return finishFold();
    };
    // An online softmax state (rk-fuse-reductions tags it): each group of
    // a thread's values becomes one (max, sum of exp) state in registers
    // (rkc::fold_max_exp_sum), combined into the running state (group c
    // into chain c % chains) once. Groups of a pass for 16-bit rows (the
    // fewest instructions: cross-entropy bf16 at N = 64k-256k +1-3 %, 1M
    // +4 %), of a vector for 32-bit ones (folded as their loads arrive: a
    // whole pass lost 3-9 % at 64k-256k, a vector ties the per-value fold;
    // docs/performance-notes.md, session 12).
    auto fold = tr->getAttrOfType<StringAttr>(rk::kFoldAttr);
    if (fold && fold.getValue() == rk::kFoldMaxExpSum && tr.getNumResults() == 2 &&
        !builtinScalar && !isArg) {
      // (16-bit rows: also the values of an elementwise map of them, as a
      // softmax written with a scaled input.)
      bool wholePass = packedFrags.contains(tr.getInputs()[0]) || fastMath;
      return groupFold(
          [&](const std::string &valid, const std::string &slot, bool) {
            return formatv("rkc::fold_max_exp_sum<V, {5}, {0}>({1}, {6}, [&](int c, float m, "
                           "float s) {{ {2} = {3}()({2}, {4}{{m, s}); });\n",
                           fastMath ? "true" : "false", names.lookup(tr.getInputs()[0]), slot,
                           *comb, stateType, wholePass ? "V" : "W", valid)
                .str();
          },
          /*unmaskedIfShifted=*/true);
    }
    // A Welford state (rk-fuse-reductions tags it): each group of a
    // thread's values becomes one (count, mean, M2) state by two passes in
    // registers (rkc::fold_mean_m2), combined into the running state once.
    // Groups of at most 16 values, whole vectors (a thread's 64 values
    // held across both passes took LayerNorm bf16 from 43 to 79 registers,
    // 16 take 48), of one vector for streamed 32-bit rows as in the online
    // softmax fold. Rows held on chip keep one masked fold, as the generic
    // one below.
    if (fold && fold.getValue() == rk::kFoldMeanM2 && tr.getNumResults() == 3 &&
        !builtinScalar && !isArg) {
      bool packed = packedFrags.contains(tr.getInputs()[1]);
      int64_t vec = layout.getVector(), group = vec;
      if (!streaming || packed)
        for (int64_t g = vec; g <= std::max<int64_t>(16, vec); g += vec)
          if (layout.getValues() % g == 0)
            group = g;
      return groupFold(
          [&](const std::string &valid, const std::string &slot, bool) {
            return formatv("rkc::fold_mean_m2<V, {0}>({1}, {2}, [&](int c, float n, float m, "
                           "float q) {{ {3} = {4}()({3}, {5}{{n, m, q}); });\n",
                           group, names.lookup(tr.getInputs()[1]), valid, slot, *comb, stateType)
                .str();
          },
          /*unmaskedIfShifted=*/streaming);
    }
    // A builtin argmax / argmin: a thread's V values (a pass of a streamed
    // row) become their extreme and the lowest column holding it
    // (rkc::fold_arg_extreme: a max and a select per value), combined into
    // the running state once. Vectors of streamed f32 rows, as the online
    // softmax fold takes, measured 3-7 % slower than whole passes (argmax
    // f32 at N = 65536 / 262144 / 1M 2.74 / 2.78 / 2.21 against 2.92 / 2.87
    // / 2.36 TB/s, session 21): the generic combine per vector costs more
    // than waiting for the pass.
    if (isArg) {
      bool isMax = cast<rk::ReduceKindAttr>(tr.getKindAttr()).getValue() == rk::ReduceKind::argmax;
      return groupFold(
          [&](const std::string &valid, const std::string &slot, bool ascending) {
            return formatv("rkc::fold_arg_extreme<{0}, V, V, {1}>({2}, {3}, [&](int i) {{ "
                           "return {4}; }, [&](int, float m, int col) {{ {5} = {6}()({5}, "
                           "{7}{{m, col}); });\n",
                           isMax ? "true" : "false", ascending ? "true" : "false",
                           names.lookup(tr.getInputs()[0]), valid, valueCol(), slot, *comb,
                           stateType)
                .str();
          },
          /*unmaskedIfShifted=*/streaming);
    }
    std::string slot = chains > 1 ? formatv("{0}[i % {1}]", acc, chains).str() : acc;
    declareChains();
    std::string elem;
    if (builtinScalar)
      elem = names.lookup(tr.getInputs()[0]) + "[i]";
    else if (isArg)
      elem = stateType + "{" + names.lookup(tr.getInputs()[0]) + "[i], col}";
    else {
      elem = stateType + "{";
      for (auto [i, in] : llvm::enumerate(tr.getInputs()))
        elem += (i ? ", " : "") + names.lookup(in) + "[i]";
      elem += "}";
    }
    auto loop = [&](const char *col, const char *mask) {
      b << "  #pragma unroll\n  for (int i = 0; i < V; ++i) {\n";
      b << "    const int col = " << col << ";\n" << (mask == kColInRow ? "" : "    (void)col;\n");
      b << "    if (" << mask << ") " << slot << " = " << *comb << "()(" << slot << ", " << elem
        << ");\n  }\n";
    };
    b << foldBegin;
    if (shifted && streaming) {
      // As for the online softmax fold above: a thread whose pass lies
      // wholly in the row folds it unmasked (swept rows only: a row held
      // on chip folds once, and the second loop cost registers there,
      // RMSNorm f32 at N = 50257 spilled 24 bytes).
      b << "  if (" << kValuesInShiftedRow << ") {\n";
      loop(kValueCol, "true");
      b << "  } else {\n";
      loop(valueCol(), kColInRow);
      b << "  }\n";
    } else {
      loop(valueCol(), kColInRow);
    }
    return finishFold();
  }
  if (isa<tier::WarpReduceOp, tier::BlockReduceOp, tier::ClusterReduceOp,
          tier::GridReduceOp>(op)) {
    Attribute kind = op->getAttr("kind");
    std::string stateType;
    auto comb = combinerFor(op, kind, op->getRegion(0),
                            op->getResultTypes(), stateType);
    if (failed(comb))
      return failure();
    bool isArg = isa_and_nonnull<rk::ReduceKindAttr>(kind) && op->getNumResults() == 2;
    bool builtinScalar = isa_and_nonnull<rk::ReduceKindAttr>(kind) && !isArg;
    // The incoming state: the previous tier's state variable.
    Value in0 = op->getOperand(0);
    std::string prev;
    Operation *def = in0.getDefiningOp();
    if (isa<tier::ThreadReduceOp, tier::WarpReduceOp, tier::BlockReduceOp,
            tier::ClusterReduceOp, tier::GridReduceOp>(def))
      prev = stateNames.lookup(def);
    if (prev.empty())
      prev = names.lookup(in0);
    std::string r = fresh("r");
    if (auto w = dyn_cast<tier::WarpReduceOp>(op)) {
      b << formatv("  const {0} {1} = rkc::warp_reduce<{2}>({3}, {4}());\n",
                   stateType, r, w.getWidth(), prev, *comb);
    } else if (auto bl = dyn_cast<tier::BlockReduceOp>(op)) {
      std::string buf = fresh("red");
      b << formatv("  __shared__ {0} {1}[ROWS * {2}];\n", stateType, buf, bl.getWarps());
      b << formatv("  const {0} {1} = rkc::block_reduce<{2}>({3}, {4}(), {5}, "
                   "row_in_cta, warp_in_row, lane);\n",
                   stateType, r, bl.getWarps(), prev, *comb, buf);
    } else if (auto g = dyn_cast<tier::GridReduceOp>(op); g && deferredWait) {
      // Four sets of slots (rkc/grid.cuh, deferred waits); the arrival and
      // the wait are placed by emitRowKernel.
      int64_t slotBytes = 8 * (int64_t)op->getNumResults();
      int64_t offset = gridWsBytes;
      gridWsBytes += llvm::alignTo(4 * g.getSplit() * slotBytes, 16);
      deferredCut = body.size();
      kernelScopeOs << formatv("  __shared__ {0} rkc_gabuf[2 * {1}];\n"
                               "  __shared__ {0} rkc_glanes[33];\n",
                               stateType, g.getWarps());
      deferredArrive = formatv("  rkc::grid_arrive<{0}, {1}, {2}>({3}, {4}(), rkc_gabuf, rkc_gws, "
                               "{5}, rkc_epoch, rank, warp_in_row, lane);\n",
                               g.getWarps(), g.getSplit(), slotBytes, prev, *comb, offset);
      deferredWaitCall = formatv("  const {0} {1} = rkc::grid_wait<{2}, {3}>({4}(), rkc_glanes, "
                                 "rkc_gws, {5}, rkc_waited, warp_in_row, lane);\n",
                                 stateType, r, g.getSplit(), slotBytes, *comb, offset);
    } else if (auto g = dyn_cast<tier::GridReduceOp>(op)) {
      // Slots of at most 8 bytes per state member (the template checks
      // sizeof); two sets of `split` slots per call site, 16-byte aligned.
      int64_t slotBytes = 8 * (int64_t)op->getNumResults();
      int64_t offset = gridWsBytes;
      gridWsBytes += llvm::alignTo(2 * g.getSplit() * slotBytes, 16);
      std::string buf = fresh("gbuf");
      b << formatv("  __shared__ {0} {1}[{2} + 33];\n", stateType, buf, g.getWarps());
      b << formatv("  const {0} {1} = rkc::grid_reduce<{2}, {3}, {4}>({5}, {6}(), {7}, "
                   "rkc_gws, {8}, rkc_epoch, rank, warp_in_row, lane);\n",
                   stateType, r, g.getWarps(), g.getSplit(), slotBytes, prev, *comb, buf,
                   offset);
    } else {
      auto cl = cast<tier::ClusterReduceOp>(op);
      std::string buf = fresh("cbuf");
      setupOs << formatv("  __shared__ {0} {1}[{2}];\n", stateType, buf,
                         cl.getWarps() * cl.getCluster());
      anyCluster = true;
      if (!clusterWaited) {
        b << "  rkc::cluster_wait();\n";
        clusterWaited = true;
      }
      b << formatv("  const {0} {1} = rkc::cluster_reduce<{2}, {3}>({4}, {5}(), {6}, "
                   "warp_in_row, lane);\n",
                   stateType, r, cl.getWarps(), cl.getCluster(), prev, *comb, buf);
    }
    stateNames[op] = r;
    return unpackInto(op, r, stateType, builtinScalar, isArg);
  }
  if (auto st = dyn_cast<tier::StoreOp>(op)) {
    unsigned i = cast<BlockArgument>(st.getDest()).getArgNumber();
    auto sty = storageType(st.getDest().getType().getElementType(), op);
    if (failed(sty))
      return failure();
    std::string v = names.lookup(st.getValue());
    if (*sty == "signed char" && clampedToInt8(st.getValue())) {
      // int8 results a map has clamped (a quantizer): rounded to ints here
      // without store_frag's second clamp.
      std::string f = fresh("f");
      b << formatv("  int {0}[V];\n  #pragma unroll\n  for (int i = 0; i < V; ++i) "
                   "{0}[i] = rkc::s8_in_range({1}[i]);\n",
                   f, v);
      v = f;
    } else if (packedFrags.contains(st.getValue())) {
      // A loaded fragment stored as it is: widened first (store_frag takes
      // f32 values).
      std::string f = fresh("f");
      b << formatv("  float {0}[V];\n  #pragma unroll\n  for (int i = 0; i < V; ++i) {0}[i] = {1}[i];\n",
                   f, v);
      v = f;
    }
    // A swept row's results (staging stream or smem) are written once and
    // not read again by the kernel: evict-first stores (st.global.cs)
    // leave L2 to the parts of rows still to be swept again (ncu, RMSNorm
    // bf16 N = 1M: 432 -> 340 MB of DRAM reads with the evict-first last
    // sweep).
    b << formatv("  if (row_ok) rkc::store_frag{3}<{0}, V, W{4}>(a{1} + row * s{1}, col0, "
                 "COL_STEP, N, {2});\n",
                 *sty, i, v, streaming ? "_stream" : "", shiftArg());
    return success();
  }
  if (auto st = dyn_cast<tier::StoreRowScalarOp>(op)) {
    unsigned i = cast<BlockArgument>(st.getDest()).getArgNumber();
    Type elem = st.getDest().getType().getElementType();
    auto sty = storageType(elem, op);
    if (failed(sty))
      return failure();
    std::string v = names.lookup(st.getValue());
    // Floats narrow with rounding: to a float type, or (the f32 values of a
    // quantized tensor) half to even and saturated to an integer type.
    bool narrow = rk::isDataFloat(elem) || (isa<FloatType>(st.getValue().getType()) &&
                                            rk::quantizedRange(st.getDest().getType()));
    std::string conv = narrow ? formatv("rkc::from_f32<{0}>({1})", *sty, v).str()
                              : formatv("({0}){1}", *sty, v).str();
    // [M] results are contiguous; an [M, 1] result has a row stride.
    std::string at = st.getDest().getType().getRank() == 2
                         ? formatv("row * s{0}", i).str()
                         : std::string("row");
    b << formatv("  if (row_ok && t == 0 && rank == 0) a{0}[{1}] = {2};\n", i, at, conv);
    return success();
  }
  if (isa<func::ReturnOp>(op))
    return success();
  return op->emitError() << "'" << op->getName() << "' has no CUDA lowering";
}

/// The ops the consumers need, transitively through their operands, among
/// those `take` accepts (a rejected op ends the walk on its path), in
/// program order.
static SmallVector<Operation *> producersOf(ArrayRef<Operation *> consumers,
                                            llvm::function_ref<bool(Operation *)> take) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work;
  for (Operation *c : consumers)
    llvm::append_range(work, c->getOperands());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || slice.contains(def) || !take(def))
      continue;
    slice.insert(def);
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// The top tier of a reduction (its state goes to no further tier).
static bool isTopTier(Operation &op) {
  return isa<tier::WarpReduceOp, tier::BlockReduceOp, tier::ClusterReduceOp,
             tier::GridReduceOp>(op) &&
         llvm::none_of(op.getUsers(), [](Operation *u) {
           return isa<tier::BlockReduceOp, tier::ClusterReduceOp, tier::GridReduceOp>(u);
         });
}

/// Registers staging: the ops in order. Streaming: per-row scalar work in
/// order; each reduction's inputs, and the stored fragments, are computed in
/// a sweep over the row (PASSES passes of PASS_COLS columns) that redoes
/// the loads and elementwise ops they need.
LogicalResult KernelEmitter::emitBody() {
  Block &block = func.getBody().front();
  if (!streaming) {
    // prefetch = 1: the loads of [N] operands go first, so that they are in
    // flight with the row's instead of after the reductions.
    llvm::SmallPtrSet<Operation *, 4> hoisted;
    if (sched.getPrefetch())
      for (Operation &op : block)
        if (auto ld = dyn_cast<tier::LoadOp>(op);
            ld && ld.getSource().getType().getRank() == 1) {
          if (failed(emitOp(&op)))
            return failure();
          hoisted.insert(&op);
        }
    // Elementwise fragment ops are emitted where they are used and again
    // after each reduction (its top tier) instead of being
    // held across it: only the loaded fragments (16-bit ones packed) stay
    // live through a reduction, the maps are recomputed from them. With
    // async staging the row's values are in shared memory: they too are
    // read again after a reduction instead of held; the stores after the
    // last reduction, with the [N] loads only they use, are emitted
    // together, chunk by chunk, at the last store.
    SmallVector<Operation *> epilogue =
        hoisted.empty() ? epilogueOps(block) : SmallVector<Operation *>();
    llvm::SmallPtrSet<Operation *, 8> epilogueSet(epilogue.begin(), epilogue.end());
    for (Operation &op : block) {
      if (hoisted.contains(&op) || isRecomputed(&op))
        continue;
      if (epilogueSet.contains(&op)) {
        if (&op == epilogue.back() && failed(emitEpilogue(epilogue)))
          return failure();
        continue;
      }
      if (failed(emitMapsFor(&op)) || failed(emitOp(&op)))
        return failure();
      if (isTopTier(op)) {
        emittedMaps.clear();
        // Packed fragments used after the reduction are widened again
        // there, not kept as f32 (rkc::PackedFrag::refresh).
        for (Operation &ld : block)
          if (isa<tier::LoadOp>(ld) && !isRecomputed(&ld) &&
              packedFrags.contains(ld.getResult(0)) &&
              llvm::any_of(ld.getUsers(), [&](Operation *u) { return op.isBeforeInBlock(u); }))
            bodyOs << "  " << names.lookup(ld.getResult(0)) << ".refresh();\n";
      }
    }
    return success();
  }
  SmallVector<Operation *> stores;
  llvm::DenseMap<Operation *, SmallVector<Operation *>> sweeps = sweepGroups(block);
  streamSweeps = sweeps.size();
  if (llvm::any_of(block, [](Operation &op) { return isa<tier::StoreOp>(op); }))
    ++streamSweeps;
  for (Operation &op : block) {
    if (isFragOp(&op))
      continue; // emitted inside the sweeps that need it
    if (isa<tier::StoreOp>(op)) {
      stores.push_back(&op);
      continue;
    }
    if (isa<tier::ThreadReduceOp>(op)) {
      // A reduction folded into an earlier one's sweep is emitted there.
      if (auto it = sweeps.find(&op); it != sweeps.end() && failed(emitSweep(it->second)))
        return failure();
      continue;
    }
    if (failed(emitOp(&op)))
      return failure();
  }
  if (!stores.empty() && failed(emitSweep(stores)))
    return failure();
  return success();
}

LogicalResult KernelEmitter::emitMapsFor(Operation *consumer) {
  // The fragment maps the consumer needs that are not yet emitted since the
  // last reduction.
  for (Operation *op : producersOf(consumer, [&](Operation *d) {
         return isRecomputed(d) && !emittedMaps.contains(d);
       })) {
    if (failed(emitOp(op)))
      return failure();
    emittedMaps.insert(op);
  }
  return success();
}

SmallVector<Operation *> KernelEmitter::epilogueOps(Block &block) const {
  if (!asyncStaged || streaming)
    return {};
  Operation *lastTop = nullptr;
  for (Operation &op : block)
    if (isTopTier(op))
      lastTop = &op;
  if (!lastTop)
    return {};
  SmallVector<Operation *> stores;
  for (Operation &op : block)
    if (isa<tier::StoreOp>(op)) {
      if (!lastTop->isBeforeInBlock(&op))
        return {};
      stores.push_back(&op);
    }
  if (stores.empty())
    return {};
  // Every fragment they need is emitted again inside the loop: maps, staged
  // row reads, and [N] loads that come after the last reduction (so nothing
  // before it holds them).
  SmallVector<Operation *> ops = producersOf(stores, isFragOp);
  for (Operation *d : ops)
    if (!isRecomputed(d) && !(isa<tier::LoadOp>(d) && lastTop->isBeforeInBlock(d)))
      return {};
  llvm::append_range(ops, stores);
  return ops;
}

/// Whether a CTA's launch bounds leave few registers a thread: 1024-thread
/// CTAs (a second one needs <= 32) or more than 1024 threads an SM asked
/// for by `min_blocks`.
static bool registersTight(int64_t threads, int64_t minBlocks) {
  return threads >= 1024 || threads * std::max<int64_t>(minBlocks, 1) > 1024;
}

/// The epilogue of an async-staged kernel (the [M, N] stores after the last
/// reduction, with the maps, staged reads and [N] loads they need) runs in a
/// loop over groups of the thread's V / W vector chunks, with V, col0 and
/// the staged slots narrowed to the group: every fragment op keeps its
/// emitted form. Emitted in one piece over all V values, the [N] operands'
/// loads all came first and ptxas kept them live together (LayerNorm f32, 64
/// values per thread: 122 registers, two CTAs per SM; 40 per group). Groups
/// of two chunks for 16-bit data (16-byte vectors of 8 values), one for f32,
/// measured on the H100 (docs/performance-notes.md, session 9): RMSNorm bf16
/// at N = 262144 2.52 / 2.82 / 2.82 TB/s with groups of 1 / 2 / 4 chunks,
/// RMSNorm f32 2.85 / 2.29 / 2.38 (ptxas issues each group's [N] loads only
/// after the previous group's stores; which grouping overlaps best was not
/// predictable from the SASS). CTAs of 1024 threads take groups of one
/// chunk: a second such CTA on the SM needs <= 32 registers, which softmax
/// bf16 at N = 32768 fits with one chunk (32) and not with two (41): 2.92
/// against 2.67 TB/s on the H100 (session 10). So do CTAs whose launch
/// bounds ask for more than 1024 threads an SM (`min_blocks`): three CTAs
/// of 512 threads leave 42 registers a thread, which LayerNorm bf16 at N =
/// 16384 holds with one chunk (40, no spill) and not with two (56 bytes
/// spilled, 0.81x); with one chunk 1.07x the uncapped kernel on the H200
/// (session 36).
static int64_t epilogueGroup(int64_t chunks, int64_t vector, int64_t threads,
                             int64_t minBlocks) {
  int64_t group =
      std::min<int64_t>(vector >= 8 && !registersTight(threads, minBlocks) ? 2 : 1, chunks);
  while (chunks % group)
    --group;
  return group;
}

/// How many groups ahead the epilogue loads its [N] operands (0: in the
/// group that uses them). ptxas issues each group's [N] loads only after
/// the previous group's stores, so a thread of a one-chunk group waits for
/// one L2 round trip per chunk, in series (16 of them per row for f32 at
/// 64 values). Issued two groups ahead into a ring of fragments, measured
/// on the H100 (bench/experiments/operands-in-smem, the generated kernels
/// edited by make_prefetch.py; docs/performance-notes.md, session 29):
/// LayerNorm f32 at 512 x 262144 413 -> 395 us (one ahead 398, four 392 at
/// 64 registers), RMSNorm f32 390 -> 380; LayerNorm f32 at 1024 x 131072
/// unchanged (its plain loads were already issued ahead). Groups of two
/// chunks (16-bit data) lost: the ring's registers cost CTAs per SM
/// (LayerNorm bf16 at 262144: 5 -> 4 -> 3 CTAs, 202 -> 207 / 220 us). Not
/// for 1024-thread CTAs either (their second CTA needs <= 32 registers,
/// epilogueGroup), nor for shifted rows, whose realigned loads took 20 more
/// registers (LayerNorm f32 at N = 100003: 76 -> 96, a CTA per SM less;
/// not measured), nor wherever the launch bounds leave few registers
/// (registersTight: 1024-thread CTAs, or min_blocks = 3 at 512 threads,
/// whose second / third CTA needs every register the ring would take).
/// At most 16 registers of ring: two groups ahead for one
/// or two f32 operands, one for three or four, none beyond.
static int64_t epiloguePrefetch(int64_t group, int64_t vector, int64_t threads,
                                int64_t minBlocks, int64_t operands, bool shifted) {
  if (group != 1 || registersTight(threads, minBlocks) || operands == 0 || shifted)
    return 0;
  return std::min<int64_t>(2, 16 / (operands * vector));
}

LogicalResult KernelEmitter::emitEpilogue(ArrayRef<Operation *> ops) {
  int64_t group = epilogueGroup(layout.getValues() / layout.getVector(), layout.getVector(),
                                 layout.getThreads(), sched.getMinBlocks());
  SmallVector<tier::LoadOp> operands;
  for (Operation *op : ops)
    if (auto ld = dyn_cast<tier::LoadOp>(op); ld && ld.getSource().getType().getRank() == 1)
      operands.push_back(ld);
  int64_t ahead = epiloguePrefetch(group, layout.getVector(), layout.getThreads(),
                                   sched.getMinBlocks(), (int64_t)operands.size(), shifted);
  inEpilogue = true;
  if (ahead > 0) {
    bodyOs << formatv("  constexpr int PF_D = {0}, PF_G = {1}, PF_CHUNKS = V / W; // [N] loads "
                      "PF_D groups ahead\n",
                      ahead, group);
    for (tier::LoadOp ld : operands) {
      auto st = storageType(ld.getSource().getType().getElementType(), ld);
      if (failed(st))
        return failure();
      bool packed = heldPacked(ld.getSource().getType().getElementType());
      std::string ring = fresh("pf");
      auto first = operandLoad(ld, ring + "[k]");
      if (failed(first))
        return failure();
      bodyOs << (packed ? formatv("  rkc::PackedFrag<{0}, PF_G * W> {1}[PF_D];\n", *st, ring).str()
                        : formatv("  float {0}[PF_D][PF_G * W];\n", ring).str())
             << "  #pragma unroll\n"
                "  for (int k = 0; k < PF_D && k * PF_G < PF_CHUNKS; ++k) {\n"
                "    constexpr int V = PF_G * W;\n"
                "    const int col0 = col0_base + k * PF_G * COL_STEP;\n    "
             << *first << "  }\n";
      prefetchRings[ld] = ring;
    }
  }
  bodyOs << formatv("  #pragma unroll\n"
                    "  for (int chunk = 0; chunk < V / W; chunk += {0}) {{\n"
                    "  constexpr int V = {0} * W; // this group of chunks\n"
                    "  const int col0 = col0_base + chunk * COL_STEP;\n",
                    group);
  for (Operation *op : ops)
    if (failed(emitOp(op)))
      return failure();
  inEpilogue = false;
  prefetchRings.clear();
  bodyOs << "  }\n";
  return success();
}

/// Streaming: the thread reductions that share a sweep, by the one that
/// leads it (the first in program order). A reduction joins the earliest
/// sweep before whose leader every value it needs from outside the sweep
/// (the scalars its elementwise inputs use: an earlier reduction's result,
/// a per-row scalar) is computed: independent reductions of the same row
/// that rk-fuse-reductions leaves apart (an argmax / argmin and another
/// reduction, reductions of rows of different types) then read it once
/// instead of once each (docs/performance-notes.md, session 22).
llvm::DenseMap<Operation *, SmallVector<Operation *>>
KernelEmitter::sweepGroups(Block &block) const {
  llvm::DenseMap<Operation *, SmallVector<Operation *>> groups;
  SmallVector<Operation *> leaders;
  for (Operation &op : block) {
    auto tr = dyn_cast<tier::ThreadReduceOp>(op);
    if (!tr)
      continue;
    // The values from outside the sweep: operands of the reduction and of
    // the fragment ops it needs that are not fragment ops themselves.
    SmallVector<Operation *> inSweep = producersOf({&op}, isFragOp);
    inSweep.push_back(&op);
    SmallVector<Operation *> outside;
    for (Operation *o : inSweep)
      for (Value v : o->getOperands())
        if (Operation *d = v.getDefiningOp(); d && !isFragOp(d))
          outside.push_back(d);
    auto joined = llvm::find_if(leaders, [&](Operation *lead) {
      return llvm::all_of(outside, [&](Operation *d) { return d->isBeforeInBlock(lead); });
    });
    Operation *lead = joined == leaders.end() ? &op : *joined;
    if (lead == &op)
      leaders.push_back(&op);
    groups[lead].push_back(&op);
  }
  return groups;
}

LogicalResult KernelEmitter::emitSweep(ArrayRef<Operation *> consumers) {
  // The fragment ops the consumers need, in program order.
  SmallVector<Operation *> ordered = producersOf(consumers, isFragOp);
  // Sweeps alternate direction: each one starts with the passes the
  // previous one read last, which are the likeliest to be still in L2
  // (a row of N = 1M is 2-4 MiB, and the rows of every resident CTA
  // together are more than L2 holds).
  std::string loopHead = sweepCount++ % 2 == 0
                             ? "  for (int pass = 0; pass < PASSES; ++pass) {\n"
                             : "  for (int pass = PASSES - 1; pass >= 0; --pass) {\n";
  loopHead += "  const int col0 = col0_base + pass * PASS_COLS;\n";
  if (isa<tier::ThreadReduceOp>(consumers.front())) {
    // Each state lives across the sweep: emitOp writes "State r = init;",
    // the fold loop over the values, then the unpacking; the declarations
    // go before the sweep, the folds inside, the unpackings after.
    size_t mark = body.size();
    bodyOs << loopHead;
    for (Operation *op : ordered)
      if (failed(emitOp(op)))
        return failure();
    std::string sweep = body.substr(mark);
    body.resize(mark);
    std::string decls, folds, after;
    for (Operation *tr : consumers) {
      if (failed(emitOp(tr)))
        return failure();
      std::string emitted = body.substr(mark);
      body.resize(mark);
      size_t foldAt = emitted.find(kFoldBegin);
      size_t endAt = emitted.find(kFoldEnd, foldAt);
      if (foldAt == std::string::npos || endAt == std::string::npos)
        return tr->emitError("internal: the thread reduction's fold has no sweep markers");
      size_t loopAt = foldAt + strlen(kFoldBegin);
      decls += emitted.substr(0, foldAt);
      folds += emitted.substr(loopAt, endAt - loopAt);
      after += emitted.substr(endAt + strlen(kFoldEnd));
    }
    bodyOs << decls << sweep << folds << "  }\n" << after;
    return success();
  }
  bodyOs << loopHead;
  for (Operation *op : ordered)
    if (failed(emitOp(op)))
      return failure();
  for (Operation *c : consumers)
    if (failed(emitOp(c)))
      return failure();
  bodyOs << "  }\n";
  return success();
}

LogicalResult KernelEmitter::emit(rkc::KernelInfo &info) {
  if (auto ks = func->getAttrOfType<tier::KSplitLayoutAttr>(tier::kLayoutAttr))
    return emitKSplit(info, ks);
  layout = func->getAttrOfType<tier::TvLayoutAttr>(tier::kLayoutAttr);
  sched = func->getAttrOfType<tier::ScheduleAttr>(tier::kScheduleAttr);
  auto arch = func->getAttrOfType<StringAttr>(tier::kArchAttr);
  if (!layout || !sched || !arch)
    return func.emitError("the kernel is not planned (run rk-plan-tiers)");
  bool lowered = true;
  func.walk([&](Operation *op) {
    if (isa<rk::RkDialect>(op->getDialect()))
      lowered = false;
  });
  if (!lowered)
    return func.emitError("the kernel still holds rk ops (run rk-lower-to-tier)");

  info.name = ("rkc_" + func.getName()).str();
  info.ctaThreads = layout.getCtaThreads();
  info.rowsPerCta = layout.getRows();
  info.cluster = sched.getCluster();
  info.split = sched.getSplit();
  info.vector = layout.getVector();
  info.arch = arch.str();
  int64_t rows = 0, cols = 0;
  std::string params;
  llvm::raw_string_ostream ps(params);
  for (BlockArgument a : func.getArguments()) {
    auto t = cast<RankedTensorType>(a.getType());
    auto st = storageType(t.getElementType(), func);
    if (failed(st))
      return failure();
    rkc::KernelArg ka;
    ka.name = rk::argName(func, a.getArgNumber());
    ka.dtype = dtypeName(t.getElementType());
    ka.shape.assign(t.getShape().begin(), t.getShape().end());
    ka.output = (bool)func.getArgAttr(a.getArgNumber(), "tier.output");
    ka.elemBytes = std::max<int>(1, t.getElementTypeBitWidth() / 8);
    info.args.push_back(ka);
    // The row shape; an [M, 1] tensor beside [M, N] ones is per-row.
    if (t.getRank() == 2 && (!rows || (cols == 1 && t.getDimSize(1) != 1))) {
      rows = t.getDimSize(0);
      cols = t.getDimSize(1);
    }
    ps << (a.getArgNumber() ? ",\n    " : "    ") << (ka.output ? "" : "const ")
       << *st << " *__restrict__ a" << a.getArgNumber();
  }
  for (BlockArgument a : func.getArguments())
    ps << ",\n    const long long s" << a.getArgNumber();
  ps << ",\n    const long long M";
  if (sched.getSplit() > 1)
    ps << ",\n    unsigned char *__restrict__ rkc_ws";
  info.rows = rows;
  info.cols = cols;
  // The [M, N] argument whose row stride places the rows of a shifted
  // kernel (the runtime holds the others to the same stride modulo W).
  int headArg = -1;
  for (BlockArgument a : func.getArguments()) {
    auto t = cast<RankedTensorType>(a.getType());
    if (headArg < 0 && t.getRank() == 2 && t.getDimSize(1) == cols)
      headArg = (int)a.getArgNumber();
  }
  shifted = layout.getVector() > 1 && cols % layout.getVector() != 0 && headArg >= 0;
  rowOperandBytes = 0;
  for (const rkc::KernelArg &ka : info.args)
    if (ka.shape.size() == 1 && ka.shape[0] == cols && !ka.output)
      rowOperandBytes += cols * ka.elemBytes;

  streaming = sched.getStaging() == tier::Staging::stream ||
              sched.getStaging() == tier::Staging::smem;
  staged = sched.getStaging() == tier::Staging::smem;
  asyncStaged = sched.getStaging() == tier::Staging::async;
  keep = sched.getKeep(); // 0 unless streamed (ScheduleAttr::verify)
  evictLast = sched.getEvictLast(); // 0 when streamed (ScheduleAttr::verify)
  keptArgs.clear();
  rowReadOnce = !func.walk([](tier::StoreOp) { return WalkResult::interrupt(); })
                     .wasInterrupted() &&
                layout.getRows() == 1 && sched.getCluster() * sched.getSplit() == 1 &&
                llvm::all_of(info.args, [&](const rkc::KernelArg &ka) {
                  return ka.output || ka.shape.size() != 2 || ka.shape[1] != cols ||
                         ka.elemBytes == 2;
                });
  func.walk([&](Operation *op) {
    if (isa<math::RoundEvenOp, math::RoundOp, math::FloorOp, math::CeilOp, math::TruncOp,
            arith::FPToSIOp, arith::FPToUIOp>(op))
      roundsToIntegers = true;
    // Float values stored into integer results are rounded there.
    if (isa<tier::StoreOp, tier::StoreRowScalarOp>(op) &&
        isa<IntegerType>(cast<ShapedType>(op->getOperand(1).getType()).getElementType()) &&
        !isa<IntegerType>(getElementTypeOrSelf(op->getOperand(0).getType())))
      roundsToIntegers = true;
  });
  fastMath = llvm::all_of(func.getArgumentTypes(), [](Type t) {
    auto r = cast<RankedTensorType>(t);
    Type e = r.getElementType();
    return r.getRank() != 2 || !rk::isDataFloat(e) || e.isBF16() || e.isF16();
  });
  gridWsBytes = 16; // the group's counters (rkc/grid.cuh)
  int64_t V = layout.getValues(), W = layout.getVector(), T = layout.getThreads();
  int64_t split = sched.getSplit();
  int64_t C = sched.getCluster() * split; // CTAs per row
  int64_t passes = (cols + T * C * V - 1) / (T * C * V);
  {
    // The planner's rule (its shared-memory count assumes it too).
    int64_t gridReductions = 0, inputRowBytes = 0;
    func.walk([&](tier::GridReduceOp) { ++gridReductions; });
    for (const rkc::KernelArg &ka : info.args)
      if (!ka.output && ka.shape.size() == 2 && ka.shape[1] == cols)
        inputRowBytes += ka.elemBytes;
    deferredWait = allowDeferred && streaming && !staged &&
                   ::rkc::plan::deferredGridWait(split, passes, keep, gridReductions,
                                                 V * T * inputRowBytes);
  }
  if (failed(emitBody()))
    return failure();

  if (split > 1)
    info.workspaceBytes = llvm::alignTo(gridWsBytes, 128);
  bool fullRow = !shifted && (T * C * V * passes == cols) && cols % (W * T * C) == 0;
  // The schedule in the override syntax (the tuner and the database read
  // it back): the planner's own formatter.
  ::rkc::plan::RowPlan rp;
  rp.threads = T;
  rp.values = V;
  rp.vector = W;
  rp.rows = layout.getRows();
  rp.cluster = sched.getCluster();
  rp.split = split;
  rp.staging = planStaging(sched.getStaging());
  rp.unroll = sched.getUnroll();
  rp.minBlocks = sched.getMinBlocks();
  rp.prefetch = sched.getPrefetch();
  rp.keep = sched.getKeep();
  rp.evictLast = sched.getEvictLast();
  info.plan = rp.str();
  // Column indices are ints (rkc/vec.cuh): the layout's sweep of the row,
  // PASSES x PASS_COLS columns, and a chunk past it must stay below 2^31.
  int64_t sweptCols = passes * C * T * V;
  if (sweptCols + C * T * W > std::numeric_limits<int32_t>::max())
    return func.emitError() << "rows of " << cols << " elements are too long: the layout ("
                            << info.plan << ") sweeps " << sweptCols
                            << " columns, and column indices must stay below 2^31";
  os << "// kernel " << info.name << ": " << info.plan << "\n";
  os << decls;
  os << "extern \"C\" __global__ void ";
  if (sched.getCluster() > 1)
    os << "__cluster_dims__(" << C << ", 1, 1) ";
  os << "__launch_bounds__(" << info.ctaThreads;
  if (sched.getMinBlocks() > 0)
    os << ", " << sched.getMinBlocks();
  os << ")\n" << info.name << "(\n" << params << ") {\n";
  os << formatv("  constexpr int N = {0};\n  constexpr int V = {1};\n  constexpr int W = {2};\n"
                "  constexpr int TPR = {3};\n  constexpr int ROWS = {4};\n  constexpr int C = {5};\n"
                "  constexpr int COL_STEP = C * TPR * W;\n  constexpr bool FULL_ROW = {6};\n"
                "  constexpr int PASSES = {7}; // sweeps of C * TPR * V columns\n"
                "  constexpr int PASS_COLS = C * TPR * V;\n  (void)PASSES; (void)PASS_COLS;\n",
                cols, V, W, T, layout.getRows(), C, fullRow ? "true" : "false", passes);
  os << "  (void)FULL_ROW; (void)ROWS;\n";
  os << "  const int tid = threadIdx.x;\n  const int t = tid % TPR;\n"
        "  const int row_in_cta = tid / TPR;\n  const int lane = tid & 31;\n"
        "  const int warp_in_row = t / 32;\n  (void)lane; (void)warp_in_row;\n";
  os << (split > 1 ? "  const int rank = (int)(blockIdx.x % C);\n"
         : C > 1   ? "  const int rank = (int)rkc::cluster_ctarank();\n"
                   : "  const int rank = 0;\n");
  // The row's set-up (its index, first column, kept passes' buffers):
  // once per row, or, with deferred grid waits, in the sweep of the next
  // row too (rowOs; `os` otherwise).
  std::string rowSetup;
  llvm::raw_string_ostream rowOs(rowSetup);
  if (split > 1) {
    // The grid tier: a persistent grid (all CTAs resident, a cooperative
    // launch) whose groups of C CTAs loop over the rows; each group owns
    // a region of the workspace (rkc/grid.cuh).
    os << kDependencyWait;
    os << formatv("  unsigned char *const rkc_gws = rkc_ws + (size_t)(blockIdx.x / C) * {0};\n"
                  "  rkc::u32 rkc_epoch = 0;\n",
                  info.workspaceBytes);
    if (!deferredWait)
      os << "  for (long long rkc_group = blockIdx.x / C; rkc_group < M;\n"
            "       rkc_group += gridDim.x / C) {\n";
    rowOs << "  const long long row_raw = rkc_group;\n";
  } else {
    rowOs << "  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;\n";
  }
  rowOs << "  const bool row_ok = row_raw < M;\n"
           "  const long long row = row_ok ? row_raw : M - 1;\n";
  if (shifted)
    rowOs << formatv("  // N is not a multiple of W: this row starts `head` elements past a\n"
                  "  // W-aligned address; the thread columns start `head` below 0, and\n"
                  "  // the slots below 0 hold the columns from WRAP (the layout's end) up.\n"
                  "  constexpr int WRAP = PASSES * PASS_COLS;\n"
                  "  // Chunks 1 .. SURE - 1 of a thread lie wholly in the row.\n"
                  "  constexpr int SURE = PASSES == 1 ? N / COL_STEP : 0;\n"
                  "  (void)SURE;\n"
                  "  const int head = (int)((row * s{0}) % W);\n"
                  "  const int col0_base = (rank * TPR + t) * W - head;\n",
                  headArg);
  else
    rowOs << "  const int col0_base = (rank * TPR + t) * W;\n";
  rowOs << "  const int col0 = col0_base;\n  (void)col0;\n";
  if (!deferredWait) {
    os << rowSetup;
    rowSetup.clear();
  }
  if (split == 1)
    os << kDependencyWait;
  if (anyCluster)
    os << setup << "  rkc::cluster_arrive_relaxed();\n";
  if (staged || asyncStaged) {
    // Each [M, N] input the kernel loads is copied, once, into this
    // thread's slots of the dynamic shared memory (rkc/stage.cuh): all
    // passes of a swept row (smem), or the whole fragment of each row of the
    // CTA (async), issued before the cluster barrier so that the copies are
    // in flight while it completes.
    llvm::SetVector<unsigned> args;
    func.walk([&](tier::LoadOp ld) {
      if (ld.getSource().getType().getRank() == 2)
        args.insert(cast<BlockArgument>(ld.getSource()).getArgNumber());
    });
    os << "  extern __shared__ __align__(16) unsigned char rkc_smem[];\n";
    // The copies of a row read once carry an evict-first L2 policy
    // (stage_frag_stream), but only where the thread stages one row: with
    // two (a kernel with two [M, N] inputs), CUDA 13.0's ptxas gives the
    // hinted copies (LDGSTS with a cache-policy descriptor) a descriptor
    // that faults as "illegal instruction" on the H100, whether the policy
    // is made per copy or once per row (random program 87 of
    // test/gpu/random_specs.py; session 23 of docs/performance-notes.md).
    // Schedule evict_last (one input: the planner checks it) copies the
    // row evict-last instead.
    const char *copy = evictLast ? "_keep" : rowReadOnce && args.size() == 1 ? "_stream" : "";
    if (evictLast && args.size() != 1)
      return func.emitError("schedule evict_last = 1 with staged copies takes one [M, N] input, "
                            "this kernel stages ")
             << args.size();
    int64_t offset = 0;
    int64_t rowsPerCta = layout.getRows();
    for (unsigned i : args) {
      auto t = cast<RankedTensorType>(func.getArgument(i).getType());
      auto st = storageType(t.getElementType(), func);
      if (failed(st))
        return failure();
      int64_t elemBytes = t.getElementTypeBitWidth() / 8;
      if (staged) {
        os << formatv("  {0} *st{1} = reinterpret_cast<{0} *>(rkc_smem + {2});\n"
                      "  for (int pass = 0; pass < PASSES; ++pass)\n"
                      "    rkc::stage_frag{4}<{0}, V, W, TPR{3}>(st{1} + pass * V * TPR, a{1} + row * s{1}, "
                      "col0_base + pass * PASS_COLS, COL_STEP, N, t);\n",
                      *st, i, offset, shiftArg(), copy);
        offset += passes * V * T * elemBytes;
      } else {
        // One region of V * TPR elements per row of the CTA.
        os << formatv("  {0} *st{1} = reinterpret_cast<{0} *>(rkc_smem + {2}) + row_in_cta * (V * TPR);\n"
                      "  rkc::stage_frag{4}<{0}, V, W, TPR{3}>(st{1}, a{1} + row * s{1}, col0_base, COL_STEP, N, t);\n",
                      *st, i, offset, shiftArg(), copy);
        offset += rowsPerCta * V * T * elemBytes;
      }
    }
    os << "  rkc::cp_async_commit();\n";
    if (staged)
      os << "  rkc::cp_async_wait_all();\n";
    info.smemBytes = offset;
  }
  if (!keptArgs.empty()) {
    // Schedule keep: the first KEEP passes of each [M, N] input the first
    // sweep reads, in this thread's slots (rkc/stage.cuh's layout).
    auto keptArgBytes = [&](unsigned i) {
      auto t = cast<RankedTensorType>(func.getArgument(i).getType());
      return keep * V * T * (t.getElementTypeBitWidth() / 8);
    };
    int64_t keptBytes = 0;
    for (unsigned i : keptArgs)
      keptBytes += keptArgBytes(i);
    raw_ostream &kos = deferredWait ? rowOs : os;
    kos << formatv("  constexpr int KEEP = {0}; // passes kept in shared memory\n", keep);
    if (!deferredWait)
      kos << "  extern __shared__ __align__(16) unsigned char rkc_smem[];\n";
    int64_t offset = 0;
    for (unsigned i : keptArgs) {
      auto t = cast<RankedTensorType>(func.getArgument(i).getType());
      auto st = storageType(t.getElementType(), func);
      if (failed(st))
        return failure();
      // Deferred waits: two buffers, the row's (rkc_kb) and the other.
      kos << formatv("  {0} *kp{1} = reinterpret_cast<{0} *>(rkc_smem + {2}{3});\n", *st, i, offset,
                     deferredWait ? formatv(" + rkc_kb * {0}", keptBytes).str() : "");
      offset += keptArgBytes(i);
    }
    info.smemBytes = deferredWait ? 2 * keptBytes : keptBytes;
  }
  if (deferredWait) {
    // Deferred grid waits (rkc/grid.cuh): rkc_sweep reads row `rkc_group`
    // into kept buffer `rkc_kb` and publishes its state; the loop sweeps
    // the next row of the group before it waits for this one's result.
    StringRef sweep = StringRef(body).take_front(deferredCut);
    StringRef rest = StringRef(body).drop_front(deferredCut);
    // What a lambda's sweep cannot be: none found to defer, shared buffers
    // of its own, or values used after it (it runs for the next row); such
    // a kernel emitCuda emits undeferred.
    if (deferredArrive.empty() || sweep.contains("__shared__")) {
      deferralFailed = true;
      return failure();
    }
    static const llvm::Regex decl(
        "(const )?[A-Za-z_:]+(<[^>]*>)? ((f|sv|r|v)[0-9]+(_chain)?) *(\\[|=|;)");
    for (StringRef line : llvm::split(sweep, '\n')) {
      SmallVector<StringRef> m;
      if (!decl.match(line.trim(), &m))
        continue;
      llvm::Regex use("(^|[^A-Za-z0-9_])" + m[3].str() + "([^A-Za-z0-9_]|$)");
      if (use.match(rest) || use.match(deferredWaitCall)) {
        deferralFailed = true;
        return failure();
      }
    }
    os << "  extern __shared__ __align__(16) unsigned char rkc_smem[];\n"
       << kernelScope << "  rkc::u32 rkc_waited = 0;\n  int rkc_kbuf = 0;\n"
       << "  auto rkc_sweep = [&](const long long rkc_group, const int rkc_kb) {\n"
       << rowSetup << rowScalars << sweep << deferredArrive << "  };\n"
       << "  if ((long long)(blockIdx.x / C) < M)\n    rkc_sweep(blockIdx.x / C, 0);\n"
       << "  for (long long rkc_group = blockIdx.x / C; rkc_group < M;\n"
          "       rkc_group += gridDim.x / C) {\n"
       << "  if (rkc_group + gridDim.x / C < M)\n"
          "    rkc_sweep(rkc_group + gridDim.x / C, rkc_kbuf ^ 1);\n"
       << "  const int rkc_kb = rkc_kbuf;\n"
       << rowSetup << rowScalars << deferredWaitCall << rest
       << "  __syncthreads();\n  rkc_kbuf ^= 1;\n  }\n"
          "  rkc::grid_finish<C, true>(rkc_gws, rkc_epoch);\n}\n";
    return success();
  }
  // No barrier before exit: each cluster_reduce ends with a cluster
  // barrier after which no CTA touches another's shared memory.
  os << body;
  if (split > 1) // the next row reuses the reduction buffers
    os << "  __syncthreads();\n  }\n  rkc::grid_finish<C>(rkc_gws, rkc_epoch);\n";
  os << "}\n";
  return success();
}


} // namespace rkc::emitter

LogicalResult rkc::emitCuda(ModuleOp module, std::string &source,
                            std::vector<KernelInfo> &kernels) {
  llvm::raw_string_ostream os(source);
  os << "// Generated by rkc from tier IR. Device primitives: templates/rkc.\n"
        "#include \"rkc/rkc.cuh\"\n\n";
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    KernelInfo info;
    std::string text;
    llvm::raw_string_ostream tos(text);
    emitter::KernelEmitter e(func, tos);
    if (failed(e.emit(info))) {
      if (!e.retryWithoutDeferral())
        return failure();
      text.clear();
      info = KernelInfo();
      emitter::KernelEmitter plain(func, tos, /*allowDeferred=*/false);
      if (failed(plain.emit(info)))
        return failure();
    }
    os << text;
    kernels.push_back(std::move(info));
    os << "\n";
  }
  if (kernels.empty())
    return module.emitError("no kernel to emit");
  return success();
}
