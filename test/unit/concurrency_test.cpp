//===- concurrency_test.cpp - the runtime under concurrent use -------------===//
//
// Through the C API, without a GPU (compile only), in a fresh cache
// directory:
//  1. 16 threads compile 4 requests at once, 4 threads per request, twice
//     over (the second wave hits the caches): every call succeeds, every
//     call for one request returns the same plan, CUDA and PTX text, and
//     different requests give different kernels.
//  2. Two processes (this binary re-run with --child) compile the same 12
//     requests into one shared disk cache at once: afterwards the cache
//     holds exactly 12 entries and no temporary files, and a third process
//     loads every entry without a warning.
// Built normally it runs in the CPU suite; scripts/sanitize-thread builds it
// with ThreadSanitizer.
//
//===----------------------------------------------------------------------===//

#include "rkc-c/rkc.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

static std::string readFile(const fs::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

static int failures = 0;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                        \
      std::fprintf(stderr, __VA_ARGS__);                                                           \
      std::fprintf(stderr, "\n");                                                                  \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

/// Compiles `shape` of `spec`; returns "plan\ncuda\nptx" or "" with an error.
static std::string compileOnce(const std::string &spec, const std::string &shape,
                               std::string *error) {
  rkc_kernel k = nullptr;
  if (rkcKernelCompile(spec.c_str(), "spec.mlir", shape.c_str(), "bf16", "sm_90a", nullptr, &k) !=
      RKC_OK) {
    *error = rkcGetLastError();
    return "";
  }
  std::string out = std::string(rkcKernelPlan(k)) + "\n" + rkcKernelCuda(k) + "\n" +
                    rkcKernelPtx(k);
  rkcKernelDestroy(k);
  return out;
}

static int child(const std::string &spec) {
  for (int n = 1000; n < 1012; ++n) {
    std::string err;
    if (compileOnce(spec, "x=4x" + std::to_string(n), &err).empty()) {
      std::fprintf(stderr, "child: %s\n", err.c_str());
      return 1;
    }
  }
  return 0;
}

static int runSelf(const char *self, const std::string &specPath, const fs::path &cache,
                   const fs::path &log) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("RKC_CACHE_DIR", cache.c_str(), 1);
    setenv("RKC_DISABLE_TUNING_DB", "1", 1);
    if (!freopen(log.c_str(), "w", stderr))
      _exit(3);
    execl(self, self, "--child", specPath.c_str(), (char *)nullptr);
    _exit(127);
  }
  return pid;
}

static int waitFor(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--child")
    return child(readFile(argv[2]));
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s EXAMPLES_DIR\n", argv[0]);
    return 2;
  }
  fs::path examples = argv[1];
  fs::path tmp = fs::temp_directory_path() / ("rkc-concurrency-" + std::to_string(getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  setenv("RKC_CACHE_DIR", (tmp / "cache1").c_str(), 1);
  setenv("RKC_DISABLE_TUNING_DB", "1", 1);

  // 1. Threads.
  const std::string softmax = readFile(examples / "softmax.mlir");
  const std::string rms = readFile(examples / "rms_norm.mlir");
  struct Request {
    const std::string *spec;
    std::string shape;
  };
  const std::vector<Request> requests = {
      {&softmax, "x=16x1000"}, {&softmax, "x=16x4096"}, {&rms, "x=16x1000"}, {&rms, "x=8x65536"}};
  std::mutex mu;
  std::map<int, std::set<std::string>> results;
  std::vector<std::string> errors;
  std::atomic<int> ready{0};
  for (int wave = 0; wave < 2; ++wave) {
    std::vector<std::thread> threads;
    ready = 0;
    for (int t = 0; t < 16; ++t)
      threads.emplace_back([&, t] {
        const Request &r = requests[t % requests.size()];
        ++ready;
        while (ready.load() < 16) // start together
          std::this_thread::yield();
        std::string err;
        std::string out = compileOnce(*r.spec, r.shape, &err);
        std::lock_guard<std::mutex> lock(mu);
        if (out.empty())
          errors.push_back(r.shape + ": " + err);
        else
          results[t % (int)requests.size()].insert(out);
      });
    for (std::thread &t : threads)
      t.join();
  }
  CHECK(errors.empty(), "%zu compile errors, first: %s", errors.size(),
        errors.empty() ? "" : errors[0].c_str());
  std::set<std::string> distinct;
  for (auto &[i, outs] : results) {
    CHECK(outs.size() == 1, "request %d gave %zu different kernels", i, outs.size());
    distinct.insert(*outs.begin());
  }
  CHECK(results.size() == requests.size() && distinct.size() == requests.size(),
        "%zu requests answered, %zu distinct kernels (want %zu)", results.size(),
        distinct.size(), requests.size());

  // 2. Two processes sharing one disk cache.
  fs::path specPath = examples / "softmax.mlir";
  fs::path cache = tmp / "shared";
  pid_t a = runSelf(argv[0], specPath.string(), cache, tmp / "a.log");
  pid_t b = runSelf(argv[0], specPath.string(), cache, tmp / "b.log");
  int ra = waitFor(a), rb = waitFor(b);
  CHECK(ra == 0 && rb == 0, "children exited %d and %d: %s%s", ra, rb,
        readFile(tmp / "a.log").c_str(), readFile(tmp / "b.log").c_str());
  int entries = 0, temps = 0;
  if (fs::exists(cache / "kernels"))
    for (const auto &e : fs::directory_iterator(cache / "kernels")) {
      entries += e.path().extension() == ".rkc";
      temps += e.path().extension() != ".rkc";
    }
  CHECK(entries == 12 && temps == 0, "%d entries and %d other files in the shared cache", entries,
        temps);
  pid_t c = runSelf(argv[0], specPath.string(), cache, tmp / "c.log");
  int rc = waitFor(c);
  std::string clog = readFile(tmp / "c.log");
  CHECK(rc == 0 && clog.find("warning") == std::string::npos,
        "a third process over the shared cache: exit %d, stderr: %s", rc, clog.c_str());

  fs::remove_all(tmp);
  if (failures)
    std::fprintf(stderr, "concurrency_test: %d checks failed\n", failures);
  else
    std::printf("concurrency_test: 16 threads x 2 waves over 4 requests, 2 processes over one "
                "cache: all checks passed\n");
  return failures ? 1 : 0;
}
