//===- Run.cpp - run kernels on the GPU against the reference -------------===//

#include "rkc/Run.h"
#include "rkc/Jit.h"
#include "rkc/Reference.h"

#include "CudaDriver.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Parallel.h"

#include <algorithm>
#include <mutex>
#include <cmath>
#include <cstring>
#include <random>

using namespace rkc;

namespace {

/// Runs fn(chunk, begin, end) over [0, n) in chunks of `chunk` on LLVM's
/// thread pool: the harness fills and encodes tensors of up to 2^27
/// elements for every tuned shape.
template <typename Fn> void parallelChunks(size_t n, size_t chunk, Fn fn) {
  llvm::parallelFor(0, (n + chunk - 1) / chunk,
                    [&](size_t c) { fn(c, c * chunk, std::min(n, (c + 1) * chunk)); });
}

/// Host values -> storage bytes of `dtype`.
std::vector<char> encode(const std::vector<double> &v, const std::string &dtype) {
  enum { F32, BF16, F16, I64, I32, I8 } kind;
  size_t width;
  if (dtype == "f32") kind = F32, width = 4;
  else if (dtype == "bf16") kind = BF16, width = 2;
  else if (dtype == "f16") kind = F16, width = 2;
  else if (dtype == "i64") kind = I64, width = 8;
  else if (dtype == "i32") kind = I32, width = 4;
  else if (dtype == "i8") kind = I8, width = 1;
  else return {};
  std::vector<char> out(v.size() * width);
  parallelChunks(v.size(), size_t(1) << 20, [&](size_t, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      char *o = out.data() + i * width;
      double x = v[i];
      switch (kind) {
      case F32: { float f = (float)x; std::memcpy(o, &f, 4); break; }
      case BF16: {
        float f = (float)roundTo(x, "bf16");
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        uint16_t h = bits >> 16;
        std::memcpy(o, &h, 2);
        break;
      }
      case F16: { _Float16 h = (_Float16)(float)x; std::memcpy(o, &h, 2); break; }
      case I64: { int64_t i64 = (int64_t)x; std::memcpy(o, &i64, 8); break; }
      case I32: { int32_t i32 = (int32_t)x; std::memcpy(o, &i32, 4); break; }
      case I8: { int8_t i8 = (int8_t)x; std::memcpy(o, &i8, 1); break; }
      }
    }
  });
  return out;
}

std::vector<double> decode(const std::vector<char> &b, const std::string &dtype, size_t n) {
  std::vector<double> out(n);
  auto each = [&](auto width, auto convert) {
    parallelChunks(n, size_t(1) << 20, [&](size_t, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        decltype(width) v;
        std::memcpy(&v, &b[i * sizeof(v)], sizeof(v));
        out[i] = convert(v);
      }
    });
  };
  auto same = [](auto v) { return (double)v; };
  if (dtype == "f32")
    each(float(), same);
  else if (dtype == "bf16")
    each(uint16_t(), [](uint16_t h) {
      uint32_t bits = (uint32_t)h << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return (double)f;
    });
  else if (dtype == "f16")
    each(_Float16(), same);
  else if (dtype == "i64")
    each(int64_t(), same);
  else if (dtype == "i32")
    each(int32_t(), same);
  else if (dtype == "i8")
    each(int8_t(), same);
  return out;
}

int64_t numel(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

using Role = ColumnArgument::Role;

/// A column program's quantized [K, N] tensor: stored as words of 32 / bits
/// values of K (int4 k8, int8 k4; docs/quantization.md).
bool isPacked(const ColumnArgument *c) { return c && c->role == Role::Quantized; }

/// Bytes of an argument's storage: k8-packed int4 is half a byte a value.
size_t storageBytes(const KernelArg &a, const ColumnArgument *c) {
  size_t n = (size_t)numel(a.shape);
  return isPacked(c) && c->bits == 4 ? n / 2 : n * a.elemBytes;
}

/// Logical [K, N] integers -> words [K / (32 / bits), N], value 32/bits kp +
/// i of column c in bits [bits i, bits (i + 1)) of word (kp, c).
std::vector<char> packWords(const std::vector<double> &v, int64_t k, int64_t n, int bits) {
  const int per = 32 / bits;
  const uint32_t mask = (1u << bits) - 1;
  std::vector<char> out((size_t)(k / per * n) * 4);
  for (int64_t kp = 0; kp < k / per; ++kp)
    for (int64_t c = 0; c < n; ++c) {
      uint32_t w = 0;
      for (int i = 0; i < per; ++i)
        w |= ((uint32_t)(int32_t)v[(per * kp + i) * n + c] & mask) << (bits * i);
      std::memcpy(&out[(kp * n + c) * 4], &w, 4);
    }
  return out;
}

/// The inverse of packWords (two's complement values when `sign`).
std::vector<double> unpackWords(const std::vector<char> &b, int64_t k, int64_t n, int bits,
                                bool sign) {
  const int per = 32 / bits;
  const uint32_t mask = (1u << bits) - 1;
  std::vector<double> out((size_t)(k * n));
  for (int64_t kp = 0; kp < k / per; ++kp)
    for (int64_t c = 0; c < n; ++c) {
      uint32_t w;
      std::memcpy(&w, &b[(kp * n + c) * 4], 4);
      for (int i = 0; i < per; ++i) {
        int v = (int)((w >> (bits * i)) & mask);
        out[(per * kp + i) * n + c] = sign && v >= (1 << (bits - 1)) ? v - (1 << bits) : v;
      }
    }
  return out;
}

/// The median time (ms) of `timed` passes on `stream` after `untimed` ones,
/// each pass `run(i)` between two CUDA events; `prepare(i)` comes before a
/// pass, outside its events. A pass that fails stops the timing.
template <typename Prepare, typename Run>
llvm::Expected<double> medianPassMs(const cuda::Driver &d, CUstream stream, int untimed,
                                    int timed, Prepare prepare, Run run) {
  CUevent start, stop;
  d.eventCreate(&start, 0);
  d.eventCreate(&stop, 0);
  std::vector<float> times;
  llvm::Error err = llvm::Error::success();
  for (int i = -untimed; i < timed; ++i) {
    prepare(i);
    d.eventRecord(start, stream);
    if ((err = run(i)))
      break;
    d.eventRecord(stop, stream);
    d.eventSynchronize(stop);
    float ms = 0;
    d.eventElapsedTime(&ms, start, stop);
    if (i >= 0)
      times.push_back(ms);
  }
  d.eventDestroy(start);
  d.eventDestroy(stop);
  if (err)
    return std::move(err);
  std::sort(times.begin(), times.end());
  return (double)times[times.size() / 2];
}

/// A random value for an argument of a column program: integers of the
/// full format range for quantized tensors and zero points, small positive
/// scales (the magnitudes of real weights), normal activations.
double columnValue(const ColumnArgument &c, const std::string &dtype, std::mt19937_64 &rng,
                   std::normal_distribution<double> &normal) {
  switch (c.role) {
  case Role::Quantized: {
    // int4: every nibble ([-8, 7] or [0, 15]); int8: [-127, 127], what the
    // format allows (docs/quantization.md).
    int64_t span = c.bits == 8 ? 255 : int64_t(1) << c.bits;
    int64_t v = (int64_t)(rng() % (uint64_t)span);
    return (double)(c.symmetric ? v - span / 2 : v);
  }
  case Role::Zeros:
    return (double)(rng() % 16);
  case Role::Scales:
    return roundTo(0.001 + 0.02 * std::fabs(normal(rng)), dtype);
  default:
    return roundTo(2.0 * normal(rng), dtype);
  }
}

} // namespace

struct Harness::Impl {
  const cuda::Driver *d = nullptr;
  KernelInfo info;
  std::string rkIR;
  std::vector<HostTensor> inputs; ///< host copies of the inputs
  std::vector<bool> perRow;       ///< per argument: indexed by row
  std::vector<void *> ptrs;
  std::vector<CUdeviceptr> owned;
  CUdeviceptr flush = 0;
  size_t flushBytes = 256u << 20;
  std::string dataType = "f32";
  std::vector<std::vector<double>> refCache; ///< reference per row count
  int64_t refRows = -1;
  /// Column programs: each argument's role (empty: a row program), and for
  /// timing, argument pointer sets over distinct copies of the inputs
  /// (activations shared), so that every launch reads them from memory.
  std::vector<ColumnArgument> column;
  std::vector<std::vector<void *>> copies;
  CUstream stream = nullptr;

  const ColumnArgument *role(size_t i) const { return column.empty() ? nullptr : &column[i]; }
  llvm::Expected<double> timeColumnMs(Kernel &kernel, int reps);

  ~Impl() {
    if (stream)
      d->streamDestroy(stream);
    for (CUdeviceptr p : owned)
      d->memFree(p);
  }
};

Harness::Harness(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Harness::~Harness() = default;

llvm::Expected<std::unique_ptr<Harness>> Harness::create(const KernelInfo &info,
                                                         const std::string &rkIR,
                                                         unsigned seed) {
  auto drv = cuda::driver();
  if (!drv)
    return drv.takeError();
  auto ctx = cuda::currentContext();
  if (!ctx)
    return ctx.takeError();
  auto impl = std::make_unique<Impl>();
  impl->d = *drv;
  impl->info = info;
  impl->rkIR = rkIR;
  const cuda::Driver &d = **drv;
  auto column = columnArguments(rkIR);
  if (!column)
    return column.takeError();
  if (!column->empty() && column->size() != info.args.size())
    return llvm::createStringError("harness: the column program's arguments do not match "
                                   "the kernel's");
  impl->column = std::move(*column);
  double bytes = 0;
  unsigned argIndex = 0;
  for (size_t ai = 0; ai < info.args.size(); ++ai) {
    const KernelArg &a = info.args[ai];
    const ColumnArgument *role = impl->role(ai);
    size_t n = (size_t)numel(a.shape);
    size_t nbytes = storageBytes(a, role);
    CUdeviceptr p;
    CUresult r = d.memAlloc(&p, std::max<size_t>(nbytes, 16));
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "cuMemAlloc"));
    impl->owned.push_back(p);
    impl->ptrs.push_back((void *)p);
    bool rowIndexed = a.shape.size() == 2 ||
                      (a.shape.size() == 1 && a.shape[0] == info.rows && info.rows != info.cols);
    impl->perRow.push_back(rowIndexed && !role);
    bytes += (double)nbytes;
    if (a.output)
      continue;
    HostTensor t{a.shape, std::vector<double>(n)};
    bool isInt = a.dtype[0] == 'i';
    // Chunks of 2^16 values, each from its own generator seeded by (seed,
    // argument, chunk): the same values whatever the thread count.
    ++argIndex;
    parallelChunks(n, size_t(1) << 16, [&](size_t c, size_t begin, size_t end) {
      std::seed_seq seq{seed, argIndex, (unsigned)c, (unsigned)(c >> 32)};
      std::mt19937_64 rng(seq);
      std::normal_distribution<double> normal(0.0, 1.0);
      // Row programs: int8 tensors are quantized values ([-127, 127]);
      // other integers are gather indices into the row ([0, N), every
      // 8th -100: the ignored index of cross-entropy).
      for (size_t i = begin; i < end; ++i)
        t.data[i] = role                ? columnValue(*role, a.dtype, rng, normal)
                    : a.dtype == "i8"   ? (double)((int64_t)(rng() % 255) - 127)
                    : isInt             ? ((i % 8 == 7) ? -100.0 : (double)(rng() % info.cols))
                                        : roundTo(2.0 * normal(rng), a.dtype);
    });
    if (!isInt && a.shape.size() == 2 && (!role || role->role != Role::Scales))
      impl->dataType = a.dtype;
    std::vector<char> b = isPacked(role) ? packWords(t.data, a.shape[0], a.shape[1], role->bits)
                                         : encode(t.data, a.dtype);
    r = d.memcpyHtoD(p, b.data(), b.size());
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "cuMemcpyHtoD"));
    impl->inputs.push_back(std::move(t));
  }
  if (d.memAlloc(&impl->flush, impl->flushBytes) != CUDA_SUCCESS)
    return llvm::createStringError("cannot allocate the L2 flush buffer");
  impl->owned.push_back(impl->flush);
  auto h = std::unique_ptr<Harness>(new Harness(std::move(impl)));
  h->bytes_ = bytes;
  return h;
}

llvm::Expected<Harness::Check> Harness::check(Kernel &kernel, int64_t rows) {
  Impl &I = *impl_;
  const cuda::Driver &d = *I.d;
  const KernelInfo &info = I.info;
  rows = I.column.empty() ? std::min(rows, info.rows) : info.rows;
  // A row count that a rank-1 argument cannot tell apart from N: all rows,
  // evaluated whole (which arguments are indexed by row is not known).
  bool ambiguous = false;
  for (size_t i = 0; i < info.args.size(); ++i)
    if (info.args[i].shape.size() == 1 && info.rows == info.cols)
      rows = info.rows, ambiguous = true;
  for (size_t i = 0; i < info.args.size(); ++i)
    if (info.args[i].output)
      d.memsetD8((CUdeviceptr)I.ptrs[i], 0xff, storageBytes(info.args[i], I.role(i)));
  if (llvm::Error e = kernel.launch(I.ptrs.data(), nullptr, info.rows, nullptr))
    return std::move(e);
  CUresult r = d.ctxSynchronize();
  if (r != CUDA_SUCCESS)
    return llvm::createStringError(cuda::describe(d, r, "the kernel"));

  if (I.refRows != rows) {
    // The reference on the first `rows` rows of every row-indexed input,
    // in parts of the rows on every host thread (a row program's rows are
    // independent; 64 rows of 1M take ~45 s on one thread).
    std::vector<HostTensor> sub;
    std::vector<bool> rowIndexed;
    size_t k = 0;
    for (size_t i = 0; i < info.args.size(); ++i) {
      if (info.args[i].output)
        continue;
      HostTensor t = I.inputs[k++];
      if (I.perRow[i]) {
        int64_t per = numel(t.shape) / t.shape[0];
        t.shape[0] = rows;
        t.data.resize((size_t)(rows * per));
      }
      rowIndexed.push_back(I.perRow[i]);
      sub.push_back(std::move(t));
    }
    auto ref = !I.column.empty() ? evaluateColumnProgram(I.rkIR, sub)
               : ambiguous       ? evaluateRowProgram(I.rkIR, sub)
                                 : evaluateRowProgramInParts(I.rkIR, sub, rowIndexed);
    if (!ref)
      return ref.takeError();
    I.refCache.clear();
    for (HostTensor &t : *ref)
      I.refCache.push_back(std::move(t.data));
    I.refRows = rows;
  }
  Check c;
  c.tolerance = I.dataType == "f32" ? 1e-5 : 8e-3;
  c.rowsChecked = rows;
  size_t k = 0;
  for (size_t i = 0; i < info.args.size(); ++i) {
    const KernelArg &a = info.args[i];
    if (!a.output)
      continue;
    const std::vector<double> &want = I.refCache[k++];
    size_t n = want.size();
    const ColumnArgument *role = I.role(i);
    // Only what is compared comes back: the checked rows of a row-indexed
    // result are its first n elements (a packed result is unpacked whole).
    // Copying the whole result (512 MiB for f32 at M x N = 2^27) into a
    // fresh host vector took ~0.5 s a check, most of a tuned shape's time.
    size_t stored = storageBytes(a, role);
    std::vector<char> bytes(isPacked(role) ? stored : std::min(stored, n * (size_t)a.elemBytes));
    r = d.memcpyDtoH(bytes.data(), (CUdeviceptr)I.ptrs[i], bytes.size());
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "cuMemcpyDtoH"));
    std::vector<double> got =
        isPacked(role) ? unpackWords(bytes, a.shape[0], a.shape[1], role->bits, role->symmetric)
                       : decode(bytes, a.dtype, n);
    // Non-finite values compare exactly: a NaN must meet a NaN and an
    // infinity the same infinity (a 16-bit result that overflows is inf in
    // the kernel and in the reference, rounded to the result's dtype); the
    // finite ones enter the relative L2 error. One exception: the data are
    // finite, so an infinite reference is an overflow, and another order of
    // the same operations may meet inf * 0 or inf - inf on the way: a NaN
    // is accepted there (counted in overflowNaNs), a finite value or the
    // other infinity is not. (The product of a bf16 row of 2^20 values of
    // N(0, 4) overflows in every order; in the kernel's tree of partial
    // products one that underflowed to 0 meets one that overflowed in rows
    // 5 and 39 of the tuner's data at 128 x 1M, as a float32 simulation of
    // that order gives too: docs/performance-notes.md, session 22.)
    double num = 0, den = 0, worstDiff = 0;
    int64_t nonFiniteBad = 0, worstAt = -1, firstNonFinite = -1, overflowNaN = 0;
    for (size_t j = 0; j < n; ++j) {
      if (!std::isfinite(got[j]) || !std::isfinite(want[j])) {
        if (std::isnan(got[j]) && std::isinf(want[j])) {
          ++overflowNaN;
          continue;
        }
        bool same = std::isnan(got[j]) ? std::isnan(want[j]) : got[j] == want[j];
        nonFiniteBad += !same;
        if (!same && firstNonFinite < 0)
          firstNonFinite = (int64_t)j;
        continue;
      }
      double diff = std::fabs(got[j] - want[j]);
      if (diff > worstDiff)
        worstDiff = diff, worstAt = (int64_t)j;
      num += (got[j] - want[j]) * (got[j] - want[j]);
      den += want[j] * want[j];
    }
    double err = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    c.relErrors.push_back(err);
    c.nonFiniteMismatch.push_back(nonFiniteBad);
    c.overflowNaNs.push_back(overflowNaN);
    int64_t at = firstNonFinite >= 0 ? firstNonFinite : worstAt;
    std::string where;
    if (at >= 0) {
      int64_t perRow = a.shape.empty() ? 1 : std::max<int64_t>(1, numel(a.shape) / a.shape[0]);
      where = llvm::formatv("element {0} (row {1}): kernel {2:e6}, reference {3:e6}", at,
                            at / perRow, got[at], want[at])
                  .str();
    }
    c.worst.push_back(where);
    if (!c.resultPassed(c.relErrors.size() - 1))
      c.passed = false;
  }
  return c;
}

std::string Harness::Check::describeFailure() const {
  for (size_t i = 0; i < relErrors.size(); ++i) {
    if (resultPassed(i))
      continue;
    std::string s = llvm::formatv("result #{0}: rel. error {1:e2} (tolerance {2:e0}), {3} "
                                  "non-finite mismatch{4}",
                                  i, relErrors[i], tolerance, nonFiniteMismatch[i],
                                  nonFiniteMismatch[i] == 1 ? "" : "es")
                        .str();
    if (!worst[i].empty())
      s += "; worst at " + worst[i];
    return s;
  }
  return "";
}

llvm::Expected<double> Harness::timeMs(Kernel &kernel, int reps) {
  Impl &I = *impl_;
  if (!I.column.empty())
    return I.timeColumnMs(kernel, reps);
  const cuda::Driver &d = *I.d;
  return medianPassMs(
      d, nullptr, 0, std::max(reps, 1),
      [&](int i) { d.memsetD8(I.flush, (unsigned char)i, I.flushBytes); },
      [&](int) { return kernel.launch(I.ptrs.data(), nullptr, I.info.rows, nullptr); });
}

/// Column programs time as a decode GEMV runs in serving: back-to-back
/// launches (with programmatic dependent launch on sm_90+) over distinct
/// copies of the weights, scales and zero points, together far more than
/// the L2, the activations shared (produced by the previous layer, in L2);
/// the time per launch, median over `reps` passes. Launches of a few
/// microseconds overlap their prologue with the previous kernel's tail as
/// in a CUDA graph, which a single launch after an L2 flush would not show.
llvm::Expected<double> Harness::Impl::timeColumnMs(Kernel &kernel, int reps) {
  const cuda::Driver &dr = *d;
  if (!stream) {
    CUresult r = dr.streamCreate(&stream, 1 /*CU_STREAM_NON_BLOCKING*/);
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(dr, r, "cuStreamCreate"));
  }
  if (copies.empty()) {
    size_t perCopy = 0;
    for (size_t i = 0; i < info.args.size(); ++i)
      if (!info.args[i].output && column[i].role != Role::Activations)
        perCopy += storageBytes(info.args[i], &column[i]);
    size_t freeBytes = 0, totalBytes = 0;
    dr.memGetInfo(&freeBytes, &totalBytes);
    size_t want = std::max<size_t>(perCopy, 1);
    size_t n = std::clamp<size_t>((size_t(512) << 20) / want + 1, 2, 48);
    n = std::max<size_t>(1, std::min(n, freeBytes / 2 / want));
    copies.push_back(ptrs);
    for (size_t c = 1; c < n; ++c) {
      std::vector<void *> set = ptrs;
      for (size_t i = 0; i < info.args.size(); ++i) {
        if (info.args[i].output || column[i].role == Role::Activations)
          continue;
        size_t b = storageBytes(info.args[i], &column[i]);
        CUdeviceptr p;
        CUresult r = dr.memAlloc(&p, std::max<size_t>(b, 16));
        if (r != CUDA_SUCCESS)
          return llvm::createStringError(cuda::describe(dr, r, "cuMemAlloc"));
        owned.push_back(p);
        dr.memcpyDtoD(p, (CUdeviceptr)ptrs[i], b);
        set[i] = (void *)p;
      }
      copies.push_back(std::move(set));
    }
  }
  // One untimed pass warms up.
  auto ms = medianPassMs(dr, stream, 1, std::max(reps, 1), [](int) {}, [&](int) -> llvm::Error {
    for (const std::vector<void *> &set : copies)
      if (llvm::Error err = kernel.launch(set.data(), nullptr, info.rows, stream, kLaunchPdl))
        return err;
    return llvm::Error::success();
  });
  if (!ms)
    return ms.takeError();
  return *ms / (double)copies.size();
}

llvm::Expected<double> Harness::copyRooflineTbps() {
  static std::mutex mu;
  static double cached = 0;
  std::lock_guard<std::mutex> lock(mu);
  if (cached > 0)
    return cached;
  auto dr = cuda::driver();
  if (!dr)
    return dr.takeError();
  if (auto ctx = cuda::currentContext(); !ctx)
    return ctx.takeError();
  const cuda::Driver &d = **dr;
  const size_t bytes = size_t(512) << 20;
  CUdeviceptr src = 0, dst = 0;
  if (d.memAlloc(&src, bytes) != CUDA_SUCCESS)
    return llvm::createStringError("cannot allocate the roofline copy buffers");
  if (d.memAlloc(&dst, bytes) != CUDA_SUCCESS) {
    d.memFree(src);
    return llvm::createStringError("cannot allocate the roofline copy buffers");
  }
  d.memsetD8(src, 1, bytes);
  // The first copy warms up; the median of 5.
  auto ms = medianPassMs(d, nullptr, 1, 5, [](int) {}, [&](int) -> llvm::Error {
    CUresult r = d.memcpyDtoD(dst, src, bytes);
    if (r != CUDA_SUCCESS)
      return llvm::createStringError(cuda::describe(d, r, "cuMemcpyDtoD"));
    return llvm::Error::success();
  });
  d.memFree(src);
  d.memFree(dst);
  if (!ms)
    return ms.takeError();
  cached = 2.0 * double(bytes) / (*ms * 1e-3) / 1e12;
  return cached;
}

llvm::Expected<RunReport> rkc::runOnDevice(CompileRequest req, const RunOptions &opt) {
  if (llvm::Error e = resolveArch(req)) {
    // No device to ask (no driver): a spec or shape error is still the
    // first thing to report, so the request is checked for sm_90a first.
    CompileRequest check = req;
    check.options.arch = "sm_90a";
    check.upTo = Emit::Tier;
    if (auto c = compile(check); !c) {
      llvm::consumeError(std::move(e));
      return c.takeError();
    }
    return std::move(e);
  }
  req.upTo = Emit::Cubin;
  auto kernel = Kernel::get(req);
  if (!kernel)
    return kernel.takeError();
  auto h = Harness::create((*kernel)->info(), (*kernel)->result().rkIR, opt.seed);
  if (!h)
    return h.takeError();
  RunReport rep;
  rep.plan = (*kernel)->info().plan;
  rep.remarks = (*kernel)->result().remarks;
  // The host reference is ~10 M element-ops per second: bound its rows.
  int64_t cols = std::max<int64_t>((*kernel)->info().cols, 1);
  int64_t rows = std::clamp<int64_t>((int64_t(1) << 22) / cols, 1, opt.checkRows);
  auto c = (*h)->check(**kernel, rows);
  if (!c)
    return c.takeError();
  rep.check = *c;
  auto ms = (*h)->timeMs(**kernel, opt.reps);
  if (!ms)
    return ms.takeError();
  rep.medianMs = *ms;
  rep.bytes = (*h)->bytes();
  rep.tbps = rep.bytes / (rep.medianMs * 1e-3) / 1e12;
  return rep;
}
