/*===- rkc.h - the rkc C API ------------------------------------*- C -*-===*\
 *
 * Compile an rk spec for one shape and launch it on a CUDA stream. Every
 * call returns a status; on failure rkcGetLastError() (per thread) holds a
 * message with the spec location. Nothing here aborts on bad input.
 *
 *   rkc_kernel k;
 *   if (rkcKernelCompile(spec, "rms_norm.mlir", "x=128x4096", "bf16", NULL,
 *                        NULL, &k) != RKC_OK)
 *     fprintf(stderr, "%s\n", rkcGetLastError());
 *   void *ptrs[] = {x, w, y};
 *   rkcKernelLaunch(k, ptrs, NULL, 128, stream);
 *   rkcKernelDestroy(k);
\*===----------------------------------------------------------------------===*/
#ifndef RKC_C_RKC_H
#define RKC_C_RKC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rkc_kernel_s *rkc_kernel;

typedef enum rkc_status {
  RKC_OK = 0,
  RKC_ERROR_INVALID_ARGUMENT = 1, /* a bad handle, pointer, shape or stride */
  RKC_ERROR_COMPILE = 2,          /* the spec or the request was rejected */
  RKC_ERROR_NO_DRIVER = 3,        /* no CUDA driver / GPU on this machine */
  RKC_ERROR_CUDA = 4              /* a CUDA driver call failed */
} rkc_status;

/* The message of the last failed call on this thread ("" if none; a
 * successful rkcKernelCompile clears it, other successful calls leave it).
 * The pointer stays valid until this thread's next failing call. */
const char *rkcGetLastError(void);
/* rkc's version, e.g. "0.1.0". */
const char *rkcVersion(void);

/* Compiles `spec_text` (named `spec_name` in messages) for the shapes
 * "NAME=D0xD1;NAME=..." and dtype (f32, bf16, f16; NULL for non-generic
 * specs). `arch` NULL or "" picks the current GPU's (sm_90a without one);
 * `schedule` NULL or "" uses the planner's heuristic. */
rkc_status rkcKernelCompile(const char *spec_text, const char *spec_name,
                            const char *shapes, const char *dtype,
                            const char *arch, const char *schedule,
                            rkc_kernel *out);
/* Releases the handle (NULL: nothing). The kernel itself stays cached in
 * the process for other handles and later requests of the same key. Using
 * or destroying a handle after rkcKernelDestroy is undefined, as with free. */
void rkcKernelDestroy(rkc_kernel kernel);

/* Arguments, in launch order: the spec's inputs, then its results. */
int rkcKernelNumArgs(rkc_kernel kernel);
const char *rkcKernelArgName(rkc_kernel kernel, int index);
const char *rkcKernelArgDtype(rkc_kernel kernel, int index);
int rkcKernelArgRank(rkc_kernel kernel, int index);
int64_t rkcKernelArgDim(rkc_kernel kernel, int index, int dim);
int rkcKernelArgIsOutput(rkc_kernel kernel, int index);
/* The plan ("threads=...,vector=...") and the generated CUDA / PTX. */
const char *rkcKernelPlan(rkc_kernel kernel);
/* The planner's decisions behind the plan, one "plan: ..." line each (what
 * `rkc compile --print-plan` prints; the first names the device's SM count
 * when the kernel was planned for the current GPU). */
const char *rkcKernelRemarks(rkc_kernel kernel);
const char *rkcKernelCuda(rkc_kernel kernel);
const char *rkcKernelPtx(rkc_kernel kernel);
/* Elements per vector access: pointers and row strides of [M, N]
 * arguments must be multiples of it. */
int rkcKernelVectorWidth(rkc_kernel kernel);

/* Launch flags of a handle (rkcKernelSetLaunchFlags; default 0).
 *
 * RKC_LAUNCH_PDL: programmatic dependent launch (sm_90+, ignored on older
 * GPUs). The kernel may start while the previous kernel of the stream is
 * still running; it waits for that kernel to complete before it reads or
 * writes anything that kernel may write, so the result is that of a plain
 * launch, and the launch latency and the previous kernel's tail overlap.
 * One exception: a GEMV (rk.gemv) starts loading its quantized weights,
 * scales and zero points before the wait, so they must not be written by
 * the kernel launched just before it (weights that stay constant while
 * serving are fine). Works inside CUDA graph capture. docs/runtime.md. */
#define RKC_LAUNCH_PDL 0x1u

/* Sets the flags used by this handle's launches (other handles of the same
 * kernel keep theirs). Unknown bits: RKC_ERROR_INVALID_ARGUMENT. */
rkc_status rkcKernelSetLaunchFlags(rkc_kernel kernel, unsigned flags);
unsigned rkcKernelLaunchFlags(rkc_kernel kernel);

/* Launches on `stream` (a CUstream, NULL = default stream). `ptrs` holds one
 * device pointer per argument; `strides` a row stride in elements per
 * argument (NULL, or 0 for an entry: contiguous rows): exactly
 * rkcKernelNumArgs entries each (the library cannot check the arrays'
 * lengths); `rows` is M.
 * A kernel whose plan has `split=S` (rows split over CTAs that combine
 * through global memory) is launched cooperatively, without PDL, and its
 * first launch on a stream allocates and zeroes a small workspace kept for
 * the process (synchronous; refused inside a CUDA graph capture: launch
 * once on the stream first). docs/runtime.md. */
rkc_status rkcKernelLaunch(rkc_kernel kernel, void *const *ptrs,
                           const int64_t *strides, int64_t rows, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* RKC_C_RKC_H */
