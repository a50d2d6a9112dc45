//===- Tuning.h - per-shape autotuning and the tuning database ----*- C++ -*-===//
//
// The tuner searches schedules around the planner's heuristic (see
// docs/tuning.md), checks each candidate against the reference and times
// it on the GPU; the best is remembered in a JSON-lines database keyed by
// everything that makes a timing valid: the spec, shapes, dtype, alignment
// class, GPU (name, SM count, memory clock), driver, NVRTC and rkc
// versions. The runtime consults the database transparently.
//
//===----------------------------------------------------------------------===//
#ifndef RKC_TUNING_H
#define RKC_TUNING_H

#include "rkc/Compile.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rkc {

/// The revision of the generated kernels: raised whenever the emitter or
/// the device templates change the code of a kernel for the same schedule
/// (a row's timing, and so its choice of schedule, holds only for the code
/// it timed). Rows of another revision are stale: kept in the files, never
/// used (they fall back to the heuristic until re-tuned).
///   1: 16-bit exp as ex2.approx.ftz, max.NaN, the chunked staged epilogue
///      (session 9; the shipped H100 rows were re-timed with it).
///   2: the staged epilogue of 1024-thread CTAs one chunk at a time
///      (session 10; rows whose PTX did not change were carried over by
///      scripts/tuning-restamp, the others re-tuned).
///   3: [N] operands of streamed sweeps loaded with an L2 evict-last policy
///      (session 10; no shipped row is a streamed plan: all carried over).
///   4: that policy wherever the [N] operands total >= 2 MiB (session 10).
///   5: streamed sweeps alternate direction; streamed LayerNorm statistics
///      are one Welford reduction (session 11; no shipped row is a
///      streamed plan: all carried over).
///   6: the last streamed sweep loads evict-first, streamed stores are
///      evict-first (session 11; all rows carried over).
///   7: the online softmax combiner spends one exp per combine; streamed
///      sweeps fold into four independent states (session 12; all rows
///      carried over, the cross-entropy rows the planner now streams
///      re-tuned).
///   8: the thread tier of an online softmax state folds each pass's values
///      as max, then sum of exp (rkc::fold_max_exp_sum; session 12; rows of
///      unstreamed plans carried over, the streamed cross-entropy rows
///      re-tuned).
///   9: shifted rows: N not a multiple of the 16-byte vector keeps it, each
///      row read from the aligned address before it (session 13; the PTX
///      of every other kernel is unchanged: all rows carried over).
///  10: variances of rows split over a cluster are one Welford reduction
///      (one cluster barrier instead of two); every Welford state's thread
///      tier folds two-pass group statistics (rkc::fold_mean_m2; session 14).
///  11: the online softmax fold of 16-bit rows subtracts the max first
///      where max * log2(e) would overflow (|max| > 1e38; session 14).
///  12: the tensor-core GEMV with the weights as B (M > 8) reads a lane's
///      8 scales of a column group in one access (rkc::PackedCols; session
///      17; rows of other kernels carried over, the M > 8 GEMV rows
///      re-tuned).
///  13: the tensor-core GEMV stages its activations with one address per
///      16-byte unit of all rows, in parts above 64 KiB; with the weights
///      as B it stores its partial sums swizzled, 16 bytes at a time, and
///      aliased partial sums keep the cluster's receive buffer beside the
///      activations where it fits (session 19).
///  14: kernels without an [M, N] result (cross-entropy, logsumexp,
///      argmax) over 16-bit rows, one per CTA and no cluster, read their
///      rows evict-first in L2 (rkc::stage_frag_stream, ld.global.cs;
///      session 20; 202 rows carried, seven cross-entropy bf16 rows
///      re-tuned).
///  15: builtin argmax / argmin fold a thread's values to their extreme and
///      its lowest column (rkc::fold_arg_extreme) instead of one (value,
///      index) combine per value, and their warp tier finds the extreme by
///      shuffles, then the lowest index in one redux.sync (session 21; no
///      shipped row is an argmax: all carried over).
///  16: the chunked epilogue's [N] loads issued two chunks ahead for f32
///      rows (session 29; 207 rows carried, six re-tuned).
///  17: the grid tier's slots read in batches of loads in flight together
///      (rkc::detail::combine_grid_slots), not one L2 round trip per slot
///      (session 30).
///  18: row schedules name the L2 hint of their one sweep's loads
///      (`evict=last` / `evict=normal`, planner rule 8: evict-last for rows
///      with a result, one input, one CTA a row; session 41): shipped rows
///      carried with `evict=normal` written into their schedule and
///      heuristic (the same PTX), stale where the heuristic now hints.
inline constexpr int kCodegenRevision = 18;

/// One database row.
struct TuningEntry {
  std::string key;       ///< exact-match key (request + machine + versions)
  std::string op;        ///< hash of the spec text
  std::string name;      ///< kernel name, for reports
  std::string dtype;
  std::string shapes;    ///< "x=4096x8192;..."
  int64_t rows = 0, cols = 0;
  std::string gpu;       ///< "name|SMs|memory clock|driver"
  std::string nvrtc, rkcVersion, arch;
  std::string schedule;  ///< the winner, in --schedule syntax
  double ms = 0, tbps = 0, heuristicMs = 0, rooflineTbps = 0;
  int codegen = 0;       ///< kCodegenRevision it was timed with (0: before)
  /// The heuristic's schedule it was timed against, and the DRAM bandwidth
  /// (GB/s) the planner was told (empty / 0: a row from before they were
  /// recorded). A later heuristic that plans the shape otherwise leaves the
  /// row stale (it still wins over the new rule): scripts/tuning-stale
  /// lists such rows for re-tuning.
  std::string heuristic;
  int dramGBs = 0;
};

/// The machine part of every key: GPU signature, NVRTC and rkc versions.
std::string machineSignature();

/// The exact key of a request on this machine.
std::string tuningKey(const CompileRequest &request);

/// The database: the user's ($RKC_CACHE_DIR/tuning.jsonl) over the default
/// one built into the library (data/tuning/*.jsonl).
class TuningDb {
public:
  /// Loads both; rows that do not parse, come from another rkc version or
  /// were timed with another kCodegenRevision are skipped with a warning,
  /// never trusted.
  static TuningDb &get();
  /// The schedule for `request`: its exact entry, else the nearest tuned N
  /// of the same spec, dtype and GPU (a shape bucket). nullopt: heuristic.
  std::optional<std::string> lookup(const CompileRequest &request) const;
  /// Appends an entry to the user database (atomically, locked).
  llvm::Error add(const TuningEntry &entry);
  std::vector<TuningEntry> entries() const;
  /// Export / import in the same JSON-lines format.
  llvm::Error exportTo(const std::string &path) const;
  llvm::Expected<int> importFrom(const std::string &path);
  /// Re-reads the files (tests).
  void reload();

  static std::optional<TuningEntry> parseLine(llvm::StringRef line);
  static std::string formatLine(const TuningEntry &e);

private:
  TuningDb() { reload(); }
  std::vector<TuningEntry> entries_;
  mutable std::mutex mu_;
};

struct TuneOptions {
  double budgetMs = 20000; ///< wall time for one shape
  int reps = 25;
  bool progress = true;
  /// Measure exactly these schedules (override syntax; unset fields as the
  /// search sets them, as the planner does for staging = stream / smem)
  /// next to the heuristic, without searching and without writing the
  /// database: an A/B of layout rules (`rkc tune --try`).
  std::vector<std::string> trySchedules;
};

struct TuneCandidate {
  std::string schedule;
  double ms = 0;
  double tbps = 0;
  bool ok = false;
  std::string why; ///< when not ok
};

struct TuneReport {
  TuneCandidate heuristic, best;
  std::vector<TuneCandidate> tried;
  std::map<std::string, int> pruned; ///< reason -> count
  int wrong = 0;                     ///< candidates that failed the check
  double compileMs = 0, timingMs = 0, totalMs = 0;
  double setupMs = 0; ///< heuristic compile + inputs on the GPU (Harness::create)
  double checkMs = 0; ///< of timingMs: the candidates' reference checks
  TuningEntry entry;
};

/// Tunes one request on the current GPU and records the winner.
llvm::Expected<TuneReport> tune(CompileRequest request, const TuneOptions &options);

/// The heuristic's schedule for `request` (its own schedule ignored), in the
/// syntax the database rows use: what `tune` times its candidates against
/// and records as a row's `heuristic`. Plans without a GPU for the arch,
/// SMs and DRAM bandwidth the request names (else the current device's).
llvm::Expected<std::string> heuristicSchedule(CompileRequest request);

class Kernel;
/// Kernel::get with the tuning database applied: an empty schedule takes
/// the tuned one (exact shape, else the nearest tuned N); with RKC_TUNE=1 a
/// miss is tuned on the spot. The architecture defaults to the GPU's.
llvm::Expected<std::shared_ptr<Kernel>> getTuned(CompileRequest request);

} // namespace rkc

#endif
