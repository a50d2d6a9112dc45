// nvrtc_check: compile one CUDA source with NVRTC the way rkc does at run time
// (no include paths, no CUDA headers; the rkc templates are in-memory headers)
// and print the PTX.
//
//   nvrtc_check <kernel.cu> <arch> <templates-dir> [extra-header...]
//
//   <arch>           a real or virtual architecture: sm_90a, sm_80,
//   compute_90a...
//                    (sm_XX is compiled as compute_XX so that PTX is produced).
//   <templates-dir>  directory holding rkc/*.cuh; every file is registered as
//                    the in-memory header "rkc/<file>".
//   [extra-header]   test-only headers, registered under their file name.
//
// Exit status: 0 and the PTX on stdout when NVRTC succeeds with an empty log;
// 1 and NVRTC's log on stderr when it fails *or* emits any warning.
#include <nvrtc.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

static bool readFile(const fs::path &p, std::string &out) {
  std::ifstream in(p, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

static bool check(nvrtcResult r, const char *what) {
  if (r == NVRTC_SUCCESS)
    return true;
  std::cerr << "nvrtc_check: " << what << ": " << nvrtcGetErrorString(r)
            << "\n";
  return false;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    std::cerr << "usage: nvrtc_check <kernel.cu> <arch> <templates-dir> "
                 "[extra-header...]\n";
    return 2;
  }
  const fs::path kernelPath = argv[1];
  std::string arch = argv[2];
  const fs::path headerDir = fs::path(argv[3]) / "rkc";

  std::string source;
  if (!readFile(kernelPath, source)) {
    std::cerr << "nvrtc_check: cannot read " << kernelPath << "\n";
    return 2;
  }

  // Register rkc/*.cuh in a deterministic order.
  std::vector<fs::path> headerPaths;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(headerDir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".cuh")
      headerPaths.push_back(entry.path());
  if (ec || headerPaths.empty()) {
    std::cerr << "nvrtc_check: no rkc/*.cuh headers in " << headerDir << "\n";
    return 2;
  }
  std::sort(headerPaths.begin(), headerPaths.end());
  const size_t numRkc = headerPaths.size();
  for (int i = 4; i < argc; ++i)
    headerPaths.push_back(argv[i]);
  std::vector<std::string> contents(headerPaths.size()),
      names(headerPaths.size());
  std::vector<const char *> contentPtrs, namePtrs;
  for (size_t i = 0; i < headerPaths.size(); ++i) {
    if (!readFile(headerPaths[i], contents[i])) {
      std::cerr << "nvrtc_check: cannot read " << headerPaths[i] << "\n";
      return 2;
    }
    names[i] = (i < numRkc ? "rkc/" : "") + headerPaths[i].filename().string();
    contentPtrs.push_back(contents[i].c_str());
    namePtrs.push_back(names[i].c_str());
  }

  // PTX is requested, so a real architecture is mapped to its virtual one.
  if (arch.rfind("sm_", 0) == 0)
    arch = "compute_" + arch.substr(3);
  const std::string archOpt = "--gpu-architecture=" + arch;
  const char *opts[] = {archOpt.c_str(), "-std=c++17"};

  nvrtcProgram prog;
  const std::string progName = kernelPath.filename().string();
  if (!check(nvrtcCreateProgram(&prog, source.c_str(), progName.c_str(),
                                static_cast<int>(contentPtrs.size()),
                                contentPtrs.data(), namePtrs.data()),
             "nvrtcCreateProgram"))
    return 1;

  const nvrtcResult compileResult =
      nvrtcCompileProgram(prog, sizeof(opts) / sizeof(opts[0]), opts);

  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  std::string log(logSize, '\0');
  if (logSize > 0)
    nvrtcGetProgramLog(prog, &log[0]);
  while (!log.empty() &&
         (log.back() == '\0' || log.back() == '\n' || log.back() == ' '))
    log.pop_back();

  int status = 0;
  if (compileResult != NVRTC_SUCCESS) {
    std::cerr << "nvrtc_check: " << progName << " (" << arch
              << "): " << nvrtcGetErrorString(compileResult) << "\n"
              << log << "\n";
    status = 1;
  } else if (!log.empty()) {
    std::cerr << "nvrtc_check: " << progName << " (" << arch
              << "): warnings (treated as errors):\n"
              << log << "\n";
    status = 1;
  } else {
    size_t ptxSize = 0;
    if (!check(nvrtcGetPTXSize(prog, &ptxSize), "nvrtcGetPTXSize")) {
      status = 1;
    } else {
      std::string ptx(ptxSize, '\0');
      if (!check(nvrtcGetPTX(prog, &ptx[0]), "nvrtcGetPTX"))
        status = 1;
      else
        std::cout << ptx.c_str();
    }
  }
  nvrtcDestroyProgram(&prog);
  return status;
}
