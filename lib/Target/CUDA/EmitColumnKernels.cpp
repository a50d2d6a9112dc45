//===- EmitColumnKernels.cpp - column (K-split) kernels to CUDA -----------===//
//
// The kernels of #tier.ksplit_layout: rk.gemv (tier.kdot on CUDA cores or
// tensor cores) and rk.quantize / rk.dequantize along K (tier.quantize_tile,
// tier.dequantize_tile). A CTA covers a tile of columns and a range of K;
// the K split is combined in shared memory and across a cluster
// (templates/rkc/quant.cuh).
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "rk/RkDialect.h"
#include "rkc/Plan/KSplitPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/FormatVariadic.h"

using llvm::formatv;

namespace rkc::emitter {

static rk::QuantAttr quantOf(Value v) {
  return dyn_cast_or_null<rk::QuantAttr>(
      cast<RankedTensorType>(v.getType()).getEncoding());
}

/// Kernel text shared by the two tier.kdot emitters (CUDA cores, tensor
/// cores): the CTA's range [kw_begin, kw_end) of packed rows (whole GRAINs,
/// split over the cluster), the fill of both block buffers before the
/// activations are staged, and the loop that consumes the blocks in turn,
/// refilling each buffer as soon as it has been consumed.
static constexpr const char *kKSplitCtaRange =
    "  const int kw_begin = min(KW, (int)((long long)rank * UNITS / C) * GRAIN);\n"
    "  const int kw_end = min(KW, (int)((long long)(rank + 1) * UNITS / C) * GRAIN);\n";
static constexpr const char *kKSplitPrefetch =
    "  if (it_begin < it_end) load_rows(it_begin, ba);\n"
    "  if (it_begin + 1 < it_end) load_rows(it_begin + 1, bb);\n"
    "  // PDL: the weights above may be read while the previous kernel runs;\n"
    "  // the activations, bias and output only after it (docs/runtime.md).\n";
static constexpr const char *kKSplitLoopHead =
    "  for (int it = it_begin; it < it_end; it += 2) {\n";
/// The double-buffered loop's body: compute a buffer, then reload it two
/// iterations ahead. With `loadActs` (global_acts: activations read from
/// global memory) a buffer's activation fragments are loaded with its
/// weights (load_acts; the first two buffers' before the loop, after the
/// PDL wait).
static std::string ksplitLoopBody(bool loadActs = false) {
  auto reload = [&](const char *it, const char *buf) {
    return loadActs ? formatv("{{ load_rows({0}, {1}); load_acts({0}, {1}); }", it, buf).str()
                    : formatv("load_rows({0}, {1});", it, buf).str();
  };
  return formatv("    compute_rows(it, ba);\n"
                 "    if (it + 2 < it_end) {0}\n"
                 "    if (it + 1 < it_end) {{\n"
                 "      compute_rows(it + 1, bb);\n"
                 "      if (it + 3 < it_end) {1}\n"
                 "    }\n  }\n  }\n",
                 reload("it + 2", "ba"), reload("it + 3", "bb"))
      .str();
}

/// The operands every column op has, resolved once: the quantized weight's
/// encoding and argument, its scales and optional zero points (storage type
/// and argument; "" and none when symmetric) and the float tensor (the
/// activations, the quantizer's input or the dequantized result).
struct ColumnOperands {
  rk::QuantAttr quant;
  std::string floatTy, scaleTy, zeroTy;
  unsigned floats = 0, q = 0, scales = 0;
  std::optional<unsigned> zeros;
};
static FailureOr<ColumnOperands> columnOperands(Operation *op, Value floats, Value q,
                                                Value scales, Value zeros) {
  ColumnOperands c;
  auto elemType = [](Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); };
  auto floatTy = storageType(elemType(floats), op);
  auto scaleTy = storageType(elemType(scales), op);
  if (failed(floatTy) || failed(scaleTy))
    return failure();
  c.quant = quantOf(q);
  c.floatTy = *floatTy;
  c.scaleTy = *scaleTy;
  c.floats = cast<BlockArgument>(floats).getArgNumber();
  c.q = cast<BlockArgument>(q).getArgNumber();
  c.scales = cast<BlockArgument>(scales).getArgNumber();
  if (zeros) {
    auto zeroTy = storageType(elemType(zeros), op);
    if (failed(zeroTy))
      return failure();
    c.zeroTy = *zeroTy;
    c.zeros = cast<BlockArgument>(zeros).getArgNumber();
  }
  return c;
}

/// Whether a tensor-core tier.kdot reads a lane's scales of a column group
/// in one access (rkc::PackedCols): with the weights as B (M > 8) a lane
/// folds 8 contiguous columns, one access of 16 bytes when N is a multiple
/// of 8 and the scales are 16-bit. -4 registers and 2-4 % at M = 16
/// (docs/performance-notes.md, session 17); with the weights as A (4
/// columns a lane) the same packing measured mixed (M = 4 14336 x 4096
/// +17 %, 4096 x 128256 -4 %), so those keep a register a value (RawCols).
static bool packedScales(tier::KDotOp op, tier::KSplitLayoutAttr ks) {
  return ks.getMma() && !::rkc::plan::mmaWeightsAsA(ks.getRows()) &&
         op.getWeight().getType().getDimSize(1) % 8 == 0 &&
         op.getScales().getType().getElementTypeBitWidth() == 16;
}

/// The plan a #tier.ksplit_layout records (for shapeOf and the kernel text).
static ::rkc::plan::KSplitPlan planOf(tier::KSplitLayoutAttr ks) {
  ::rkc::plan::KSplitPlan pl;
  pl.cols = ks.getCols();
  pl.warps = ks.getWarps();
  pl.cluster = ks.getCluster();
  pl.unroll = ks.getUnroll();
  pl.mma = ks.getMma();
  pl.kwarps = ks.getKwarps();
  pl.globalActs = ks.getGlobalActs();
  return pl;
}

/// The planner's view of the kernel's one quantized op (for shapeOf).
static ::rkc::plan::KSplitProblem columnProblem(Operation *op,
                                                 tier::KSplitLayoutAttr ks) {
  ::rkc::plan::KSplitProblem p;
  Value q, floats;
  if (auto d = dyn_cast<tier::KDotOp>(op)) {
    p.op = ::rkc::plan::ColumnOp::Gemv;
    q = d.getWeight();
    floats = d.getAct();
  } else if (auto d = dyn_cast<tier::DequantizeTileOp>(op)) {
    p.op = ::rkc::plan::ColumnOp::Dequantize;
    q = d.getQuantized();
    floats = d.getDest();
  } else {
    auto qt = cast<tier::QuantizeTileOp>(op);
    p.op = ::rkc::plan::ColumnOp::Quantize;
    q = qt.getQuantized();
    floats = qt.getInput();
  }
  auto quant = quantOf(q);
  auto t = cast<RankedTensorType>(q.getType());
  p.rows = ks.getRows();
  p.k = t.getDimSize(0);
  p.n = t.getDimSize(1);
  p.bits = quant.getBits();
  p.group = quant.getGroupSize() == p.k ? 0 : quant.getGroupSize();
  p.symmetric = quant.getSymmetric();
  p.actBytes = std::max<int>(
      1, cast<RankedTensorType>(floats.getType()).getElementTypeBitWidth() / 8);
  p.bf16 = cast<RankedTensorType>(floats.getType()).getElementType().isBF16();
  return p;
}

LogicalResult KernelEmitter::emitKSplit(rkc::KernelInfo &info, tier::KSplitLayoutAttr ks) {
  auto arch = func->getAttrOfType<StringAttr>(tier::kArchAttr);
  if (!arch)
    return func.emitError("the kernel is not planned (run rk-plan-tiers)");
  Operation *main = nullptr;
  for (Operation &op : func.getBody().front())
    if (isa<tier::KDotOp, tier::DequantizeTileOp, tier::QuantizeTileOp>(op))
      main = &op;
  if (!main)
    return func.emitError("a column kernel needs tier.kdot, tier.dequantize_tile "
                          "or tier.quantize_tile (run rk-lower-to-tier)");
  ::rkc::plan::KSplitProblem prob = columnProblem(main, ks);
  ::rkc::plan::KSplitPlan pl = planOf(ks);
  ::rkc::plan::KSplitShape shape = ::rkc::plan::shapeOf(pl, prob);

  info.name = ("rkc_" + func.getName()).str();
  info.ctaThreads = ks.getCtaThreads();
  info.rowsPerCta = 1;
  info.cluster = ks.getCluster();
  info.vector = 1;
  info.arch = arch.str();
  info.gridCtas = shape.ctas;
  info.smemBytes = shape.smemBytes;
  info.plan = pl.str();
  std::string params;
  llvm::raw_string_ostream ps(params);
  for (BlockArgument a : func.getArguments()) {
    auto t = cast<RankedTensorType>(a.getType());
    rkc::KernelArg ka;
    ka.name = rk::argName(func, a.getArgNumber());
    ka.dtype = dtypeName(t.getElementType());
    ka.shape.assign(t.getShape().begin(), t.getShape().end());
    ka.output = (bool)func.getArgAttr(a.getArgNumber(), "tier.output");
    ka.elemBytes = std::max<int>(1, t.getElementTypeBitWidth() / 8);
    std::string st;
    if (auto quant = quantOf(a)) {
      if (quant.valuesPerWord() * quant.getBits() != 32)
        return func.emitError() << "column kernels read " << quant.getBits()
                                << "-bit values packed in 32-bit words along K (packing = "
                                << (quant.getBits() == 4 ? "k8" : "k4") << "), got packing = "
                                << rk::stringifyQuantPacking(quant.getPacking());
      st = "rkc::u32"; // k8 / k4 words
      ka.alignBytes = (int)(pl.mma ? 16 : pl.cols * prob.wordBytes());
      ka.contiguous = true;
    } else {
      auto s = storageType(t.getElementType(), func);
      if (failed(s))
        return failure();
      st = *s;
    }
    info.args.push_back(ka);
    if (t.getRank() == 2 && !info.rows) {
      info.rows = t.getDimSize(0);
      info.cols = t.getDimSize(1);
    }
    ps << (a.getArgNumber() ? ",\n    " : "    ") << (ka.output ? "" : "const ") << st
       << " *__restrict__ a" << a.getArgNumber();
  }
  for (BlockArgument a : func.getArguments())
    ps << ",\n    const long long s" << a.getArgNumber();
  ps << ",\n    const long long M";

  // Alignment of the float operands follows their accesses.
  auto setAlign = [&](Value v, int64_t elems, bool contiguous) {
    unsigned i = cast<BlockArgument>(v).getArgNumber();
    auto &ka = info.args[i];
    ka.alignBytes = (int)std::min<int64_t>(16, elems * ka.elemBytes);
    ka.contiguous = ka.contiguous || contiguous;
  };

  os << "// kernel " << info.name << ": " << info.plan << "\n";
  os << "extern \"C\" __global__ void ";
  if (pl.cluster > 1)
    os << "__cluster_dims__(" << pl.cluster << ", 1, 1) ";
  os << "__launch_bounds__(" << info.ctaThreads << ")\n" << info.name << "(\n" << params
     << ") {\n";
  os << formatv("  constexpr int MR = {0};\n  constexpr int K = {1};\n  constexpr int N = {2};\n"
                "  constexpr int COLS = {3};\n  constexpr int WARPS = {4};\n"
                "  constexpr int C = {5};\n  constexpr int U = {6};\n"
                "  constexpr int THREADS = WARPS * 32;\n"
                "  constexpr int KWARPS = {10}; // warps splitting K (the others: columns)\n"
                "  constexpr int TILE_COLS = 32 * COLS * (WARPS / KWARPS);\n"
                "  constexpr int TILES = (N - 1) / TILE_COLS + 1;\n"
                "  constexpr int KPR = {7}; // values of K per packed row\n"
                "  constexpr int KW = K / KPR; // packed rows\n"
                "  constexpr int GR = {8}; // packed rows per scale group\n"
                "  constexpr int V = {9}; // output-tile values per thread\n"
                "  (void)MR; (void)U; (void)TILES; (void)GR; (void)V;\n",
                prob.rows, prob.k, prob.n, pl.cols, pl.warps, pl.cluster, pl.unroll,
                prob.kPerRow(), prob.groupRows(), shape.outValues, pl.kWarps());
  os << "  const int tid = threadIdx.x;\n  const int lane = tid & 31;\n"
        "  const int warp = tid >> 5;\n  (void)warp;\n";
  os << (pl.cluster > 1 ? "  const int rank = (int)rkc::cluster_ctarank();\n"
                        : "  const int rank = 0;\n");
  if (prob.op == ::rkc::plan::ColumnOp::Gemv)
    os << "  const int tile = blockIdx.x / C;\n";
  else
    os << "  const int tile = blockIdx.x % TILES;\n";
  // (Aliased partial sums with the receive buffer among them: the
  // cluster's first barrier comes after the products instead, in
  // ksplit_reduce_mma.)
  if (prob.op == ::rkc::plan::ColumnOp::Gemv && pl.cluster > 1 &&
      (!shape.aliased || shape.recvApart))
    os << "  rkc::cluster_arrive_relaxed(); // matched in ksplit_reduce\n";
  os << "  const int n0 = tile * TILE_COLS + lane * COLS;\n"
        "  const bool col_ok = n0 < N;\n  (void)rank; (void)col_ok;\n";
  if (prob.op != ::rkc::plan::ColumnOp::Gemv)
    os << kDependencyWait; // gemv: after its first weight loads (kKSplitPrefetch)

  for (Operation &op : func.getBody().front()) {
    if (auto d = dyn_cast<tier::KDotOp>(op)) {
      if (failed(emitKDot(d, ks)))
        return failure();
      int64_t sv = 8;
      while (sv > 1 && prob.k % sv != 0)
        sv /= 2;
      setAlign(d.getAct(), sv, false);
      setAlign(d.getScales(), packedScales(d, ks) ? 8 : pl.cols, true);
      if (d.getZeros())
        setAlign(d.getZeros(), pl.cols, true);
      continue;
    }
    if (auto r = dyn_cast<tier::KSplitReduceOp>(op)) {
      std::string n = fresh("f");
      names[r] = n;
      if (ks.getMma()) {
        // Template flags WA, ALIAS, RECV_APART, trailing defaults (false) left out.
        bool flags[] = {::rkc::plan::mmaWeightsAsA(ks.getRows()), shape.aliased, shape.recvApart};
        int last = flags[2] ? 3 : flags[1] ? 2 : flags[0] ? 1 : 0;
        std::string extra;
        for (int i = 0; i < last; ++i)
          extra += flags[i] ? ", true" : ", false";
        bodyOs << formatv("  float {0}[V];\n  rkc::ksplit_reduce_mma<MR, COLS, WARPS, KWARPS, C, V{2}>("
                          "{1}, red_s, recv_s, {0});\n",
                          n, names.lookup(r.getPartial()), extra);
      }
      else
        bodyOs << formatv("  float {0}[V];\n  rkc::ksplit_reduce<MR * COLS, COLS, WARPS, C, V>("
                          "{1}, red_s, recv_s, {0});\n",
                          n, names.lookup(r.getPartial()));
      continue;
    }
    if (auto ld = dyn_cast<tier::LoadTileOp>(op)) {
      unsigned i = cast<BlockArgument>(ld.getSource()).getArgNumber();
      std::string n = fresh("f");
      names[ld] = n;
      bodyOs << formatv(
          "  float {0}[V];\n  #pragma unroll\n  for (int j = 0; j < V; ++j) {\n"
          "    const int e = (j * C + rank) * THREADS + tid;\n"
          "    const int n = tile * TILE_COLS + e % TILE_COLS;\n"
          "    {0}[j] = (e < MR * TILE_COLS && n < N) ? rkc::to_f32(a{1}[n]) : 0.0f;\n  }\n",
          n, i);
      setAlign(ld.getSource(), 1, true);
      continue;
    }
    if (auto st = dyn_cast<tier::StoreTileOp>(op)) {
      unsigned i = cast<BlockArgument>(st.getDest()).getArgNumber();
      auto sty = storageType(st.getDest().getType().getElementType(), &op);
      if (failed(sty))
        return failure();
      bodyOs << formatv(
          "  #pragma unroll\n  for (int j = 0; j < V; ++j) {\n"
          "    const int e = (j * C + rank) * THREADS + tid;\n"
          "    const int n = tile * TILE_COLS + e % TILE_COLS;\n"
          "    if (e < MR * TILE_COLS && n < N)\n"
          "      a{0}[(long long)(e / TILE_COLS) * s{0} + n] = rkc::from_f32<{1}>({2}[j]);\n  }\n",
          i, *sty, names.lookup(st.getValue()));
      setAlign(st.getDest(), 1, false);
      continue;
    }
    if (auto d = dyn_cast<tier::DequantizeTileOp>(op)) {
      if (failed(emitDequantizeTile(d, ks)))
        return failure();
      setAlign(d.getScales(), pl.cols, true);
      if (d.getZeros())
        setAlign(d.getZeros(), pl.cols, true);
      setAlign(d.getDest(), pl.cols, false);
      continue;
    }
    if (auto q = dyn_cast<tier::QuantizeTileOp>(op)) {
      if (failed(emitQuantizeTile(q, ks)))
        return failure();
      setAlign(q.getInput(), pl.cols, false);
      setAlign(q.getScales(), pl.cols, true);
      if (q.getZeros())
        setAlign(q.getZeros(), pl.cols, true);
      continue;
    }
    if (isa<tier::MapOp, arith::ConstantOp, func::ReturnOp>(op)) {
      if (failed(emitOp(&op)))
        return failure();
      continue;
    }
    return op.emitError() << "'" << op.getName() << "' is not supported in a column kernel";
  }
  os << decls << body << "}\n";
  return success();
}

/// The float scale (and zero point) of group `g` for this thread's columns,
/// folded into `acc` (gemv) or used to dequantize.
static std::string loadScales(StringRef scaleTy, unsigned si, std::optional<unsigned> zi,
                              StringRef zeroTy, StringRef group) {
  std::string s = formatv("      float sc[COLS];\n"
                          "      rkc::load_vec<{0}, COLS>(a{1} + (long long)({2}) * N + n0, sc);\n",
                          scaleTy, si, group)
                      .str();
  if (zi)
    s += formatv("      float zp[COLS];\n"
                 "      rkc::load_vec<{0}, COLS>(a{1} + (long long)({2}) * N + n0, zp);\n",
                 zeroTy, *zi, group)
             .str();
  return s;
}

LogicalResult KernelEmitter::emitKDot(tier::KDotOp op, tier::KSplitLayoutAttr ks) {
  if (ks.getMma())
    return emitKDotMma(op, ks);
  auto o = columnOperands(op, op.getAct(), op.getWeight(), op.getScales(), op.getZeros());
  if (failed(o))
    return failure();
  rk::QuantAttr quant = o->quant;
  const std::string &actTy = o->floatTy, &scaleTy = o->scaleTy, &zeroTy = o->zeroTy;
  bool int4 = quant.getBits() == 4;
  bool zeros = o->zeros.has_value();
  unsigned ai = o->floats, wi = o->q, si = o->scales, zi = o->zeros.value_or(0);
  int64_t k = op.getAct().getType().getDimSize(1);
  int64_t group = quant.getGroupSize() == k ? 0 : quant.getGroupSize();
  int64_t kpr = quant.valuesPerWord();
  if (k % kpr != 0)
    return op.emitOpError() << "int" << quant.getBits() << " weights need K a multiple of "
                            << kpr << ", got " << k;
  int64_t gr = (group ? group : k) / kpr;
  int64_t u = ks.getUnroll();
  int64_t grain = group ? gr : u;
  // Staging accesses of 8 values when K and every CTA range (whole GRAINs)
  // hold whole ones, else one packed row's 4 (int8).
  int64_t sv = (k % 8 == 0 && (grain * kpr) % 8 == 0) ? 8 : 4;
  int64_t loadBytes = ks.getCols() * 4;
  int64_t words = (loadBytes + 3) / 4;
  // Groups one block of U packed rows touches, when blocks are group
  // aligned (the scales of a block are then fetched with its weights);
  // otherwise (0) the scales are loaded when a group is folded.
  int64_t ngi = (gr % u == 0) ? 1 : (u % gr == 0) ? u / gr : 0;
  ::rkc::plan::KSplitPlan pl = planOf(ks);
  int64_t ctaRows = ::rkc::plan::shapeOf(pl, columnProblem(op, ks)).ctaRows;
  std::string n = fresh("f");
  names[op.getResult()] = n;
  auto &b = bodyOs;
  b << formatv("  // tier.kdot: {0}-bit weights, group {1}, {2}\n", quant.getBits(), group,
               zeros ? "asymmetric (zero points)" : "symmetric");
  b << formatv("  constexpr int GRAIN = {0}; // CTA ranges of K: whole groups\n"
               "  constexpr int UNITS = (KW + GRAIN - 1) / GRAIN;\n"
               "  constexpr int CTA_ROWS = {1}; // packed rows of the largest CTA range\n"
               "  constexpr int SPAN = CTA_ROWS * KPR; // staged activation values per row\n"
               "  constexpr int SV = {2}; // activation values per staging access\n"
               "  constexpr int LOAD_BYTES = {3};\n  constexpr int WPL = {4}; // words per load\n"
               "  constexpr int NGI = {5}; // scale groups per block of U rows\n",
               grain, ctaRows, sv, loadBytes, words, std::max<int64_t>(ngi, 1));
  b << kKSplitCtaRange;
  // int4: the sum of each staged packed row's 8 activations (rowsum_s),
  // computed once per CTA for fold_u4 instead of by every thread per row.
  b << "  extern __shared__ __align__(16) unsigned char rkc_smem[];\n"
       "  float *act_s = reinterpret_cast<float *>(rkc_smem);\n";
  if (int4)
    b << "  float *rowsum_s = act_s + MR * SPAN; // [MR][CTA_ROWS]\n"
         "  float *red_s = rowsum_s + MR * CTA_ROWS;\n";
  else
    b << "  float *red_s = act_s + MR * SPAN;\n";
  b << "  float *recv_s = red_s + KWARPS * MR * TILE_COLS;\n  (void)recv_s;\n"
       "  const int its = (kw_end - kw_begin + U - 1) / U;\n"
       "  const int it_begin = warp * its / WARPS, it_end = (warp + 1) * its / WARPS;\n"
       "  const int kw_stop = min(kw_end, kw_begin + it_end * U);\n";
  b << formatv("  float {0}[MR * COLS];\n", n);
  b << "  {\n  float p[MR * COLS];\n"
       "  #pragma unroll\n  for (int i = 0; i < MR * COLS; ++i) { p[i] = 0.0f; "
    << n << "[i] = 0.0f; }\n";
  if (int4)
    b << "  float asum[MR];\n  #pragma unroll\n  for (int m = 0; m < MR; ++m) asum[m] = 0.0f;\n";
  // One block of U packed rows in registers: the weights and, when blocks
  // are group aligned, the raw scales (and zero points) of its groups.
  b << formatv("  struct Block {{\n    rkc::u32 w[U][WPL];\n"
               "    rkc::RawCols<{0}, COLS> sc[NGI];\n", scaleTy);
  if (zeros)
    b << formatv("    rkc::RawCols<{0}, COLS> zp[NGI];\n", zeroTy);
  b << "  };\n  Block ba, bb;\n";
  b << formatv("  auto load_rows = [&](int it, Block &blk) {{\n"
               "    const int kw0 = kw_begin + it * U;\n"
               "    #pragma unroll\n    for (int u = 0; u < U; ++u) {{\n"
               "      if (col_ok && kw0 + u < kw_end)\n"
               "        rkc::WeightLoad<LOAD_BYTES>::load(a{0} + (long long)(kw0 + u) * N + n0, blk.w[u]);\n"
               "      else\n"
               "        for (int j = 0; j < WPL; ++j) blk.w[u][j] = 0u;\n"
               "    }\n",
               wi);
  if (ngi) {
    b << formatv("    #pragma unroll\n    for (int gi = 0; gi < NGI; ++gi) {{\n"
                 "      const int g = min(kw0 / GR + gi, (KW - 1) / GR);\n"
                 "      if (col_ok) {{\n"
                 "        blk.sc[gi].load(a{0} + (long long)g * N + n0);\n",
                 si);
    if (zeros)
      b << formatv("        blk.zp[gi].load(a{0} + (long long)g * N + n0);\n", zi);
    b << "      }\n    }\n";
  }
  b << "  };\n";
  // Issue the first block of loads, then stage the activations while they
  // are in flight.
  b << kKSplitPrefetch << kDependencyWait;
  // Batches of SB loads per thread before their stores: SB round trips to
  // L2 in flight instead of one, when a thread has that many to do (not
  // at M = 1, whose 1024-thread CTAs have 64 registers a thread and one
  // load each).
  int64_t perThread = (ks.getRows() * ctaRows * kpr / sv + ks.getCtaThreads() - 1) / ks.getCtaThreads();
  b << formatv("  constexpr int SB = {2};\n"
               "  for (int i0 = tid; i0 < MR * (SPAN / SV); i0 += SB * THREADS) {{\n"
               "    float v[SB][SV];\n"
               "    #pragma unroll\n    for (int q = 0; q < SB; ++q) {{\n"
               "      const int i = i0 + q * THREADS;\n"
               "      const int m = i / (SPAN / SV), j = i % (SPAN / SV);\n"
               "      const int kk = kw_begin * KPR + j * SV;\n"
               "      if (i < MR * (SPAN / SV) && kk < kw_end * KPR)\n"
               "        rkc::load_vec<{0}, SV>(a{1} + (long long)m * s{1} + kk, v[q]);\n"
               "      else\n        for (int e = 0; e < SV; ++e) v[q][e] = 0.0f;\n"
               "    }\n"
               "    #pragma unroll\n    for (int q = 0; q < SB; ++q) {{\n"
               "      const int i = i0 + q * THREADS;\n"
               "      const int m = i / (SPAN / SV), j = i % (SPAN / SV);\n"
               "      if (i < MR * (SPAN / SV)) {{\n"
               "        #pragma unroll\n        for (int e = 0; e < SV; ++e) act_s[m * SPAN + j * SV + e] = v[q][e];\n"
               "{3}"
               "      }\n    }\n"
               "  }\n  __syncthreads();\n",
               actTy, ai, std::clamp<int64_t>(perThread, 1, 4),
               int4 ? "        rowsum_s[m * CTA_ROWS + j] = ((v[q][0] + v[q][1]) + (v[q][2] + "
                      "v[q][3])) + ((v[q][4] + v[q][5]) + (v[q][6] + v[q][7]));\n"
                    : "");
  b << "  auto compute_rows = [&](int it, const Block &blk) {\n"
       "    const int kw0 = kw_begin + it * U;\n"
       "    #pragma unroll\n    for (int u = 0; u < U; ++u) {\n"
       "      const int kw = kw0 + u;\n"
       "      if (kw < kw_stop) {\n"
       "      const float *as = act_s + (kw - kw_begin) * KPR;\n";
  if (int4) {
    std::string xorMask = zeros ? "" : " ^ 0x88888888u";
    b << "      float qv[COLS][8];\n"
         "      #pragma unroll\n      for (int c = 0; c < COLS; ++c) rkc::u4x8_half_plus(blk.w[u][c]"
      << xorMask << ", qv[c]);\n"
         "      #pragma unroll\n      for (int m = 0; m < MR; ++m) {\n"
         "        const float4 x0 = *reinterpret_cast<const float4 *>(as + m * SPAN);\n"
         "        const float4 x1 = *reinterpret_cast<const float4 *>(as + m * SPAN + 4);\n"
         "        const float a[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};\n"
         "        asum[m] += rowsum_s[m * CTA_ROWS + (kw - kw_begin)];\n"
         "        #pragma unroll\n        for (int c = 0; c < COLS; ++c)\n"
         "          #pragma unroll\n          for (int i = 0; i < 8; ++i)\n"
         "            p[m * COLS + c] = fmaf(a[i], qv[c][i], p[m * COLS + c]);\n"
         "      }\n";
  } else {
    // k4: column c's word holds 4 values of K (exact floats by PRMT).
    b << "      float qv[COLS][4];\n"
         "      #pragma unroll\n      for (int c = 0; c < COLS; ++c) rkc::s8x4_to_f32(blk.w[u][c], qv[c]);\n"
         "      #pragma unroll\n      for (int m = 0; m < MR; ++m) {\n"
         "        const float4 x = *reinterpret_cast<const float4 *>(as + m * SPAN);\n"
         "        const float a[4] = {x.x, x.y, x.z, x.w};\n"
         "        #pragma unroll\n        for (int c = 0; c < COLS; ++c)\n"
         "          #pragma unroll\n          for (int i = 0; i < 4; ++i)\n"
         "            p[m * COLS + c] = fmaf(a[i], qv[c][i], p[m * COLS + c]);\n"
         "      }\n";
  }
  // Scale folding at the end of each group (and of the warp's range).
  b << "      if ((kw + 1) % GR == 0 || kw + 1 == kw_stop) {\n"
       "        if (col_ok) {\n";
  if (ngi) {
    b << "          const int gi = NGI == 1 ? 0 : u / GR;\n"
         "          float sc[COLS];\n"
         "          #pragma unroll\n          for (int c = 0; c < COLS; ++c) sc[c] = blk.sc[gi].get(c);\n";
    if (zeros)
      b << "          float zp[COLS];\n"
           "          #pragma unroll\n          for (int c = 0; c < COLS; ++c) zp[c] = blk.zp[gi].get(c);\n";
  } else {
    b << formatv("          float sc[COLS];\n"
                 "          rkc::load_vec<{0}, COLS>(a{1} + (long long)(kw / GR) * N + n0, sc);\n",
                 scaleTy, si);
    if (zeros)
      b << formatv("          float zp[COLS];\n"
                   "          rkc::load_vec<{0}, COLS>(a{1} + (long long)(kw / GR) * N + n0, zp);\n",
                   zeroTy, zi);
  }
  b << "          #pragma unroll\n          for (int m = 0; m < MR; ++m)\n"
       "            #pragma unroll\n            for (int c = 0; c < COLS; ++c)\n";
  if (int4)
    b << formatv("              {0}[m * COLS + c] = fmaf(sc[c], rkc::fold_u4(p[m * COLS + c], "
                 "asum[m], {1}), {0}[m * COLS + c]);\n",
                 n, zeros ? "zp[c]" : "8.0f");
  else
    b << formatv("              {0}[m * COLS + c] = fmaf(sc[c], p[m * COLS + c], {0}[m * COLS + c]);\n",
                 n);
  b << "        }\n"
       "        #pragma unroll\n        for (int i = 0; i < MR * COLS; ++i) p[i] = 0.0f;\n";
  if (int4)
    b << "        #pragma unroll\n        for (int m = 0; m < MR; ++m) asum[m] = 0.0f;\n";
  b << "      }\n      }\n    }\n  };\n";
  b << kKSplitLoopHead << ksplitLoopBody();
  return success();
}

/// tier.kdot on tensor cores (#tier.ksplit_layout with mma): a warp covers
/// COLS groups of 32 columns; lane (g, t) loads, per group, 16 bytes =
/// columns 4g..4g+3 of packed row t of each block of 4 packed rows,
/// dequantizes each word to four 16-bit pairs and feeds two m16n8k16 per
/// word (column c of its 4 is mma c's column g). The activations are staged
/// as the matching pairs and their fragments loaded once per block for all
/// COLS groups. Partials per group are scaled once (scale folding on the
/// f32 accumulators).
LogicalResult KernelEmitter::emitKDotMma(tier::KDotOp op, tier::KSplitLayoutAttr ks) {
  auto o = columnOperands(op, op.getAct(), op.getWeight(), op.getScales(), op.getZeros());
  if (failed(o))
    return failure();
  rk::QuantAttr quant = o->quant;
  const std::string &actTy = o->floatTy, &scaleTy = o->scaleTy, &zeroTy = o->zeroTy;
  bool bf16 = op.getAct().getType().getElementType().isBF16();
  bool zeros = o->zeros.has_value();
  unsigned ai = o->floats, wi = o->q, si = o->scales, zi = o->zeros.value_or(0);
  int64_t k = op.getAct().getType().getDimSize(1);
  int64_t group = quant.getGroupSize() == k ? 0 : quant.getGroupSize();
  // Blocks of 4 packed rows, one per lane t of a quad: int4 32 values of
  // K (two m16n8k16 per column), int8 16 (one; the word's 4 values of K
  // stand for the product's k = 2t, 2t + 1, 2t + 8, 2t + 9, and the
  // activations are paired to match).
  bool int8 = quant.getBits() == 8;
  if (int8 && bf16)
    return op.emitOpError("int8 weights on tensor cores need f16 activations "
                          "(int8 + 128 is not exact in bf16)");
  int64_t kpr = quant.valuesPerWord();
  int64_t rb = 4;
  int64_t gr = (group ? group : k) / kpr;
  int64_t u = ks.getUnroll();
  int64_t grain = group ? gr : rb * u;
  // Scale groups one block of U x RB rows touches (blocks are group
  // aligned when one of GR, RB U divides the other; else loaded at the fold).
  int64_t ngi = (gr % (rb * u) == 0) ? 1 : ((rb * u) % gr == 0) ? (rb * u) / gr : 0;
  // Whole groups per block of U x RB rows (CTA and warp ranges are then
  // group aligned): the sets that open and close a group are known when the
  // loop unrolls, so a group's first product starts from zero (no clearing
  // of the partial sums) and the fold needs no test.
  bool staticFold = group && (rb * u) % gr == 0;
  // M <= 8: the weights are the A operand (the lane's columns 4g + 2q and
  // 4g + 2q + 1 as rows g and g + 8) and the rows of M B's 8 columns.
  bool wa = ::rkc::plan::mmaWeightsAsA(ks.getRows());
  ::rkc::plan::KSplitPlan pl = planOf(ks);
  ::rkc::plan::KSplitShape shape = ::rkc::plan::shapeOf(pl, columnProblem(op, ks));
  int64_t ctaRows = shape.ctaRows;
  std::string n = fresh("f");
  names[op.getResult()] = n;
  auto &b = bodyOs;
  const char *B = bf16 ? "true" : "false";
  b << formatv("  // tier.kdot on tensor cores: int{4} x {0}, group {1}, {2}, {3} x 32 columns "
               "per warp\n",
               bf16 ? "bf16" : "f16", group, zeros ? "zero points" : "symmetric",
               ks.getCols(), quant.getBits());
  b << formatv("  constexpr int GRAIN = {0}; // CTA ranges of K: whole groups\n"
               "  constexpr int UNITS = (KW + GRAIN - 1) / GRAIN;\n"
               "  constexpr int CTA_ROWS = {1}; // packed rows of the largest CTA range\n"
               "  constexpr int SPAN = CTA_ROWS * KPR; // staged activations per row\n"
               "  constexpr int RB = {3}; // packed rows per block (one m16n8k16 per column)\n"
               "  constexpr int NGI = {2}; // scale groups per block of U x RB rows\n"
               "  constexpr int NG = (KW + GR - 1) / GR;\n  (void)NG;\n",
               grain, ctaRows, std::max<int64_t>(ngi, 1), rb);
  b << "  const int g = lane >> 2, t = lane & 3;\n"
       "  const int kwarp = warp % KWARPS; // this warp's part of the CTA's K range\n"
       "  const int wcol = tile * TILE_COLS + (warp / KWARPS) * 32 * COLS;\n";
  // The lane's 4 x COLS weight columns: with the weights as the A operand
  // they are contiguous (group j at nb + 4 j: the warp's packed rows in
  // segments of 128 x COLS bytes); as B, group j is the
  // j-th 32 columns of the warp (nb + 32 j), whose D fragments hold output
  // columns ns + 32 j .. + 7.
  if (wa)
    b << "  constexpr int JS = 4; // columns from one group of the lane's to the next\n"
         "  const int nb = wcol + 4 * COLS * g;\n";
  else
    b << "  constexpr int JS = 32; // columns from one group of the lane's to the next\n"
         "  const int nb = wcol + 4 * g;\n"
         "  const int ns = wcol + 8 * t;\n";
  b << kKSplitCtaRange;
  b << "  extern __shared__ __align__(16) unsigned char rkc_smem[];\n";
  if (pl.globalActs)
    b << "  // global_acts: the activations are read from global memory; shared memory\n"
         "  // holds the partial sums.\n"
         "  float *red_s = reinterpret_cast<float *>(rkc_smem);\n"
         "  (void)SPAN;\n";
  else
    b << "  rkc::u32 *act_s = reinterpret_cast<rkc::u32 *>(rkc_smem); // [MR][SPAN / 2] pairs\n"
      << (shape.aliased ? "  // The partial sums reuse the activations' memory (ksplit_reduce_mma's barriers).\n"
                          "  float *red_s = reinterpret_cast<float *>(act_s);\n"
                        : "  float *red_s = reinterpret_cast<float *>(act_s + MR * (SPAN / 2));\n");
  b << (shape.recvApart
            ? formatv("  float *recv_s = reinterpret_cast<float *>(rkc_smem + {0}); // beside them\n",
                      shape.recvOffset)
                  .str()
            : std::string("  float *recv_s = red_s + KWARPS * MR * TILE_COLS;\n"))
    << "  (void)recv_s;\n"
       "  const int sets = (kw_end - kw_begin) / RB; // blocks of RB packed rows\n"
       "  const int its = (sets + U - 1) / U;\n"
       "  const int it_begin = kwarp * its / KWARPS, it_end = (kwarp + 1) * its / KWARPS;\n"
       "  const int set_stop = min(sets, it_end * U);\n";
  b << formatv("  float {0}[16 * COLS];\n  {{\n  float cg[16 * COLS];\n"
               "  #pragma unroll\n  for (int i = 0; i < 16 * COLS; ++i) {{ cg[i] = 0.0f; {0}[i] = 0.0f; }\n",
               n);
  // A lane's scales of a column group: its own 4 columns (wa), or the 8
  // columns of its D fragments, contiguous.
  int64_t nsc = wa ? 4 : 8;
  b << formatv("  struct Block {{\n    rkc::u32 w[U][COLS][4];\n    rkc::{2}<{0}, {1}> sc[NGI][COLS];\n",
               scaleTy, nsc, packedScales(op, ks) ? "PackedCols" : "RawCols");
  if (zeros)
    b << formatv("    rkc::RawCols<{0}, 4> zp[NGI][COLS];\n", zeroTy);
  if (pl.globalActs) // the blocks' activation fragments (load_acts)
    b << (int8 ? (wa ? "    rkc::u32 ag[U], bg[U];\n" : "    rkc::u32 ag[U], bg[U], ag8[U], bg8[U];\n")
               : (wa ? "    uint4 a[U];\n" : "    uint4 a[U], a8[U];\n"));
  b << "  };\n  Block ba, bb;\n";
  // 16 bytes = 4 columns of packed row RB s + t.
  b << formatv("  auto load_rows = [&](int it, Block &blk) {{\n"
               "    #pragma unroll\n    for (int u = 0; u < U; ++u) {{\n"
               "      const int s = it * U + u;\n"
               "      #pragma unroll\n      for (int j = 0; j < COLS; ++j) {{\n"
               "        if (nb + JS * j < N && s < sets) {{\n"
               "          rkc::WeightLoad<16>::load(a{0} + (long long)(kw_begin + RB * s + t) * N + nb + JS * j, blk.w[u][j]);\n"
               "        } else {{\n"
               "          for (int x = 0; x < 4; ++x) blk.w[u][j][x] = 0u;\n"
               "        }\n      }\n    }\n",
               wi);
  if (ngi) {
    b << formatv("    #pragma unroll\n    for (int gi = 0; gi < NGI; ++gi) {{\n"
                 "      const int grp = min((kw_begin + RB * it * U) / GR + gi, NG - 1);\n"
                 "      #pragma unroll\n      for (int j = 0; j < COLS; ++j) {{\n"
                 "        blk.sc[gi][j].load_guarded(a{0} + (long long)grp * N + {1} + {2} * j, N - {1} - {2} * j);\n",
                 si, wa ? "nb" : "ns", wa ? "JS" : "32");
    if (zeros)
      b << formatv("        blk.zp[gi][j].load_guarded(a{0} + (long long)grp * N + nb + JS * j, N - nb - JS * j);\n",
                   zi);
    b << "      }\n    }\n";
  }
  b << "  };\n";
  b << kKSplitPrefetch << kDependencyWait;
  // Stage the activations of the CTA's K range with cp.async in k order
  // (for int4 pair_k8 reorders them as the fragments are read, int8 takes
  // its pairs in order): 16-byte units of all MR rows per address. At
  // once before the first product, or (shape.stageChunks) in parts of each
  // K-split warp's range that its column warps copy two ahead of the
  // products (rkc::named_barrier per part).
  if (pl.globalActs) {
    // No staging: load_acts below reads each buffer's fragments from global
    // memory (the CTA's warps share them through L1).
  } else if (shape.stageChunks > 1) {
    b << formatv("  constexpr int PARTS = {0}; // parts of each K-split warp's range, staged in turn\n"
                 "  constexpr int GT = 32 * (WARPS / KWARPS); // threads sharing a K range\n"
                 "  const int gtid = (warp / KWARPS) * 32 + lane;\n"
                 "  const int pairs = (it_end - it_begin + 1) / 2; // the loop's steps\n"
                 "  auto part_begin = [&](int c) {{ return min(it_end, it_begin + 2 * (c * pairs / PARTS)); };\n"
                 "  const {1} *act0 = a{2} + kw_begin * KPR;\n"
                 "  auto stage_part = [&](int c) {{\n"
                 "    if (c < PARTS)\n"
                 "      rkc::stage_rows_async<MR, SPAN / 2>(act_s, act0, s{2}, part_begin(c) * U * (RB * KPR / 8),\n"
                 "                                          min(part_begin(c + 1) * U, sets) * (RB * KPR / 8), gtid, GT);\n"
                 "    rkc::cp_async_commit(); // one group per part, empty or not\n"
                 "  };\n"
                 "  stage_part(0);\n  stage_part(1);\n  int part = 0; // the next part to wait for\n",
                 shape.stageChunks, actTy, ai);
  } else {
    b << formatv("  rkc::stage_rows_async<MR, SPAN / 2>(act_s, a{0} + kw_begin * KPR, s{0}, 0,\n"
                 "                                      (kw_end - kw_begin) * KPR / 8, tid, THREADS);\n"
                 "  rkc::cp_async_commit();\n  rkc::cp_async_wait_all();\n  __syncthreads();\n",
                 ai);
  }
  // This lane's activations (row g, its pairs of each block) start at
  // act_g: one base for the whole loop instead of an index per block.
  if (pl.globalActs)
    b << formatv("  const long long AW = s{0} / 2; // 32-bit words from one row of activations to the next\n"
                 "  const rkc::u32 *act_g = reinterpret_cast<const rkc::u32 *>(a{0} + kw_begin * KPR) +\n"
                 "                          (g < MR ? g : 0) * AW + {1} * t; // packed row t of block 0\n",
                 ai, int8 ? 2 : 4);
  else
    b << (int8 ? "  const rkc::u32 *act_g = act_s + g * (SPAN / 2) + 2 * t; // packed row t of block 0\n"
               : "  const rkc::u32 *act_g = act_s + g * (SPAN / 2) + 4 * t; // packed row t of block 0\n");
  if (pl.globalActs) {
    // A buffer's activation fragments, loaded with its weights (one wait
    // covers both); blocks past the warp's range and rows past M read 0.
    b << "  auto load_acts = [&](int it, Block &blk) {\n"
         "    #pragma unroll\n    for (int u = 0; u < U; ++u) {\n"
         "      const int s = it * U + u;\n";
    if (int8)
      b << "      const bool ok = g < MR && s < set_stop;\n"
           "      blk.ag[u] = ok ? act_g[8 * s] : 0u;\n"
           "      blk.bg[u] = ok ? act_g[8 * s + 1] : 0u;\n"
        << (wa ? ""
               : "      const bool ok8 = g + 8 < MR && s < set_stop;\n"
                 "      blk.ag8[u] = ok8 ? act_g[8 * AW + 8 * s] : 0u;\n"
                 "      blk.bg8[u] = ok8 ? act_g[8 * AW + 8 * s + 1] : 0u;\n");
    else
      b << "      blk.a[u] = g < MR && s < set_stop ? *reinterpret_cast<const uint4 *>(act_g + 16 * s)\n"
           "                                        : make_uint4(0u, 0u, 0u, 0u);\n"
        << (wa ? ""
               : "      blk.a8[u] = g + 8 < MR && s < set_stop\n"
                 "                      ? *reinterpret_cast<const uint4 *>(act_g + 8 * AW + 16 * s)\n"
                 "                      : make_uint4(0u, 0u, 0u, 0u);\n");
    b << "    }\n  };\n"
         "  if (it_begin < it_end) load_acts(it_begin, ba);\n"
         "  if (it_begin + 1 < it_end) load_acts(it_begin + 1, bb);\n";
  }
  b << "  auto compute_rows = [&](int it, const Block &blk) {\n"
       "    #pragma unroll\n    for (int u = 0; u < U; ++u) {\n"
       "      const int s = it * U + u;\n"
       "      if (s < set_stop) {\n";
  if (!staticFold)
    b << "      const int kwb = kw_begin + RB * s;\n";
  if (pl.globalActs)
    b << (int8 ? (wa ? "      const rkc::u32 ag = blk.ag[u], bg = blk.bg[u]; // B: row g of M\n"
                     : "      const rkc::u32 ag = blk.ag[u], ag8 = blk.ag8[u], bg = blk.bg[u], bg8 = blk.bg8[u];\n")
               : (wa ? "      const uint4 a0 = rkc::pair_k8(blk.a[u]); // B: row g of M\n"
                     : "      const uint4 a0 = rkc::pair_k8(blk.a[u]), a1 = rkc::pair_k8(blk.a8[u]);\n"));
  else if (int8)
    // The fragments' pairs k = (2t, 2t + 1), (2t + 8, 2t + 9): values (4t,
    // 4t + 1), (4t + 2, 4t + 3) of the block, as the lane's words hold them.
    b << (wa ? "      rkc::u32 ag = 0u, bg = 0u; // B: row g of M\n"
               "      if (g < MR) { ag = act_g[8 * s]; bg = act_g[8 * s + 1]; }\n"
             : "      rkc::u32 ag = 0u, ag8 = 0u, bg = 0u, bg8 = 0u;\n"
               "      if (g < MR) { ag = act_g[8 * s]; bg = act_g[8 * s + 1]; }\n"
               "      if (g + 8 < MR) { ag8 = act_g[8 * (SPAN / 2) + 8 * s]; bg8 = act_g[8 * (SPAN / 2) + 8 * s + 1]; }\n");
  else
    b << (wa ? "      uint4 a0 = make_uint4(0u, 0u, 0u, 0u); // B: row g of M\n"
               "      if (g < MR) a0 = rkc::pair_k8(*reinterpret_cast<const uint4 *>(act_g + 16 * s));\n"
             : "      uint4 a0 = make_uint4(0u, 0u, 0u, 0u), a1 = a0;\n"
               "      if (g < MR) a0 = rkc::pair_k8(*reinterpret_cast<const uint4 *>(act_g + 16 * s));\n"
               "      if (g + 8 < MR) a1 = rkc::pair_k8(*reinterpret_cast<const uint4 *>(act_g + 8 * (SPAN / 2) + 16 * s));\n");
  // One m16n8k16; with static folds the first product of a group starts
  // from zero (D = A B).
  auto mma = [&](StringRef indent, StringRef args) {
    std::string call = formatv("rkc::mma_16816<{0}>({1});\n", B, args).str();
    if (!staticFold)
      return (indent + call).str();
    return formatv("{0}if ((u * RB) % GR == 0) rkc::mma_16816_first<{1}>({2});\n{0}else {3}", indent,
                   B, args, call)
        .str();
  };
  if (ngi)
    b << "      const int gi = NGI == 1 ? 0 : (RB * u) / GR;\n";
  if (int8) {
    b << "      #pragma unroll\n      for (int j = 0; j < COLS; ++j) {\n"
         "        rkc::u32 lo[4], hi[4]; // column c's values (4t, 4t + 1), (4t + 2, 4t + 3)\n"
         "        #pragma unroll\n        for (int c = 0; c < 4; ++c) rkc::s8x4_to_f16_pairs(blk.w[u][j][c], lo[c], hi[c]);\n"
      << (wa ? "        #pragma unroll\n        for (int q = 0; q < 2; ++q) {\n"
               "          float (&d)[4] = *reinterpret_cast<float(*)[4]>(cg + 8 * j + 4 * q);\n"
             : "        #pragma unroll\n        for (int c = 0; c < 4; ++c) {\n"
               "          float (&d)[4] = *reinterpret_cast<float(*)[4]>(cg + 16 * j + 4 * c);\n")
      << mma("          ", wa ? "d, lo[2 * q], lo[2 * q + 1], hi[2 * q], hi[2 * q + 1], ag, bg"
                              : "d, ag, ag8, bg, bg8, lo[c], hi[c]")
      << "        }\n      }\n";
  } else {
    // Column c of the lane's four: its zero point (or 8) as the pairs'
    // offset, then its word as four pairs h (k, k + 4).
    auto dequant = [&](StringRef in, StringRef h) {
      std::string off2 =
          !zeros ? formatv("{0}const rkc::u32 off2 = rkc::offset_pair<{1}>(8.0f);\n", in, B).str()
          : ngi  ? formatv("{0}const rkc::u32 off2 = rkc::offset_pair<{1}>(blk.zp[gi][j].get(c));\n",
                           in, B)
                      .str()
                 : formatv("{0}const int nz = nb + JS * j + c;\n"
                           "{0}const rkc::u32 off2 = rkc::offset_pair<{1}>(nz < N ? rkc::to_f32(a{2}[(long long)(kwb / GR) * N + nz]) : 0.0f);\n",
                           in, B, zi)
                       .str();
      return off2 + formatv("{0}rkc::u4x8_to_pairs<{1}, {2}>(blk.w[u][j][c], off2, {3});\n", in,
                            B, zeros ? "false" : "true", h)
                        .str();
    };
    b << "      #pragma unroll\n      for (int j = 0; j < COLS; ++j)\n";
    if (wa)
      // Columns 2q and 2q + 1 are rows g and g + 8 of A; B is row g of M.
      b << "      #pragma unroll\n      for (int q = 0; q < 2; ++q) {\n"
           "        rkc::u32 h[2][4];\n"
           "        #pragma unroll\n        for (int e = 0; e < 2; ++e) {\n"
           "          const int c = 2 * q + e;\n"
        << dequant("          ", "h[e]") << "        }\n"
        << "        float (&d)[4] = *reinterpret_cast<float(*)[4]>(cg + 8 * j + 4 * q);\n"
        << mma("        ", "d, h[0][0], h[1][0], h[0][1], h[1][1], a0.x, a0.y")
        << formatv("        rkc::mma_16816<{0}>(d, h[0][2], h[1][2], h[0][3], h[1][3], a0.z, a0.w);\n      }\n", B);
    else
      b << "      #pragma unroll\n      for (int c = 0; c < 4; ++c) {\n"
           "        rkc::u32 h[4];\n"
        << dequant("        ", "h")
        << "        float (&d)[4] = *reinterpret_cast<float(*)[4]>(cg + 16 * j + 4 * c);\n"
        << mma("        ", "d, a0.x, a1.x, a0.y, a1.y, h[0], h[1]")
        << formatv("        rkc::mma_16816<{0}>(d, a0.z, a1.z, a0.w, a1.w, h[2], h[3]);\n      }\n", B);
  }
  // Fold at the end of a group (and of the warp's range).
  b << (staticFold ? "      if (((u + 1) * RB) % GR == 0) { // the last block of a group\n"
                   : "      if ((kwb + RB) % GR == 0 || s + 1 == set_stop) {\n")
    << "        #pragma unroll\n        for (int j = 0; j < COLS; ++j) {\n";
  // The scales of the columns the lane's partial sums belong to: its own
  // four (wa), or columns 8t..8t+7 of the group (the D fragments' columns).
  const char *scCol = wa ? "nb" : "ns";
  const char *scStep = wa ? "JS" : "32";
  if (ngi)
    b << formatv("        float sc[{0}];\n"
                 "        #pragma unroll\n        for (int x = 0; x < {0}; ++x) sc[x] = blk.sc[gi][j].get(x);\n",
                 nsc);
  else
    b << formatv("        float sc[{1}];\n"
                 "        #pragma unroll\n        for (int x = 0; x < {1}; ++x)\n"
                 "          sc[x] = {2} + {3} * j + x < N ? rkc::to_f32(a{0}[(long long)(kwb / GR) * N + {2} + {3} * j + x]) : 0.0f;\n",
                 si, nsc, scCol, scStep);
  if (wa)
    b << formatv("        #pragma unroll\n        for (int q = 0; q < 2; ++q) {{\n"
                 "          float *acc = {0} + 8 * j + 4 * q;\n"
                 "          const float *part = cg + 8 * j + 4 * q;\n"
                 "          acc[0] = fmaf(sc[2 * q], part[0], acc[0]);\n"
                 "          acc[1] = fmaf(sc[2 * q], part[1], acc[1]);\n"
                 "          acc[2] = fmaf(sc[2 * q + 1], part[2], acc[2]);\n"
                 "          acc[3] = fmaf(sc[2 * q + 1], part[3], acc[3]);\n"
                 "        }\n        }\n",
                 n);
  else
    b << formatv("        #pragma unroll\n        for (int c = 0; c < 4; ++c) {{\n"
                 "          float *acc = {0} + 16 * j + 4 * c;\n"
                 "          const float *part = cg + 16 * j + 4 * c;\n"
                 "          acc[0] = fmaf(sc[c], part[0], acc[0]);\n"
                 "          acc[1] = fmaf(sc[4 + c], part[1], acc[1]);\n"
                 "          acc[2] = fmaf(sc[c], part[2], acc[2]);\n"
                 "          acc[3] = fmaf(sc[4 + c], part[3], acc[3]);\n"
                 "        }\n        }\n",
                 n);
  if (!staticFold)
    b << "        #pragma unroll\n        for (int i = 0; i < 16 * COLS; ++i) cg[i] = 0.0f;\n";
  b << "      }\n      }\n    }\n  };\n";
  if (shape.stageChunks > 1)
    // Before a part's first block: its copies (and this thread's older
    // ones) landed, and those of the warps sharing the range are visible;
    // then the part after the next starts.
    b << kKSplitLoopHead
      << "    while (part < PARTS && part_begin(part) <= it) {\n"
         "      rkc::cp_async_wait<1>();\n"
         "      rkc::named_barrier<GT>(1 + kwarp);\n"
         "      stage_part(part + 2);\n"
         "      ++part;\n"
         "    }\n"
      << ksplitLoopBody()
      << "  rkc::cp_async_wait_all(); // the empty groups of the parts past the range\n";
  else
    b << kKSplitLoopHead << ksplitLoopBody(pl.globalActs);
  return success();
}

LogicalResult KernelEmitter::emitDequantizeTile(tier::DequantizeTileOp op,
                                                tier::KSplitLayoutAttr ks) {
  auto o = columnOperands(op, op.getDest(), op.getQuantized(), op.getScales(), op.getZeros());
  if (failed(o))
    return failure();
  rk::QuantAttr quant = o->quant;
  const std::string &outTy = o->floatTy, &scaleTy = o->scaleTy, &zeroTy = o->zeroTy;
  std::optional<unsigned> zi = o->zeros;
  bool int4 = quant.getBits() == 4;
  unsigned qi = o->q, si = o->scales, oi = o->floats;
  int64_t loadBytes = ks.getCols() * 4;
  auto &b = bodyOs;
  b << formatv("  // tier.dequantize_tile: {0}-bit, {1}\n", quant.getBits(),
               quant.getSymmetric() ? "symmetric" : "zero points");
  b << formatv("  constexpr int LOAD_BYTES = {0};\n  constexpr int WPL = {1};\n",
               loadBytes, (loadBytes + 3) / 4);
  b << "  if (!col_ok) return;\n"
       "  const int kw_first = ((int)(blockIdx.x / TILES) * WARPS + warp) * U;\n"
       "  #pragma unroll\n  for (int u = 0; u < U; ++u) {\n"
       "    const int kw = kw_first + u;\n    if (kw >= KW) break;\n"
       "    rkc::u32 w[WPL];\n";
  b << formatv("    rkc::WeightLoad<LOAD_BYTES>::load(a{0} + (long long)kw * N + n0, w);\n", qi);
  b << "    {\n" << loadScales(scaleTy, si, zi, zeroTy, "kw / GR");
  // Each word holds KPR values of K of one column: KPR output rows.
  b << "      float rows[KPR][COLS];\n"
       "      #pragma unroll\n      for (int c = 0; c < COLS; ++c) {\n"
       "        float q[KPR];\n";
  if (!int4)
    b << "        rkc::s8x4_to_f32(w[c], q);\n";
  else if (quant.getSymmetric())
    b << "        rkc::s4x8_to_f32(w[c], q);\n";
  else
    b << "        rkc::u4x8_to_f32(w[c], q);\n";
  b << "        #pragma unroll\n        for (int i = 0; i < KPR; ++i) rows[i][c] = sc[c] * (q[i]"
    << (zi ? " - zp[c]" : "") << ");\n      }\n";
  b << formatv("      #pragma unroll\n      for (int i = 0; i < KPR; ++i)\n"
               "        rkc::store_vec<{0}, COLS>(a{1} + (long long)(kw * KPR + i) * s{1} + n0, rows[i]);\n",
               outTy, oi);
  b << "    }\n  }\n";
  return success();
}

LogicalResult KernelEmitter::emitQuantizeTile(tier::QuantizeTileOp op,
                                              tier::KSplitLayoutAttr ks) {
  auto o = columnOperands(op, op.getInput(), op.getQuantized(), op.getScales(), op.getZeros());
  if (failed(o))
    return failure();
  rk::QuantAttr quant = o->quant;
  const std::string &inTy = o->floatTy, &scaleTy = o->scaleTy, &zeroTy = o->zeroTy;
  bool int4 = quant.getBits() == 4;
  bool sym = quant.getSymmetric();
  unsigned xi = o->floats, qi = o->q, si = o->scales;
  std::optional<unsigned> zi = o->zeros;
  int64_t qmax = int4 ? (sym ? 7 : 15) : 127;
  auto &b = bodyOs;
  b << formatv("  // tier.quantize_tile: {0}-bit, {1}\n", quant.getBits(),
               sym ? "symmetric (absmax)" : "asymmetric (min, max, zero points)");
  b << "  constexpr int GK = GR * KPR; // values of K per group\n"
       "  const int g = (int)(blockIdx.x / TILES) * WARPS + warp;\n"
       "  if (!col_ok || g * GK >= K) return;\n"
       "  const long long k0 = (long long)g * GK;\n";
  // Pass 1: the range of each column over the group.
  b << "  float lo[COLS], hi[COLS];\n"
       "  #pragma unroll\n  for (int c = 0; c < COLS; ++c) { lo[c] = 0.0f; hi[c] = 0.0f; }\n";
  b << formatv("  for (int k = 0; k < GK; ++k) {{\n    float x[COLS];\n"
               "    rkc::load_vec<{0}, COLS>(a{1} + (k0 + k) * s{1} + n0, x);\n"
               "    #pragma unroll\n    for (int c = 0; c < COLS; ++c) {{\n",
               inTy, xi);
  if (sym)
    b << "      hi[c] = fmaxf(hi[c], fabsf(x[c]));\n";
  else
    b << "      lo[c] = fminf(lo[c], x[c]);\n      hi[c] = fmaxf(hi[c], x[c]);\n";
  b << "    }\n  }\n";
  // Scales (rounded to their storage type first: the stored scale is the
  // one every value is divided by) and zero points.
  b << "  float sc[COLS], zp[COLS];\n"
       "  #pragma unroll\n  for (int c = 0; c < COLS; ++c) {\n";
  // The range is multiplied by the f32 reciprocal of qmax (what PyTorch's
  // CUDA division by a scalar computes; docs/quantization.md), then rounded
  // once to the scale type.
  if (sym)
    b << formatv("    sc[c] = rkc::to_f32(rkc::from_f32<{0}>(hi[c] * {1}));\n    zp[c] = 0.0f;\n",
                 scaleTy, floatLiteral((double)(1.0f / (float)qmax)));
  else
    b << formatv("    sc[c] = rkc::to_f32(rkc::from_f32<{0}>((hi[c] - lo[c]) * {1}));\n"
                 "    zp[c] = sc[c] == 0.0f ? 0.0f : rkc::quant_round(-lo[c] / sc[c], 0.0f, 15.0f);\n",
                 scaleTy, floatLiteral((double)(1.0f / 15.0f)));
  b << "  }\n";
  b << formatv("  rkc::store_vec<{0}, COLS>(a{1} + (long long)g * N + n0, sc);\n", scaleTy, si);
  if (zi)
    b << formatv("  rkc::store_vec<{0}, COLS>(a{1} + (long long)g * N + n0, zp);\n", zeroTy, *zi);
  // Pass 2: round, clamp, pack, store.
  std::string lo = sym ? formatv("-{0}.0f", qmax).str() : "0.0f";
  std::string hi = formatv("{0}.0f", qmax).str();
  std::string qexpr = formatv("sc[c] == 0.0f ? zp[c] : rkc::quant_round(rintf(x[c] / sc[c]) + zp[c], {0}, {1})",
                              lo, hi)
                          .str();
  b << formatv("  for (int kw = 0; kw < GR; ++kw) {{\n    float q[COLS][KPR];\n"
               "    #pragma unroll\n    for (int i = 0; i < KPR; ++i) {{\n      float x[COLS];\n"
               "      rkc::load_vec<{0}, COLS>(a{1} + (k0 + kw * KPR + i) * s{1} + n0, x);\n"
               "      #pragma unroll\n      for (int c = 0; c < COLS; ++c) q[c][i] = {2};\n"
               "    }\n    rkc::u32 words[COLS];\n"
               "    #pragma unroll\n    for (int c = 0; c < COLS; ++c) words[c] = rkc::pack_word<{4}>(q[c]);\n"
               "    rkc::store_words<COLS>(a{3} + (k0 / KPR + kw) * N + n0, words);\n  }\n",
               inTy, xi, qexpr, qi, quant.getBits());
  return success();
}

} // namespace rkc::emitter
