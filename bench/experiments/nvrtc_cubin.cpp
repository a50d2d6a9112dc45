// Experiment tool (not product code): compile one CUDA file to a CUBIN with
// NVRTC and the options librkc uses (lib/Runtime/Nvrtc.cpp), so that a
// hand-edited copy of an emitted kernel builds exactly as rkc would build it.
//
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/experiments/nvrtc_cubin.cpp \
//       -L/usr/local/cuda/lib64 -lnvrtc -o /tmp/nvrtc_cubin
//   /tmp/nvrtc_cubin kernel.cu kernel.cubin [sm_90a]   (include path: templates/)
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s IN.cu OUT.cubin [ARCH] [TEMPLATES_DIR]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string src = ss.str();
  const std::string gpu = std::string("--gpu-architecture=") + (argc > 3 ? argv[3] : "sm_90a");
  const std::string inc = std::string("-I") + (argc > 4 ? argv[4] : "templates");
  const char *opts[] = {gpu.c_str(), "--std=c++17", "-default-device", inc.c_str(),
                        "-Xptxas=-v"};
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src.c_str(), argv[1], 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return 1;
  const nvrtcResult r = nvrtcCompileProgram(prog, 5, opts);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  std::vector<char> log(logSize + 1);
  nvrtcGetProgramLog(prog, log.data());
  std::fprintf(stderr, "%s", log.data());
  if (r != NVRTC_SUCCESS) return 1;
  size_t n = 0;
  nvrtcGetCUBINSize(prog, &n);
  std::vector<char> cubin(n);
  nvrtcGetCUBIN(prog, cubin.data());
  std::ofstream(argv[2], std::ios::binary).write(cubin.data(), (std::streamsize)n);
  return 0;
}
