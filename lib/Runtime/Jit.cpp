//===- Jit.cpp - in-process kernel cache, module loading and launch -------===//

#include "rkc/Jit.h"
#include "rkc/Plan/Target.h"

#include "CudaDriver.h"
#include "DiskCache.h"
#include "Nvrtc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/FormatVariadic.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <future>
#include <map>

using namespace rkc;

/// The identity of the compiler itself: the path, size and modification
/// time of the binary that holds this code (librkc.so, or the statically
/// linked rkc tool). A rebuilt or reinstalled rkc (a new planner or
/// emitter behind the same RKC_VERSION and templates) then misses the disk
/// cache instead of loading kernels an older build planned.
static const std::string &compilerIdentity() {
  static const std::string id = [] {
    Dl_info info;
    struct stat st;
    if (!dladdr((const void *)&compilerIdentity, &info) || !info.dli_fname ||
        stat(info.dli_fname, &st) != 0)
      return std::string("unknown-binary");
    return llvm::formatv("{0}:{1}:{2}.{3}", info.dli_fname, (long long)st.st_size,
                         (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec)
        .str();
  }();
  return id;
}

std::string rkc::cacheKey(const CompileRequest &r) {
  llvm::SHA256 h;
  auto add = [&](llvm::StringRef s) {
    h.update(s);
    h.update(llvm::StringRef("\0", 1));
  };
  add(RKC_VERSION);
  add(compilerIdentity());
  add(templateHash());
  add(r.specText);
  for (const std::string &s : r.options.shapes)
    add(s);
  add(r.options.dtype);
  add(r.options.arch);
  add(std::to_string(r.options.sms));
  add(std::to_string(r.options.dramGBs));
  add(r.options.schedule);
  add(r.options.streaming);
  // The toolchain and the machine: NVRTC, driver and GPU.
  auto nv = nvrtc::version();
  add(nv ? *nv : (llvm::consumeError(nv.takeError()), std::string("no-nvrtc")));
  add(cuda::deviceSignature());
  std::array<uint8_t, 32> d = h.final();
  return llvm::toHex(d, /*LowerCase=*/true);
}

namespace {
/// What one compile of a key gave: a kernel, or the message of its error.
/// The waiters of a flight read the error from here, so a failure needs no
/// state that outlives its flight.
struct Flight {
  std::shared_ptr<Kernel> kernel;
  std::string error;
};
struct Cache {
  std::mutex mu;
  std::map<std::string, std::shared_future<Flight>> entries;
};

/// Drops the finished entries of `entries` once it holds `limit`: a
/// process that compiles ever new requests (a server with per-request
/// shapes) keeps a bounded cache rather than every kernel it ever built
/// (~25 KiB each). Kernels in use stay alive through their handles; a
/// dropped request compiles again (or comes from the disk cache) when next
/// asked. Entries still compiling stay (single flight).
void bound(std::map<std::string, std::shared_future<Flight>> &entries, size_t limit) {
  if (entries.size() < limit)
    return;
  for (auto it = entries.begin(); it != entries.end();) {
    if (it->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      it = entries.erase(it);
    else
      ++it;
  }
}
Cache &cache() {
  static Cache c;
  return c;
}
} // namespace

/// "sm_90a" -> "90": the compute capability an arch names.
static llvm::StringRef archNumber(llvm::StringRef arch) {
  arch.consume_front("sm_");
  arch.consume_back("a");
  return arch;
}

llvm::Error rkc::resolveArch(CompileRequest &req, const char *fallback) {
  if (req.options.arch.empty()) {
    auto arch = cuda::currentArch();
    if (arch) {
      req.options.arch = *arch;
    } else {
      if (!fallback)
        return arch.takeError();
      llvm::consumeError(arch.takeError());
      req.options.arch = fallback;
    }
  }
  // Plan for the current device's SMs and DRAM bandwidth (the rules of
  // parts with fast memory per SM, plan::Target::fastMemory) when compiling
  // for its architecture (of a context current in this thread: none is
  // created for it). A value the request gives is kept.
  if (req.options.sms == 0 || req.options.dramGBs == 0) {
    cuda::CurrentDevice dev = cuda::currentDevice();
    if (dev.sms > 0 &&
        archNumber(req.options.arch) == std::to_string(dev.major * 10 + dev.minor)) {
      if (req.options.sms == 0)
        req.options.sms = dev.sms;
      if (req.options.dramGBs == 0)
        req.options.dramGBs = dev.dramGBs;
    }
  }
  return llvm::Error::success();
}

llvm::Expected<std::shared_ptr<Kernel>> Kernel::get(CompileRequest req) {
  if (llvm::Error e = resolveArch(req, "sm_90a"))
    return std::move(e);
  std::string key = cacheKey(req);
  Cache &c = cache();
  std::promise<Flight> promise;
  std::shared_future<Flight> future;
  bool owner = false;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.entries.find(key);
    if (it != c.entries.end()) {
      future = it->second;
    } else {
      bound(c.entries, kMaxCachedKernels);
      future = promise.get_future().share();
      c.entries.emplace(key, future);
      owner = true;
    }
  }
  if (owner) {
    // Single flight: exactly one thread compiles a key; the others wait.
    // The disk cache first (no MLIR, no NVRTC on a hit), then a compile.
    std::optional<CompileResult> cached;
    if (req.upTo == Emit::Cubin)
      cached = diskcache::load(key);
    llvm::Expected<CompileResult> res =
        cached ? llvm::Expected<CompileResult>(std::move(*cached)) : compile(req);
    if (res && !cached && req.upTo == Emit::Cubin)
      diskcache::store(key, *res);
    Flight f;
    if (res) {
      f.kernel = std::shared_ptr<Kernel>(new Kernel(std::move(*res)));
    } else {
      f.error = llvm::toString(res.takeError());
      std::lock_guard<std::mutex> lock(c.mu);
      c.entries.erase(key); // a failure is not remembered: the next call retries
    }
    promise.set_value(f);
  }
  const Flight &f = future.get();
  if (!f.kernel)
    return llvm::createStringError(f.error);
  return f.kernel;
}

llvm::Expected<Kernel::Loaded> Kernel::function() {
  auto drv = cuda::driver();
  if (!drv)
    return drv.takeError();
  auto ctx = cuda::currentContext();
  if (!ctx)
    return ctx.takeError();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = functions_.find(*ctx);
  if (it != functions_.end())
    return it->second;
  const cuda::Driver &d = **drv;
  CUmodule mod;
  CUresult r = d.moduleLoadData(&mod, result_.cubin.data());
  if (r != CUDA_SUCCESS)
    return llvm::createStringError(cuda::describe(d, r, "cuModuleLoadData"));
  CUfunction fn;
  r = d.moduleGetFunction(&fn, mod, info().name.c_str());
  if (r != CUDA_SUCCESS)
    return llvm::createStringError(cuda::describe(d, r, "cuModuleGetFunction"));
  // The opt-in above 48 KiB counts the kernel's static shared memory
  // too (reduction buffers): 48 KiB of dynamic memory plus 3 KiB of static
  // failed to launch ("invalid argument", LayerNorm bf16 at N = 1000003
  // with three kept passes). Raised for any dynamic amount.
  if (info().smemBytes > 0) {
    r = d.funcSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           (int)info().smemBytes);
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "raising the shared memory limit"));
  }
  if (info().cluster > 8) {
    r = d.funcSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "allowing a cluster of 16"));
  }
  Loaded l;
  l.context = *ctx;
  l.function = fn;
  if (info().split > 1) {
    // The grid tier: how many CTAs fit at once (a cooperative launch
    // needs every CTA resident).
    int perSm = 0;
    r = d.occupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, (int)info().ctaThreads,
                                                    (size_t)info().smemBytes);
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "querying the resident CTAs"));
    cuda::CurrentDevice dev = cuda::currentDevice(); // *ctx's device
    if (dev.sms <= 0)
      return llvm::createStringError("querying the resident CTAs: no SM count for the "
                                     "current device");
    l.cooperative = dev.cooperative != 0;
    l.residentCtas = (int64_t)perSm * dev.sms;
  }
  functions_[*ctx] = l;
  return l;
}

llvm::Expected<void *> Kernel::workspace(const Loaded &l, void *stream, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  void *&slot = workspaces_[{l.context, stream}];
  if (slot)
    return slot;
  const cuda::Driver &d = **cuda::driver();
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (d.streamIsCapturing((CUstream)stream, &capture) == CUDA_SUCCESS &&
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return llvm::createStringError(
        "this kernel (schedule split) allocates a workspace on its first launch on a "
        "stream, which cannot happen during a CUDA graph capture: launch it once on this "
        "stream before capturing");
  // Zeroed once: every launch leaves the counters at zero again
  // (rkc::grid_finish). Its size is the same at every launch in the
  // context (the resident groups times the kernel's bytes per group).
  CUdeviceptr p = 0;
  CUresult r = d.memAlloc(&p, bytes);
  if (r == CUDA_SUCCESS)
    r = d.memsetD8(p, 0, bytes);
  if (r != CUDA_SUCCESS) {
    if (p)
      d.memFree(p);
    return llvm::createStringError(cuda::describe(d, r, "allocating the split workspace"));
  }
  slot = (void *)p;
  return slot;
}

Kernel::Kernel(CompileResult r) : result_(std::move(r)) {
  // Programmatic dependent launch needs sm_90 or newer (decided once, not
  // per launch).
  auto t = plan::lookupTarget(info().arch);
  pdlCapable_ = t && t->smVersion >= 90;
}

llvm::Error Kernel::launch(void *const *ptrs, const int64_t *strides, int64_t rows,
                           void *stream, unsigned flags) {
  const KernelInfo &k = info();
  if (rows < 1)
    return llvm::createStringError(llvm::formatv("rows must be positive, got {0}", rows).str());
  // Rows beyond what one launch's grid can hold, refused before the grid's
  // arithmetic could overflow (rows near 2^63 wrapped it, and a cluster
  // kernel launched one group for them).
  if (rows / std::max<int64_t>(k.rowsPerCta, 1) > (int64_t)0x7fffffff)
    return llvm::createStringError("too many rows for one launch");
  size_t n = k.args.size();
  std::vector<int64_t> st(n, 0);
  // Shifted rows (N not a multiple of the vector, templates/rkc/vec.cuh):
  // each row is read from the aligned address before it, the same number of
  // elements back in every [M, N] argument, so their row strides must agree
  // modulo the vector (the first one's places the rows); [N] arguments are
  // read in aligned vectors and realigned in registers.
  bool shifted = k.vector > 1 && k.cols % k.vector != 0;
  int64_t headStride = -1;
  for (size_t i = 0; i < n && shifted && headStride < 0; ++i)
    if (k.args[i].shape.size() == 2 && k.args[i].shape[1] == k.cols)
      headStride = strides && strides[i] ? strides[i] : k.args[i].shape[1];
  for (size_t i = 0; i < n; ++i) {
    const KernelArg &a = k.args[i];
    if (!ptrs[i])
      return llvm::createStringError("argument '" + a.name + "' is a null pointer");
    int64_t stride = strides ? strides[i] : 0;
    if (a.shape.size() == 2) {
      int64_t len = a.shape[1];
      if (stride == 0)
        stride = len;
      if (stride < len)
        return llvm::createStringError(llvm::formatv(
            "row stride of '{0}' ({1}) is smaller than its row length ({2})",
            a.name, stride, len).str());
      if (a.contiguous && stride != len)
        return llvm::createStringError(llvm::formatv(
            "'{0}' must be contiguous (row stride {1}), got row stride {2}",
            a.name, len, stride).str());
    }
    st[i] = stride;
    if (a.alignBytes > 1) {
      int64_t elems = std::max<int64_t>(1, a.alignBytes / std::max(a.elemBytes, 1));
      if ((uintptr_t)ptrs[i] % (uintptr_t)a.alignBytes != 0 ||
          (a.shape.size() == 2 && !a.contiguous && stride % elems != 0))
        return llvm::createStringError(llvm::formatv(
            "'{0}' must be {1}-byte aligned with a row stride that is a multiple of "
            "{2} (pointer {3}, row stride {4})",
            a.name, a.alignBytes, elems, ptrs[i], stride).str());
      continue;
    }
    // [M, N] rows and [N] row vectors are accessed with vectors; [M] and
    // [M, 1] (per-row) values one element per row.
    bool perRowColumn = a.shape.size() == 2 && a.shape[1] == 1 && k.cols != 1;
    bool vectorised = (a.shape.size() == 2 && !perRowColumn) ||
                      (a.shape.size() == 1 && a.shape[0] == k.cols && k.cols != k.rows);
    if (vectorised && k.vector > 1) {
      uintptr_t align = (uintptr_t)(k.vector * a.elemBytes);
      int64_t want = shifted ? headStride % k.vector : 0;
      if ((uintptr_t)ptrs[i] % std::min<uintptr_t>(align, 16) != 0 ||
          (a.shape.size() == 2 && rows > 1 && stride % k.vector != want)) // one row: no stride
        return llvm::createStringError(llvm::formatv(
            "'{0}' is not aligned for this kernel's {1}-element vector accesses "
            "(pointer {2}, row stride {3}{4}); compile with schedule vector=1 for "
            "unaligned data",
            a.name, k.vector, ptrs[i], stride,
            shifted ? llvm::formatv(", which must equal the other rows' stride {0} modulo {1}",
                                    headStride, k.vector).str()
                    : std::string()).str());
    }
  }
  auto fn = function();
  if (!fn)
    return fn.takeError();
  std::vector<void *> params;
  std::vector<void *> values(ptrs, ptrs + n);
  long long m = rows;
  for (size_t i = 0; i < n; ++i)
    params.push_back(&values[i]);
  for (size_t i = 0; i < n; ++i)
    params.push_back(&st[i]);
  params.push_back(&m);
  int64_t groups = (rows + k.rowsPerCta - 1) / k.rowsPerCta;
  int64_t grid = groups * k.cluster;
  if (k.gridCtas) {
    // A column kernel: its grid follows from the compiled shape.
    if (rows != k.rows)
      return llvm::createStringError(llvm::formatv(
          "this kernel was compiled for {0} rows of '{1}', got {2}", k.rows,
          k.args.empty() ? "" : k.args[0].name, rows).str());
    grid = k.gridCtas;
  }
  void *ws = nullptr;
  if (k.split > 1) {
    // The grid tier: a persistent grid of groups of `split` CTAs, all
    // resident at once (a cooperative launch), each group looping over
    // rows; the workspace holds each group's counter and partial states.
    if (!fn->cooperative)
      return llvm::createStringError(
          "this kernel splits each row over CTAs that combine through global memory "
          "(schedule split), which needs cooperative launches; this device has none");
    int64_t residentGroups = fn->residentCtas / k.split;
    if (residentGroups < 1)
      return llvm::createStringError(llvm::formatv(
          "this kernel splits each row over {0} CTAs that must all be resident at once, "
          "but this GPU holds {1} of them; schedule a smaller split",
          k.split, fn->residentCtas).str());
    grid = std::min(groups, residentGroups) * k.split;
    auto w = workspace(*fn, stream, (size_t)(residentGroups * k.workspaceBytes));
    if (!w)
      return w.takeError();
    ws = *w;
    params.push_back(&ws);
  }
  if (grid > 0x7fffffff)
    return llvm::createStringError("too many rows for one launch");
  const cuda::Driver &d = **cuda::driver();
  // Launch attributes: the cluster shape (it matches the kernel's
  // __cluster_dims__, which keeps drivers without cuLaunchKernelEx working),
  // a cooperative launch for split kernels (their CTAs wait for each
  // other), or programmatic dependent launch (sm_90+; every rkc kernel
  // waits for the previous grid before it touches what that grid may
  // write).
  CUlaunchAttribute attrs[2];
  unsigned numAttrs = 0;
  if (k.cluster > 1) {
    CUlaunchAttribute &a = attrs[numAttrs++];
    a = {};
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = (unsigned)k.cluster;
    a.value.clusterDim.y = 1;
    a.value.clusterDim.z = 1;
  }
  if (k.split > 1) {
    if (!d.launchKernelEx)
      return llvm::createStringError(
          "this kernel (schedule split) needs cuLaunchKernelEx, which this driver lacks");
    CUlaunchAttribute &a = attrs[numAttrs++];
    a = {};
    a.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    a.value.cooperative = 1;
  } else if ((flags & kLaunchPdl) && pdlCapable_) {
    CUlaunchAttribute &a = attrs[numAttrs++];
    a = {};
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
  }
  if (numAttrs && d.launchKernelEx) {
    CUlaunchConfig cfg = {};
    cfg.gridDimX = (unsigned)grid;
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = (unsigned)k.ctaThreads;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.sharedMemBytes = (unsigned)k.smemBytes;
    cfg.hStream = (CUstream)stream;
    cfg.attrs = attrs;
    cfg.numAttrs = numAttrs;
    CUresult r = d.launchKernelEx(&cfg, (CUfunction)fn->function, params.data(), nullptr);
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "cuLaunchKernelEx"));
    return llvm::Error::success();
  }
  CUresult r = d.launchKernel((CUfunction)fn->function, (unsigned)grid, 1, 1,
                              (unsigned)k.ctaThreads, 1, 1, (unsigned)k.smemBytes,
                              (CUstream)stream,
                              params.data(), nullptr);
  if (r != CUDA_SUCCESS)
    return llvm::createStringError(cuda::describe(d, r, "cuLaunchKernel"));
  return llvm::Error::success();
}
