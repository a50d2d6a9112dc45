//===- Nvrtc.cpp - NVRTC loaded at run time with dlopen -------------------===//
//
// librkc never links NVRTC: it is found at run time (RKC_NVRTC_LIBRARY, then
// libnvrtc.so.13 / .12 / .so), so the library starts on machines without
// the CUDA toolkit and reports a clear error only when asked to compile.
//
//===----------------------------------------------------------------------===//

#include "Nvrtc.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace rkc::detail {
struct EmbeddedTemplate {
  const char *name;
  const char *source;
};
extern const EmbeddedTemplate kTemplates[];
extern const std::size_t kNumTemplates;
} // namespace rkc::detail

namespace {

using nvrtcResult = int;
using nvrtcProgram = void *;

struct Api {
  nvrtcResult (*createProgram)(nvrtcProgram *, const char *, const char *, int,
                               const char *const *, const char *const *);
  nvrtcResult (*compileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*getPTXSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getPTX)(nvrtcProgram, char *);
  nvrtcResult (*getCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*getProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*destroyProgram)(nvrtcProgram *);
  nvrtcResult (*version)(int *, int *);
  const char *(*getErrorString)(nvrtcResult);
  std::string error;
};

const Api &api() {
  static Api a;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> names;
    if (const char *env = std::getenv("RKC_NVRTC_LIBRARY"))
      names.push_back(env);
    for (const char *n : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                          "/usr/local/cuda/lib64/libnvrtc.so"})
      names.push_back(n);
    void *h = nullptr;
    for (const std::string &n : names)
      if ((h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)))
        break;
    if (!h) {
      a.error = "cannot load NVRTC (tried RKC_NVRTC_LIBRARY, libnvrtc.so.13, "
                "libnvrtc.so.12, libnvrtc.so): install the CUDA toolkit or set "
                "RKC_NVRTC_LIBRARY";
      return;
    }
    auto sym = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (!fn && a.error.empty())
        a.error = std::string("NVRTC lacks the symbol ") + name;
    };
    sym(a.createProgram, "nvrtcCreateProgram");
    sym(a.compileProgram, "nvrtcCompileProgram");
    sym(a.getPTXSize, "nvrtcGetPTXSize");
    sym(a.getPTX, "nvrtcGetPTX");
    sym(a.getCUBINSize, "nvrtcGetCUBINSize");
    sym(a.getCUBIN, "nvrtcGetCUBIN");
    sym(a.getProgramLogSize, "nvrtcGetProgramLogSize");
    sym(a.getProgramLog, "nvrtcGetProgramLog");
    sym(a.destroyProgram, "nvrtcDestroyProgram");
    sym(a.version, "nvrtcVersion");
    sym(a.getErrorString, "nvrtcGetErrorString");
  });
  return a;
}

} // namespace

llvm::Expected<std::string> rkc::nvrtc::version() {
  const Api &a = api();
  if (!a.error.empty())
    return llvm::createStringError(a.error);
  int major = 0, minor = 0;
  a.version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

llvm::Expected<rkc::nvrtc::Output>
rkc::nvrtc::compile(const std::string &source, const std::string &arch,
                    bool wantCubin) {
  const Api &a = api();
  if (!a.error.empty())
    return llvm::createStringError(a.error);
  std::vector<const char *> headers, names;
  for (std::size_t i = 0; i < detail::kNumTemplates; ++i) {
    headers.push_back(detail::kTemplates[i].source);
    names.push_back(detail::kTemplates[i].name);
  }
  nvrtcProgram prog = nullptr;
  nvrtcResult r = a.createProgram(&prog, source.c_str(), "rkc_kernel.cu",
                                  (int)headers.size(), headers.data(), names.data());
  if (r != 0)
    return llvm::createStringError(std::string("nvrtcCreateProgram: ") +
                                   a.getErrorString(r));
  // sm_XX gives PTX and CUBIN; compute_XX gives PTX only.
  std::string gpu = "--gpu-architecture=" +
                    (wantCubin ? arch : "compute_" + arch.substr(3));
  const char *opts[] = {gpu.c_str(), "--std=c++17", "-default-device"};
  r = a.compileProgram(prog, 3, opts);
  Output out;
  size_t logSize = 0;
  a.getProgramLogSize(prog, &logSize);
  out.log.resize(logSize);
  if (logSize)
    a.getProgramLog(prog, out.log.data());
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n'))
    out.log.pop_back();
  if (r != 0) {
    a.destroyProgram(&prog);
    return llvm::createStringError("NVRTC failed to compile the generated CUDA (" +
                                   std::string(a.getErrorString(r)) + "):\n" +
                                   out.log);
  }
  size_t n = 0;
  a.getPTXSize(prog, &n);
  out.ptx.resize(n);
  a.getPTX(prog, out.ptx.data());
  while (!out.ptx.empty() && out.ptx.back() == '\0')
    out.ptx.pop_back();
  if (wantCubin) {
    a.getCUBINSize(prog, &n);
    out.cubin.resize(n);
    a.getCUBIN(prog, out.cubin.data());
  }
  a.destroyProgram(&prog);
  return out;
}
