// Generated, not written: rkc's own kernels (commit a2f6492) for the baseline
// of pipelined_rows.cu, from
//   rkc compile examples/{rms_norm,softmax}.mlir --dtype {bf16,f32} \
//       --shape x=MxN --emit cuda   (N = 65536, 262144; M = 2^27 / N)
// with each kernel renamed base_<op>_<dtype>_<N>.
// kernel rkc_rms_norm: threads=256,values=32,vector=8,rows=1,cluster=8,staging=registers,unroll=4,min_blocks=0
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256)
base_rms_norm_bf16_65536(
    const rkc::bf16 *__restrict__ a0,
    const rkc::bf16 *__restrict__ a1,
    rkc::bf16 *__restrict__ a2,
    const long long s0,
    const long long s1,
    const long long s2,
    const long long M) {
  constexpr int N = 65536;
  constexpr int V = 32;
  constexpr int W = 8;
  constexpr int TPR = 256;
  constexpr int ROWS = 1;
  constexpr int C = 8;
  constexpr int COL_STEP = C * TPR * W;
  constexpr bool FULL_ROW = true;
  constexpr int PASSES = 1; // sweeps of C * TPR * V columns
  constexpr int PASS_COLS = C * TPR * V;
  (void)PASSES; (void)PASS_COLS;
  (void)FULL_ROW; (void)ROWS;
  const int tid = threadIdx.x;
  const int t = tid % TPR;
  const int row_in_cta = tid / TPR;
  const int lane = tid & 31;
  const int warp_in_row = t / 32;
  (void)lane; (void)warp_in_row;
  const int rank = (int)rkc::cluster_ctarank();
  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;
  const bool row_ok = row_raw < M;
  const long long row = row_ok ? row_raw : M - 1;
  const int col0_base = (rank * TPR + t) * W;
  const int col0 = col0_base;
  (void)col0;
  __shared__ float cbuf9[64];
  rkc::cluster_arrive_relaxed();
  const float c0 = 9.99999997e-07f;
  const float c1 = 65536.0f;
  float f2[V];
  rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, f2, 0.0f);
  float f3[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v4 = f2[i];
    const float v5 = (v4 * v4);
    f3[i] = v5;
  }
  float r6 = 0.0f;
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r6 = rkc::OpAdd()(r6, f3[i]);
  }
  const float r7 = rkc::warp_reduce<32>(r6, rkc::OpAdd());
  rkc::cluster_wait();
  const float r8 = rkc::cluster_reduce<8, 8>(r7, rkc::OpAdd(), cbuf9, warp_in_row, lane);
  float sv10;
  {
    const float v11 = r8;
    const float v12 = c1;
    const float v13 = c0;
    const float v14 = (v11 / v12);
    const float v15 = (v14 + v13);
    const float v16 = rsqrtf(v15);
    sv10 = v16;
  }
  float f17[V];
  rkc::load_frag<rkc::bf16, V, W>(a1, col0, COL_STEP, N, f17, 0.0f);
  float f18[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v19 = f2[i];
    const float v20 = sv10;
    const float v21 = f17[i];
    const float v22 = (v19 * v20);
    const float v23 = (v22 * v21);
    f18[i] = v23;
  }
  if (row_ok) rkc::store_frag<rkc::bf16, V, W>(a2 + row * s2, col0, COL_STEP, N, f18);
}

// kernel rkc_rms_norm: threads=256,values=64,vector=8,rows=1,cluster=16,staging=registers,unroll=8,min_blocks=0
extern "C" __global__ void __cluster_dims__(16, 1, 1) __launch_bounds__(256)
base_rms_norm_bf16_262144(
    const rkc::bf16 *__restrict__ a0,
    const rkc::bf16 *__restrict__ a1,
    rkc::bf16 *__restrict__ a2,
    const long long s0,
    const long long s1,
    const long long s2,
    const long long M) {
  constexpr int N = 262144;
  constexpr int V = 64;
  constexpr int W = 8;
  constexpr int TPR = 256;
  constexpr int ROWS = 1;
  constexpr int C = 16;
  constexpr int COL_STEP = C * TPR * W;
  constexpr bool FULL_ROW = true;
  constexpr int PASSES = 1; // sweeps of C * TPR * V columns
  constexpr int PASS_COLS = C * TPR * V;
  (void)PASSES; (void)PASS_COLS;
  (void)FULL_ROW; (void)ROWS;
  const int tid = threadIdx.x;
  const int t = tid % TPR;
  const int row_in_cta = tid / TPR;
  const int lane = tid & 31;
  const int warp_in_row = t / 32;
  (void)lane; (void)warp_in_row;
  const int rank = (int)rkc::cluster_ctarank();
  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;
  const bool row_ok = row_raw < M;
  const long long row = row_ok ? row_raw : M - 1;
  const int col0_base = (rank * TPR + t) * W;
  const int col0 = col0_base;
  (void)col0;
  __shared__ float cbuf9[128];
  rkc::cluster_arrive_relaxed();
  const float c0 = 9.99999997e-07f;
  const float c1 = 262144.0f;
  float f2[V];
  rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, f2, 0.0f);
  float f3[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v4 = f2[i];
    const float v5 = (v4 * v4);
    f3[i] = v5;
  }
  float r6 = 0.0f;
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r6 = rkc::OpAdd()(r6, f3[i]);
  }
  const float r7 = rkc::warp_reduce<32>(r6, rkc::OpAdd());
  rkc::cluster_wait();
  const float r8 = rkc::cluster_reduce<8, 16>(r7, rkc::OpAdd(), cbuf9, warp_in_row, lane);
  float sv10;
  {
    const float v11 = r8;
    const float v12 = c1;
    const float v13 = c0;
    const float v14 = (v11 / v12);
    const float v15 = (v14 + v13);
    const float v16 = rsqrtf(v15);
    sv10 = v16;
  }
  float f17[V];
  rkc::load_frag<rkc::bf16, V, W>(a1, col0, COL_STEP, N, f17, 0.0f);
  float f18[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v19 = f2[i];
    const float v20 = sv10;
    const float v21 = f17[i];
    const float v22 = (v19 * v20);
    const float v23 = (v22 * v21);
    f18[i] = v23;
  }
  if (row_ok) rkc::store_frag<rkc::bf16, V, W>(a2 + row * s2, col0, COL_STEP, N, f18);
}

// kernel rkc_softmax: threads=256,values=32,vector=8,rows=1,cluster=8,staging=registers,unroll=4,min_blocks=0
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256)
base_softmax_bf16_65536(
    const rkc::bf16 *__restrict__ a0,
    rkc::bf16 *__restrict__ a1,
    const long long s0,
    const long long s1,
    const long long M) {
  constexpr int N = 65536;
  constexpr int V = 32;
  constexpr int W = 8;
  constexpr int TPR = 256;
  constexpr int ROWS = 1;
  constexpr int C = 8;
  constexpr int COL_STEP = C * TPR * W;
  constexpr bool FULL_ROW = true;
  constexpr int PASSES = 1; // sweeps of C * TPR * V columns
  constexpr int PASS_COLS = C * TPR * V;
  (void)PASSES; (void)PASS_COLS;
  (void)FULL_ROW; (void)ROWS;
  const int tid = threadIdx.x;
  const int t = tid % TPR;
  const int row_in_cta = tid / TPR;
  const int lane = tid & 31;
  const int warp_in_row = t / 32;
  (void)lane; (void)warp_in_row;
  const int rank = (int)rkc::cluster_ctarank();
  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;
  const bool row_ok = row_raw < M;
  const long long row = row_ok ? row_raw : M - 1;
  const int col0_base = (rank * TPR + t) * W;
  const int col0 = col0_base;
  (void)col0;
  __shared__ float cbuf4[64];
  __shared__ float cbuf13[64];
  rkc::cluster_arrive_relaxed();
  float f0[V];
  rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, f0, 0.0f);
  float r1 = __int_as_float(0xff800000);
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r1 = rkc::OpMax()(r1, f0[i]);
  }
  const float r2 = rkc::warp_reduce<32>(r1, rkc::OpMax());
  rkc::cluster_wait();
  const float r3 = rkc::cluster_reduce<8, 8>(r2, rkc::OpMax(), cbuf4, warp_in_row, lane);
  float f5[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v6 = f0[i];
    const float v7 = r3;
    const float v8 = (v6 - v7);
    const float v9 = __expf(v8);
    f5[i] = v9;
  }
  float r10 = 0.0f;
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r10 = rkc::OpAdd()(r10, f5[i]);
  }
  const float r11 = rkc::warp_reduce<32>(r10, rkc::OpAdd());
  const float r12 = rkc::cluster_reduce<8, 8>(r11, rkc::OpAdd(), cbuf13, warp_in_row, lane);
  float sv14;
  {
    const float v15 = r12;
    const float v16 = 1.0f;
    const float v17 = (v16 / v15);
    sv14 = v17;
  }
  float f18[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v19 = f5[i];
    const float v20 = sv14;
    const float v21 = (v19 * v20);
    f18[i] = v21;
  }
  if (row_ok) rkc::store_frag<rkc::bf16, V, W>(a1 + row * s1, col0, COL_STEP, N, f18);
}

// kernel rkc_softmax: threads=256,values=64,vector=8,rows=1,cluster=16,staging=registers,unroll=8,min_blocks=0
extern "C" __global__ void __cluster_dims__(16, 1, 1) __launch_bounds__(256)
base_softmax_bf16_262144(
    const rkc::bf16 *__restrict__ a0,
    rkc::bf16 *__restrict__ a1,
    const long long s0,
    const long long s1,
    const long long M) {
  constexpr int N = 262144;
  constexpr int V = 64;
  constexpr int W = 8;
  constexpr int TPR = 256;
  constexpr int ROWS = 1;
  constexpr int C = 16;
  constexpr int COL_STEP = C * TPR * W;
  constexpr bool FULL_ROW = true;
  constexpr int PASSES = 1; // sweeps of C * TPR * V columns
  constexpr int PASS_COLS = C * TPR * V;
  (void)PASSES; (void)PASS_COLS;
  (void)FULL_ROW; (void)ROWS;
  const int tid = threadIdx.x;
  const int t = tid % TPR;
  const int row_in_cta = tid / TPR;
  const int lane = tid & 31;
  const int warp_in_row = t / 32;
  (void)lane; (void)warp_in_row;
  const int rank = (int)rkc::cluster_ctarank();
  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;
  const bool row_ok = row_raw < M;
  const long long row = row_ok ? row_raw : M - 1;
  const int col0_base = (rank * TPR + t) * W;
  const int col0 = col0_base;
  (void)col0;
  __shared__ float cbuf4[128];
  __shared__ float cbuf13[128];
  rkc::cluster_arrive_relaxed();
  float f0[V];
  rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N, f0, 0.0f);
  float r1 = __int_as_float(0xff800000);
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r1 = rkc::OpMax()(r1, f0[i]);
  }
  const float r2 = rkc::warp_reduce<32>(r1, rkc::OpMax());
  rkc::cluster_wait();
  const float r3 = rkc::cluster_reduce<8, 16>(r2, rkc::OpMax(), cbuf4, warp_in_row, lane);
  float f5[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v6 = f0[i];
    const float v7 = r3;
    const float v8 = (v6 - v7);
    const float v9 = __expf(v8);
    f5[i] = v9;
  }
  float r10 = 0.0f;
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r10 = rkc::OpAdd()(r10, f5[i]);
  }
  const float r11 = rkc::warp_reduce<32>(r10, rkc::OpAdd());
  const float r12 = rkc::cluster_reduce<8, 16>(r11, rkc::OpAdd(), cbuf13, warp_in_row, lane);
  float sv14;
  {
    const float v15 = r12;
    const float v16 = 1.0f;
    const float v17 = (v16 / v15);
    sv14 = v17;
  }
  float f18[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v19 = f5[i];
    const float v20 = sv14;
    const float v21 = (v19 * v20);
    f18[i] = v21;
  }
  if (row_ok) rkc::store_frag<rkc::bf16, V, W>(a1 + row * s1, col0, COL_STEP, N, f18);
}

// kernel rkc_rms_norm: threads=256,values=32,vector=4,rows=1,cluster=8,staging=registers,unroll=8,min_blocks=0
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256)
base_rms_norm_f32_65536(
    const float *__restrict__ a0,
    const float *__restrict__ a1,
    float *__restrict__ a2,
    const long long s0,
    const long long s1,
    const long long s2,
    const long long M) {
  constexpr int N = 65536;
  constexpr int V = 32;
  constexpr int W = 4;
  constexpr int TPR = 256;
  constexpr int ROWS = 1;
  constexpr int C = 8;
  constexpr int COL_STEP = C * TPR * W;
  constexpr bool FULL_ROW = true;
  constexpr int PASSES = 1; // sweeps of C * TPR * V columns
  constexpr int PASS_COLS = C * TPR * V;
  (void)PASSES; (void)PASS_COLS;
  (void)FULL_ROW; (void)ROWS;
  const int tid = threadIdx.x;
  const int t = tid % TPR;
  const int row_in_cta = tid / TPR;
  const int lane = tid & 31;
  const int warp_in_row = t / 32;
  (void)lane; (void)warp_in_row;
  const int rank = (int)rkc::cluster_ctarank();
  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;
  const bool row_ok = row_raw < M;
  const long long row = row_ok ? row_raw : M - 1;
  const int col0_base = (rank * TPR + t) * W;
  const int col0 = col0_base;
  (void)col0;
  __shared__ float cbuf9[64];
  rkc::cluster_arrive_relaxed();
  const float c0 = 9.99999997e-07f;
  const float c1 = 65536.0f;
  float f2[V];
  rkc::load_frag<float, V, W>(a0 + row * s0, col0, COL_STEP, N, f2, 0.0f);
  float f3[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v4 = f2[i];
    const float v5 = (v4 * v4);
    f3[i] = v5;
  }
  float r6 = 0.0f;
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r6 = rkc::OpAdd()(r6, f3[i]);
  }
  const float r7 = rkc::warp_reduce<32>(r6, rkc::OpAdd());
  rkc::cluster_wait();
  const float r8 = rkc::cluster_reduce<8, 8>(r7, rkc::OpAdd(), cbuf9, warp_in_row, lane);
  float sv10;
  {
    const float v11 = r8;
    const float v12 = c1;
    const float v13 = c0;
    const float v14 = (v11 / v12);
    const float v15 = (v14 + v13);
    const float v16 = rsqrtf(v15);
    sv10 = v16;
  }
  float f17[V];
  rkc::load_frag<float, V, W>(a1, col0, COL_STEP, N, f17, 0.0f);
  float f18[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v19 = f2[i];
    const float v20 = sv10;
    const float v21 = f17[i];
    const float v22 = (v19 * v20);
    const float v23 = (v22 * v21);
    f18[i] = v23;
  }
  if (row_ok) rkc::store_frag<float, V, W>(a2 + row * s2, col0, COL_STEP, N, f18);
}

// kernel rkc_rms_norm: threads=256,values=64,vector=4,rows=1,cluster=16,staging=registers,unroll=16,min_blocks=0
extern "C" __global__ void __cluster_dims__(16, 1, 1) __launch_bounds__(256)
base_rms_norm_f32_262144(
    const float *__restrict__ a0,
    const float *__restrict__ a1,
    float *__restrict__ a2,
    const long long s0,
    const long long s1,
    const long long s2,
    const long long M) {
  constexpr int N = 262144;
  constexpr int V = 64;
  constexpr int W = 4;
  constexpr int TPR = 256;
  constexpr int ROWS = 1;
  constexpr int C = 16;
  constexpr int COL_STEP = C * TPR * W;
  constexpr bool FULL_ROW = true;
  constexpr int PASSES = 1; // sweeps of C * TPR * V columns
  constexpr int PASS_COLS = C * TPR * V;
  (void)PASSES; (void)PASS_COLS;
  (void)FULL_ROW; (void)ROWS;
  const int tid = threadIdx.x;
  const int t = tid % TPR;
  const int row_in_cta = tid / TPR;
  const int lane = tid & 31;
  const int warp_in_row = t / 32;
  (void)lane; (void)warp_in_row;
  const int rank = (int)rkc::cluster_ctarank();
  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;
  const bool row_ok = row_raw < M;
  const long long row = row_ok ? row_raw : M - 1;
  const int col0_base = (rank * TPR + t) * W;
  const int col0 = col0_base;
  (void)col0;
  __shared__ float cbuf9[128];
  rkc::cluster_arrive_relaxed();
  const float c0 = 9.99999997e-07f;
  const float c1 = 262144.0f;
  float f2[V];
  rkc::load_frag<float, V, W>(a0 + row * s0, col0, COL_STEP, N, f2, 0.0f);
  float f3[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v4 = f2[i];
    const float v5 = (v4 * v4);
    f3[i] = v5;
  }
  float r6 = 0.0f;
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r6 = rkc::OpAdd()(r6, f3[i]);
  }
  const float r7 = rkc::warp_reduce<32>(r6, rkc::OpAdd());
  rkc::cluster_wait();
  const float r8 = rkc::cluster_reduce<8, 16>(r7, rkc::OpAdd(), cbuf9, warp_in_row, lane);
  float sv10;
  {
    const float v11 = r8;
    const float v12 = c1;
    const float v13 = c0;
    const float v14 = (v11 / v12);
    const float v15 = (v14 + v13);
    const float v16 = rsqrtf(v15);
    sv10 = v16;
  }
  float f17[V];
  rkc::load_frag<float, V, W>(a1, col0, COL_STEP, N, f17, 0.0f);
  float f18[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v19 = f2[i];
    const float v20 = sv10;
    const float v21 = f17[i];
    const float v22 = (v19 * v20);
    const float v23 = (v22 * v21);
    f18[i] = v23;
  }
  if (row_ok) rkc::store_frag<float, V, W>(a2 + row * s2, col0, COL_STEP, N, f18);
}

// kernel rkc_softmax: threads=256,values=32,vector=4,rows=1,cluster=8,staging=registers,unroll=8,min_blocks=0
extern "C" __global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(256)
base_softmax_f32_65536(
    const float *__restrict__ a0,
    float *__restrict__ a1,
    const long long s0,
    const long long s1,
    const long long M) {
  constexpr int N = 65536;
  constexpr int V = 32;
  constexpr int W = 4;
  constexpr int TPR = 256;
  constexpr int ROWS = 1;
  constexpr int C = 8;
  constexpr int COL_STEP = C * TPR * W;
  constexpr bool FULL_ROW = true;
  constexpr int PASSES = 1; // sweeps of C * TPR * V columns
  constexpr int PASS_COLS = C * TPR * V;
  (void)PASSES; (void)PASS_COLS;
  (void)FULL_ROW; (void)ROWS;
  const int tid = threadIdx.x;
  const int t = tid % TPR;
  const int row_in_cta = tid / TPR;
  const int lane = tid & 31;
  const int warp_in_row = t / 32;
  (void)lane; (void)warp_in_row;
  const int rank = (int)rkc::cluster_ctarank();
  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;
  const bool row_ok = row_raw < M;
  const long long row = row_ok ? row_raw : M - 1;
  const int col0_base = (rank * TPR + t) * W;
  const int col0 = col0_base;
  (void)col0;
  __shared__ float cbuf4[64];
  __shared__ float cbuf13[64];
  rkc::cluster_arrive_relaxed();
  float f0[V];
  rkc::load_frag<float, V, W>(a0 + row * s0, col0, COL_STEP, N, f0, 0.0f);
  float r1 = __int_as_float(0xff800000);
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r1 = rkc::OpMax()(r1, f0[i]);
  }
  const float r2 = rkc::warp_reduce<32>(r1, rkc::OpMax());
  rkc::cluster_wait();
  const float r3 = rkc::cluster_reduce<8, 8>(r2, rkc::OpMax(), cbuf4, warp_in_row, lane);
  float f5[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v6 = f0[i];
    const float v7 = r3;
    const float v8 = (v6 - v7);
    const float v9 = expf(v8);
    f5[i] = v9;
  }
  float r10 = 0.0f;
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r10 = rkc::OpAdd()(r10, f5[i]);
  }
  const float r11 = rkc::warp_reduce<32>(r10, rkc::OpAdd());
  const float r12 = rkc::cluster_reduce<8, 8>(r11, rkc::OpAdd(), cbuf13, warp_in_row, lane);
  float sv14;
  {
    const float v15 = r12;
    const float v16 = 1.0f;
    const float v17 = (v16 / v15);
    sv14 = v17;
  }
  float f18[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v19 = f5[i];
    const float v20 = sv14;
    const float v21 = (v19 * v20);
    f18[i] = v21;
  }
  if (row_ok) rkc::store_frag<float, V, W>(a1 + row * s1, col0, COL_STEP, N, f18);
}

// kernel rkc_softmax: threads=256,values=64,vector=4,rows=1,cluster=16,staging=registers,unroll=16,min_blocks=0
extern "C" __global__ void __cluster_dims__(16, 1, 1) __launch_bounds__(256)
base_softmax_f32_262144(
    const float *__restrict__ a0,
    float *__restrict__ a1,
    const long long s0,
    const long long s1,
    const long long M) {
  constexpr int N = 262144;
  constexpr int V = 64;
  constexpr int W = 4;
  constexpr int TPR = 256;
  constexpr int ROWS = 1;
  constexpr int C = 16;
  constexpr int COL_STEP = C * TPR * W;
  constexpr bool FULL_ROW = true;
  constexpr int PASSES = 1; // sweeps of C * TPR * V columns
  constexpr int PASS_COLS = C * TPR * V;
  (void)PASSES; (void)PASS_COLS;
  (void)FULL_ROW; (void)ROWS;
  const int tid = threadIdx.x;
  const int t = tid % TPR;
  const int row_in_cta = tid / TPR;
  const int lane = tid & 31;
  const int warp_in_row = t / 32;
  (void)lane; (void)warp_in_row;
  const int rank = (int)rkc::cluster_ctarank();
  const long long row_raw = (long long)(blockIdx.x / C) * ROWS + row_in_cta;
  const bool row_ok = row_raw < M;
  const long long row = row_ok ? row_raw : M - 1;
  const int col0_base = (rank * TPR + t) * W;
  const int col0 = col0_base;
  (void)col0;
  __shared__ float cbuf4[128];
  __shared__ float cbuf13[128];
  rkc::cluster_arrive_relaxed();
  float f0[V];
  rkc::load_frag<float, V, W>(a0 + row * s0, col0, COL_STEP, N, f0, 0.0f);
  float r1 = __int_as_float(0xff800000);
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r1 = rkc::OpMax()(r1, f0[i]);
  }
  const float r2 = rkc::warp_reduce<32>(r1, rkc::OpMax());
  rkc::cluster_wait();
  const float r3 = rkc::cluster_reduce<8, 16>(r2, rkc::OpMax(), cbuf4, warp_in_row, lane);
  float f5[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v6 = f0[i];
    const float v7 = r3;
    const float v8 = (v6 - v7);
    const float v9 = expf(v8);
    f5[i] = v9;
  }
  float r10 = 0.0f;
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const int col = col0 + (i / W) * COL_STEP + (i % W);
    if (FULL_ROW || col < N) r10 = rkc::OpAdd()(r10, f5[i]);
  }
  const float r11 = rkc::warp_reduce<32>(r10, rkc::OpAdd());
  const float r12 = rkc::cluster_reduce<8, 16>(r11, rkc::OpAdd(), cbuf13, warp_in_row, lane);
  float sv14;
  {
    const float v15 = r12;
    const float v16 = 1.0f;
    const float v17 = (v16 / v15);
    sv14 = v17;
  }
  float f18[V];
  #pragma unroll
  for (int i = 0; i < V; ++i) {
    const float v19 = f5[i];
    const float v20 = sv14;
    const float v21 = (v19 * v20);
    f18[i] = v21;
  }
  if (row_ok) rkc::store_frag<float, V, W>(a1 + row * s1, col0, COL_STEP, N, f18);
}

