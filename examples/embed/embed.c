/* embed.c - compile and launch an rkc kernel through the C API.
 *
 * Compiles a row softmax for [M, N] f32, prints the plan, and, where a GPU
 * and its driver are present, runs it on random data and checks it against
 * a CPU softmax. Without a GPU it stops after the compile (exit 0), which
 * is what the CPU test suite runs. The CUDA driver is loaded with dlopen,
 * like librkc does, so this program starts on machines without one.
 *
 *   cc embed.c -I<prefix>/include -L<prefix>/lib -lrkc -ldl -lm -o embed
 */
#include <rkc-c/rkc.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kSpec =
    "func.func @softmax(%x: tensor<?x?x!rk.dtype> {rk.name = \"x\"})\n"
    "    -> tensor<?x?x!rk.dtype> {\n"
    "  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>\n"
    "  return %y : tensor<?x?x!rk.dtype>\n"
    "}\n";

enum { M = 37, N = 1000 };

typedef int (*InitFn)(unsigned);
typedef int (*DeviceGetFn)(int *, int);
typedef int (*CtxRetainFn)(void **, int);
typedef int (*CtxSetFn)(void *);
typedef int (*AllocFn)(unsigned long long *, size_t);
typedef int (*CopyHtoDFn)(unsigned long long, const void *, size_t);
typedef int (*CopyDtoHFn)(void *, unsigned long long, size_t);
typedef int (*SyncFn)(void);

int main(void) {
  rkc_kernel k;
  if (rkcKernelCompile(kSpec, "embed.c:softmax", "x=37x1000", "f32", NULL, NULL, &k) != RKC_OK) {
    fprintf(stderr, "compile failed: %s\n", rkcGetLastError());
    return 1;
  }
  printf("rkc %s: compiled %d arguments, plan %s\n", rkcVersion(), rkcKernelNumArgs(k),
         rkcKernelPlan(k));

  void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
  InitFn cuInit = cuda ? (InitFn)dlsym(cuda, "cuInit") : NULL;
  if (!cuInit || cuInit(0) != 0) {
    /* The launch path reports the same thing as a status. */
    void *ptrs[2] = {(void *)16, (void *)16};
    rkc_status s = rkcKernelLaunch(k, ptrs, NULL, M, NULL);
    printf("no GPU: launch status %d (%s)\n", (int)s, rkcGetLastError());
    rkcKernelDestroy(k);
    return s == RKC_ERROR_NO_DRIVER ? 0 : 1;
  }
  DeviceGetFn cuDeviceGet = (DeviceGetFn)dlsym(cuda, "cuDeviceGet");
  CtxRetainFn cuDevicePrimaryCtxRetain = (CtxRetainFn)dlsym(cuda, "cuDevicePrimaryCtxRetain");
  CtxSetFn cuCtxSetCurrent = (CtxSetFn)dlsym(cuda, "cuCtxSetCurrent");
  AllocFn cuMemAlloc = (AllocFn)dlsym(cuda, "cuMemAlloc_v2");
  CopyHtoDFn cuMemcpyHtoD = (CopyHtoDFn)dlsym(cuda, "cuMemcpyHtoD_v2");
  CopyDtoHFn cuMemcpyDtoH = (CopyDtoHFn)dlsym(cuda, "cuMemcpyDtoH_v2");
  SyncFn cuCtxSynchronize = (SyncFn)dlsym(cuda, "cuCtxSynchronize");
  int dev;
  void *ctx;
  if (cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) || cuCtxSetCurrent(ctx)) {
    fprintf(stderr, "no usable GPU\n");
    return 1;
  }
  static float x[M * N], y[M * N];
  for (int i = 0; i < M * N; ++i)
    x[i] = (float)rand() / RAND_MAX * 8.0f - 4.0f;
  unsigned long long dx, dy;
  if (cuMemAlloc(&dx, sizeof x) || cuMemAlloc(&dy, sizeof y) ||
      cuMemcpyHtoD(dx, x, sizeof x)) {
    fprintf(stderr, "CUDA allocation failed\n");
    return 1;
  }
  void *ptrs[2] = {(void *)dx, (void *)dy};
  if (rkcKernelLaunch(k, ptrs, NULL, M, NULL) != RKC_OK) {
    fprintf(stderr, "launch failed: %s\n", rkcGetLastError());
    return 1;
  }
  cuCtxSynchronize();
  cuMemcpyDtoH(y, dy, sizeof y);
  double worst = 0;
  for (int r = 0; r < M; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < N; ++c)
      mx = fmax(mx, x[r * N + c]);
    for (int c = 0; c < N; ++c)
      sum += exp(x[r * N + c] - mx);
    for (int c = 0; c < N; ++c) {
      double ref = exp(x[r * N + c] - mx) / sum;
      worst = fmax(worst, fabs(y[r * N + c] - ref) / ref);
    }
  }
  printf("GPU softmax [%d, %d]: max rel. error %.2e\n", M, N, worst);
  rkcKernelDestroy(k);
  return worst < 1e-5 ? 0 : 1;
}
