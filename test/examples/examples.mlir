// Every spec in examples/ parses and verifies; every row kernel among them
// (named row ops and the custom reductions written with generic ops) goes
// through the whole pipeline to CUDA for x = [128, 4096] bf16 on sm_90a:
// 4096 / 8 = 512 vectors -> 128 threads (4 warps) x 32 values, one row per
// CTA: warp_reduce<32> then block_reduce<4>.

// RUN: rk-opt %S/../../examples/rms_norm.mlir | FileCheck %s --check-prefix=RMS
// RUN: rk-opt %S/../../examples/softmax.mlir | FileCheck %s --check-prefix=SOFTMAX
// RUN: rk-opt %S/../../examples/layer_norm.mlir | FileCheck %s --check-prefix=LN
// RUN: rk-opt %S/../../examples/log_softmax.mlir | FileCheck %s --check-prefix=LOGSM
// RUN: rk-opt %S/../../examples/cross_entropy.mlir | FileCheck %s --check-prefix=CE
// RUN: rk-opt %S/../../examples/rms_norm_residual.mlir | FileCheck %s --check-prefix=RESID
// RUN: rk-opt %S/../../examples/quantize_int4.mlir | FileCheck %s --check-prefix=QUANT
// RUN: rk-opt %S/../../examples/dequantize_int4.mlir | FileCheck %s --check-prefix=DEQUANT
// RUN: rk-opt %S/../../examples/gemv_w4a16.mlir | FileCheck %s --check-prefix=GEMV
// RUN: rk-opt %S/../../examples/decode_attention.mlir | FileCheck %s --check-prefix=ATTN
// RUN: rk-opt %S/../../examples/logsumexp.mlir | FileCheck %s --check-prefix=LSE
// RUN: rk-opt %S/../../examples/l2_normalize.mlir | FileCheck %s --check-prefix=L2
// RUN: rk-opt %S/../../examples/argmax.mlir | FileCheck %s --check-prefix=ARGMAX
// RUN: rk-opt %S/../../examples/quantize_per_token_int8.mlir | FileCheck %s --check-prefix=QTOK

// RMS-LABEL: func.func @rms_norm
// RMS-SAME:    {rk.name = "x"}
// RMS:         rk.rms_norm
// SOFTMAX-LABEL: func.func @softmax
// SOFTMAX:       rk.softmax
// LN-LABEL: func.func @layer_norm
// LN-SAME:    {rk.name = "x"}, %{{.*}}: tensor<?x!rk.dtype> {rk.name = "w"}, %{{.*}}: tensor<?x!rk.dtype> {rk.name = "b"}
// LN:         rk.layer_norm %{{.*}}, %{{.*}}, %{{.*}} :
// LOGSM-LABEL: func.func @log_softmax
// LOGSM:       rk.log_softmax
// CE-LABEL: func.func @cross_entropy
// CE-SAME:    %{{.*}}: tensor<?xi64> {rk.name = "targets"}) -> (tensor<?xf32>, tensor<?xf32>)
// CE:         rk.cross_entropy
// RESID-LABEL: func.func @rms_norm_residual
// RESID:       rk.rms_norm %{{.*}}, %{{.*}} residual %{{.*}} :
// QUANT-LABEL: func.func @quantize_int4
// QUANT:       rk.quantize {{.*}} -> (tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<?x?xf16>)
// DEQUANT-LABEL: func.func @dequantize_int4
// DEQUANT:       rk.dequantize
// GEMV-LABEL: func.func @gemv_w4a16
// GEMV:       rk.gemv
// ATTN-LABEL: func.func @decode_attention
// ATTN:       rk.decode_attention {{.*}} {gqa_ratio = 4 : i64, scale = 0.0883883461 : f32}
// LSE-LABEL: func.func @logsumexp
// LSE:       rk.reduce %{{.*}}, %{{.*}} init [0xFF800000 : f32, 0.000000e+00 : f32] {
// LSE:       math.log
// L2-LABEL: func.func @l2_normalize
// L2:       rk.reduce add
// L2:       math.sqrt
// L2:       rk.broadcast %{{.*}} dims [0]
// ARGMAX-LABEL: func.func @argmax
// ARGMAX:       rk.reduce argmax %{{.*}} : tensor<?x?x!rk.dtype> -> tensor<?xf32>, tensor<?xi64>
// QTOK-LABEL: func.func @quantize_per_token_int8
// QTOK:       rk.quantize {{.*}} -> (tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<?x?xf16>)

// The non-row specs bind their shapes (they have no row lowering yet).
// RUN: rk-opt %S/../../examples/quantize_int4.mlir --rk-specialize-shapes="shapes=w=4096x1024 dtype=f16" | FileCheck %s --check-prefix=QUANT-SPEC
// RUN: rk-opt %S/../../examples/dequantize_int4.mlir --rk-specialize-shapes="shapes=q=4096x1024 dtype=bf16" | FileCheck %s --check-prefix=DEQUANT-SPEC
// RUN: rk-opt %S/../../examples/gemv_w4a16.mlir --rk-specialize-shapes="shapes=x=4x4096,q=4096x11008 dtype=f16" | FileCheck %s --check-prefix=GEMV-SPEC
// RUN: rk-opt %S/../../examples/decode_attention.mlir --rk-specialize-shapes="shapes=k=2x8x1024x128 dtype=bf16" | FileCheck %s --check-prefix=ATTN-SPEC
// 4096 / 128 = 32 scale groups along K.
// QUANT-SPEC: -> (tensor<4096x1024xi4, #rk.quant<{{.*}}>>, tensor<32x1024xf16>)
// DEQUANT-SPEC: tensor<32x1024xf16> {rk.name = "scales"}) -> tensor<4096x1024xbf16>
// GEMV-SPEC: (%{{.*}}: tensor<4x4096xf16> {rk.name = "x"}, %{{.*}}: tensor<4096x11008xi4, {{.*}}, %{{.*}}: tensor<32x11008xf16> {rk.name = "scales"}) -> tensor<4x11008xf16>
// The query batch comes from the cache; its heads from gqa_ratio x 8 = 32.
// ATTN-SPEC: (%{{.*}}: tensor<2x32x128xbf16> {rk.name = "q"}, %{{.*}}: tensor<2x8x1024x128xbf16> {rk.name = "k"}, %{{.*}}: tensor<2x8x1024x128xbf16> {rk.name = "v"}) -> tensor<2x32x128xbf16>

// The row kernels, through the pipeline to CUDA.
// RUN: rk-opt %S/../../examples/rms_norm.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefixes=CUDA-WAVE,RMS-CUDA
// RUN: rk-opt %S/../../examples/softmax.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefixes=CUDA,SOFTMAX-CUDA
// RUN: rk-opt %S/../../examples/layer_norm.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefixes=CUDA-WAVE,LN-CUDA
// RUN: rk-opt %S/../../examples/log_softmax.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefixes=CUDA,LOGSM-CUDA
// RUN: rk-opt %S/../../examples/cross_entropy.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefixes=CUDA,CE-CUDA
// RUN: rk-opt %S/../../examples/rms_norm_residual.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefixes=CUDA,RESID-CUDA
// RUN: rk-opt %S/../../examples/logsumexp.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=LSE-CUDA
// RUN: rk-opt %S/../../examples/l2_normalize.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefixes=CUDA-WAVE,L2-CUDA
// RUN: rk-opt %S/../../examples/argmax.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefixes=CUDA,ARGMAX-CUDA

// CUDA:       #include "rkc/rkc.cuh"
// (read-only rows of 16-bit data, cross-entropy and argmax here, are
// staged with cp.async: planner rule 5; a kernel without an [M, N] result
// reads its rows evict-first: stage_frag_stream)
// CUDA:       // kernel rkc_{{[a-z_0-9]+}}: threads=128,values=32,vector=8,rows=1,cluster=1,staging={{registers|async}},unroll=4,min_blocks=0
// CUDA:       extern "C" __global__ void __launch_bounds__(128)
// CUDA:       constexpr int N = 4096;
// CUDA:       rkc::{{load_frag<rkc::bf16, V, W>\(a0 \+ row \* s0, col0, COL_STEP, N,|stage_frag(_stream)?<rkc::bf16, V, W, TPR>\(st0, a0 \+ row \* s0, col0_base, COL_STEP, N, t\);}}
// CUDA-NOT:   __cluster_dims__

// RMSNorm, LayerNorm and l2_normalize (one 16-bit input, one 16-bit
// result, no math function but rsqrt / sqrt): 128 rows on 132 SMs are a
// grid of at most one row an SM, latency-bound, so 512 threads of 8 values
// (planner rule 3, the one-wave rows).
// CUDA-WAVE:  #include "rkc/rkc.cuh"
// CUDA-WAVE:  // kernel rkc_{{[a-z_0-9]+}}: threads=512,values=8,vector=8,rows=1,cluster=1,staging=registers,unroll=1,min_blocks=0
// CUDA-WAVE:  extern "C" __global__ void __launch_bounds__(512)
// CUDA-WAVE:  constexpr int N = 4096;
// CUDA-WAVE:  rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N,
// CUDA-WAVE-NOT: __cluster_dims__

// y = x * rsqrt(sum(x^2) / N + eps) * w: 128 CTAs are one wave on sm_90a
// (132 SMs), so w is loaded with the row (prefetch, planner rule 7), then
// one sum.
// RMS-CUDA:         rkc::warp_reduce<32>({{.*}}, rkc::OpAdd());
// RMS-CUDA-NEXT:    __shared__ float
// RMS-CUDA-NEXT:    rkc::block_reduce<16>(
// RMS-CUDA:         rsqrtf(
// RMS-CUDA-NOT:     (a1,
// RMS-CUDA:         rkc::store_frag<rkc::bf16, V, W>(a2 + row * s2,
// RUN: rk-opt %S/../../examples/rms_norm.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=RMS-PREFETCH
// RMS-PREFETCH:     rkc::load_frag<rkc::bf16, V, W>(a1, col0, COL_STEP, N,
// RMS-PREFETCH:     rkc::load_frag<rkc::bf16, V, W>(a0 + row * s0, col0, COL_STEP, N,
// RMS-PREFETCH:     rkc::warp_reduce<32>(

// A max, then a sum of exponentials (the row stays in registers: no online
// combiner at this size).
// SOFTMAX-CUDA:     rkc::warp_reduce<32>({{.*}}, rkc::OpMax());
// SOFTMAX-CUDA:     rkc::block_reduce<4>({{.*}}, rkc::OpMax(),
// SOFTMAX-CUDA:     rkc::fast_exp(
// SOFTMAX-CUDA:     rkc::warp_reduce<32>({{.*}}, rkc::OpAdd());
// SOFTMAX-CUDA:     rkc::block_reduce<4>({{.*}}, rkc::OpAdd(),
// SOFTMAX-CUDA:     rkc::store_frag<rkc::bf16, V, W>(a1 + row * s1,

// The mean, then the variance of x - mean; w and b are row vectors, loaded
// with the row (one wave of CTAs: prefetch).
// LN-CUDA:          rkc::block_reduce<16>({{.*}}, rkc::OpAdd(),
// LN-CUDA:          rkc::block_reduce<16>({{.*}}, rkc::OpAdd(),
// LN-CUDA:          rsqrtf(
// LN-CUDA-NOT:      (a1,
// LN-CUDA-NOT:      (a2,
// LN-CUDA:          rkc::store_frag<rkc::bf16, V, W>(a3 + row * s3,
// RUN: rk-opt %S/../../examples/layer_norm.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=LN-PREFETCH
// LN-PREFETCH-DAG:  rkc::load_frag<rkc::bf16, V, W>(a1, col0, COL_STEP, N,
// LN-PREFETCH-DAG:  rkc::load_frag<rkc::bf16, V, W>(a2, col0, COL_STEP, N,
// LN-PREFETCH:      rkc::warp_reduce<32>(

// LOGSM-CUDA:       rkc::block_reduce<4>({{.*}}, rkc::OpMax(),
// LOGSM-CUDA:       rkc::block_reduce<4>({{.*}}, rkc::OpAdd(),
// LOGSM-CUDA:       __logf(
// LOGSM-CUDA:       rkc::store_frag<rkc::bf16, V, W>(a1 + row * s1,

// The target logit is gathered (index range-checked) at the kernel's start,
// overlapping the row loads; loss and lse are per-row f32 results written
// by one thread of the row. bf16 data uses the fast exp/log.
// CE-CUDA:          rkc::block_reduce<4>({{.*}}, rkc::OpMax(),
// CE-CUDA:          rkc::block_reduce<4>({{.*}}, rkc::OpAdd(),
// CE-CUDA:          __logf(
// RUN: rk-opt %S/../../examples/cross_entropy.mlir --rkc-pipeline="shapes=x=128x4096 dtype=bf16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=CE-GATHER
// CE-GATHER:        const long long [[T:sv[0-9]+]] = (long long)a1[row];
// CE-GATHER-NEXT:   const float {{sv[0-9]+}} = ([[T]] >= 0 && [[T]] < N) ? rkc::to_f32(a0[row * s0 + [[T]]]) : 0.0f;
// (the row of bf16 logits is staged with cp.async, issued before the
// gather; the first staged load waits for the copies)
// CE-GATHER-NEXT:   rkc::cp_async_wait_all();
// CE-GATHER-NEXT:   rkc::PackedFrag<rkc::bf16, V> {{f[0-9]+}};
// CE-GATHER-NEXT:   rkc::load_frag_staged<rkc::bf16, V, W, TPR>(st0, t,
// CE-CUDA-DAG:      if (row_ok && t == 0 && rank == 0) a2[row] = rkc::from_f32<float>(
// CE-CUDA-DAG:      if (row_ok && t == 0 && rank == 0) a3[row] = rkc::from_f32<float>(

// x (a0, checked above) and the residual (a2) are [M, N] inputs; h = x +
// residual is stored as the second result (a4).
// RESID-CUDA:       rkc::load_frag<rkc::bf16, V, W>(a2 + row * s2,
// RESID-CUDA:       rkc::block_reduce<4>({{.*}}, rkc::OpAdd(),
// RESID-CUDA-DAG:   rkc::store_frag<rkc::bf16, V, W>(a3 + row * s3,
// RESID-CUDA-DAG:   rkc::store_frag<rkc::bf16, V, W>(a4 + row * s4,

// The custom (m, l) combiner becomes a state struct and one functor per
// tier, declared before the kernel (so the CUDA prefix does not apply); the
// -inf constant of the combiner is inside each functor.
// LSE-CUDA:         struct [[STATE:State[0-9]+]] { float c0; float c1; };
// LSE-CUDA:         struct [[COMB:Combine[0-9]+]] {
// LSE-CUDA:           const float [[NINF:v[0-9]+]] = __int_as_float(0xff800000);
// LSE-CUDA:           const bool {{v[0-9]+}} = ({{v[0-9]+}} == [[NINF]]);
// LSE-CUDA:         extern "C" __global__ void __launch_bounds__(128)
// (a read-only row of bf16: staged with cp.async, planner rule 5; no
// [M, N] result, so the copies allocate evict-first in L2)
// LSE-CUDA:         rkc::stage_frag_stream<rkc::bf16, V, W, TPR>(st0, a0 + row * s0, col0_base, COL_STEP, N, t);
// LSE-CUDA:         rkc::load_frag_staged<rkc::bf16, V, W, TPR>(st0, t,
// LSE-CUDA:         [[STATE]] [[T:r[0-9]+]] = [[STATE]]{__int_as_float(0xff800000), 0.0f};
// LSE-CUDA:           [[T]] = [[COMB]]()([[T]], [[STATE]]{
// LSE-CUDA:         rkc::warp_reduce<32>([[T]], Combine{{[0-9]+}}());
// LSE-CUDA:         rkc::block_reduce<4>(
// LSE-CUDA:         logf(
// LSE-CUDA:         if (row_ok && t == 0 && rank == 0) a1[row] = rkc::from_f32<float>(

// L2-CUDA:          rkc::block_reduce<16>({{.*}}, rkc::OpAdd(),
// L2-CUDA:          sqrtf(
// L2-CUDA:          rkc::store_frag<rkc::bf16, V, W>(a1 + row * s1,

// (value, column) states; the index goes to out0 (i64), the value to out1.
// ARGMAX-CUDA:      rkc::fold_arg_extreme<true, V, V, true>({{f[0-9]+}}, {{.*}}rkc::OpArgMax()({{r[0-9]+}}, rkc::ValIdx<float, long long>{m, col}); });
// ARGMAX-CUDA:      const rkc::ValIdx<float, long long> {{r[0-9]+}} = rkc::warp_reduce<32>({{r[0-9]+}}, rkc::OpArgMax());
// ARGMAX-CUDA:      const rkc::ValIdx<float, long long> {{r[0-9]+}} = rkc::block_reduce<4>({{r[0-9]+}}, rkc::OpArgMax(),
// ARGMAX-CUDA-DAG:  a1[row] = (long long){{sv[0-9]+}};
// ARGMAX-CUDA-DAG:  a2[row] = rkc::from_f32<float>({{sv[0-9]+}});

// Per-token int8 quantization is a row kernel (rk-decompose makes it one):
// the KV-cache shape of issue #8, [2^20, 128] f16. The i8 result makes the
// narrowest element 1 byte: 16-element vectors (two 16-byte loads of x, one
// 16-byte store of q per thread), 8 threads per row, 16 rows per CTA, a
// max over 8 lanes; the f16 scale is rounded before it divides (through
// its reciprocal and one FMA correction); the q values are f32 (clamped
// x / scale), rounded half to even into ints without a second clamp
// (s8_in_range) and stored as signed char; the [T, 1] scales are stored one
// per row with their row stride.
// RUN: rk-opt %S/../../examples/quantize_per_token_int8.mlir --rkc-pipeline="shapes=x=1048576x128 dtype=f16" --tier-emit-cuda=print=true -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=QTOK-CUDA
// QTOK-CUDA:        // kernel rkc_quantize_per_token_int8: threads=8,values=16,vector=16,rows=16,cluster=1,staging=registers,unroll=1,min_blocks=0,evict=last
// QTOK-CUDA:        signed char *__restrict__ a1,
// QTOK-CUDA-NEXT:   rkc::f16 *__restrict__ a2,
// QTOK-CUDA:        rkc::load_frag_keep<rkc::f16, V, W>(a0 + row * s0, col0, COL_STEP, N,
// QTOK-CUDA:        fabsf(
// QTOK-CUDA:        rkc::warp_reduce<8>({{.*}}, rkc::OpMax());
// QTOK-CUDA:        rkc::round_f16(
// QTOK-CUDA:        float [[QF:f[0-9]+]][V];
// QTOK-CUDA:        fmaf(
// QTOK-CUDA:        fmaf(
// QTOK-CUDA:        fminf(
// QTOK-CUDA:        int [[QI:f[0-9]+]][V];
// QTOK-CUDA:        [[QI]][i] = rkc::s8_in_range([[QF]][i]);
// QTOK-CUDA-NEXT:   rkc::store_frag<signed char, V, W>(a1 + row * s1, col0, COL_STEP, N, [[QI]]);
// QTOK-CUDA-NEXT:   if (row_ok && t == 0 && rank == 0) a2[row * s2] = rkc::from_f32<rkc::f16>(
