//===- Run.h - run a kernel on the GPU, check it, time it ---------*- C++ -*-===//
#ifndef RKC_RUN_H
#define RKC_RUN_H

#include "rkc/Compile.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace rkc {

struct RunOptions {
  int reps = 20;            ///< timed launches (median is reported)
  unsigned seed = 1;
  bool check = true;        ///< compare against the double reference
};

struct RunReport {
  std::string plan;
  std::vector<double> relErrors;   ///< per result: ||out - ref|| / ||ref||
  std::vector<int64_t> nanMismatch;///< per result: NaN where the reference has none (or v.v.)
  double tolerance = 0;
  bool passed = true;
  double medianMs = 0;
  double bytes = 0;                ///< every argument read or written once
  double tbps = 0;
};

/// Compiles `request` (arch: the current GPU's), fills the inputs with
/// random data (integer [M] inputs: indices in [0, N), every 8th -100),
/// poisons the outputs, launches, compares with the reference interpreter
/// and times `reps` launches with CUDA events, flushing L2 in between.
llvm::Expected<RunReport> runOnDevice(CompileRequest request, const RunOptions &options);

} // namespace rkc

#endif
