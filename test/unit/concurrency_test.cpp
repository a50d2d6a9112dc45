//===- concurrency_test.cpp - the runtime under concurrent use -------------===//
//
// Through the C API, without a GPU (compile only: bf16, sm_90a), in a fresh
// cache directory:
//  1. 16 threads compile 4 requests (softmax and RMSNorm, two shapes each)
//     at once, 4 threads per request, twice over (the second wave hits the
//     caches). Every call succeeds; every call for one request gets the same
//     kernel object (rkcKernelCuda/rkcKernelPlan return pointers into the one
//     rkc::Kernel that the compile of a request creates, so one pointer for
//     all 8 calls means one compile: single flight); different requests get
//     different kernels; the disk cache holds exactly one entry per request.
//     Then 16 threads over two failing requests (an unknown op, a zero
//     dimension), twice: every call fails with the same located message,
//     read from its own thread's rkcGetLastError. Then one wave mixing the
//     failing requests with two new valid ones: the failures poison
//     nothing (each valid request compiles once, into a new kernel, and
//     the part 1 kernels are still the cached answers afterwards).
//  2. Two processes (this binary re-run with --child through posix_spawn,
//     released together by closing a pipe) compile the same 12 requests into one shared disk
//     cache at once, one in ascending and one in descending order (so they
//     write the same entries at the same time and read each other's). Both
//     get the same kernels; the cache holds exactly 12 entries, each whole
//     (the entry format of lib/Runtime/DiskCache.cpp: magic, key = file name,
//     SHA-256, six sized blobs ending at the end of the file) and no
//     temporary files; a third process loads every entry (no warning, and no
//     entry replaced: a corrupt one would be rebuilt and renamed over).
// Built normally it runs in the CPU suite (ctest concurrency);
// scripts/sanitize-thread runs it under ThreadSanitizer.
//
//===----------------------------------------------------------------------===//

#include "rkc-c/rkc.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

extern char **environ;

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

/// What one compile call returned.
struct Answer {
  std::string text;                 ///< plan, CUDA and PTX
  const void *identity = nullptr;   ///< the kernel object behind the handle
};

/// Compiles `shape` of `spec`; on failure returns an empty text and sets `error`.
static Answer compileOnce(const std::string &spec, const std::string &shape, std::string *error) {
  rkc_kernel k = nullptr;
  if (rkcKernelCompile(spec.c_str(), "spec.mlir", shape.c_str(), "bf16", "sm_90a", nullptr, &k) !=
      RKC_OK) {
    *error = rkcGetLastError();
    return {};
  }
  Answer a;
  a.text = std::string(rkcKernelPlan(k)) + "\n" + rkcKernelCuda(k) + "\n" + rkcKernelPtx(k);
  a.identity = rkcKernelCuda(k);
  rkcKernelDestroy(k);
  if (a.text.size() < 3)
    *error = "empty kernel";
  return a;
}

/// Runs body(t) for t = 0 .. n-1 on n threads that start together (each
/// waits until all have started), then joins them.
template <typename Body> static void together(int n, Body body) {
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      ++ready;
      while (ready.load() < n)
        std::this_thread::yield();
      body(t);
    });
  for (std::thread &t : threads)
    t.join();
}

/// The shapes the processes of part 2 compile.
static std::vector<std::string> childShapes() {
  std::vector<std::string> shapes;
  for (int n = 1000; n < 1012; ++n)
    shapes.push_back("x=4x" + std::to_string(n));
  return shapes;
}

/// Part 2's child: waits until `startFd` closes, compiles every shape in
/// `order` (up or down) and writes the kernels, in ascending order, to `out`.
static int child(const std::string &spec, const std::string &order, const std::string &out,
                 int startFd) {
  char c;
  while (read(startFd, &c, 1) > 0) {
  }
  close(startFd);
  std::vector<std::string> shapes = childShapes();
  std::vector<std::string> texts(shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) {
    size_t j = order == "down" ? shapes.size() - 1 - i : i;
    std::string err;
    texts[j] = compileOnce(spec, shapes[j], &err).text;
    if (!err.empty()) {
      std::fprintf(stderr, "child: %s: %s\n", shapes[j].c_str(), err.c_str());
      return 1;
    }
  }
  std::ofstream f(out, std::ios::binary);
  for (const std::string &t : texts)
    f << t << "\n";
  return f ? 0 : 1;
}

/// Starts this binary as a part 2 child over `cache`; it waits for `start`.
/// posix_spawn (no code runs between fork and exec in this process, which
/// has threads of its own by now).
static pid_t spawnChild(const char *self, const fs::path &spec, const fs::path &cache,
                        const char *order, const fs::path &out, const fs::path &log,
                        int start[2]) {
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (std::strncmp(*e, "RKC_CACHE_DIR=", 14) != 0 &&
        std::strncmp(*e, "RKC_DISABLE_TUNING_DB=", 22) != 0)
      env.push_back(*e);
  env.push_back("RKC_CACHE_DIR=" + cache.string());
  env.push_back("RKC_DISABLE_TUNING_DB=1");
  std::vector<std::string> args = {self,        "--child",   spec.string(),
                                   order,       out.string(), std::to_string(start[0])};
  auto pointers = [](std::vector<std::string> &v) {
    std::vector<char *> p;
    for (std::string &s : v)
      p.push_back(s.data());
    p.push_back(nullptr);
    return p;
  };
  std::vector<char *> argp = pointers(args), envp = pointers(env);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addclose(&actions, start[1]);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  int err = posix_spawn(&pid, self, &actions, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  CHECK(err == 0, "posix_spawn %s: %s", self, std::strerror(err));
  return err == 0 ? pid : -1;
}

static int waitFor(pid_t pid) {
  int status = 0;
  if (pid <= 0 || waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Checks that `p` is a whole entry of DiskCache.cpp's format; returns why not.
static std::string entryProblem(const fs::path &p) {
  std::string s = readFile(p);
  size_t pos = 0;
  auto line = [&]() {
    size_t nl = s.find('\n', pos);
    if (nl == std::string::npos)
      return std::string("\x01");
    std::string l = s.substr(pos, nl - pos);
    pos = nl + 1;
    return l;
  };
  if (line().rfind("RKC-KERNEL-CACHE ", 0) != 0)
    return "bad magic";
  if (line() != p.stem().string())
    return "key is not the file name";
  std::string digest = line();
  if (digest.size() != 64 || digest.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "bad digest line";
  for (const char *tag : {"info", "cubin", "ptx", "cuda", "rk", "remarks", "problem", "column"}) {
    std::string head = line();
    size_t sp = head.find(' ');
    if (sp == std::string::npos || head.substr(0, sp) != tag)
      return std::string("missing blob ") + tag;
    size_t n = std::strtoull(head.c_str() + sp + 1, nullptr, 10);
    if (pos + n + 1 > s.size() || s[pos + n] != '\n')
      return std::string("truncated blob ") + tag;
    if (std::string(tag) == "cubin" && n == 0)
      return "empty cubin";
    pos += n + 1;
  }
  return pos == s.size() ? "" : "trailing bytes";
}

struct EntryId {
  ino_t inode;
  off_t size;
  bool operator==(const EntryId &o) const { return inode == o.inode && size == o.size; }
};

/// The cache directory's entries (file name -> identity) and other files.
static std::map<std::string, EntryId> listCache(const fs::path &kernels,
                                                std::vector<std::string> *others) {
  std::map<std::string, EntryId> entries;
  if (!fs::exists(kernels))
    return entries;
  for (const auto &e : fs::directory_iterator(kernels)) {
    struct stat st;
    if (e.path().extension() != ".rkc" || ::stat(e.path().c_str(), &st) != 0)
      others->push_back(e.path().filename().string());
    else
      entries[e.path().filename().string()] = {st.st_ino, st.st_size};
  }
  return entries;
}

int main(int argc, char **argv) {
  if (argc == 6 && std::string(argv[1]) == "--child")
    return child(readFile(argv[2]), argv[3], argv[4], std::atoi(argv[5]));
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
  CHECK(!softmax.empty() && !rms.empty(), "cannot read the examples in %s", argv[1]);
  struct Request {
    const std::string *spec;
    std::string shape;
  };
  const std::vector<Request> requests = {
      {&softmax, "x=16x1000"}, {&softmax, "x=16x4096"}, {&rms, "x=16x1000"}, {&rms, "x=8x65536"}};
  const int nreq = (int)requests.size();
  std::mutex mu;
  std::map<int, std::set<std::string>> texts;      // request -> texts seen
  std::map<int, std::set<const void *>> objects;   // request -> kernel objects seen
  std::vector<std::string> errors;
  int answers = 0;
  for (int wave = 0; wave < 2; ++wave) {
    together(16, [&](int t) {
      const Request &r = requests[t % nreq];
      std::string err;
      Answer a = compileOnce(*r.spec, r.shape, &err);
      std::lock_guard<std::mutex> lock(mu);
      if (!err.empty()) {
        errors.push_back(r.shape + ": " + err);
        return;
      }
      ++answers;
      texts[t % nreq].insert(a.text);
      objects[t % nreq].insert(a.identity);
    });
    if (wave == 0) {
      std::vector<std::string> others;
      auto entries = listCache(tmp / "cache1" / "kernels", &others);
      CHECK(entries.size() == requests.size() && others.empty(),
            "after the first wave: %zu cache entries (want %zu) and %zu other files",
            entries.size(), requests.size(), others.size());
    }
  }
  CHECK(errors.empty() && answers == 32, "%d answers, %zu compile errors, first: %s", answers,
        errors.size(), errors.empty() ? "" : errors[0].c_str());
  std::set<std::string> distinctTexts;
  std::set<const void *> distinctObjects;
  for (int i = 0; i < nreq; ++i) {
    CHECK(texts[i].size() == 1, "request %d (%s) gave %zu different kernels", i,
          requests[i].shape.c_str(), texts[i].size());
    CHECK(objects[i].size() == 1,
          "request %d (%s) was answered by %zu kernel objects: compiled more than once", i,
          requests[i].shape.c_str(), objects[i].size());
    if (!texts[i].empty())
      distinctTexts.insert(*texts[i].begin());
    distinctObjects.insert(objects[i].begin(), objects[i].end());
  }
  CHECK(distinctTexts.size() == requests.size() && distinctObjects.size() == requests.size(),
        "%zu distinct kernels and %zu kernel objects for %zu requests", distinctTexts.size(),
        distinctObjects.size(), requests.size());

  // Failing requests at once (the error path of single flight: the owner
  // publishes the error, the waiters report it, the key is retried later):
  // every call fails with its location, on every thread's own
  // rkcGetLastError, and nothing hangs.
  // Handles held across the failing waves keep part 1's kernel objects
  // alive, so a recompiled request could not reuse a freed one's address.
  std::vector<rkc_kernel> held(nreq, nullptr);
  for (int i = 0; i < nreq; ++i)
    CHECK(rkcKernelCompile(requests[i].spec->c_str(), "spec.mlir", requests[i].shape.c_str(),
                           "bf16", "sm_90a", nullptr, &held[i]) == RKC_OK &&
              objects[i].count(rkcKernelCuda(held[i])),
          "request %d is not answered by its part 1 kernel", i);
  const std::string bad = "func.func @f(%x: tensor<?x?x!rk.dtype> {rk.name = \"x\"}) {\n"
                          "  %y = rk.bogus %x\n}\n";
  const std::vector<Request> failing = {{&bad, "x=16x16"}, {&softmax, "x=16x0"}};
  const char *wanted[] = {"spec.mlir:2:8: error: custom op 'rk.bogus' is unknown",
                          "spec.mlir:2:1: error: dimension #1 of 'x' must be positive, got 0"};
  std::map<int, std::set<std::string>> messages;
  for (int wave = 0; wave < 2; ++wave)
    together(16, [&](int t) {
      const Request &r = failing[t % 2];
      std::string err;
      Answer a = compileOnce(*r.spec, r.shape, &err);
      std::lock_guard<std::mutex> lock(mu);
      messages[t % 2].insert(a.text.empty() ? err.substr(0, err.find('\n')) : "succeeded");
    });
  for (int i = 0; i < 2; ++i)
    CHECK(messages[i].size() == 1 && *messages[i].begin() == wanted[i],
          "failing request %d: %zu different answers, first: '%s'", i, messages[i].size(),
          messages[i].empty() ? "" : messages[i].begin()->c_str());

  // Failing and new valid requests mixed in one wave (a failed flight must
  // not poison its waiters' neighbours or the cache): 4 threads on each
  // failing request and 4 on each of two new valid ones. The failing calls
  // fail as before; each valid request compiles once, and its kernel
  // differs from every earlier one; the part 1 requests are still answered
  // by their part 1 kernel objects afterwards (nothing was evicted).
  const std::vector<Request> fresh = {{&softmax, "x=16x2000"}, {&rms, "x=4x3000"}};
  std::map<int, std::set<std::string>> mixedMessages;
  std::map<int, std::set<const void *>> freshObjects;
  std::vector<std::string> freshErrors;
  together(16, [&](int t) {
    bool failingRequest = t % 4 < 2;
    const Request &r = failingRequest ? failing[t % 2] : fresh[t % 2];
    std::string err;
    Answer a = compileOnce(*r.spec, r.shape, &err);
    std::lock_guard<std::mutex> lock(mu);
    if (failingRequest)
      mixedMessages[t % 2].insert(a.text.empty() ? err.substr(0, err.find('\n')) : "succeeded");
    else if (!err.empty())
      freshErrors.push_back(r.shape + ": " + err);
    else
      freshObjects[t % 2].insert(a.identity);
  });
  for (int i = 0; i < 2; ++i) {
    CHECK(mixedMessages[i].size() == 1 && *mixedMessages[i].begin() == wanted[i],
          "mixed wave, failing request %d: %zu different answers, first: '%s'", i,
          mixedMessages[i].size(),
          mixedMessages[i].empty() ? "" : mixedMessages[i].begin()->c_str());
    CHECK(freshObjects[i].size() == 1 && !distinctObjects.count(*freshObjects[i].begin()),
          "mixed wave, valid request %s: %zu kernel objects (want 1, new)",
          fresh[i].shape.c_str(), freshObjects[i].size());
  }
  CHECK(freshErrors.empty(), "mixed wave: %zu valid calls failed, first: %s",
        freshErrors.size(), freshErrors.empty() ? "" : freshErrors[0].c_str());
  for (int i = 0; i < nreq; ++i) {
    std::string err;
    Answer again = compileOnce(*requests[i].spec, requests[i].shape, &err);
    CHECK(err.empty() && objects[i].count(again.identity),
          "after the failing waves, request %d (%s) is no longer its part 1 kernel: %s", i,
          requests[i].shape.c_str(), err.c_str());
  }
  for (rkc_kernel k : held)
    rkcKernelDestroy(k);

  // 2. Processes sharing one disk cache.
  fs::path specPath = examples / "softmax.mlir";
  fs::path cache = tmp / "shared";
  int start[2];
  CHECK(pipe(start) == 0, "pipe failed");
  pid_t a = spawnChild(argv[0], specPath, cache, "up", tmp / "a.out", tmp / "a.log", start);
  pid_t b = spawnChild(argv[0], specPath, cache, "down", tmp / "b.out", tmp / "b.log", start);
  close(start[0]);
  close(start[1]); // both start now
  int ra = waitFor(a), rb = waitFor(b);
  CHECK(ra == 0 && rb == 0, "children exited %d and %d: %s%s", ra, rb,
        readFile(tmp / "a.log").c_str(), readFile(tmp / "b.log").c_str());
  std::string outA = readFile(tmp / "a.out");
  CHECK(!outA.empty() && outA == readFile(tmp / "b.out"),
        "the two processes got different kernels");
  std::vector<std::string> others;
  auto entries = listCache(cache / "kernels", &others);
  CHECK(entries.size() == childShapes().size() && others.empty(),
        "%zu entries (want %zu) and %zu other files (first: %s) in the shared cache",
        entries.size(), childShapes().size(), others.size(),
        others.empty() ? "" : others[0].c_str());
  for (const auto &[name, id] : entries) {
    std::string why = entryProblem(cache / "kernels" / name);
    CHECK(why.empty(), "cache entry %s is not whole: %s", name.c_str(), why.c_str());
  }
  CHECK(pipe(start) == 0, "pipe failed");
  pid_t c = spawnChild(argv[0], specPath, cache, "up", tmp / "c.out", tmp / "c.log", start);
  close(start[0]);
  close(start[1]);
  int rc = waitFor(c);
  std::string clog = readFile(tmp / "c.log");
  CHECK(rc == 0 && clog.find("warning") == std::string::npos,
        "a third process over the shared cache: exit %d, stderr: %s", rc, clog.c_str());
  CHECK(readFile(tmp / "c.out") == outA, "the third process got different kernels");
  others.clear();
  auto after = listCache(cache / "kernels", &others);
  CHECK(after == entries && others.empty(),
        "the third process rewrote the cache (an entry did not load): %zu -> %zu entries",
        entries.size(), after.size());

  fs::remove_all(tmp);
  if (failures) {
    std::fprintf(stderr, "concurrency_test: %d checks failed\n", failures);
    return 1;
  }
  std::printf("concurrency_test: 16 threads x 2 waves over 4 requests (one kernel object "
              "per request), over 2 failing ones, and mixed failing + valid, 2+1 processes over one disk cache (12 "
              "whole entries, all reused): all checks passed\n");
  return 0;
}
