//===- TierDialect.cpp - tier dialect registration and attributes ---------===//

#include "tier/TierDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tier;

#include "tier/TierDialect.cpp.inc"
#include "tier/TierEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "tier/TierTypes.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tier/TierAttrs.cpp.inc"

void TierDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tier/TierOps.cpp.inc"
      >();
}

void TierDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tier/TierAttrs.cpp.inc"
      >();
}

void TierDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tier/TierTypes.cpp.inc"
      >();
}

static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

LogicalResult TvLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t threads, int64_t values,
                                   int64_t vector, int64_t rows) {
  if (!isPow2(threads) || threads > 1024)
    return emitError() << "tv_layout threads must be a power of two in "
                          "[1, 1024], got "
                       << threads;
  if (!isPow2(vector) || vector > 16)
    return emitError() << "tv_layout vector must be a power of two in "
                          "[1, 16], got "
                       << vector;
  if (values < vector || values % vector != 0)
    return emitError() << "tv_layout values (" << values
                       << ") must be a positive multiple of vector (" << vector
                       << ")";
  if (rows < 1 || threads * rows > 1024)
    return emitError() << "tv_layout needs rows >= 1 and threads x rows <= "
                          "1024 threads per CTA, got "
                       << threads << " x " << rows;
  if ((threads * rows) % 32 != 0)
    return emitError() << "tv_layout threads x rows (" << threads * rows
                       << ") must fill whole warps (a multiple of 32)";
  return success();
}

/// `<reduce = R, cluster = C, staging = S, unroll = U, min_blocks = B`
/// then the optional fields (`, prefetch = P`, `, keep = K`, `, split = S`,
/// `, evict_last = E`, any order)
/// and `>`.
Attribute ScheduleAttr::parse(AsmParser &p, Type) {
  std::string reduceName, stagingName;
  int64_t cluster = 0, unroll = 0, minBlocks = 0, prefetch = 0, keep = 0, split = 1,
          evictLast = 0;
  auto field = [&](StringRef name) -> ParseResult {
    return failure(p.parseKeyword(name) || p.parseEqual());
  };
  SMLoc loc = p.getCurrentLocation();
  if (p.parseLess() || field("reduce") || p.parseKeywordOrString(&reduceName) ||
      p.parseComma() || field("cluster") || p.parseInteger(cluster) || p.parseComma() ||
      field("staging") || p.parseKeywordOrString(&stagingName) || p.parseComma() ||
      field("unroll") || p.parseInteger(unroll) || p.parseComma() || field("min_blocks") ||
      p.parseInteger(minBlocks))
    return {};
  llvm::StringMap<int64_t *> optional = {
      {"prefetch", &prefetch}, {"keep", &keep}, {"split", &split}, {"evict_last", &evictLast}};
  llvm::StringSet<> seen;
  while (succeeded(p.parseOptionalComma())) {
    StringRef name;
    SMLoc at = p.getCurrentLocation();
    if (p.parseKeyword(&name) || p.parseEqual())
      return {};
    auto it = optional.find(name);
    bool known = it != optional.end();
    if (!known || !seen.insert(name).second) {
      p.emitError(at) << (known ? "duplicate schedule field '" : "unknown schedule field '")
                      << name << "' (optional fields: prefetch, keep, split, evict_last)";
      return {};
    }
    if (p.parseInteger(*it->second))
      return {};
  }
  if (p.parseGreater())
    return {};
  auto reduce = symbolizeLevel(reduceName);
  auto staging = symbolizeStaging(stagingName);
  if (!reduce || !staging) {
    p.emitError(loc) << "schedule: unknown " << (!reduce ? "reduce tier '" : "staging '")
                     << (!reduce ? reduceName : stagingName) << "'";
    return {};
  }
  return ScheduleAttr::getChecked([&] { return p.emitError(loc); }, p.getContext(), *reduce,
                                  cluster, *staging, unroll, minBlocks, prefetch, keep,
                                  split, evictLast);
}

void ScheduleAttr::print(AsmPrinter &p) const {
  p << "<reduce = " << stringifyLevel(getReduce()) << ", cluster = " << getCluster()
    << ", staging = " << stringifyStaging(getStaging()) << ", unroll = " << getUnroll()
    << ", min_blocks = " << getMinBlocks();
  if (getPrefetch())
    p << ", prefetch = " << getPrefetch();
  if (getKeep())
    p << ", keep = " << getKeep();
  if (getSplit() != 1)
    p << ", split = " << getSplit();
  if (getEvictLast())
    p << ", evict_last = " << getEvictLast();
  p << ">";
}

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   Level reduce, int64_t cluster,
                                   Staging staging, int64_t unroll,
                                   int64_t minBlocks, int64_t prefetch, int64_t keep,
                                   int64_t split, int64_t evictLast) {
  if (cluster < 1 || cluster > 16 || (cluster & (cluster - 1)))
    return emitError() << "schedule cluster must be a power of two in [1, 16], got "
                       << cluster;
  if (split < 1 || split > 1024 || (split & (split - 1)))
    return emitError() << "schedule split must be a power of two in [1, 1024], got " << split;
  if (split > 1 && cluster != 1)
    return emitError() << "schedule split > 1 takes cluster = 1 (the CTAs of a row are a "
                          "cluster or a split), got cluster = "
                       << cluster << ", split = " << split;
  if ((split > 1) != (reduce == Level::grid))
    return emitError() << "schedule reduce = grid goes with split > 1 (got reduce = "
                       << stringifyLevel(reduce) << ", split = " << split << ")";
  if ((cluster > 1) != (reduce == Level::cluster))
    return emitError() << "schedule reduce = cluster goes with cluster > 1 "
                          "(got reduce = "
                       << stringifyLevel(reduce) << ", cluster = " << cluster
                       << ")";
  if (unroll < 1)
    return emitError() << "schedule unroll must be at least 1, got " << unroll;
  if (minBlocks < 0)
    return emitError() << "schedule min_blocks must be non-negative, got "
                       << minBlocks;
  if (prefetch != 0 && prefetch != 1)
    return emitError() << "schedule prefetch must be 0 or 1, got " << prefetch;
  if (prefetch && staging != Staging::registers && staging != Staging::async)
    return emitError() << "schedule prefetch = 1 needs a row held in registers "
                          "(staging = registers or async), got staging = "
                       << stringifyStaging(staging);
  if (keep < 0)
    return emitError() << "schedule keep must be non-negative, got " << keep;
  if (keep && staging != Staging::stream)
    return emitError() << "schedule keep > 0 needs a streamed row (staging = stream), "
                          "got staging = "
                       << stringifyStaging(staging);
  if (evictLast != 0 && evictLast != 1)
    return emitError() << "schedule evict_last must be 0 or 1, got " << evictLast;
  if (evictLast && staging == Staging::stream)
    return emitError() << "schedule evict_last = 1 is for rows read in one sweep (staging = "
                          "registers, async or smem), got staging = stream";
  return success();
}

LogicalResult KSplitLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       int64_t rows, int64_t cols, int64_t warps,
                                       int64_t cluster, int64_t unroll, bool mma,
                                       int64_t kwarps, bool globalActs) {
  if (globalActs && !mma)
    return emitError() << "ksplit_layout global_acts = true (activations read from global "
                          "memory) needs mma = true";
  if (mma && cols != 1 && cols != 2 && cols != 4)
    return emitError() << "ksplit_layout with mma = true takes cols = 1, 2 or 4 "
                          "(groups of 32 columns per warp), got "
                       << cols;
  if (rows < 1 || rows > 16)
    return emitError() << "ksplit_layout rows must be in [1, 16], got " << rows;
  if (kwarps < 0 || (kwarps > 0 && warps % kwarps != 0))
    return emitError() << "ksplit_layout kwarps must divide warps (" << warps << "), got "
                       << kwarps;
  if (kwarps > 0 && kwarps != warps && !mma)
    return emitError() << "ksplit_layout kwarps < warps (warps taking more columns) needs "
                          "mma = true";
  if (!isPow2(cols) || cols > 16)
    return emitError() << "ksplit_layout cols must be a power of two in [1, 16], got "
                       << cols;
  if (warps < 1 || warps > 32)
    return emitError() << "ksplit_layout warps must be in [1, 32], got " << warps;
  if (!isPow2(cluster) || cluster > 16)
    return emitError() << "ksplit_layout cluster must be a power of two in [1, 16], got "
                       << cluster;
  if (unroll < 1 || unroll > 64)
    return emitError() << "ksplit_layout unroll must be in [1, 64], got " << unroll;
  return success();
}
