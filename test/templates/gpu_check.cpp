// gpu_check: runs the template test kernels (kernels/*.cu, compiled by
// nvrtc_check + ptxas into <dir>/<kernel file>.cubin for sm_90a) on the GPU
// through the driver API and compares them with host references.
//
//   gpu_check <cubin-dir>
//
// Needs an sm_90 GPU (the cluster kernels). Links only libcuda.
// Exit status 0 when every check passes.
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const std::string &what) {
  std::printf("%s  %s\n", ok ? "PASS" : "FAIL", what.c_str());
  if (!ok)
    ++failures;
}

void cu(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  const char *msg = nullptr;
  cuGetErrorString(r, &msg);
  std::fprintf(stderr, "gpu_check: %s: %s\n", what, msg ? msg : "?");
  std::exit(1);
}

// Host bf16 / f16 helpers (round to nearest even; inputs are finite).
uint16_t bf16_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
float bf16_float(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t f16_bits(float f) {
  _Float16 h = static_cast<_Float16>(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}
float f16_float(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<float>(h);
}

struct ML {
  float m, l;
};
struct VI {
  float v;
  int i;
};

/// Device buffer initialised from a host vector.
template <class T> struct Buf {
  CUdeviceptr ptr = 0;
  size_t n;
  explicit Buf(const std::vector<T> &h) : n(h.size()) {
    cu(cuMemAlloc(&ptr, n * sizeof(T)), "cuMemAlloc");
    cu(cuMemcpyHtoD(ptr, h.data(), n * sizeof(T)), "cuMemcpyHtoD");
  }
  ~Buf() { cuMemFree(ptr); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    cu(cuMemcpyDtoH(h.data(), ptr, n * sizeof(T)), "cuMemcpyDtoH");
    return h;
  }
};

CUmodule load(const std::string &dir, const char *file) {
  std::ifstream in(dir + "/" + file + ".cubin", std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "gpu_check: missing %s/%s.cubin\n", dir.c_str(), file);
    std::exit(1);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string image = ss.str();
  CUmodule m;
  cu(cuModuleLoadData(&m, image.data()), file);
  return m;
}

/// Launches `name` with grid x block threads, optionally as clusters of
/// `cluster` CTAs, and waits for it.
void launch(CUmodule m, const char *name, unsigned grid, unsigned block,
            void **args, unsigned cluster = 0) {
  CUfunction f;
  cu(cuModuleGetFunction(&f, m, name), name);
  CUlaunchConfig cfg = {};
  cfg.gridDimX = grid;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = block;
  cfg.blockDimY = cfg.blockDimZ = 1;
  CUlaunchAttribute attr = {};
  if (cluster) {
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster;
    attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
  }
  cu(cuLaunchKernelEx(&cfg, f, args, nullptr), name);
  cu(cuCtxSynchronize(), name);
}

bool near(double got, double want, double rel) {
  return std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want));
}

void test_rowsum(const std::string &dir, std::mt19937 &rng) {
  CUmodule m = load(dir, "rowsum_bf16");
  int rows = 5, n = 2037, ld = 2048;
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<uint16_t> x(static_cast<size_t>(rows) * ld);
  for (auto &v : x)
    v = bf16_bits(d(rng));
  Buf<uint16_t> dx(x);
  Buf<float> dout(std::vector<float>(rows, -12345.f));
  void *a[] = {&dx.ptr, &dout.ptr, &rows, &n, &ld};
  launch(m, "rowsum_bf16", (rows + 1) / 2, 256, a);
  auto out = dout.get();
  bool ok = true;
  for (int r = 0; r < rows; ++r) {
    double want = 0;
    for (int c = 0; c < n; ++c)
      want += bf16_float(x[static_cast<size_t>(r) * ld + c]);
    ok &= near(out[r], want, 1e-4);
  }
  check(ok, "rowsum_bf16: load_frag<bf16,16,8> + warp_reduce<32> + "
            "block_reduce<4>, n = 2037");
  cuModuleUnload(m);
}

void test_combiners(const std::string &dir, std::mt19937 &rng) {
  CUmodule m = load(dir, "warp_combiners");
  std::uniform_real_distribution<float> d(-5.f, 5.f);
  std::vector<float> x(256);
  for (auto &v : x)
    v = d(rng);
  x[3] = x[7] = 9.f; // a tie inside group 0: index 3 must win
  x[100] = 9.5f;
  Buf<float> dx(x);
  Buf<ML> dml(std::vector<ML>(256));
  Buf<VI> dam(std::vector<VI>(256));
  void *a[] = {&dx.ptr, &dml.ptr, &dam.ptr};
  launch(m, "warp_combiners", 1, 256, a);
  const auto ml = dml.get();
  double mx = -INFINITY, l = 0;
  for (float v : x)
    mx = std::max<double>(mx, v);
  for (float v : x)
    l += std::exp(v - mx);
  bool same = true;
  for (const ML &t : ml)
    same &= std::memcmp(&t, &ml[0], sizeof(ML)) == 0;
  check(ml[0].m == static_cast<float>(mx) && near(ml[0].l, l, 1e-5),
        "warp_combiners: online-softmax (m, l) via warp_reduce<32> + "
        "block_reduce<8>");
  check(same, "warp_combiners: (m, l) bitwise identical in all 256 threads");
  const auto am = dam.get();
  bool ok = true;
  same = true;
  for (int g = 0; g < 16; ++g) {
    int best = g * 16;
    for (int i = g * 16; i < g * 16 + 16; ++i)
      if (x[i] > x[best])
        best = i;
    ok &= am[g * 16].i == best && am[g * 16].v == x[best];
    for (int i = g * 16; i < g * 16 + 16; ++i)
      same &= std::memcmp(&am[i], &am[g * 16], sizeof(VI)) == 0;
  }
  check(ok, "warp_combiners: arg-max (v, i) via warp_reduce<16>, ties -> "
            "smallest index");
  check(same,
        "warp_combiners: arg-max identical in all 16 lanes of each group");
  cuModuleUnload(m);
}

template <class Bits, class ToF, class FromF>
void test_scale(CUmodule m, const char *name, int n, int ld, int rows, ToF to_f,
                FromF from_f, std::mt19937 &rng) {
  std::uniform_int_distribution<int> d(-512, 512);
  std::vector<Bits> x(static_cast<size_t>(rows) * ld), y0(x.size());
  for (auto &v : x)
    v = from_f(d(rng) / 64.f);
  std::memset(y0.data(), 0xff, y0.size() * sizeof(Bits)); // sentinel
  Buf<Bits> dx(x), dy(y0);
  void *a[] = {&dx.ptr, &dy.ptr, &n, &ld};
  launch(m, name, rows, 128, a);
  auto y = dy.get();
  bool ok = true;
  for (size_t i = 0; i < x.size(); ++i) {
    const int c = static_cast<int>(i % ld);
    Bits want = c < n ? from_f(2.f * to_f(x[i])) : y0[i];
    ok &= std::memcmp(&y[i], &want, sizeof(Bits)) == 0;
  }
  check(ok, std::string(name) + ": 2x copy via load_frag/store_frag, n = " +
                std::to_string(n) + ", columns >= n untouched");
}

void test_vec(const std::string &dir, std::mt19937 &rng) {
  CUmodule m = load(dir, "vec_copy");
  test_scale<uint16_t>(m, "scale_bf16", 2037, 2048, 3, bf16_float, bf16_bits,
                       rng);
  test_scale<uint16_t>(m, "scale_f16", 1003, 1008, 3, f16_float, f16_bits, rng);
  test_scale<float>(
      m, "scale_f32", 1001, 1004, 3, [](float v) { return v; },
      [](float v) { return v; }, rng);

  std::uniform_real_distribution<float> d(-3.f, 3.f);
  std::vector<uint16_t> x(1024);
  for (auto &v : x)
    v = bf16_bits(d(rng));
  Buf<uint16_t> dx(x), dy(std::vector<uint16_t>(1024));
  void *a[] = {&dx.ptr, &dy.ptr};
  launch(m, "stage_bf16", 1, 128, a);
  auto y = dy.get();
  bool ok = true;
  for (int i = 0; i < 1024; ++i)
    ok &= y[i] == bf16_bits(bf16_float(x[i]) + bf16_float(x[i ^ 8]));
  check(ok, "stage_bf16: cp_async_16 + load_vec_shared + load_vec + store_vec "
            "(bf16 RNE)");

  int count = 1000;
  std::vector<uint16_t> table(64);
  for (int i = 0; i < 64; ++i)
    table[i] = f16_bits((i - 32) / 8.f + 0.001f * i);
  std::uniform_int_distribution<int> di(0, 63);
  std::vector<int> i32(count);
  std::vector<long long> i64(count);
  for (int i = 0; i < count; ++i) {
    i32[i] = di(rng);
    i64[i] = di(rng);
  }
  Buf<uint16_t> dt(table), dout{std::vector<uint16_t>(count)};
  Buf<int> d32(i32);
  Buf<long long> d64(i64);
  void *g[] = {&dt.ptr, &d32.ptr, &d64.ptr, &dout.ptr, &count};
  launch(m, "gather_f16", (count + 127) / 128, 128, g);
  auto out = dout.get();
  ok = true;
  for (int i = 0; i < count; ++i)
    ok &=
        out[i] == f16_bits(f16_float(table[i32[i]]) + f16_float(table[i64[i]]));
  check(ok,
        "gather_f16: load_index (i32, i64) + load_scalar/store_scalar<f16>");
  cuModuleUnload(m);
}

/// Reference f32 -> bf16 bits, round to nearest even; NaN -> canonical NaN.
uint16_t bf16_ref(float f) { return std::isnan(f) ? 0x7fff : bf16_bits(f); }

void test_convert(const std::string &dir, std::mt19937 &rng) {
  CUmodule m = load(dir, "convert");
  std::vector<float> x = {0.f, -0.f, 1.f, -2.5f, 65504.f, 65520.f, 1e6f, -1e-8f,
                          3.0e38f, INFINITY, -INFINITY, NAN,
                          // ties: exactly halfway between two bf16 / f16 values
                          1.f + 1.f / 256, 1.f + 3.f / 256, 1.f + 1.f / 2048,
                          1.f + 3.f / 2048};
  std::uniform_real_distribution<float> d(-80.f, 80.f);
  while (x.size() < 4096)
    x.push_back(d(rng));
  int n = static_cast<int>(x.size());
  Buf<float> dx(x), dback{std::vector<float>(2 * n)},
      dmath{std::vector<float>(4 * n)};
  Buf<uint16_t> db{std::vector<uint16_t>(n)}, dh{std::vector<uint16_t>(n)};
  void *a[] = {&dx.ptr, &db.ptr, &dh.ptr, &dback.ptr, &dmath.ptr, &n};
  launch(m, "convert", (n + 127) / 128, 128, a);
  const auto b = db.get(), h = dh.get();
  const auto back = dback.get(), math = dmath.get();
  bool bok = true, hok = true, rok = true, mok = true;
  for (int i = 0; i < n; ++i) {
    const float v = x[i];
    bok &= std::isnan(v) ? std::isnan(bf16_float(b[i])) : b[i] == bf16_ref(v);
    hok &= std::isnan(v) ? std::isnan(f16_float(h[i])) : h[i] == f16_bits(v);
    const float bb = bf16_float(b[i]), hb = f16_float(h[i]);
    rok &= std::memcmp(&back[2 * i], &bb, 4) == 0 ||
           (std::isnan(back[2 * i]) && std::isnan(v));
    rok &= std::memcmp(&back[2 * i + 1], &hb, 4) == 0 ||
           (std::isnan(back[2 * i + 1]) && std::isnan(v));
    if (std::isfinite(v) && std::fabs(v) <= 80.f) {
      const double av = std::fabs(static_cast<double>(v));
      mok &= std::fabs(math[4 * i] - std::exp(static_cast<double>(v))) <=
             1e-6 * (1 + av) * std::exp(static_cast<double>(v));
      if (av > 1e-30)
        mok &= std::fabs(math[4 * i + 1] - std::log(av)) <=
               1e-6 * (1 + std::fabs(std::log(av)));
      if (av > 1e-30)
        mok &= std::fabs(math[4 * i + 2] * std::sqrt(av) - 1) <= 1e-6;
      mok &= std::fabs(math[4 * i + 3] - v / 3.0) <=
             1e-6 * std::max(1e-30, av / 3.0);
    }
  }
  check(bok, "convert: from_f32<bf16> round-to-nearest-even, ties, inf, NaN");
  check(hok,
        "convert: from_f32<f16> round-to-nearest-even, ties, overflow, NaN");
  check(rok, "convert: to_f32(bf16) and to_f32(f16) are exact");
  check(mok, "convert: fast_exp, fast_log, rsqrt, div_approx within tolerance");
  cuModuleUnload(m);
}

/// Reference f32 -> i8: round half to even, saturate, NaN -> -128.
int s8_ref(float v) {
  if (std::isnan(v))
    return -128;
  return static_cast<int>(std::nearbyint(std::fmin(std::fmax(v, -128.f), 127.f)));
}

void test_int8(const std::string &dir, std::mt19937 &rng) {
  CUmodule m = load(dir, "int8");
  std::vector<float> x = {0.f, -0.f, 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 126.5f,
                          127.49f, 127.5f, -127.5f, -128.5f, 300.f, -1e30f, INFINITY,
                          -INFINITY, NAN, 1e-30f, -0.49999997f};
  std::uniform_real_distribution<float> d(-140.f, 140.f);
  while (x.size() < 4096)
    x.push_back(d(rng));
  int n = static_cast<int>(x.size());
  Buf<float> dx(x), dback{std::vector<float>(n)};
  Buf<int8_t> dq{std::vector<int8_t>(n)};
  void *a[] = {&dx.ptr, &dq.ptr, &dback.ptr, &n};
  launch(m, "narrow_s8", (n + 127) / 128, 128, a);
  auto q = dq.get();
  auto back = dback.get();
  bool ok = true, rok = true;
  for (int i = 0; i < n; ++i) {
    ok &= q[i] == s8_ref(x[i]);
    rok &= back[i] == static_cast<float>(q[i]);
  }
  check(ok, "int8: from_f32<signed char> rounds half to even, saturates, NaN -> -128");
  check(rok, "int8: to_f32(signed char) is exact");

  // Fragments: rows of n = 4090 (stride 4096), a ragged last vector.
  int rows = 3, fn = 4090, ld = 4096;
  std::vector<float> fx(static_cast<size_t>(rows) * ld);
  for (size_t i = 0; i < fx.size(); ++i)
    fx[i] = i < x.size() ? x[i] : d(rng);
  std::vector<int8_t> q0(fx.size(), 0x55);
  std::vector<float> b0(fx.size(), -7.f);
  Buf<float> dfx(fx), dfb(b0);
  Buf<int8_t> dfq(q0);
  void *f[] = {&dfx.ptr, &dfq.ptr, &dfb.ptr, &fn, &ld};
  launch(m, "frag_s8", rows, 128, f);
  auto fq = dfq.get();
  auto fb = dfb.get();
  ok = true;
  for (size_t i = 0; i < fx.size(); ++i) {
    const bool in = static_cast<int>(i % ld) < fn;
    ok &= in ? (fq[i] == s8_ref(fx[i]) && fb[i] == static_cast<float>(fq[i]))
             : (fq[i] == 0x55 && fb[i] == -7.f);
  }
  check(ok, "int8: store_frag<signed char> from f32 (16-byte stores) and load_frag "
            "back, columns >= n untouched");

  Buf<int8_t> di{std::vector<int8_t>(2048)}, di2{std::vector<int8_t>(2048)};
  void *g[] = {&di.ptr, &di2.ptr};
  launch(m, "int_s8", 1, 128, g);
  auto iq = di.get();
  auto iq2 = di2.get();
  ok = true;
  for (int t = 0; t < 128; ++t)
    for (int v = 0; v < 16; ++v) {
      const int want = (t * 16 + v) % 251 - 125;
      ok &= iq[t * 16 + v] == want;
      ok &= iq2[t * 2 + (v / 2) * 256 + v % 2] == want;
    }
  check(ok, "int8: store_frag<signed char> from int values (W = 16 and W = 2)");
  cuModuleUnload(m);
}

void test_cluster(const std::string &dir, std::mt19937 &rng) {
  CUmodule m = load(dir, "cluster_reduce");
  for (int cluster : {4, 8}) {
    // Enough clusters to fill the GPU several times over.
    int rows = 300, n = cluster == 4 ? 3001 : 7001, ld = n + 3;
    std::uniform_real_distribution<float> d(-4.f, 4.f);
    std::vector<float> x(static_cast<size_t>(rows) * ld);
    for (auto &v : x)
      v = d(rng);
    Buf<float> dx(x), dsum(std::vector<float>(rows * cluster));
    Buf<ML> dml(std::vector<ML>(rows * cluster));
    void *a[] = {&dx.ptr, &dsum.ptr, &dml.ptr, &n, &ld};
    const std::string name = "cluster_row" + std::to_string(cluster);
    launch(m, name.c_str(), rows * cluster, 256, a, cluster);
    auto sum = dsum.get();
    auto ml = dml.get();
    bool ok = true, same = true;
    for (int r = 0; r < rows; ++r) {
      double s = 0, mx = -INFINITY, l = 0;
      for (int c = 0; c < n; ++c) {
        s += x[static_cast<size_t>(r) * ld + c];
        mx = std::max<double>(mx, x[static_cast<size_t>(r) * ld + c]);
      }
      for (int c = 0; c < n; ++c)
        l += std::exp(x[static_cast<size_t>(r) * ld + c] - mx);
      for (int k = 0; k < cluster; ++k) {
        const int i = r * cluster + k;
        ok &= near(sum[i], s, 1e-4) && ml[i].m == static_cast<float>(mx) &&
              near(ml[i].l, l, 1e-4);
        same &= std::memcmp(&sum[i], &sum[r * cluster], 4) == 0 &&
                std::memcmp(&ml[i], &ml[r * cluster], sizeof(ML)) == 0;
      }
    }
    check(ok, name + ": cluster_reduce<8," + std::to_string(cluster) +
                  "> f32 sum and (m, l) match the host");
    check(same,
          name + ": every CTA of the cluster has the bitwise-same result");
  }
  cuModuleUnload(m);
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: gpu_check <cubin-dir>\n");
    return 2;
  }
  cu(cuInit(0), "cuInit");
  CUdevice dev;
  cu(cuDeviceGet(&dev, 0), "cuDeviceGet");
  char name[256];
  cu(cuDeviceGetName(name, sizeof(name), dev), "cuDeviceGetName");
  std::printf("device: %s\n", name);
  CUcontext ctx;
  cu(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  cu(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

  std::mt19937 rng(1234);
  test_rowsum(argv[1], rng);
  test_combiners(argv[1], rng);
  test_vec(argv[1], rng);
  test_convert(argv[1], rng);
  test_int8(argv[1], rng);
  test_cluster(argv[1], rng);

  cuDevicePrimaryCtxRelease(dev);
  std::printf("gpu_check: %s\n", failures ? "FAILED" : "all checks passed");
  return failures ? 1 : 0;
}
