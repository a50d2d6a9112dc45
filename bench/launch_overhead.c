/* launch_overhead.c - host cost of a launch through rkc's C API, next to a
 * raw cuLaunchKernel loop over the same kernel (BENCH.md / issue #6).
 *
 * Compiles a row softmax for [1, 256] bf16 through rkcKernelCompile, loads
 * the same PTX with cuModuleLoadData for the raw loop, and times N
 * back-to-back launches of each on one stream (host wall time from the
 * first call to the return of the last, then a synchronisation that is not
 * counted), best of 5 rounds. Prints one JSON object. Without a GPU it
 * prints the compile result and exits 0 (the CPU suite builds and runs it).
 *
 *   cc launch_overhead.c -I<prefix>/include -L<prefix>/lib -lrkc -ldl -o launch_overhead
 *   ./launch_overhead [N]     (default 10000)
 */
#include <rkc-c/rkc.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *kSpec =
    "func.func @softmax(%x: tensor<?x?x!rk.dtype> {rk.name = \"x\"})\n"
    "    -> tensor<?x?x!rk.dtype> {\n"
    "  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>\n"
    "  return %y : tensor<?x?x!rk.dtype>\n"
    "}\n";

enum { M = 1, N = 256, ROUNDS = 5 };

typedef int (*InitFn)(unsigned);
typedef int (*DeviceGetFn)(int *, int);
typedef int (*CtxRetainFn)(void **, int);
typedef int (*CtxSetFn)(void *);
typedef int (*AllocFn)(unsigned long long *, size_t);
typedef int (*MemsetFn)(unsigned long long, unsigned char, size_t);
typedef int (*SyncFn)(void);
typedef int (*ModuleLoadFn)(void **, const void *);
typedef int (*GetFunctionFn)(void **, void *, const char *);
typedef int (*LaunchFn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, void *, void **, void **);

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* The value of `key=` in a plan string ("threads=32,...,rows=4,..."). */
static long plan_field(const char *plan, const char *key) {
  size_t n = strlen(key);
  for (const char *p = plan; (p = strstr(p, key)) != NULL; p += n)
    if ((p == plan || p[-1] == ',') && p[n] == '=')
      return strtol(p + n + 1, NULL, 10);
  return -1;
}

int main(int argc, char **argv) {
  long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
  if (iters < 1)
    iters = 1;
  rkc_kernel k;
  if (rkcKernelCompile(kSpec, "launch_overhead.c:softmax", "x=1x256", "bf16", NULL, NULL, &k) !=
      RKC_OK) {
    fprintf(stderr, "compile failed: %s\n", rkcGetLastError());
    return 1;
  }
  const char *plan = rkcKernelPlan(k);
  void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
  InitFn cuInit = cuda ? (InitFn)dlsym(cuda, "cuInit") : NULL;
  if (!cuInit || cuInit(0) != 0) {
    printf("{\"gpu\": false, \"plan\": \"%s\"}\n", plan);
    rkcKernelDestroy(k);
    return 0;
  }
  DeviceGetFn cuDeviceGet = (DeviceGetFn)dlsym(cuda, "cuDeviceGet");
  CtxRetainFn cuDevicePrimaryCtxRetain = (CtxRetainFn)dlsym(cuda, "cuDevicePrimaryCtxRetain");
  CtxSetFn cuCtxSetCurrent = (CtxSetFn)dlsym(cuda, "cuCtxSetCurrent");
  AllocFn cuMemAlloc = (AllocFn)dlsym(cuda, "cuMemAlloc_v2");
  MemsetFn cuMemsetD8 = (MemsetFn)dlsym(cuda, "cuMemsetD8_v2");
  SyncFn cuCtxSynchronize = (SyncFn)dlsym(cuda, "cuCtxSynchronize");
  ModuleLoadFn cuModuleLoadData = (ModuleLoadFn)dlsym(cuda, "cuModuleLoadData");
  GetFunctionFn cuModuleGetFunction = (GetFunctionFn)dlsym(cuda, "cuModuleGetFunction");
  LaunchFn cuLaunchKernel = (LaunchFn)dlsym(cuda, "cuLaunchKernel");
  int dev;
  void *ctx;
  if (cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) {
    fprintf(stderr, "no usable GPU\n");
    return 1;
  }
  unsigned long long dx, dy;
  if (cuMemAlloc(&dx, M * N * 2) || cuMemAlloc(&dy, M * N * 2) || cuMemsetD8(dx, 0, M * N * 2)) {
    fprintf(stderr, "CUDA allocation failed\n");
    return 1;
  }
  /* The raw loop: the same PTX, its entry, the generated signature
   * (a0, a1, s0, s1, M) and the plan's CTA size; rows per CTA >= M here. */
  const char *ptx = rkcKernelPtx(k);
  const char *entry = strstr(ptx, ".entry ");
  char name[128] = {0};
  if (!entry || sscanf(entry + 7, "%127[A-Za-z0-9_]", name) != 1) {
    fprintf(stderr, "no .entry in the PTX\n");
    return 1;
  }
  void *mod, *fn;
  if (cuModuleLoadData(&mod, ptx) || cuModuleGetFunction(&fn, mod, name)) {
    fprintf(stderr, "cannot load %s\n", name);
    return 1;
  }
  long threads = plan_field(plan, "threads"), rows = plan_field(plan, "rows");
  if (threads < 1 || rows < 1) {
    fprintf(stderr, "cannot read the plan %s\n", plan);
    return 1;
  }
  long long s0 = N, s1 = N, mm = M;
  void *args[] = {&dx, &dy, &s0, &s1, &mm};
  void *ptrs[2] = {(void *)dx, (void *)dy};

  double best_api = 1e30, best_raw = 1e30;
  for (int round = 0; round < ROUNDS; ++round) {
    double t0 = now_us();
    for (long i = 0; i < iters; ++i)
      if (rkcKernelLaunch(k, ptrs, NULL, M, NULL) != RKC_OK) {
        fprintf(stderr, "launch failed: %s\n", rkcGetLastError());
        return 1;
      }
    double t1 = now_us();
    cuCtxSynchronize();
    double t2 = now_us();
    for (long i = 0; i < iters; ++i)
      if (cuLaunchKernel(fn, 1, 1, 1, (unsigned)(threads * rows), 1, 1, 0, NULL, args, NULL)) {
        fprintf(stderr, "cuLaunchKernel failed\n");
        return 1;
      }
    double t3 = now_us();
    cuCtxSynchronize();
    if ((t1 - t0) / iters < best_api)
      best_api = (t1 - t0) / iters;
    if ((t3 - t2) / iters < best_raw)
      best_raw = (t3 - t2) / iters;
  }
  /* 10k back-to-back launches fill the launch queue (about a thousand
   * entries) when the kernel runs longer on the GPU than a launch takes on
   * the host: the loop then waits for the GPU, for both paths alike. So
   * also: batches of BATCH launches (well inside the queue), each timed on
   * the host and then synchronised outside the timing; mean per launch over
   * all batches, the two paths alternating. */
  enum { BATCH = 128 };
  long batches = iters / BATCH > 0 ? iters / BATCH : 1;
  double sum_api = 0, sum_raw = 0;
  for (long b = 0; b < batches; ++b) {
    double t0 = now_us();
    for (int i = 0; i < BATCH; ++i)
      if (rkcKernelLaunch(k, ptrs, NULL, M, NULL) != RKC_OK)
        return 1;
    sum_api += now_us() - t0;
    cuCtxSynchronize();
    t0 = now_us();
    for (int i = 0; i < BATCH; ++i)
      if (cuLaunchKernel(fn, 1, 1, 1, (unsigned)(threads * rows), 1, 1, 0, NULL, args, NULL))
        return 1;
    sum_raw += now_us() - t0;
    cuCtxSynchronize();
  }
  double batch_api = sum_api / (batches * BATCH), batch_raw = sum_raw / (batches * BATCH);
  printf("{\"gpu\": true, \"kernel\": \"%s\", \"plan\": \"%s\", \"launches\": %ld, "
         "\"c_api_us\": %.3f, \"raw_cuLaunchKernel_us\": %.3f, \"overhead_us\": %.3f, "
         "\"batch\": %d, \"c_api_batched_us\": %.3f, \"raw_batched_us\": %.3f, "
         "\"overhead_batched_us\": %.3f}\n",
         name, plan, iters, best_api, best_raw, best_api - best_raw, BATCH, batch_api, batch_raw,
         batch_api - batch_raw);
  rkcKernelDestroy(k);
  return 0;
}
