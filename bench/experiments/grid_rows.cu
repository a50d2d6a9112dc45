// Experiment tool (not product code): RMSNorm over long rows split across
// CTAs that are not a cluster, the partial statistics exchanged through
// global memory (session 21). The question it answers: rows of 1M leave 20
// SMs idle with clusters of 16 (docs/performance-notes.md, session 20 item
// 4); does a split that every SM can take reach the copy's rate?
//
// Each CTA loops over tasks (row, slice) taken in order from a global
// counter: it copies its slice of the row into shared memory (cp.async),
// writes the slice's sum of squares to g_part[row][slice], counts it in
// g_cnt[row] and waits until all S slices of the row are counted, then
// normalises its slice from shared memory with the weight and stores it.
// Tasks are taken in order and a CTA publishes its partial before it
// waits, so a waiting CTA only waits for slices that CTAs already running
// hold or the next free CTA will take: no deadlock while S CTAs fit on the
// GPU. The last CTA to leave resets the counters for the next launch.
//
// The rk RMSNorm ABI (x, weight, y, three row strides, M), bf16, eps 1e-6,
// so bench/experiments/row_cubin_bench.cpp times it beside rkc's kernel.
// Compile-time: N_ (row length), S_ (slices per row), T_ (threads per CTA),
// STATIC_ (static groups of S CTAs per row instead of tasks from a counter);
// a slice is N / S values, V = N / S / T per thread (a multiple of 8).
//
//   (printf '#define N_ 1048576\n#define S_ 32\n#define T_ 256\n'; cat grid_rows.cu) > v.cu
//   nvrtc_cubin v.cu v.cubin sm_90a
//   row_cubin_bench 2 1 128 1048576 rkc=rkc.cubin:rkc_rms_norm:224:256:SMEM \
//       grid=v.cubin:grid_rms:GRID:256:65536
#ifndef N_
#define N_ 1048576
#endif
#ifndef S_
#define S_ 32
#endif
#ifndef T_
#define T_ 256
#endif

constexpr int N = N_, S = S_, T = T_;
constexpr int L = N / S; // values per slice
constexpr int V = L / T; // values per thread
static_assert(N % S == 0 && L % T == 0 && V % 8 == 0, "slice layout");
static_assert(S <= 1024, "at most 1024 slices");
constexpr int MAXROWS = 8192;

__device__ unsigned g_next, g_exit;
__device__ unsigned g_cnt[MAXROWS];
__device__ float g_part[MAXROWS * S];

__device__ __forceinline__ float bf2f(unsigned short h) { return __uint_as_float((unsigned)h << 16); }
__device__ __forceinline__ unsigned short f2bf(float f) {
  unsigned u = __float_as_uint(f);
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

extern "C" __global__ void __launch_bounds__(T)
grid_rms(const unsigned short *__restrict__ x, const unsigned short *__restrict__ w,
         unsigned short *__restrict__ y, long long sx, long long sw, long long sy,
         long long M) {
  (void)sw;
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ unsigned s_task;
  __shared__ float s_red[T / 32];
  __shared__ float s_rstd;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const unsigned total = (unsigned)(M * S);
  const unsigned sbase = (unsigned)__cvta_generic_to_shared(smem);
#ifdef STATIC_
  // Static groups: CTA b takes slice b % S of rows b / S, b / S + G, ...
  // (G = gridDim.x / S groups; the grid a multiple of S): the S CTAs of a
  // row start it together, as a cluster's would, on any SMs.
  (void)total;
  const int s = (int)(blockIdx.x % S);
  for (long long row = blockIdx.x / S; row < M; row += gridDim.x / S) {
#else
  for (;;) {
    if (tid == 0)
      s_task = atomicAdd(&g_next, 1u);
    __syncthreads();
    const unsigned task = s_task;
    if (task >= total)
      break;
    const long long row = task / S;
    const int s = (int)(task % S);
#endif
    const unsigned short *xs = x + row * sx + (long long)s * L;
    // Chunk c of 8 values of this thread: slice element (c * T + tid) * 8.
#pragma unroll
    for (int c = 0; c < V / 8; ++c) {
      const int e = (c * T + tid) * 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sbase + e * 2), "l"(xs + e)
                   : "memory");
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_all;" ::: "memory");
    float ss = 0.0f;
#pragma unroll
    for (int c = 0; c < V / 8; ++c) {
      const uint4 q = *reinterpret_cast<const uint4 *>(smem + (c * T + tid) * 16);
      const unsigned u[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const float a = __uint_as_float(u[k] << 16), b = __uint_as_float(u[k] & 0xffff0000u);
        ss = fmaf(a, a, ss);
        ss = fmaf(b, b, ss);
      }
    }
    ss = warp_sum(ss);
    if (lane == 0)
      s_red[warp] = ss;
    __syncthreads();
    if (warp == 0) {
      float t = lane < T / 32 ? s_red[lane] : 0.0f;
      t = warp_sum(t);
      if (lane == 0) {
        g_part[row * S + s] = t;
        __threadfence();
        atomicAdd(&g_cnt[row], 1u);
        while (ld_acquire(&g_cnt[row]) < (unsigned)S) {
        }
      }
      __syncwarp();
      // Every slice's partial is visible: the row's sum of squares.
      float p = 0.0f;
      for (int i = lane; i < S; i += 32)
        p += __ldcg(&g_part[row * S + i]);
      p = warp_sum(p);
      if (lane == 0)
        s_rstd = rsqrtf(p / (float)N + 1e-6f);
    }
    __syncthreads();
    const float rstd = s_rstd;
    const unsigned short *ws = w + (long long)s * L;
    unsigned short *ys = y + row * sy + (long long)s * L;
#pragma unroll
    for (int c = 0; c < V / 8; ++c) {
      const int e = (c * T + tid) * 8;
      const uint4 q = *reinterpret_cast<const uint4 *>(smem + e * 2);
      const uint4 g = __ldg(reinterpret_cast<const uint4 *>(ws + e));
      const unsigned u[4] = {q.x, q.y, q.z, q.w}, gv[4] = {g.x, g.y, g.z, g.w};
      unsigned o[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const float a = __uint_as_float(u[k] << 16) * rstd * __uint_as_float(gv[k] << 16);
        const float b =
            __uint_as_float(u[k] & 0xffff0000u) * rstd * __uint_as_float(gv[k] & 0xffff0000u);
        o[k] = (unsigned)f2bf(a) | ((unsigned)f2bf(b) << 16);
      }
      *reinterpret_cast<uint4 *>(ys + e) = make_uint4(o[0], o[1], o[2], o[3]);
    }
    __syncthreads(); // s_task, s_red and the slice's shared memory are reused
  }
  if (tid == 0) {
    __threadfence();
    if (atomicAdd(&g_exit, 1u) == gridDim.x - 1) { // every task is done
      for (long long r = 0; r < M && r < MAXROWS; ++r)
        g_cnt[r] = 0;
      g_next = 0;
      g_exit = 0;
      __threadfence();
    }
  }
}
