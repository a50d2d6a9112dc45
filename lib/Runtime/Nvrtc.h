//===- Nvrtc.h - NVRTC loaded at run time -------------------------*- C++ -*-===//
#ifndef RKC_LIB_RUNTIME_NVRTC_H
#define RKC_LIB_RUNTIME_NVRTC_H

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace rkc::nvrtc {

struct Output {
  std::string ptx;
  std::vector<char> cubin;
  std::string log;
};

/// Compiles `source` (which includes the embedded rkc/*.cuh headers) for
/// `arch` (sm_90a, sm_80, ...). With `wantCubin` false only PTX is made.
llvm::Expected<Output> compile(const std::string &source, const std::string &arch,
                               bool wantCubin);

/// "major.minor" of the loaded NVRTC.
llvm::Expected<std::string> version();

} // namespace rkc::nvrtc

#endif
