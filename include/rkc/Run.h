//===- Run.h - run kernels on the GPU, check them, time them ------*- C++ -*-===//
#ifndef RKC_RUN_H
#define RKC_RUN_H

#include "rkc/Compile.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace rkc {

class Kernel;

/// Device buffers for one kernel signature (the same for every schedule of
/// a spec and shape): random inputs (integer [M] inputs: indices in [0, N),
/// every 8th -100; int8 tensors: [-127, 127]; column programs: quantized integers over the format's
/// range, small positive scales, zero points 0..15), outputs, and an L2
/// flush buffer. Reused across the candidates of a tuning run.
class Harness {
public:
  static llvm::Expected<std::unique_ptr<Harness>> create(const KernelInfo &info,
                                                         const std::string &rkIR,
                                                         unsigned seed);
  ~Harness();

  struct Check {
    std::vector<double> relErrors;    ///< per result ||out - ref|| / ||ref||
    /// per result: elements where the kernel and the reference disagree on
    /// a NaN or an infinity (those are compared exactly, not in relErrors)
    std::vector<int64_t> nonFiniteMismatch;
    /// per result: NaNs where the reference overflowed to an infinity
    /// (accepted: another order of the operations may meet inf * 0)
    std::vector<int64_t> overflowNaNs;
    /// per result: where it is furthest off ("" when none is): the first
    /// non-finite mismatch, else the largest absolute error, as "element J
    /// (row R): kernel X, reference Y"
    std::vector<std::string> worst;
    /// Whether result i is within the tolerance with no non-finite mismatch.
    bool resultPassed(size_t i) const {
      return relErrors[i] <= tolerance && nonFiniteMismatch[i] == 0;
    }
    /// The first failing result's figures, in words ("" when all passed).
    std::string describeFailure() const;
    double tolerance = 0;
    int64_t rowsChecked = 0;
    bool passed = true;
  };
  /// Poisons the outputs, launches on all M rows, and compares the first
  /// `rows` rows with the double-precision reference of the row program
  /// (column programs: all of the output).
  llvm::Expected<Check> check(Kernel &kernel, int64_t rows);
  /// Median time of `reps` launches (CUDA events, L2 flushed before each).
  /// Column programs: per launch of back-to-back launches over distinct
  /// copies of the weights (beyond the L2), as a decode GEMV runs in
  /// serving (Run.cpp, timeColumnMs).
  llvm::Expected<double> timeMs(Kernel &kernel, int reps);
  /// Bytes moved: every argument read or written once.
  double bytes() const { return bytes_; }
  /// The copy roofline of the current GPU in TB/s: a 512 MiB device-to-
  /// device copy (1 GiB of traffic, as BENCH.md's copy), median of 5.
  /// Measured once per process.
  static llvm::Expected<double> copyRooflineTbps();

private:
  struct Impl;
  explicit Harness(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  double bytes_ = 0;
};

struct RunOptions {
  int reps = 20;
  unsigned seed = 1;
  int64_t checkRows = 512; ///< rows compared with the reference
};

struct RunReport {
  std::string plan;
  std::vector<std::string> remarks; ///< the plan's decisions (rk-plan-tiers)
  Harness::Check check;
  double medianMs = 0;
  double bytes = 0;
  double tbps = 0;
};

/// rkc run: compile for the current GPU, check, time.
llvm::Expected<RunReport> runOnDevice(CompileRequest request, const RunOptions &options);

} // namespace rkc

#endif
