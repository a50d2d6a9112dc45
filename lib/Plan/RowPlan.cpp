//===- RowPlan.cpp - the row-kernel cost model -----------------------------===//
//
// Rules (docs/planner.md explains the numbers):
//  1. Vector width: 16-byte accesses of the narrowest row operand; when
//     N is not a multiple of it, each row is read from the aligned address
//     before its start (shifted rows, templates/rkc/vec.cuh).
//  2. Register budget: about 64 fp32 row values per thread in registers,
//     shared by the fragments that are live at once.
//  3. Threads per row: enough for ~4 vector loads in flight per thread;
//     a sub-warp group of two vectors per thread when the row has at most
//     32 vectors (read-only rows: four up to 128 vectors, eight when the
//     reduction's combiner calls math functions and 4 threads remain); up
//     to 1024 (512 for 32-bit rows when two CTAs fit).
//  4. Cluster: when one CTA of 1024 threads cannot hold the row within the
//     register budget, split the row over 2..16 CTAs (DSMEM reductions) of
//     256 threads, staged asynchronously with 64 values each where the
//     inputs move in 16-byte chunks (else 32 values in registers).
//  5. Streaming: when even the largest cluster cannot hold it, and for a
//     read-once row (no [M, N] result, one reduction deep) that would
//     need a cluster, one CTA of 512 threads per row, when the rows fill
//     the GPU twice over and are read in 16-byte vectors.
//  6. Rows per CTA: CTAs of at least 128 threads for short rows.
//
//===----------------------------------------------------------------------===//

#include "rkc/Plan/RowPlan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using llvm::Expected;
using llvm::StringRef;

namespace rkc::plan {

static constexpr int64_t kTargetChunks = 4;     // vector loads in flight
static constexpr int64_t kRegisterValues = 64;  // fp32 row values per thread
static constexpr int64_t kMinCtaThreads = 128;
// Vector loads per thread of the read-only rows that take more than
// kTargetChunks (rule 3): short rows whose reduction's combiner calls math
// functions, where at least kHeavyCombineMinThreads threads remain a row;
// wider 32-bit rows with such combiners, or on fast memory.
static constexpr int64_t kDeepReadOnlyChunks = 8;
static constexpr int64_t kHeavyCombineMinThreads = 4;
// 16-bit read-only rows take kDeepReadOnlyChunks on fast memory where
// that leaves this many threads a row, up to the second (rule 3; N = 8k
// .. 32k at bf16, the range measured); from this many threads on they
// are staged asynchronously.
static constexpr int64_t kDeepReadOnly16MinThreads = 128;
static constexpr int64_t kDeepReadOnly16MaxThreads = 512;
static constexpr int64_t kDeepReadOnly16AsyncThreads = 256;
static constexpr int64_t kClusterThreads = 256;  // threads per CTA of a cluster
static constexpr int64_t kClusterValues = 32;    // row values per thread in a cluster
static constexpr int64_t kClusterStagedValues = 64; // the same, staged asynchronously
static constexpr int64_t kClusterStagedBytes = 64 * 1024; // their shared memory per CTA
static constexpr int64_t kStreamThreads16 = 512; // streamed 16-bit rows with a result
static constexpr int64_t kStreamReadOnceThreads = 512; // streamed read-once rows
static constexpr int64_t kStreamReadOnceCtasPerSm = 2; // rows per SM they need
static constexpr int64_t kReadOnlyTwoCtasThreads = 128; // read-only rows in registers: 2 CTAs/SM up to
static constexpr int64_t kThreeCtasThreads = 512; // 16-bit async rows: 3 CTAs/SM (min_blocks = 3) on fast memory
static constexpr int64_t kThreeCtasValues = 32;   // ... at this many values a thread
static constexpr int64_t kStreamCtasPerSm = 2; // streamed CTAs per SM the layouts assume
static constexpr int64_t kLatencyRowThreads = 512; // rows of a one-wave grid (rule 3)
static constexpr int64_t kElementwiseThreads = 512; // streamed 16-bit rows with no reduction
static constexpr int64_t kElementwiseCtas = 2048; // the CTAs their clusters aim at
static constexpr int64_t kElementwisePasses = 2; // passes per CTA they allow at most
static constexpr int64_t kKeepSmemHeadroom = 4096; // per CTA: reduction buffers, reserve
static constexpr int64_t kKeepL1Room = 32 * 1024; // per CTA, rows with >= 2 [N] operands
static constexpr int64_t kMaxSplit = 1024; // CTAs per row of the grid tier, at most
static constexpr int64_t kGridTierSlots = 33; // its shared states: 32 lanes' + the result
static constexpr int64_t kEvictOperandBytes = 1 << 20; // rule 8 on clusters: [N] operands below
static constexpr int64_t kSplitPasses = 4; // passes of a streamed row per CTA of a split
// ... of a 32-bit row with [N] operands (their L2 reads leave no room for the
// second sweep's), over at least kSplitPassesOperandsMinRows rows
static constexpr int64_t kSplitPassesOperands = 2;
static constexpr int64_t kSplitPassesOperandsMinRows = 32;

/// Sweeps a streamed row takes: one per reduction on the longest chain of
/// them (each needs the one before), and one for the [M, N] results.
static int64_t sweeps(const RowProblem &p) {
  return p.reductionDepth + (p.outputRowBytes > 0 ? 1 : 0);
}

const char *stagingName(Staging s) {
  switch (s) {
  case Staging::Registers: return "registers";
  case Staging::Smem: return "smem";
  case Staging::Stream: return "stream";
  case Staging::Async: return "async";
  }
  return "?";
}

const char *levelName(Level l) {
  switch (l) {
  case Level::Thread: return "thread";
  case Level::Warp: return "warp";
  case Level::Block: return "block";
  case Level::Cluster: return "cluster";
  case Level::Grid: return "grid";
  }
  return "?";
}

Level RowPlan::reduceLevel() const {
  if (split > 1) return Level::Grid;
  if (cluster > 1) return Level::Cluster;
  if (threads > 32) return Level::Block;
  if (threads > 1) return Level::Warp;
  return Level::Thread;
}

std::string RowPlan::str() const {
  return llvm::formatv("threads={0},values={1},vector={2},rows={3},cluster={4},"
                       "staging={5},unroll={6},min_blocks={7}{8}{9}{10}{11}",
                       threads, values, vector, rows, cluster,
                       stagingName(staging), unroll, minBlocks,
                       prefetch ? ",prefetch=1" : "",
                       keep ? ",keep=" + std::to_string(keep) : std::string(),
                       split > 1 ? ",split=" + std::to_string(split) : std::string(),
                       oneSweep() ? (evictLast ? ",evict=last" : ",evict=normal") : "")
      .str();
}

bool PlanOverride::empty() const {
  return threads < 0 && values < 0 && vector < 0 && rows < 0 && cluster < 0 &&
         unroll < 0 && minBlocks < 0 && staging < 0 && mma < 0 && prefetch < 0 &&
         kwarps < 0 && keep < 0 && split < 0 && acts < 0 && evict < 0;
}

/// The schedule's keyword fields: each value's code, in the order an
/// error lists them (constant-initialized: no start-up work).
namespace {
struct KeywordValue {
  const char *name;
  int code;
};
struct KeywordField {
  const char *key;
  int PlanOverride::*field;
  KeywordValue values[4];
  int count;
};
} // namespace
static const KeywordField kKeywordFields[] = {
    {"staging",
     &PlanOverride::staging,
     {{"registers", (int)Staging::Registers},
      {"async", (int)Staging::Async},
      {"smem", (int)Staging::Smem},
      {"stream", (int)Staging::Stream}},
     4},
    {"evict", &PlanOverride::evict, {{"last", 1}, {"normal", 0}}, 2},
    {"acts", &PlanOverride::acts, {{"smem", 1}, {"global", 0}}, 2},
};

/// The schedule's integer fields: a count (`field`) or a 0 / 1 switch
/// (`flag`), and whether 0 is a value.
namespace {
struct IntegerField {
  const char *key;
  int64_t PlanOverride::*field;
  int PlanOverride::*flag;
  bool zeroOk;
};
} // namespace
static const IntegerField kIntegerFields[] = {
    {"threads", &PlanOverride::threads, nullptr, false},
    {"values", &PlanOverride::values, nullptr, false},
    {"vector", &PlanOverride::vector, nullptr, false},
    {"rows", &PlanOverride::rows, nullptr, false},
    {"cluster", &PlanOverride::cluster, nullptr, false},
    {"split", &PlanOverride::split, nullptr, false},
    {"unroll", &PlanOverride::unroll, nullptr, false},
    {"min_blocks", &PlanOverride::minBlocks, nullptr, true},
    {"kwarps", &PlanOverride::kwarps, nullptr, false},
    {"keep", &PlanOverride::keep, nullptr, true},
    {"mma", nullptr, &PlanOverride::mma, true},
    {"prefetch", nullptr, &PlanOverride::prefetch, true},
};

/// `val` as the code of keyword field `f`, or the error that names its values.
static Expected<int> keywordValue(const KeywordField &f, StringRef val) {
  std::string list;
  for (int i = 0; i < f.count; ++i) {
    if (val == f.values[i].name)
      return f.values[i].code;
    list += i == 0 ? "" : i + 1 == f.count ? " or " : ", ";
    list += f.values[i].name;
  }
  return llvm::createStringError("schedule: " + std::string(f.key) + " must be " + list +
                                 ", got '" + val.str() + "'");
}

Expected<PlanOverride> parseOverride(StringRef text) {
  PlanOverride o;
  llvm::SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    if (!item.contains('='))
      return llvm::createStringError("schedule: '" + item.trim().str() +
                                     "' is not FIELD=VALUE (e.g. threads=256)");
    // Plain variables, not a structured binding: a lambda may not capture
    // one before C++20 (clang rejects it; the fuzz build is clang's).
    std::pair<StringRef, StringRef> kv = item.trim().split('=');
    StringRef key = kv.first.trim(), val = kv.second.trim();
    auto kw = llvm::find_if(kKeywordFields, [&](const KeywordField &f) { return key == f.key; });
    if (kw != std::end(kKeywordFields)) {
      Expected<int> code = keywordValue(*kw, val);
      if (!code)
        return code.takeError();
      o.*(kw->field) = *code;
      continue;
    }
    auto in = llvm::find_if(kIntegerFields, [&](const IntegerField &f) { return key == f.key; });
    if (in == std::end(kIntegerFields))
      return llvm::createStringError(
          "schedule: unknown field '" + key.str() +
          "' (threads, values, vector, rows, cluster, split, staging, unroll, "
          "min_blocks, prefetch, keep, evict = last or normal; column kernels: mma = 0 or 1, kwarps, acts = smem "
          "or global)");
    int64_t v;
    if (val.getAsInteger(10, v) || v < 0 || (v == 0 && !in->zeroOk))
      return llvm::createStringError(
          "schedule: '" + key.str() + "' needs a " +
          (in->zeroOk ? "non-negative" : "positive") + " integer, got '" + val.str() + "'");
    if (!in->flag) {
      o.*(in->field) = v;
    } else if (v > 1) {
      return llvm::createStringError("schedule: '" + key.str() + "' is 0 or 1, got '" +
                                     val.str() + "'");
    } else {
      o.*(in->flag) = (int)v;
    }
  }
  return o;
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t pow2Ceil(int64_t v) { return (int64_t)llvm::PowerOf2Ceil(std::max<int64_t>(v, 1)); }
static bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Passes of a swept row (staging smem or stream): sweeps of threads x
/// CTAs per row x values elements.
static int64_t passesOf(const RowPlan &pl, const RowProblem &p) {
  return ceilDiv(p.cols, pl.threads * pl.ctasPerRow() * pl.values);
}

/// Shared-memory bytes of one pass of a CTA's [M, N] inputs (staged or kept).
static int64_t passBytesOf(const RowPlan &pl, const RowProblem &p) {
  return pl.values * pl.threads * p.inputRowBytes;
}

/// The plan defers its grid waits (deferredGridWait, as the emitter does).
static bool defersGridWait(const RowPlan &pl, const RowProblem &p) {
  return deferredGridWait(pl.split, passesOf(pl, p), pl.keep, p.reductions, passBytesOf(pl, p));
}

int64_t dividingVector(int64_t cols, int64_t w) {
  while (w > 1 && cols % w != 0)
    w /= 2;
  return w;
}

int64_t pickVector(int64_t cols, int elemBytes) {
  int64_t w = 16 / std::max(elemBytes, 1);
  return cols >= w ? w : dividingVector(cols, w);
}

bool expandingRow(const RowProblem &p) {
  return p.maxInputElemBytes > 0 && p.elemBytes > p.maxInputElemBytes;
}

int64_t rowVectorWidth(const RowProblem &p) {
  return pickVector(p.cols, expandingRow(p) ? p.elemBytes : p.minElemBytes);
}

/// CTAs of the plan's grid, and whether they are about one wave (at most
/// one CTA per SM; 108 SMs when the GPU is unknown at plan time).
static int64_t gridCtas(const RowPlan &pl, const RowProblem &p) {
  return ceilDiv(p.rows, pl.rows) * pl.ctasPerRow();
}
static bool oneWave(const RowPlan &pl, const RowProblem &p, const Target &t) {
  return gridCtas(pl, p) <= t.planSms();
}

/// Whether the [M, N] inputs can be copied to shared memory (staging smem
/// or async): 16-byte chunks (vector accesses) of inputs of one element size.
static bool copiesInChunks(const RowProblem &p, int64_t vector) {
  return p.uniformInputs && p.inputRowBytes > 0 && vector * p.inputElemBytes == 16;
}

/// The row program reads exactly one [M, N] input.
static bool oneRowInput(const RowProblem &p) {
  return p.uniformInputs && p.inputElemBytes > 0 && p.inputRowBytes == p.inputElemBytes;
}

/// Registers per thread when one CTA of `ctaThreads` threads fills an SM
/// (65536 registers, at most 255 per thread).
static int64_t registersPerThread(int64_t ctaThreads) {
  return std::min<int64_t>(255, 65536 / std::max<int64_t>(ctaThreads, 128));
}

int64_t registerBudget(const RowProblem &p, int64_t threads, bool staged) {
  // registersPerThread less ~16 for addresses, loop state and the
  // reduction; shared by the live fragments.
  int64_t regs = registersPerThread(threads);
  double live = std::max(staged ? p.liveFragsStaged : p.liveFrags, 1.0);
  int64_t v = std::max<int64_t>((int64_t)((regs - 16) / live), 1);
  return std::min<int64_t>((int64_t)llvm::bit_floor((uint64_t)v), kRegisterValues);
}

bool needsStreaming(const RowProblem &p, const Target &t) {
  int64_t w = rowVectorWidth(p);
  int64_t vmax = std::max(registerBudget(p, t.maxThreadsPerCta), w);
  int64_t capacity = (int64_t)t.maxThreadsPerCta * t.maxCluster * vmax;
  return p.cols > capacity;
}

std::string checkPlan(const RowPlan &pl, const RowProblem &p, const Target &t) {
  if (!isPow2(pl.threads) || pl.threads > t.maxThreadsPerCta)
    return llvm::formatv("threads per row must be a power of two up to {0}, got {1}",
                         t.maxThreadsPerCta, pl.threads);
  if (!isPow2(pl.vector) || pl.vector * p.minElemBytes > 16)
    return llvm::formatv("vector = {0} is not a power of two with at most 16 "
                         "bytes per access ({1}-byte elements)",
                         pl.vector, p.minElemBytes);
  if (pl.values < pl.vector || pl.values % pl.vector != 0)
    return llvm::formatv("values per thread ({0}) must be a multiple of vector ({1})",
                         pl.values, pl.vector);
  if (pl.rows < 1 || pl.ctaThreads() > t.maxThreadsPerCta ||
      pl.ctaThreads() % 32 != 0)
    return llvm::formatv("threads x rows ({0} x {1}) must be a multiple of 32 "
                         "and at most {2}{3}",
                         pl.threads, pl.rows, t.maxThreadsPerCta,
                         pl.ctasPerRow() > 1
                             ? llvm::formatv(" (a row of {0} elements over {1} CTAs: too short "
                                             "to split that far)",
                                             p.cols, pl.ctasPerRow())
                                   .str()
                             : std::string());
  if (!isPow2(pl.cluster) || pl.cluster > t.maxCluster)
    return t.hasClusters()
               ? llvm::formatv("cluster = {0} must be a power of two up to {1}",
                               pl.cluster, t.maxCluster)
                     .str()
               : llvm::formatv("cluster = {0} needs thread-block clusters, which "
                               "{1} does not have",
                               pl.cluster, t.arch)
                     .str();
  if (pl.cluster > 1 && pl.rows != 1)
    return "a cluster works on one row at a time: rows must be 1";
  if (!isPow2(pl.split) || pl.split > kMaxSplit)
    return llvm::formatv("split = {0} must be a power of two up to {1}", pl.split, kMaxSplit);
  if (pl.split > 1 && (pl.cluster != 1 || pl.rows != 1))
    return "split > 1 (CTAs of a row combining through global memory) takes cluster = 1 "
           "and one row per CTA";
  if (pl.split > 1 && p.reductionDepth == 0)
    return "split > 1 combines reductions across CTAs; this row program has none "
           "(a cluster spreads its rows)";
  bool inRegisters = pl.inRegisters();
  if (pl.threads * pl.ctasPerRow() * pl.values < p.cols && inRegisters)
    return llvm::formatv("threads x CTAs per row x values ({0} x {1} x {2}) does not "
                         "cover the row of {3} elements",
                         pl.threads, pl.ctasPerRow(), pl.values, p.cols);
  int64_t regs = registersPerThread(pl.ctaThreads());
  if (pl.prefetch && !inRegisters)
    return "prefetch = 1 needs a row held in registers (staging = registers or async)";
  if (pl.evictLast && !pl.oneSweep())
    return "evict = last is for rows read in one sweep (staging = registers, async or smem); "
           "the sweeps of a streamed row carry their own L2 policies";
  // CUDA 13.0's ptxas gives hinted cp.async copies of two rows a
  // cache-policy descriptor that faults as "illegal instruction" on the
  // H100 (random program 87 of test/gpu/random_specs.py; session 23 of
  // docs/performance-notes.md; EmitCuda's staging copies).
  if (pl.evictLast && pl.staging != Staging::Registers && !oneRowInput(p))
    return "evict = last with staged copies (staging = async or smem) takes one [M, N] input "
           "(CUDA 13.0's ptxas miscompiles hinted copies of two)";
  // Prefetched [N] operands are held from the start: a whole fragment each.
  double live = pl.staging == Staging::Async ? p.liveFragsStaged : p.liveFrags;
  double regValues = pl.values * (std::max(live, 1.0) + (pl.prefetch ? p.rowVectorInputs : 0));
  if (inRegisters && regValues > regs) {
    double frags = regValues / pl.values;
    return llvm::formatv("values per thread x live fragments ({0} x {1}) would "
                         "spill: a CTA of {2} threads has {3} registers per thread",
                         pl.values,
                         frags == (double)(int64_t)frags
                             ? std::to_string((int64_t)frags)
                             : llvm::formatv("{0:f2}", frags).str(),
                         pl.ctaThreads(), regs);
  }
  if (pl.unroll < 1 || pl.unroll > 64) // as the column kernels' (KSplitPlan)
    return llvm::formatv("unroll = {0} must be in [1, 64]", pl.unroll).str();
  // A launch bound no SM can meet: ptxas ignores it silently and the
  // kernel runs at whatever occupancy its registers give.
  if (pl.minBlocks > 0 && (pl.minBlocks * pl.ctaThreads() > t.maxThreadsPerSm ||
                           pl.minBlocks > t.maxCtasPerSm))
    return llvm::formatv("min_blocks = {0} CTAs of {1} threads an SM: {2} holds at most {3} "
                         "threads and {4} CTAs",
                         pl.minBlocks, pl.ctaThreads(), t.arch, t.maxThreadsPerSm,
                         t.maxCtasPerSm);
  int64_t smem = (int64_t)p.reductions * p.stateWords * 4 *
                 (pl.rows * pl.warpsPerRow() * pl.cluster + 2 +
                  (pl.split > 1 ? kGridTierSlots : 0));
  if (pl.staging == Staging::Smem) {
    if (!copiesInChunks(p, pl.vector) || pl.rows != 1)
      return "staging = smem copies 16-byte chunks of one element size, one row per CTA";
    smem += passesOf(pl, p) * passBytesOf(pl, p);
  }
  if (pl.staging == Staging::Async) {
    if (!copiesInChunks(p, pl.vector))
      return "staging = async copies 16-byte chunks of [M, N] inputs of one element size";
    smem += pl.values * pl.ctaThreads() * p.inputRowBytes;
  }
  if (pl.keep < 0)
    return "keep must be non-negative";
  if (pl.keep > 0) {
    int64_t passes = passesOf(pl, p);
    if (pl.staging != Staging::Stream || pl.rows != 1 || !copiesInChunks(p, pl.vector))
      return "keep > 0 keeps passes of a streamed row (staging = stream, one row per CTA, "
             "16-byte chunks of [M, N] inputs of one element size)";
    if (pl.keep > passes)
      return llvm::formatv("keep = {0}: the row has {1} passes", pl.keep, passes);
    smem += pl.keep * passBytesOf(pl, p);
    if (defersGridWait(pl, p))
      smem += pl.keep * passBytesOf(pl, p) + // the next row's buffer, its arrival's states
              (int64_t)p.stateWords * 4 * pl.warpsPerRow();
  }
  if (smem > t.maxSmemPerCta)
    return llvm::formatv("the schedule needs {0} bytes of shared memory (reduction "
                         "buffers, staged or kept passes), over the {1} bytes of {2}",
                         smem, t.maxSmemPerCta, t.arch);
  return "";
}

void choosePrefetch(RowPlan &pl, const RowProblem &p, const Target &t) {
  pl.prefetch = 0;
  if (p.rowVectorInputs == 0 || !oneWave(pl, p, t) || !pl.inRegisters())
    return;
  RowPlan pre = pl;
  pre.prefetch = 1;
  if (checkPlan(pre, p, t).empty())
    pl.prefetch = 1;
}

void chooseEvict(RowPlan &pl, const RowProblem &p, const Target &t) {
  // Rows read once, with a result: x loaded evict-last lets L2 pick the
  // written result lines as victims first (Triton's first-sweep hint).
  // Measured on the H200 against plain loads (docs/performance-notes.md):
  //  - one CTA a row (session 41): RMSNorm, LayerNorm, softmax and
  //    log-softmax, bf16 and f32, N = 1k-32k, 1.02-1.05x at 41 of the 46
  //    shapes the rule takes, 1.00-1.01x at four, 0.99x at RMSNorm f32 16k;
  //  - a row over a cluster, staged asynchronously (session 42, the same
  //    four ops at 32k-256k, clusters of 2-16): softmax / log-softmax
  //    1.015-1.037x, RMSNorm bf16 1.018-1.026x, LayerNorm bf16 1.007-
  //    1.009x, RMSNorm / LayerNorm f32 1.008-1.029x up to 1 MiB of [N]
  //    operands but 0.983x / 0.963x at 256k (1 / 2 MiB of them: the dead
  //    evict-last lines of the rows then displace the weights every row
  //    reads again). So not where the [N] operands reach kEvictOperandBytes,
  //    and not for cluster rows held in registers or without a reduction
  //    (their clusters only spread the rows; both unmeasured).
  // Not for two [M, N] inputs or rows without a result (unmeasured; rows
  // read once without a result load evict-first, codegen revision 14), not
  // for one-wave grids (latency-bound, unmeasured), not for split rows
  // (streamed), and not for rows held in registers under a launch bound
  // (min_blocks): the hinted loads take more registers (the policy,
  // addresses without immediate offsets), and at the bound's cap they
  // spill (RMSNorm f32 16k on the H200, 512 threads x 2 CTAs an SM: 24
  // bytes, 0.99x).
  // (These conditions are a superset of checkPlan's for the hint: one
  // sweep, one input where copies are staged; it costs no resource the
  // planner counts, so nothing else to check.)
  bool cluster = pl.ctasPerRow() > 1;
  int64_t operandBytes = (int64_t)p.rowVectorInputs * p.cols * p.elemBytes;
  pl.evictLast = t.hasClusters() && pl.oneSweep() && pl.split == 1 &&
                 (!cluster || (pl.staging == Staging::Async && p.reductionDepth > 0 &&
                               operandBytes < kEvictOperandBytes)) &&
                 p.outputRowBytes > 0 && oneRowInput(p) && !oneWave(pl, p, t) &&
                 !(pl.staging == Staging::Registers && pl.minBlocks > 0);
}

/// The planner's rules; `allowEdge` false turns rule 4's registers edge off
/// (planRow weighs it against the cluster plan it replaces), `tookEdge` (if
/// given) says whether the plan took it.
static Expected<RowPlan> planRowWith(const RowProblem &p, const Target &t,
                                     const PlanOverride &o,
                                     llvm::SmallVectorImpl<std::string> *remarks,
                                     bool allowEdge, bool *tookEdge) {
  auto note = [&](std::string s) {
    if (remarks)
      remarks->push_back(std::move(s));
  };
  if (p.cols < 1 || p.rows < 1)
    return llvm::createStringError("cannot plan an empty row problem");
  if (o.mma >= 0 || o.kwarps >= 0 || o.acts >= 0)
    return llvm::createStringError(llvm::Twine("schedule: '") +
                                   (o.mma >= 0 ? "mma" : o.kwarps >= 0 ? "kwarps" : "acts") +
                                   "' applies to rk.gemv (column kernels), not to row kernels");
  RowPlan pl;

  // 1. Vector width.
  pl.vector = o.vector > 0 ? o.vector : rowVectorWidth(p);
  bool shifted = p.cols % pl.vector != 0;
  bool expands = expandingRow(p);
  bool expanding = o.vector <= 0 && expands;
  note(llvm::formatv("vector = {0}: {1}-byte accesses of {2}-byte elements{3}{4}",
                     pl.vector, pl.vector * p.minElemBytes, p.minElemBytes,
                     expanding ? llvm::formatv(" ({0}-byte accesses of the {1}-byte results: "
                                               "the row expands)",
                                               pl.vector * p.elemBytes, p.elemBytes)
                                     .str()
                               : std::string(),
                     shifted
                         ? llvm::formatv(" (shifted rows: N is not a multiple of {0}, so each "
                                         "row is read from the aligned address up to {1} "
                                         "elements before it{2})",
                                         pl.vector, pl.vector - 1,
                                         p.rowVectorInputs
                                             ? "; its [N] operands realigned in registers "
                                               "(16-bit) or element by element (32-bit)"
                                             : "")
                               .str()
                     : o.vector <= 0 && !expanding && pl.vector * p.minElemBytes < 16
                         ? std::string(" (the row is shorter than a 16-byte vector)")
                         : std::string()));

  // 2-5. Threads per row, cluster, values per thread, staging.
  int64_t nvec = ceilDiv(p.cols, pl.vector);
  auto kmaxFor = [&](int64_t threads, bool staged = false) {
    return std::max<int64_t>(registerBudget(p, threads, staged) / pl.vector, 1);
  };
  int64_t threads = o.threads > 0 ? o.threads : 32;
  int64_t cluster = 1;
  bool twoCtas = false; // two CTAs an SM: min_blocks = 2 (rule 3, fast memory)
  bool latencyRow = false; // a one-wave grid's row: kLatencyRowThreads (rule 3)
  bool deepReadOnly16 = false; // a 16-bit read-only row at kDeepReadOnlyChunks (rule 3)
  if (o.threads <= 0) {
    bool readOnly = p.outputRowBytes == 0 && p.minElemBytes >= 2;
    if (nvec <= (readOnly ? 32 * kTargetChunks : 32)) {
      // A short row: a sub-warp group, one vector per thread. A read-only
      // row (no [M, N] result, e.g. cross-entropy, logsumexp, argmax) has
      // no stores to keep the memory system busy while its loads wait: it
      // needs more loads in flight per thread, kTargetChunks vectors each
      // (the tuners' choice for cross-entropy bf16 at N = 256 and 512 on
      // the H100: 1.40x over one vector per thread; and for f32 at N = 256
      // on the H100, 16 x 4; on the H200 f32 rows of 64-256 at 4 vectors
      // against 2: cross-entropy 1.12-1.22x, argmax 1.19-1.20x, logsumexp
      // 1.35-1.39x, bench/results/2026-11-28-h200-short-rows-ab-48a0a36.txt).
      // A row whose reduction combines through math functions (a
      // user-written online logsumexp: two exp a combine, once per element
      // and once per shuffle level) takes kDeepReadOnlyChunks vectors a
      // thread instead where that leaves kHeavyCombineMinThreads threads
      // or more a row: fewer threads, fewer shuffle levels (logsumexp on
      // the H200: f32 at N = 128 / 256 8 vectors 1.51x / 1.64x over 2,
      // where 4 gave 1.35x / 1.39x; bf16 at 256 / 512 1.03x / 1.06x over
      // 4; but 2 threads of 8
      // lost to 4 of 4 at f32 N = 64 (0.95x) and bf16 N = 128 (0.94x), and
      // 1 of 8 to 2 of 4 at f32 N = 32 (0.86x);
      // bench/results/2026-11-28-h200-heavy-combine-edges-8558749.txt).
      // Cross-entropy, whose max and add combiners are one instruction,
      // gains nothing from 8.
      // Any other short row whose vector is one 16-byte load of its
      // widest input takes two vectors per thread: a resident SM
      // (2048 threads) then has 64 KiB of loads in flight, where one vector
      // each gives 32 KiB, which Little's law puts under what the faster
      // parts need (bandwidth x ~1 us latency / SMs: ~25 KiB on the H100,
      // ~36 KiB on the H200). Measured on the H200 (`rkc tune`, session
      // 31): RMSNorm / LayerNorm / softmax bf16 at N = 256 16 threads x 2
      // vectors 1.23-1.25x over 32 x 1 (0.78 -> 0.97 of the copy
      // roofline); on the H100 the tuner had kept 32 x 1 (16 x 2 not
      // faster by 1 %, both at 0.98). Rows of 32-bit data reach two
      // vectors from 64 of them on (the widening below); a row whose
      // vector spans two loads of a wider input (per-token int8
      // quantization of f16 rows: 16 values, 32 bytes) has them already.
      // A row that expands (int8 in, 16- or 32-bit out) takes two vectors
      // per thread as well: 16-byte stores with two loads in flight (int8
      // -> f16 at [2^20, 128]: 8 threads x 16 values 2.86 TB/s, 16 x 8
      // 2.52, the 16-byte int8 loads of the narrowest operand 2.72; -> f32:
      // 16 x 8 2.88, 32 x 4 2.12, 16-byte int8 loads 1.63).
      bool oneLoadVectors = pl.vector * p.maxInputElemBytes <= 16;
      int64_t readOnlyChunks =
          p.combineMathOps > 0 && nvec >= kHeavyCombineMinThreads * kDeepReadOnlyChunks
              ? kDeepReadOnlyChunks
              : kTargetChunks;
      threads = readOnly                    ? pow2Ceil(ceilDiv(nvec, readOnlyChunks))
                : expands || oneLoadVectors ? pow2Ceil(ceilDiv(nvec, 2))
                                            : pow2Ceil(nvec);
    } else {
      // Widen the row group until each thread has a few loads in flight.
      // A row of 4-byte data (held in registers: no async staging) stops
      // at 512 threads when the registers hold the rest: one 1024-thread
      // CTA per SM runs its loads and its reductions back to back, two
      // 512-thread CTAs overlap one's reductions with the other's loads.
      // Read-only rows first (cross-entropy f32 at N = 16384 on the H100:
      // 1024 x 16 2.57 TB/s, 512 x 32 2.95; at 32768 512 x 64 = 1024 x
      // 32). Rows with a result followed on the H200 (`rkc tune`, session
      // 31, N = 16384 f32: softmax 1.17x, RMSNorm 1.03x over 1024 x 16),
      // where the H100's tuner had kept 1024 x 16 (512 x 32 not faster by
      // 1 %, both at 0.99 of the roofline); their stores keep registers
      // busy longer, so they take it only where two CTAs fit the registers
      // by the estimate (the budget of 1024 threads per SM; the tuner's
      // 512 x 32 took no min_blocks: softmax 51 registers), and not for
      // maps through math functions but exp, which the estimate does not
      // see (random programs at 16384 f32, test/gpu/random_specs.py seeds
      // 0-199: those through sin, log, erf or atan took 64 registers and
      // spilled 8-44 bytes, or 77-116 registers, one CTA per SM). LayerNorm
      // and RMSNorm f32 do not fit (LayerNorm's 512 x 32 needs 101
      // registers): they stay at 1024 x 16.
      //
      // On parts with fast memory per SM (Target::fastMemory, the H200):
      //  - a row of one 32-bit input and one 32-bit result (RMSNorm,
      //    LayerNorm f32) that would take one 1024-thread CTA an SM takes
      //    512 threads with min_blocks = 2 where 512 threads hold it by the
      //    estimate: two CTAs an SM, ptxas fitting the values in 64
      //    registers (LayerNorm at N = 16384 spills 20 bytes). Measured on
      //    the H200 (`rkc tune --try`, session 35,
      //    bench/results/2026-11-28-h200-fast-memory-rows-ab-d7b94a9.txt):
      //    RMSNorm f32 at N = 12288 / 16384 1.08x / 1.03x, LayerNorm 1.30x /
      //    1.07x (without min_blocks 1.30x / 1.01x); RMSNorm with a residual
      //    (two inputs, two results) lost 7 % / 1 %, and rows mapped through
      //    math functions may spill under the cap: neither takes it. Nor
      //    do fewer rows than two CTAs an SM: a grid of a wave or less is
      //    latency-bound, and there 1024 threads of 16 values ran faster
      //    (LayerNorm f32 64 x 16384 7.9 against 10.4 us, RMSNorm 16 x
      //    16384 6.1 against 6.2; session 35's plan A/B). The H100's tuner
      //    kept 1024 x 16 (RMSNorm at 16384: 512 x 32 not faster by 1 %,
      //    both at 0.99 of its roofline).
      //  - a read-only row of 32-bit data takes kDeepReadOnlyChunks vectors
      //    a thread: cross-entropy f32 at N = 1k / 2k / 4k / 8k 1.07x /
      //    1.04x / 1.10x / 1.06x over 4 (argmax 1.00x); the H100's tuner
      //    kept 4 at 1k-2k. 16-bit rows keep 4 (cross-entropy bf16 at 4k:
      //    0.83x). So does every part for a row whose combiner does math
      //    (a user-written online logsumexp): it saves shuffle-level
      //    combines, compute the memory speed does not change (logsumexp
      //    f32 at 1k / 4k 1.27x / 1.29x on the H200, 2.5 -> 3.3-3.5 TB/s).
      //  - so does a read-only row of 16-bit data where that leaves 128 to
      //    512 threads (N = 8k-32k at bf16) over more than a wave of rows,
      //    if its reductions fold more than one word a value (an online
      //    softmax or argmax state, or two reductions): fewer threads a
      //    row, fewer shuffle levels and block-tier combines a value.
      //    Measured on the H200 (`rkc tune --try`, session 43, bench/
      //    results/2026-11-29-h200-ce-values64-try-dfe1ca0.txt), 64 values
      //    against 32 at N = 8k / 16k / 32k: cross-entropy 1.06x / 1.06x /
      //    1.10x, argmax 1.06x / 1.15x / 1.02x, logsumexp 1.14x / 1.13x /
      //    1.17x (128 threads in registers at 8k; 256-512 staged
      //    asynchronously, below: held in registers cross-entropy takes 87
      //    of them, one or two CTAs an SM, 0.99x / 0.76x at 16k / 32k). At
      //    4k (64 threads) mixed: cross-entropy 0.85-0.94x, argmax 1.00x,
      //    logsumexp 1.06-1.09x. Over random programs (`...-deep-ro-
      //    random-try-d350ad6.txt`): those with one sum, max or min of the
      //    row ran at 0.97-1.00 of the copy roofline already and lost 4-7 %
      //    staged (not taken); of the 36 plans the conditions take, 33
      //    gained (up to 1.28x), one lost 6 % (8k, 132 registers), two 1-2 %.
      //    One [M, N] input, no math but exp in the row maps, one live
      //    fragment: rows of two inputs or maps through log1p, erf or atan
      //    grew to 100-167 registers at 128 threads, and two spilled.
      deepReadOnly16 = t.fastMemory() && p.outputRowBytes == 0 && p.inputElemBytes == 2 &&
                       oneRowInput(p) && p.rowMathOps == p.rowExpOps && p.liveFrags <= 1.0 &&
                       (p.stateWords >= 2 || p.reductions >= 2) &&
                       o.values <= 0 && p.rows > t.planSms() &&
                       nvec >= kDeepReadOnly16MinThreads * kDeepReadOnlyChunks &&
                       nvec <= kDeepReadOnly16MaxThreads * kDeepReadOnlyChunks;
      int64_t maxThreads = t.maxThreadsPerCta;
      bool halfCtas = p.inputElemBytes == 4 &&
                      (p.outputRowBytes == 0 ? ceilDiv(nvec, 512) <= kmaxFor(512)
                                             : p.rowMathOps == p.rowExpOps &&
                                                   ceilDiv(nvec, 512) <= kmaxFor(1024));
      bool twoCtasPerSm = !halfCtas && t.fastMemory() && p.inputRowBytes == 4 &&
                          p.outputRowBytes == 4 && p.rowMathOps == 0 && o.values <= 0 &&
                          p.rows >= 2 * t.planSms() && ceilDiv(nvec, 512) <= kmaxFor(512);
      if ((halfCtas || twoCtasPerSm) && maxThreads > 512)
        maxThreads = 512;
      bool deepReadOnly32 = p.outputRowBytes == 0 && p.inputElemBytes == 4 &&
                            (t.fastMemory() || p.combineMathOps > 0);
      int64_t chunks = deepReadOnly32 || deepReadOnly16 ? kDeepReadOnlyChunks : kTargetChunks;
      while (threads < maxThreads &&
             ceilDiv(nvec, threads) > std::min(chunks, kmaxFor(threads)))
        threads *= 2;
      // (Where the registers estimate stopped the widening short of 8,
      // the rule did not act: no remark, and the staging below as before.)
      deepReadOnly16 = deepReadOnly16 && ceilDiv(nvec, threads) > kTargetChunks;
      if (deepReadOnly16)
        note(llvm::formatv("{0} vector loads a thread: a read-only row of 16-bit data on fast "
                           "memory (fewer threads a row, fewer combines a value)",
                           kDeepReadOnlyChunks));
      // (min_blocks = 2 only where the row would have had the 1024
      // threads: below that the loop stops short of 512 anyway.)
      twoCtas = twoCtasPerSm && threads == 512 &&
                ceilDiv(nvec, 512) > std::min(kTargetChunks, kmaxFor(1024));
      // A grid of at most one row per SM is latency-bound: each CTA reads
      // its row once, so a thread's chain (its loads, the fold over its
      // values, the block reduction, the stores) is the kernel's time, and
      // fewer values a thread shorten it. A row of one 16- or 32-bit input
      // and one result of the same width whose maps and reductions call no
      // math function (LayerNorm, RMSNorm) takes kLatencyRowThreads threads
      // there. Measured on the H200 (`rkc tune --try`, single launches
      // after an L2 flush, bench/results/2026-11-28-h200-small-batch-try-
      // 0954fd2.txt): LayerNorm bf16 at M = 1 / 16 / 128, N = 4096 1.11x /
      // 1.08x / 1.06x over 128 threads, N = 8192 1.09x / 1.09x / 1.07x over
      // 256; RMSNorm bf16 1.08x / 1.05x / 1.03x at 4096, 1.00-1.02x at
      // 8192. f32 (session 40, `...-small-f32-try-0e7b339.txt`,
      // `...-small-f32-try2-0e7b339.txt`): LayerNorm at N = 2048 1.04-1.08x over
      // 128 threads, 4096 1.01-1.04x over 256; RMSNorm 1.04-1.05x at 2048,
      // 0.99-1.04x at 4096; in bench.py's CUDA graph of 48 (`...-small-
      // rule-ab-f32-e14d5ed.txt`) LayerNorm f32 1.06-1.20x, RMSNorm f32
      // 1.01-1.17x (softmax, the same kernel in both builds, 1.00x +- 1 %).
      // Rows through exp (softmax 0.96-1.00x),
      // read-only rows (cross-entropy 0.96-0.99x) and rows of two inputs
      // (RMSNorm bf16 with a residual: 1.06-1.08x at M = 1 / 16, N = 4096,
      // but 0.97-0.99x at 128 x 4096 and at 8192) keep the widening's
      // threads.
      latencyRow = p.rows <= t.planSms() &&
                   (p.inputRowBytes == 2 || p.inputRowBytes == 4) &&
                   p.inputElemBytes == p.inputRowBytes && p.outputRowBytes == p.inputRowBytes &&
                   p.rowMathOps == 0 && p.combineMathOps == 0 && o.values <= 0 &&
                   threads < kLatencyRowThreads && nvec >= kLatencyRowThreads;
      if (latencyRow)
        threads = kLatencyRowThreads;
    }
  }
  // A row just past what the widest CTA holds with the budget's margin
  // (16 registers of addresses and loop state): one CTA of half the
  // threads holds it in registers at up to kRegisterValues values each,
  // where values x live fragments fill the registers exactly (ptxas fits
  // them: the epilogue consumes the fragments chunk by chunk), instead of
  // a cluster of 2 staged asynchronously. Measured on the H100
  // (docs/performance-notes.md, session 26), LayerNorm bf16 / f16 at N =
  // 32768 (512 threads x 64 values, 128 registers, no spills): 1.21-1.32x
  // at M = 1-64, 1.15x at 512 and 1.03x at 4096 (there async staging,
  // below). Rows of one 16-bit [M, N] input only: RMSNorm f32 lost at a
  // few rows (0.91x at M = 1-4: the cluster's prefetched weight) and
  // gained 1-1.5 % at 64-4096, RMSNorm bf16 with a residual lost 2-4 %
  // at M = 1-4 and at 512 (async), and ptxas spilled the rows the layout
  // does not cover exactly (ptxas -v, sm_90a: LayerNorm bf16 at N = 32000
  // 136 bytes, 32767 1048). Rows whose results are 16-bit too (16-byte
  // vectors of 8): wider results (f32 out of bf16 in) take vectors of 4,
  // 16 loads in flight per thread, not measured. And rows whose
  // reductions wait with the row input alone (liveAtReductions): random
  // programs holding an elementwise result or an early [N] operand across
  // them spilled 4-208 bytes at 128 registers (test/gpu/random_specs.py
  // seeds 61, 68, 100 at N = 32768; their cluster plans none), and so did
  // rows mapped through exp, tanh or atan (seeds 270, 344: 124-132 bytes):
  // no math-dialect op in the row's maps but sqrt, rsqrt, abs and fma.
  bool registersAtEdge = false;
  if (allowEdge && o.threads <= 0 && o.cluster <= 0 && o.staging < 0 && o.values <= 0 &&
      t.hasClusters() && p.reductionDepth > 0 && p.outputRowBytes > 0 &&
      p.inputRowBytes == 2 && p.elemBytes == 2 && p.liveAtReductions <= 1.0 &&
      p.rowMathOps == 0 && !shifted &&
      threads == t.maxThreadsPerCta &&
      nvec % (threads / 2) == 0 && ceilDiv(nvec, threads) > kmaxFor(threads)) {
    int64_t half = threads / 2;
    int64_t values = ceilDiv(nvec, half) * pl.vector;
    if (values <= kRegisterValues &&
        values * std::max(p.liveFrags, 1.0) <= registersPerThread(half)) {
      threads = half;
      registersAtEdge = true;
    }
  }
  bool clusterAsync = false;
  if (!registersAtEdge && ceilDiv(nvec, threads) > kmaxFor(threads) && t.hasClusters()) {
    // The row needs a cluster. CTAs of 256 threads holding up to 32 values
    // each keep two or more CTAs per SM in different phases (one loading
    // while another reduces through DSMEM); one 1024-thread CTA per SM
    // serialises them (measured on the H100: 1.70 -> 2.33 TB/s for bf16
    // RMSNorm at N = 65536, see docs/performance-notes.md). CTAs of 512
    // threads and half the cluster were tried as the default (A/B of 30
    // op x dtype x N cases, docs/tuning.md): faster for the norms and
    // log-softmax, slower for softmax (-3..-15%) and f32 LayerNorm (76
    // registers: one CTA per SM), a wash over all (0.922 vs 0.918 of the
    // best); the tuning database carries the per-shape choice.
    //
    // The row's part in each CTA is staged asynchronously (cp.async into
    // shared memory, read back at each use: no registers hold it while the
    // copies are in flight or across the reductions), 64 values per thread
    // (at most 64 KiB of shared memory per CTA): measured on the H100 over
    // five ops x bf16/f32 x N = 65536..262144 (docs/performance-notes.md,
    // session 8) within 0.98 of the best of 16 schedules in 28 of 30 cases,
    // 1.0-1.96x over 32 values in registers. Rows with two 16-bit [N]
    // operands (LayerNorm bf16) were kept in registers until the emitter
    // ran the epilogue in chunks (session 9: 90 -> 37 registers; staged
    // LayerNorm bf16 1.15x / 1.21x / 1.45x the registers plan at N = 32768
    // / 65536 / 262144).
    if (o.threads <= 0)
      threads = kClusterThreads;
    clusterAsync = copiesInChunks(p, pl.vector) &&
                   (o.staging == (int)Staging::Async || o.staging < 0);
    int64_t k = clusterAsync
                    ? std::min({kmaxFor(threads, true), kClusterStagedValues / pl.vector,
                                kClusterStagedBytes / (threads * pl.vector * p.inputRowBytes)})
                    : std::min<int64_t>(kmaxFor(threads), kClusterValues / pl.vector);
    k = std::max<int64_t>(k, 1);
    cluster = std::min<int64_t>(pow2Ceil(ceilDiv(nvec, threads * k)), t.maxCluster);
  }
  // A row of one 32-bit input and one 32-bit result that would take a
  // cluster of 2 takes one CTA of the most threads instead, staged
  // asynchronously, where that CTA holds it (fast memory per SM, more than
  // a wave of rows): no DSMEM barrier, and the row's copies in flight in
  // shared memory rather than in registers. Measured on the H200 (`rkc
  // tune --try`, docs/performance-notes.md, session 42): RMSNorm f32 at N
  // = 32768 1024 x 32 async 4.17 TB/s against the cluster's 3.98 (1.05x;
  // 512 x 64 async 0.90x: one CTA an SM); the rule against the cluster
  // (bench/results/2026-11-29-h200-rules-ab-fb64d11.txt): RMSNorm f32 at
  // 20480 / 24576 / 32768 1.052x / 0.980x / 1.053x (at 24576, 24 values
  // over exactly the row, ptxas spills 16 bytes), LayerNorm f32 at 20480
  // 1.028x. LayerNorm f32 at 24576-32768 holds more fragments than 1024
  // threads fit and keeps the cluster. Only rows whose reductions wait
  // with the row input alone (liveAtReductions, as the registers edge
  // below): random programs holding more across them (test/gpu/
  // random_specs.py seeds 55, 80, 102, 149) took 104-175 registers in the
  // cluster and spilled 8-36 bytes at 1024 threads (ptxas -v; bench/
  // results/2026-11-29-cpu-rules-random-ptxas.txt).
  bool oneCtaStaged = false;
  if (clusterAsync && cluster == 2 && o.threads <= 0 && o.cluster <= 0 && o.values <= 0 &&
      t.fastMemory() && p.inputElemBytes == 4 && p.inputRowBytes == 4 && p.outputRowBytes == 4 &&
      p.rowMathOps == 0 && p.liveAtReductions <= 1.0 && p.rows >= 2 * t.planSms()) {
    int64_t most = t.maxThreadsPerCta;
    int64_t per = ceilDiv(nvec, most);
    // checkPlan's register count (kmaxFor keeps 16 registers of margin
    // that the staged row's copies do not need; ptxas -v on RMSNorm and
    // LayerNorm f32 at 17408-32768: no spill but RMSNorm at 24576's 16
    // bytes).
    if (per * pl.vector * std::max(p.liveFragsStaged, 1.0) <= registersPerThread(most) &&
        per * pl.vector * most * p.inputRowBytes + kKeepSmemHeadroom <= t.maxSmemPerCta) {
      threads = most;
      cluster = 1;
      oneCtaStaged = true;
      note(llvm::formatv("one CTA of {0} threads, staged asynchronously, holds the row a "
                         "cluster of 2 would split (32-bit rows, fast memory per SM)",
                         most));
    }
  }
  // A read-once row (no [M, N] result: cross-entropy, logsumexp; one
  // reduction deep once rk-fuse-reductions formed its online combiners)
  // that needs a cluster is streamed instead: staging buys nothing when
  // the row is read once, and a staged CTA holds its shared memory, and its
  // SM, through its copies and its reductions, while streamed CTAs keep
  // loads in flight throughout. Measured on the H100 (cross-entropy,
  // docs/performance-notes.md, session 12): bf16 at N = 131072 / 262144
  // 2.34 / 2.18 -> 2.50 / 2.52 TB/s, f32 at 262144 2.52 -> 2.82; at 65536
  // (f32, a cluster of 4) a tie. One CTA of 512 threads per row, when the
  // rows fill the GPU twice over: split over clusters of such CTAs (rows
  // too few to fill it), the same kernel lost 15 % and 7 % to the
  // 16-CTA clusters of 256 threads at N = 1M (M = 128, bf16 / f32), so
  // fewer rows keep the plans below.
  // Rows read in 16-byte vectors only: with N odd (one-element accesses)
  // the streamed kernel lost to the registers cluster plan at M = 4096
  // (cross-entropy f32 N = 50257 2.08 -> 1.26 TB/s, 131071 1.89 -> 1.11;
  // bf16 50257 1.32 -> 1.15). (A schedule that sets the values per thread
  // or the staging keeps the row on chip, as it asks.)
  bool readOnce = o.staging < 0 && o.values <= 0 && cluster > 1 && t.hasClusters() &&
                  p.outputRowBytes == 0 && p.reductionDepth == 1 &&
                  pl.vector * p.minElemBytes == 16 &&
                  p.rows >= kStreamReadOnceCtasPerSm * t.planSms();
  if (readOnce) {
    if (o.threads <= 0)
      threads = kStreamReadOnceThreads;
    clusterAsync = false;
    cluster = 1;
  }
  // A row of 16-bit data with no reduction (an elementwise map: GELU, a
  // scaled copy) that needs a cluster is streamed in one sweep by CTAs of
  // 512 threads, its cluster sized for parallelism alone (no reduction
  // waits on it; below): staging buys nothing when every value is read
  // once and written once.
  // Measured on the H100 (GELU bf16, docs/performance-notes.md, session
  // 22): 1024 x 65536 2.44 -> 2.80 TB/s (async staging, cluster 4 -> 2),
  // 512 x 262144 2.26 -> 2.74-2.87 (cluster 16 -> 4-8), 8 x 262144 10.6 ->
  // 10.0 us; 32-bit rows kept their plans (async staging 2.92-2.95 TB/s
  // against 2.81-2.91 streamed). The cluster also keeps each CTA to two
  // passes: at 4096 x 65536 / 2048 x 131072 clusters of 1 (4 / 8 passes)
  // ran 2.30 / 2.31 TB/s, of 2 / 4 2.96 / 2.92.
  bool elementwise = o.staging < 0 && o.values <= 0 && cluster > 1 && t.hasClusters() &&
                     p.reductionDepth == 0 && p.maxInputElemBytes == 2 &&
                     p.elemBytes == 2 && pl.vector * p.minElemBytes == 16;
  if (elementwise) {
    if (o.threads <= 0)
      threads = kElementwiseThreads;
    clusterAsync = false;
    // A CTA sweeps at most kElementwisePasses passes of its part (a
    // cluster of one sweeping 4-8 passes lost 20-25 % at 2048-4096 rows
    // of 65536-131072), and the rows spread over about kElementwiseCtas.
    int64_t passVectors = std::max<int64_t>(kmaxFor(threads) / 2, 1);
    int64_t need = pow2Ceil(ceilDiv(nvec, threads * passVectors));
    int64_t fewPasses = pow2Ceil(ceilDiv(nvec, threads * passVectors * kElementwisePasses));
    cluster = std::clamp<int64_t>(
        std::max(fewPasses, pow2Ceil(ceilDiv(kElementwiseCtas, p.rows))), 1,
        std::min<int64_t>(t.maxCluster, need));
  }
  if (o.cluster > 0)
    cluster = o.cluster;
  int64_t kmax = kmaxFor(threads, clusterAsync);
  pl.threads = threads;
  pl.cluster = cluster;
  int64_t chunks = ceilDiv(nvec, threads * cluster);
  bool fits = chunks <= kmax || o.values > 0 || registersAtEdge || oneCtaStaged;
  pl.staging = o.staging >= 0 ? (Staging)o.staging
                              : (!fits || readOnce || elementwise ? Staging::Stream
                                 : clusterAsync ? Staging::Async
                                                : Staging::Registers);
  // Shared-memory staging: a row too long for registers whose part in each
  // CTA of the cluster fits shared memory is copied there once (cp.async)
  // and the sweeps read it back from shared memory, so global memory is
  // read once (streaming reads it once per phase). Needs 16-byte chunks of
  // one element size.
  int64_t passChunks =
      std::min(std::max<int64_t>(kmax / 2, 1),
               ceilDiv(nvec, threads * (t.hasClusters() && !readOnce && !elementwise
                                            ? t.maxCluster
                                            : cluster)));
  // With clusters, streaming keeps only a few rows in flight, so its second
  // sweep hits L2; measured on the H100 at N = 1M bf16 that beats staging
  // (RMSNorm 1.47 vs 1.26 TB/s, softmax 1.63 vs 1.49): staging is the
  // default only where there are no clusters (sm_80), and an override.
  if (pl.staging == Staging::Stream && o.staging < 0 && !t.hasClusters() &&
      copiesInChunks(p, pl.vector)) {
    int64_t c = o.cluster > 0 ? o.cluster : (t.hasClusters() ? t.maxCluster : 1);
    int64_t passes = ceilDiv(nvec, threads * c * passChunks);
    int64_t bytes = passes * passChunks * pl.vector * threads * p.inputRowBytes;
    if (bytes <= t.maxSmemPerCta - 16 * 1024)
      pl.staging = Staging::Smem;
  }
  if (pl.staging == Staging::Stream || pl.staging == Staging::Smem) {
    // The row is swept in passes of threads x cluster x values elements;
    // the largest cluster keeps the rows in flight few, so a second sweep
    // of a row finds it in L2.
    if (o.cluster <= 0 && t.hasClusters() && !readOnce && !elementwise)
      pl.cluster = t.maxCluster;
    // A sweep also keeps its addresses and the pass state live: half the
    // register budget per pass.
    chunks = std::min(passChunks, ceilDiv(nvec, threads * pl.cluster));
    // Streamed 16-bit rows with a result are swept twice; the second sweep
    // hits L2 only for the parts of rows read recently, and each resident
    // CTA holds one part in flight. CTAs of 512 threads with the same
    // values per thread run as many threads per SM (two of 58 registers
    // against four of 53) with half the parts in flight: measured on the
    // H100 at N = 1M (docs/performance-notes.md, session 11) RMSNorm bf16
    // 1.96 -> 2.13 TB/s, softmax 1.95 -> 2.12, LayerNorm 1.77 -> 1.82;
    // f32 rows gain 0-3 % (softmax, RMSNorm) or lose 13 % (LayerNorm, 512
    // threads of more registers: one CTA per SM) and keep 256 threads.
    // Two CTAs per SM is the premise: min_blocks = 2 holds ptxas to it
    // (LayerNorm bf16 with evict-first stores took 70 registers, one CTA
    // per SM, and lost a third). Rows of one [M, N] input only: two of
    // them (RMSNorm with a residual) would spill at 64 registers, and so
    // would shifted rows (bf16 at N = 2^20 + 1: RMSNorm 596 bytes and
    // LayerNorm 270, their [N] operands read element by element; softmax
    // 28).
    // Read-only rows swept twice or more (two reductions, the second of
    // values that need the first's result: no [M, N] result) the same.
    // Rows too heavy for that many values at 64 registers (more than two
    // live fragments, f32 or several results, or reductions that wait
    // with more than the row input; every shipped 16-bit op is light)
    // keep the CTAs and the cap with half the values per pass: random
    // programs at 64 x 1M bf16 spilled 116-624 bytes a thread with 32
    // values (ptxas -v) and ran, measured on the H100 (docs/performance-
    // notes.md, session 27), 1.14-2.20x faster over six of them with 16
    // (8 where 16 was the plan), 0-48 bytes spilled; 256-thread CTAs
    // without the cap (the f32 rows' plan, no spills) reached 0.98-1.74x.
    bool lightRow = p.liveFrags <= 2.0 && p.outputRowBytes <= 2 && p.liveAtReductions <= 1.0;
    if (pl.staging == Staging::Stream && o.threads <= 0 && t.hasClusters() &&
        (p.outputRowBytes > 0 || sweeps(p) >= 2) && p.inputElemBytes == 2 &&
        p.inputRowBytes == 2 && !shifted) {
      pl.threads = kStreamThreads16;
      if (o.minBlocks < 0)
        pl.minBlocks = 2;
      if (!lightRow && o.values <= 0)
        chunks = std::max<int64_t>(chunks / 2, 1);
    }
    // Shifted streamed rows of 32-bit data with a result: CTAs of 512
    // threads with half the values per pass. Their element-wise ends and
    // [N] operands took registers past two 256-thread CTAs per SM
    // (LayerNorm f32 at N = 1000003: 152), measured on the H100
    // (docs/performance-notes.md, session 13): LayerNorm 1.10 -> 1.45 TB/s,
    // softmax 1.93 -> 2.02, log-softmax 1.97 -> 2.03, RMSNorm 1.91 -> 1.95.
    if (pl.staging == Staging::Stream && o.threads <= 0 && o.values <= 0 && t.hasClusters() &&
        p.outputRowBytes > 0 && p.inputElemBytes == 4 && shifted) {
      pl.threads = kStreamThreads16;
      chunks = std::max<int64_t>(chunks / 2, 1);
    }
  }
  // 5b. The grid tier. A row swept in passes over a cluster (it does not
  // fit on chip) is split over CTAs of a persistent, co-resident
  // (cooperative) grid instead, which combine their partial states through
  // global memory, where the clusters leave SMs idle or sweep too much:
  //  - a few rows (their clusters hold fewer CTAs than two per SM): each
  //    CTA takes a smaller part of the row, the rows spread over the GPU;
  //  - rows with a result (swept twice): clusters of 16 at two CTAs per SM
  //    use 112 of the H100's 132 SMs (Target::residentCtas), and a CTA's
  //    part of a row of 32-bit data is 8 passes, of which the second sweep
  //    finds only the 3 kept ones in shared memory. The split keeps each
  //    CTA to kSplitPasses passes (16 CTAs per 16-bit row of 1M, 32 per
  //    f32 row). Measured at M = 128, N = 1M against the clusters
  //    (docs/performance-notes.md, session 24): bf16 split = 16 RMSNorm
  //    +2.0 %, LayerNorm +5.5 %, softmax +3.9 %, log-softmax +2.9 % (32:
  //    RMSNorm -3.3 %); f32 split = 32 RMSNorm +11.1 %, softmax +11.5 %,
  //    LayerNorm +2.4 % (16, 8 passes: +1 %, +2 %, -10 %; 64: +11.8 %,
  //    +3.6 %, +8.1 %).
  //  - 32-bit rows with [N] operands (weights, biases: every row reads them
  //    again from L2, whose traffic then sets the pace, not DRAM's), at
  //    least kSplitPassesOperandsMinRows of them, take kSplitPassesOperands
  //    passes: the second sweep reads (almost) nothing again. Measured on
  //    the H100, split 64 against 32 at 128 x 1M f32 (session 28):
  //    LayerNorm +5.7 % (M = 256 +10 %, M = 32 +0 %), RMSNorm +3.4 %,
  //    RMSNorm with a residual (keep = 1 of 2) +20.5 %, x * r * w + b
  //    +13.5 % (w for b: +2.0 %); softmax (no operand) -7 % (session 24);
  //    LayerNorm f32 at 8 x 1M -14 % (64 CTAs a row: 6 groups resident for
  //    8 rows); at 64 x 2M split 128 against 64 +0.8 / +0.2 %. 16-bit rows
  //    keep 4 passes (LayerNorm / RMSNorm bf16 at split 32: -3.9 / -3.0 %).
  // Not rows read once (cross-entropy at 16: bf16 -2 %, f32 -4.5 %): they
  // keep their clusters unless few. At most a power of two of CTAs per row
  // that fits at one per SM (a launch needs them all resident).
  bool gridSplit = false;
  bool fewRows = p.rows * pl.cluster < t.residentCtas(pl.cluster, kStreamCtasPerSm);
  if (o.split > 0) {
    pl.split = o.split;
    if (o.cluster <= 0)
      pl.cluster = 1;
  } else if (o.cluster <= 0 && pl.staging == Staging::Stream && pl.cluster > 1 &&
             p.reductionDepth > 0 && t.hasClusters() && (fewRows || p.outputRowBytes > 0)) {
    int64_t useful = std::max<int64_t>(1, nvec / (pl.threads * 2));
    int64_t cap = std::max<int64_t>(
        pl.cluster, std::min<int64_t>(llvm::bit_floor((uint64_t)t.planSms()),
                                      llvm::bit_floor((uint64_t)useful)));
    int64_t fill = (int64_t)llvm::bit_floor(
        (uint64_t)std::max<int64_t>(1, kStreamCtasPerSm * t.planSms() / p.rows));
    // Rows swept twice: few enough passes that most are kept (fewer still
    // where [N] operands load L2).
    bool operandsLoadL2 = p.minElemBytes >= 4 && p.rowVectorInputs > 0 &&
                          p.rows >= kSplitPassesOperandsMinRows;
    int64_t passesPerCta = operandsLoadL2 ? kSplitPassesOperands : kSplitPasses;
    // Such rows with one reduction, in one pass a CTA keeps whole: the
    // grid barrier's wait deferred past the next row's sweep
    // (deferredGridWait). Measured on the H100 at M x 1M f32
    // (docs/performance-notes.md, session 30), split 128 deferred against
    // split 64 with two kept passes: LayerNorm 478 -> 445 us at M = 128
    // (kernels timed alone after an L2 flush: 463 -> 434), 131 -> 117 at
    // 32, 237 -> 226 at 64, 894 -> 880 at 256; RMSNorm 116 -> 110 at 32,
    // 408 -> 410 at 128 (419 -> 397 alone), 808 -> 819 at 256. Not shifted
    // rows (LayerNorm f32 at 134 x 1000003: 561 -> 645 us), nor 16-bit ones
    // (LayerNorm bf16 split 128 deferred 238 us against split 16's 229).
    if (operandsLoadL2 && !shifted &&
        deferredGridWait(/*split=*/2, /*passes=*/1, /*keep=*/1, p.reductions,
                         chunks * pl.vector * pl.threads * p.inputRowBytes))
      passesPerCta = 1;
    int64_t fewPasses = p.outputRowBytes > 0 || sweeps(p) >= 2
                            ? pow2Ceil(ceilDiv(nvec, pl.threads * chunks * passesPerCta))
                            : 1;
    pl.split = std::min(std::max({fill, fewPasses, pl.cluster}), cap);
    pl.cluster = 1;
    gridSplit = true;
  }
  if (pl.split > 1) {
    int64_t per = ceilDiv(nvec, pl.threads * pl.split);
    // A swept row keeps its pass (values per thread) unless the split's
    // part is smaller; a row held on chip is covered.
    chunks = pl.staging == Staging::Stream || pl.staging == Staging::Smem
                 ? std::min(chunks, per)
                 : per;
  }
  pl.values = o.values > 0 ? o.values : chunks * pl.vector;
  note(llvm::formatv("{0} threads per row{1}, {2} values per thread ({3} "
                     "vector loads in flight){4}",
                     pl.threads, pl.threads < 32 ? " (sub-warp)" : "",
                     pl.values, pl.values / pl.vector,
                     latencyRow && pl.threads == kLatencyRowThreads
                         ? llvm::formatv(" (at most one row an SM: {0} rows on {1} SMs, "
                                         "a latency-bound grid, few values a thread)",
                                         p.rows, t.planSms())
                               .str()
                         : std::string()));
  if (pl.split == 1)
    note(llvm::formatv("cluster = {0}{1}", pl.cluster,
                       pl.cluster <= 1             ? ""
                       : p.reductionDepth == 0     ? ": the row is split over the CTAs of a "
                                                     "cluster (no reduction: they spread the "
                                                     "rows over the GPU)"
                                                   : ": the row is split over the CTAs of a "
                                                     "cluster and reduced through DSMEM"));
  else
    note(llvm::formatv("split = {0}: the row is split over {0} CTAs of a persistent, "
                       "co-resident grid that combine their partial states through global "
                       "memory{1}",
                       pl.split,
                       gridSplit ? " (clusters of a streamed row leave SMs idle)" : ""));

  // 6. Rows per CTA.
  pl.rows = o.rows > 0 ? o.rows
                       : (pl.ctasPerRow() > 1 ? 1
                                              : std::max<int64_t>(1, kMinCtaThreads / pl.threads));
  note(llvm::formatv("rows per CTA: {0} ({1} threads)", pl.rows, pl.ctaThreads()));
  note(p.reductionDepth == 0
           ? std::string("no reduction: every value is mapped on its own")
           : llvm::formatv("reductions climb to the {0} tier", levelName(pl.reduceLevel())).str());
  pl.unroll = o.unroll > 0 ? o.unroll : pl.values / pl.vector;
  if (o.minBlocks >= 0)
    pl.minBlocks = o.minBlocks; // else 0, or 2 for the streamed 16-bit rows above
  else if (twoCtas && pl.ctasPerRow() == 1 && pl.staging == Staging::Registers) {
    // Rule 3's two CTAs an SM would hold the row in registers under the
    // cap of min_blocks = 2. Rows of 32-bit data are staged asynchronously
    // instead, without the cap (the copies wait in shared memory, not in
    // registers): faster on the H200 (`rkc tune --try`,
    // docs/performance-notes.md, session 42), RMSNorm f32 at N = 16384
    // 1.039x, LayerNorm f32 1.056x (async with the cap 1.036x / 1.051x);
    // the rule against the registers plan at 12288 / 16384: RMSNorm 1.095x
    // / 1.038x, LayerNorm 0.974x / 1.053x.
    RowPlan async = pl;
    async.staging = Staging::Async;
    if (o.staging < 0 && p.inputElemBytes == 4 && checkPlan(async, p, t).empty()) {
      pl = async;
      note("staging = async without min_blocks: two CTAs an SM's rows of 32-bit data wait in "
           "shared memory, not in registers under a launch bound (fast memory per SM)");
    } else {
      pl.minBlocks = 2;
      note("min_blocks = 2: two CTAs an SM, one loading while the other reduces (fast "
           "memory per SM)");
    }
  }
  // Kept passes: a streamed row with a result is swept twice (statistics,
  // then outputs), and the second sweep re-reads it. The first sweep keeps
  // as many of its first passes in shared memory as two CTAs per SM (the
  // premise of the streamed layouts above) leave room for, and the second,
  // running backwards, re-reads from global memory only the passes read
  // last, which L2 still holds. Measured on the H100 at N = 1M (M = 128,
  // docs/performance-notes.md, session 14): keep = 3 of 4 (16-bit) or of 8
  // (f32) passes, RMSNorm bf16 2.26 -> 2.49 TB/s, f32 2.04 -> 2.30,
  // softmax 2.33 -> 2.50 / 1.99 -> 2.35, log-softmax 2.35 -> 2.58 / 1.98
  // -> 2.38, and +2-18 % at 600000, 1000003 and 2^21. Rows with two [N]
  // operands or more (LayerNorm) leave 32 KiB more per CTA to L1, which
  // the second sweep reads them through: LayerNorm f32 at 1M / 2^21 best
  // with keep = 2 (2.09 / 1.80 TB/s against 2.00 / 1.69 with 3), bf16 at
  // 1000003 (16 KiB passes) with 4 (1.65 against 1.36 with 6, 1.50 with 0).
  // The same for read-only rows swept twice (session 22, a row sum then the
  // sum of squares of x minus it, M = 128 x N = 1M): bf16 1.69 -> 2.02 TB/s
  // (512 threads, keep = 3), f32 1.73 -> 2.23 (keep = 3 of 8), bf16 at
  // 2^21 1.50 -> 1.95.
  if (o.keep >= 0) {
    pl.keep = o.keep;
  } else if (pl.staging == Staging::Stream && sweeps(p) >= 2 && pl.rows == 1 &&
             t.hasClusters() && copiesInChunks(p, pl.vector)) {
    int64_t room = t.maxSmemPerCta / kStreamCtasPerSm - kKeepSmemHeadroom -
                   (p.rowVectorInputs >= 2 ? kKeepL1Room : 0);
    pl.keep = std::clamp<int64_t>(room / std::max<int64_t>(passBytesOf(pl, p), 1), 0,
                                  passesOf(pl, p));
  }
  // Asynchronous staging of rows of 16-bit data in one CTA, on Hopper,
  // where it was measured faster with the same layout
  // (docs/performance-notes.md, sessions 5 and 8):
  //  - read-only rows (cross-entropy bf16 up to N = 16384: best for every
  //    bench shape after re-tuning; 1.08x / 1.05x at N = 4096 / 8192);
  //  - rows with a result, one per CTA of 256 threads or more, over more
  //    than a wave of CTAs (N = 8192 .. 32768, five ops: 0.99-1.27x, e.g.
  //    softmax bf16 16384 2.55 -> 2.94 TB/s, LayerNorm bf16 16384 2.30 ->
  //    2.91). A grid of about one wave is latency-bound; not measured there.
  //  - shifted rows with a result in one CTA, any width, over more than a
  //    wave (their registers plans carry element-wise ends: N = 4095, 128
  //    threads: softmax 2.60 -> 2.83, LayerNorm 1.33 -> 2.20, RMSNorm 2.55
  //    -> 2.81 TB/s; N = 1001, 32 threads x 4 rows: +2..+28 %; session 13).
  // Cluster rows took it above.
  // Except read-only 16-bit rows, one per CTA of at most 512 threads, over
  // more than a wave of CTAs, not shifted: the emitter loads those
  // evict-first in L2 (ld.global.cs, EmitCuda's rowReadOnce), and held in
  // registers they measured faster than staged (cross-entropy bf16 on the
  // H100 after the bench's L2 flush, session 20: 1.03x / 1.06x / 1.05x at
  // N = 4096 / 8192 / 16384 with min_blocks = 2; at 32768, 1024 threads,
  // 0.57x: that one stays staged). Two CTAs per SM (min_blocks = 2) only
  // for CTAs of at most 128 threads: with 256 / 512 (N = 8192 / 16384)
  // the register cap made logsumexp 5-7 % slower (2.74 -> 2.56, 2.64 ->
  // 2.52 TB/s) and left cross-entropy and argmax unchanged (+-0.2 %); at
  // 128 threads (N = 4096) it is worth 2.3 % to logsumexp (session 21).
  // (Rule 3's 16-bit read-only rows at 8 vectors a thread in CTAs of 256
  // threads or more are staged: their measurement, above.)
  // A read-only 16-bit row in one CTA, not shifted, over more than a wave:
  // the rows the two register rules below take, one or several to a CTA.
  bool readOnly16 = pl.ctasPerRow() == 1 && p.outputRowBytes == 0 && p.inputElemBytes == 2 &&
                    !shifted && !oneWave(pl, p, t);
  bool readOnlyInRegisters = readOnly16 && pl.rows == 1 && pl.threads <= 512 &&
                             t.hasClusters() &&
                             !(deepReadOnly16 && pl.threads >= kDeepReadOnly16AsyncThreads);
  if (readOnlyInRegisters && o.staging < 0 && pl.staging == Staging::Registers &&
      o.minBlocks < 0 && pl.threads <= kReadOnlyTwoCtasThreads)
    pl.minBlocks = 2;
  // On fast memory (the H200), read-only 16-bit rows several to a CTA over
  // more than a wave of CTAs stay in registers: the same layouts staged
  // asynchronously measured slower in the tuner's harness
  // (docs/performance-notes.md, session 44; N = 256 / 512 / 640 / 1k /
  // 1536 / 2k): cross-entropy bf16 1.078x / 1.078x / 1.051x / 1.043x /
  // 1.017x / 1.022x, f16 1.009-1.057x, argmax bf16 1.007-1.029x, logsumexp
  // bf16 1.018-1.040x (0.996x at 256). min_blocks = 2 added nothing there
  // and cost logsumexp 10-15 %, so none is asked.
  bool shortReadOnlyInRegisters = readOnly16 && pl.rows > 1 && t.fastMemory() && oneRowInput(p);
  bool readOnlyRow = pl.ctasPerRow() == 1 && p.outputRowBytes == 0 && t.hasClusters() &&
                     !shortReadOnlyInRegisters;
  bool wideRow = pl.ctasPerRow() == 1 && pl.rows == 1 && pl.threads >= 256 && !oneWave(pl, p, t) &&
                 t.hasClusters();
  bool shiftedRow = pl.ctasPerRow() == 1 && shifted && !oneWave(pl, p, t) && t.hasClusters();
  if (o.staging < 0 && pl.staging == Staging::Registers && p.inputElemBytes == 2 &&
      (readOnlyRow || wideRow || shiftedRow) && !readOnlyInRegisters) {
    RowPlan async = pl;
    async.staging = Staging::Async;
    if (checkPlan(async, p, t).empty())
      pl = async;
  }
  if (o.staging < 0 && pl.staging == Staging::Registers && shortReadOnlyInRegisters)
    note(llvm::formatv("staging = registers: read-only rows of 16-bit data, {0} to a CTA, stay "
                       "in registers on fast memory (staged, they measured slower)",
                       pl.rows));
  // Three CTAs of 512 threads an SM for 16-bit rows staged asynchronously
  // one per CTA (LayerNorm, RMSNorm: one [M, N] input, one result, no math
  // in the row maps) on fast memory: LayerNorm bf16 at N = 16384 ran at 54
  // registers, two CTAs an SM (50 % occupancy, torch.compile's kernel 100
  // %); capped at 42 by min_blocks = 3 (the emitter's epilogue then goes
  // one chunk at a time, EmitCuda's epilogueGroup) it holds 40 without a
  // spill: 143.3 -> 133.5 us on the H200 (1.07x), RMSNorm bf16 134.6 ->
  // 133.3 (1.01x; docs/performance-notes.md, session 36). Only at 32
  // values a thread over the whole row (N = 16384): LayerNorm at 24 values
  // (N = 12288) and 48-64 (24576-32768), and LayerNorm / RMSNorm f16 at
  // partial rows of 32 (13000-16000: bounds checks), spill 4-44 bytes under
  // the cap (ptxas, CPU).
  if (o.minBlocks < 0 && pl.minBlocks == 0 && t.fastMemory() && pl.staging == Staging::Async &&
      pl.ctasPerRow() == 1 && pl.rows == 1 && pl.threads == kThreeCtasThreads &&
      pl.values == kThreeCtasValues && p.cols == pl.threads * pl.values &&
      p.inputElemBytes == 2 && p.inputRowBytes == 2 && p.outputRowBytes == 2 &&
      p.rowMathOps == 0 && !oneWave(pl, p, t)) {
    pl.minBlocks = 3;
    note("min_blocks = 3: three CTAs of 512 threads an SM, the epilogue one chunk at a time "
         "(fast memory per SM)");
  }
  // Prefetch of the [N] operands (weights, biases): by default they are
  // loaded where first used, after the reductions, where 16-bit ones wait
  // packed (fewer registers, more CTAs per SM for large M). When the grid
  // is about one wave, each CTA's time is its latency chain, and that
  // second memory round trip after the reductions is on it: load them with
  // the row instead, if the registers allow.
  int64_t ctas = gridCtas(pl, p);
  if (o.prefetch >= 0)
    pl.prefetch = o.prefetch;
  else
    choosePrefetch(pl, p, t);
  if (pl.prefetch)
    note(llvm::formatv("prefetch: the [N] operands are loaded with the row ({0} CTA{1}, "
                       "about one wave: the kernel is latency-bound)",
                       ctas, ctas == 1 ? "" : "s"));
  if (o.evict >= 0)
    pl.evictLast = o.evict;
  else
    chooseEvict(pl, p, t);
  if (pl.evictLast)
    note("evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the "
         "written results first");
  note(llvm::formatv("staging = {0}: {1}", stagingName(pl.staging),
                     pl.staging == Staging::Registers
                         ? std::string("the row stays in registers and is read from global memory once")
                     : pl.staging == Staging::Async
                         ? std::string("the row is copied to shared memory with cp.async and read "
                                       "back where it is used; global memory is read once")
                     : pl.staging == Staging::Smem
                         ? llvm::formatv("the row is staged in shared memory (cp.async) and swept "
                                         "in passes ({0}) of {1} elements; global memory is read once",
                                         passesOf(pl, p),
                                         pl.threads * pl.ctasPerRow() * pl.values).str()
                         : llvm::formatv("{0}; it is swept in passes ({1}) of {2} "
                                         "elements{3}",
                                         o.staging >= 0 ? "the schedule streams the row"
                                         : elementwise
                                             ? "each value is read and written once (no "
                                               "reduction) and the row would need a cluster"
                                         : readOnce
                                             ? "the row is read once (no [M, N] result, one "
                                               "reduction deep) and would need a cluster"
                                             : "the row does not fit on chip",
                                         passesOf(pl, p),
                                         pl.threads * pl.ctasPerRow() * pl.values,
                                         p.reductionDepth ? ", with online combiners" : "")
                               .str()));
  if (pl.keep > 0 && pl.staging == Staging::Stream)
    note(llvm::formatv("keep = {0}: the first {0} of the {1} passes stay in shared memory "
                       "between the sweeps ({2} KiB per CTA)",
                       pl.keep, passesOf(pl, p), pl.keep * passBytesOf(pl, p) / 1024));
  if (defersGridWait(pl, p))
    note(llvm::formatv("deferred grid waits: each CTA sweeps its next row into a second "
                       "buffer ({0} KiB) before it waits for its group's statistics of this one",
                       passBytesOf(pl, p) / 1024));

  std::string why = checkPlan(pl, p, t);
  if (!why.empty())
    return llvm::createStringError((o.empty() ? "no valid schedule: "
                                              : "invalid schedule override: ") +
                                   why);
  if (tookEdge)
    *tookEdge = registersAtEdge;
  return pl;
}

Expected<RowPlan> planRow(const RowProblem &p, const Target &t,
                          const PlanOverride &o,
                          llvm::SmallVectorImpl<std::string> *remarks) {
  // Rule 4's registers edge against the cluster of 2 it replaces, when the
  // rows are about one wave: that cluster loads the row's [N] operands with
  // the row (prefetch, rule 7) where the edge's registers cannot hold them,
  // and is the faster of the two there. Measured on the H100
  // (docs/performance-notes.md, session 27), LayerNorm bf16 at N = 20480 /
  // 24576 / 28672: the prefetching cluster 1.13 / 1.21 / 1.21x at M = 1,
  // 1.02 / 1.09 / 1.08x at M = 64; at 4096 rows the edge 1.08-1.13x. At
  // 32768 the cluster cannot prefetch (64 values a thread) and the edge
  // won at every M (session 26).
  llvm::SmallVector<std::string> edgeNotes;
  bool edge = false;
  Expected<RowPlan> pl = planRowWith(p, t, o, &edgeNotes, true, &edge);
  if (pl && edge && o.prefetch < 0 && p.rowVectorInputs > 0) {
    llvm::SmallVector<std::string> clusterNotes;
    Expected<RowPlan> cluster = planRowWith(p, t, o, &clusterNotes, false, nullptr);
    if (cluster && cluster->prefetch) {
      edgeNotes.assign(1, llvm::formatv("registers edge declined: one CTA of {0} threads would "
                                        "hold the row, but the rows are about one wave and a "
                                        "cluster loads the [N] operands with the row",
                                        pl->threads));
      edgeNotes.append(clusterNotes.begin(), clusterNotes.end());
      pl = std::move(cluster);
    } else if (!cluster) {
      llvm::consumeError(cluster.takeError());
    }
  }
  if (remarks)
    remarks->append(edgeNotes.begin(), edgeNotes.end());
  return pl;
}

} // namespace rkc::plan
