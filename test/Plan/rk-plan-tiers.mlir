// Plan decisions (lib/Plan/RowPlan.cpp) as remarks, at fixed architectures.
// The inputs are already specialised and decomposed row programs (a row sum
// unless said otherwise). Each part below is one rk-opt run (split-file).
// Numbers: 16-byte vectors; about 4 vector loads in flight per thread; a
// CTA of T threads has min(255, 65536 / max(T, 128)) registers per thread,
// 24 of them kept for addresses and state, the rest (rounded down to a
// power of two, at most 64) for row values; clusters when one CTA of 1024
// threads cannot hold the row; streaming when no cluster can.

// RUN: split-file %s %t
// RUN: rk-opt %t/sm90a.mlir --rk-plan-tiers=arch=sm_90a -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=SM90 --enable-var-scope
// RUN: rk-opt %t/rmsnorm.mlir --rk-plan-tiers=arch=sm_90a -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=RMS --enable-var-scope
// RUN: rk-opt %t/sm80.mlir --rk-plan-tiers=arch=sm_80 -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=SM80 --enable-var-scope
// RUN: rk-opt %t/softmax.mlir --rk-plan-tiers=arch=sm_90a -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=SOFTMAX --enable-var-scope
// RUN: rk-opt %t/one_wave_rows.mlir --rk-plan-tiers=arch=sm_90a -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=WAVE
// RUN: rk-opt %t/override.mlir --rk-plan-tiers="arch=sm_90a schedule=threads=512,vector=4,rows=1,unroll=1,min_blocks=2" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=OVERRIDE
// RUN: rk-opt %t/override_cluster.mlir --rk-plan-tiers="arch=sm_90a schedule=cluster=4" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=OVERRIDE-CLUSTER
// RUN: rk-opt %t/registers_cluster.mlir --rk-plan-tiers="arch=sm_90a schedule=staging=registers" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=REGISTERS-CLUSTER

// RUN: rk-opt %t/columns.mlir --rk-plan-tiers=arch=sm_90a -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=COLS
// RUN: rk-opt %t/columns_cuda_cores.mlir --rk-plan-tiers="arch=sm_90a schedule=mma=0" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=COLS-CC
// RUN: rk-opt %t/columns_override.mlir --rk-plan-tiers="arch=sm_90a schedule=vector=4,threads=256,cluster=4,unroll=4,mma=0" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=COLS-OVERRIDE
// RUN: rk-opt %t/columns_bad_field.mlir --rk-plan-tiers="arch=sm_90a schedule=values=8" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/columns_bad_field.mlir --rk-plan-tiers="arch=sm_90a schedule=split=4" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/columns_bad_field.mlir --rk-plan-tiers="arch=sm_90a schedule=evict=last" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/columns_bad_cluster.mlir --rk-plan-tiers="arch=sm_90a schedule=cluster=64" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/columns_unsupported.mlir --rk-plan-tiers=arch=sm_90a -split-input-file -verify-diagnostics -mlir-print-op-on-diagnostic=false

// Errors.
// RUN: rk-opt %t/async.mlir --rk-plan-tiers=arch=sm_90a -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=ASYNC --enable-var-scope
// RUN: rk-opt %t/read_once.mlir --rk-plan-tiers=arch=sm_90a -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=READ-ONCE --enable-var-scope
// RUN: rk-opt %t/two_sweeps.mlir --rk-plan-tiers=arch=sm_90a -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=TWO-SWEEPS
// RUN: rk-opt %t/elementwise.mlir --rk-plan-tiers=arch=sm_90a -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=ELEMENTWISE --enable-var-scope
// RUN: rk-opt %t/async_override.mlir --rk-plan-tiers="arch=sm_90a schedule=staging=async" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=ASYNC-OVERRIDE
// RUN: rk-opt %t/async_bad.mlir --rk-plan-tiers="arch=sm_90a schedule=staging=async,vector=2" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/bad_arch.mlir --rk-plan-tiers="arch=sm_70" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/bad_sms.mlir --rk-plan-tiers="arch=sm_90a sms=2000" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/device_sms.mlir --rk-plan-tiers="arch=sm_90a sms=78" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=SMS78
// RUN: rk-opt %t/fast_memory.mlir --rk-plan-tiers="arch=sm_90a dram-gbs=4917" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=FAST
// RUN: rk-opt %t/fast_memory.mlir --rk-plan-tiers="arch=sm_90a dram-gbs=3352" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=NOT-FAST
// RUN: rk-opt %t/fast_memory.mlir --rk-plan-tiers="arch=sm_90a" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=NOT-FAST
// RUN: rk-opt %t/bad_dram.mlir --rk-plan-tiers="arch=sm_90a dram-gbs=2000000" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/bad_integer.mlir --rk-plan-tiers="arch=sm_90a schedule=threads=abc" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/bad_field.mlir --rk-plan-tiers="arch=sm_90a schedule=foo=1" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/keep_override.mlir --rk-plan-tiers="arch=sm_90a schedule=keep=1" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=KEEP1
// RUN: rk-opt %t/keep_override.mlir --rk-plan-tiers="arch=sm_90a schedule=keep=0" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=KEEP0
// RUN: rk-opt %t/keep_override.mlir --rk-plan-tiers="arch=sm_90a schedule=cluster=16" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=SPLIT-CLUSTER
// RUN: rk-opt %t/split_override.mlir --rk-plan-tiers="arch=sm_90a schedule=split=8" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=SPLIT8
// RUN: rk-opt %t/split_bad.mlir --rk-plan-tiers="arch=sm_90a schedule=split=4,cluster=2" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/split_bad_pow2.mlir --rk-plan-tiers="arch=sm_90a schedule=split=12" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/min_blocks_bad.mlir --rk-plan-tiers="arch=sm_90a schedule=threads=1024,values=8,min_blocks=3" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/split_no_reduction.mlir --rk-plan-tiers="arch=sm_90a schedule=split=4" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/keep_not_streamed.mlir --rk-plan-tiers="arch=sm_90a schedule=keep=1" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/keep_too_many.mlir --rk-plan-tiers="arch=sm_90a schedule=keep=5" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/keep_too_big.mlir --rk-plan-tiers="arch=sm_90a schedule=threads=1024,values=64,cluster=8,staging=stream,keep=2" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/bad_staging.mlir --rk-plan-tiers="arch=sm_90a schedule=staging=disk" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/cluster_sm80.mlir --rk-plan-tiers="arch=sm_80 schedule=cluster=2" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/cluster_too_big.mlir --rk-plan-tiers="arch=sm_90a schedule=cluster=32" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/threads_too_many.mlir --rk-plan-tiers="arch=sm_90a schedule=threads=2048" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/spill.mlir --rk-plan-tiers="arch=sm_90a schedule=threads=32,values=512" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/cluster_rows.mlir --rk-plan-tiers="arch=sm_90a schedule=cluster=2,rows=2" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/vector_too_wide.mlir --rk-plan-tiers="arch=sm_90a schedule=vector=16" -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/analysis.mlir --rk-plan-tiers=arch=sm_90a -split-input-file -verify-diagnostics -mlir-print-op-on-diagnostic=false
// RUN: rk-opt %t/columns_global_acts.mlir --rk-plan-tiers=arch=sm_86 -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=GLOBAL-ACTS
// RUN: rk-opt %t/columns_global_acts_override.mlir --rk-plan-tiers="arch=sm_90a schedule=acts=global" -verify-diagnostics -mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=GLOBAL-ACTS-OVERRIDE

//--- sm90a.mlir
// A row that expands (int8 in, f32 out: per-token dequantization): vectors
// of 16 bytes of the result (4 values: 4-byte int8 loads), two per thread;
// the [M, 1] scales are one value per row.
// expected-remark@below {{plan: vector = 4: 4-byte accesses of 1-byte elements (16-byte accesses of the 4-byte results: the row expands)}}
// expected-remark@below {{plan: 16 threads per row (sub-warp), 8 values per thread (2 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 8 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
func.func @expanding_row(%q: tensor<4096x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, %s: tensor<4096x1xf16>) -> tensor<4096x128xf32> {
// SM90-LABEL: func.func @expanding_row
// SM90-SAME: tier.layout = #tier.tv_layout<threads = 16, values = 8, vector = 4, rows = 8>
  %sr = rk.reduce max %s : tensor<4096x1xf16> -> tensor<4096xf32>
  %sb = rk.broadcast %sr dims [0] : tensor<4096xf32> -> tensor<4096x128xf32>
  %y = rk.map %q, %sb {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %b, %a : f32
    rk.yield %p : f32
  } : tensor<4096x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<4096x128xf32> -> tensor<4096x128xf32>
  return %y : tensor<4096x128xf32>
}

// N = 32 f32: 16-byte vectors of 4 -> 8 vectors. A row sum is read-only (no
// [M, N] result): 4 vectors per thread, a sub-warp group of 2 threads (a
// warp_reduce of width 2, no block tier); 128 / 2 = 64 rows share a CTA.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 2 threads per row (sub-warp), 16 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 64 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @subwarp_f32(%x: tensor<4x32xf32>) -> tensor<4xf32> {
  %s = rk.reduce add %x : tensor<4x32xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
// SM90-LABEL: func.func @subwarp_f32
// SM90-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 2, values = 16, vector = 4, rows = 64>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}

// N = 3 is shorter than a 16-byte vector and a multiple of no vector > 1:
// 4-byte accesses; 3 vectors, up to 4 per thread (read-only) -> one thread
// a row, whose sum never leaves the thread tier; 128 rows per CTA.
// expected-remark@below {{plan: vector = 1: 4-byte accesses of 4-byte elements (the row is shorter than a 16-byte vector)}}
// expected-remark@below {{plan: 1 threads per row (sub-warp), 3 values per thread (3 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 128 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the thread tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @unaligned_f32(%x: tensor<4x3xf32>) -> tensor<4xf32> {
  %s = rk.reduce add %x : tensor<4x3xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
// SM90-LABEL: func.func @unaligned_f32
// SM90-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 1, values = 3, vector = 1, rows = 128>, tier.schedule = #tier.schedule<reduce = thread, cluster = 1, staging = registers, unroll = 3, min_blocks = 0>}

// Read-only rows (no [M, N] result) of N = 256 f32: 4 vectors per thread
// where the combiner is one instruction (a row sum, as cross-entropy's max
// and add) -> 16 threads; 8 where the combiner goes through math functions
// (an online logsumexp, two exp a combine, run once per element and once
// per shuffle level): 8 vectors per thread -> 8 threads, fewer shuffle
// levels.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 16 threads per row (sub-warp), 16 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 8 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @cheap_combine_f32(%x: tensor<64x256xf32>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x256xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
// SM90-LABEL: func.func @cheap_combine_f32
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 16, values = 16, vector = 4, rows = 8>

// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 8 threads per row (sub-warp), 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 16 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @heavy_combine_f32(%x: tensor<64x256xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %ones = rk.map %x {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    rk.yield %one : f32
  } : tensor<64x256xf32> -> tensor<64x256xf32>
  %m, %l = rk.reduce %x, %ones init [0xFF800000 : f32, 0.0 : f32] {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %d1 = arith.subf %m1, %m : f32
    %d2 = arith.subf %m2, %m : f32
    %e1 = math.exp %d1 : f32
    %e2 = math.exp %d2 : f32
    %a = arith.mulf %l1, %e1 : f32
    %b = arith.mulf %l2, %e2 : f32
    %s = arith.addf %a, %b : f32
    rk.yield %m, %s : f32, f32
  } : tensor<64x256xf32>, tensor<64x256xf32> -> tensor<64xf32>, tensor<64xf32>
  return %m, %l : tensor<64xf32>, tensor<64xf32>
}
// SM90-LABEL: func.func @heavy_combine_f32
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 8, values = 32, vector = 4, rows = 16>

// The same at N = 64: 8 vectors a thread would leave 2 threads a row, which
// lost to 4 threads of 4 vectors; the rule takes 8 only where 4 threads or
// more remain.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 4 threads per row (sub-warp), 16 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 32 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @heavy_combine_f32_short(%x: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %ones = rk.map %x {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    rk.yield %one : f32
  } : tensor<64x64xf32> -> tensor<64x64xf32>
  %m, %l = rk.reduce %x, %ones init [0xFF800000 : f32, 0.0 : f32] {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %d1 = arith.subf %m1, %m : f32
    %d2 = arith.subf %m2, %m : f32
    %e1 = math.exp %d1 : f32
    %e2 = math.exp %d2 : f32
    %a = arith.mulf %l1, %e1 : f32
    %b = arith.mulf %l2, %e2 : f32
    %s = arith.addf %a, %b : f32
    rk.yield %m, %s : f32, f32
  } : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64xf32>, tensor<64xf32>
  return %m, %l : tensor<64xf32>, tensor<64xf32>
}
// SM90-LABEL: func.func @heavy_combine_f32_short
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 4, values = 16, vector = 4, rows = 32>

// N = 1000 = 125 x 8: 8-element vectors; 125 vectors at 4 in flight -> 32
// threads (one warp: no block tier), 4 x 8 = 32 values; 128 / 32 = 4 rows.
// A read-only row of 16-bit data in one CTA (a sum, like cross-entropy):
// staging = async.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 32 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 4 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @f16_n1000(%x: tensor<4x1000xf16>) -> tensor<4xf32> {
  %s = rk.reduce add %x : tensor<4x1000xf16> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
// SM90-LABEL: func.func @f16_n1000
// SM90-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}

// N = 4096 bf16: 4096 / 8 = 512 vectors at 4 in flight -> 128 threads (4
// warps: block tier), 32 values per thread; one row per CTA; read-only
// 16-bit: async.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 128 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @bf16_n4096(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
// SM90-LABEL: func.func @bf16_n4096
// SM90-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}

// N = 16384 f32, read-only (a sum, like cross-entropy f32): 4096 vectors;
// widening stops at 512 threads x 8 vectors, within the 64-value budget of a
// 512-thread CTA, so two CTAs share an SM (one 1024-thread CTA per SM runs
// its loads and its reduction back to back).
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @f32_n16384_read_only(%x: tensor<64x16384xf32>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x16384xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
// SM90-LABEL: func.func @f32_n16384_read_only
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 4, rows = 1>

// The same row with an [M, N] result (x + x): 512 threads x 8 vectors as
// well, since two such CTAs fit an SM's registers by the estimate.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: no reduction: every value is mapped on its own}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @f32_n16384_map(%x: tensor<64x16384xf32>) -> tensor<64x16384xf32> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %v = arith.addf %a, %a : f32
    rk.yield %v : f32
  } : tensor<64x16384xf32> -> tensor<64x16384xf32>
  return %y : tensor<64x16384xf32>
}
// SM90-LABEL: func.func @f32_n16384_map
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 4, rows = 1>

// Mapped through exp (softmax's): 512 threads as well.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: no reduction: every value is mapped on its own}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @f32_n16384_exp(%x: tensor<64x16384xf32>) -> tensor<64x16384xf32> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %v = math.exp %a : f32
    rk.yield %v : f32
  } : tensor<64x16384xf32> -> tensor<64x16384xf32>
  return %y : tensor<64x16384xf32>
}
// SM90-LABEL: func.func @f32_n16384_exp
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 4, rows = 1>

// Mapped through sin (temporaries the register estimate does not see:
// random programs spilled at 512 threads): 1024 threads x 4 vectors.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 1024 threads per row, 16 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (1024 threads)}}
// expected-remark@below {{plan: no reduction: every value is mapped on its own}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @f32_n16384_sin(%x: tensor<64x16384xf32>) -> tensor<64x16384xf32> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %v = math.sin %a : f32
    rk.yield %v : f32
  } : tensor<64x16384xf32> -> tensor<64x16384xf32>
  return %y : tensor<64x16384xf32>
}
// SM90-LABEL: func.func @f32_n16384_sin
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 1024, values = 16, vector = 4, rows = 1>

// N = 256 bf16, read-only: 32 vectors, 4 per thread -> 8 threads (not 32
// threads of one vector: a row without stores needs more loads in flight);
// 128 / 8 = 16 rows per CTA; async.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 8 threads per row (sub-warp), 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 16 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @bf16_n256_read_only(%x: tensor<64x256xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x256xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
// SM90-LABEL: func.func @bf16_n256_read_only
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 8, values = 32, vector = 8, rows = 16>

// The same row with an [M, N] result (x * 2): two vectors per thread, 16
// threads, registers.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 16 threads per row (sub-warp), 16 values per thread (2 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 8 (128 threads)}}
// expected-remark@below {{plan: no reduction: every value is mapped on its own}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @bf16_n256_map(%x: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %v = arith.addf %a, %a : f32
    rk.yield %v : f32
  } : tensor<64x256xbf16> -> tensor<64x256xbf16>
  return %y : tensor<64x256xbf16>
}
// SM90-LABEL: func.func @bf16_n256_map
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 16, values = 16, vector = 8, rows = 8>

// N = 65536 bf16: 8192 vectors. 1024 threads hold at most 4 vectors each
// (a CTA of 1024 threads has 64 registers per thread: (64 - 16) -> 32
// values), 4096 vectors: the row needs a cluster. Cluster CTAs have 256
// threads and stage their part asynchronously, 64 values (8 vectors, 32
// KiB per CTA) each: 8192 / (256 x 8) = 4.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 4: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @bf16_n65536(%x: tensor<8x65536xbf16>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x65536xbf16> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// SM90-LABEL: func.func @bf16_n65536
// SM90-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 64, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = async, unroll = 8, min_blocks = 0>}

// N = 65536, f32 values quantized to int8 (a [M, N] result of 1 byte): the
// vector is 16 int8, so an f32 input chunk is 64 bytes, not the 16 that
// cp.async copies: the cluster row stays in registers, 32 values per thread.
// expected-remark@below {{plan: vector = 16: 16-byte accesses of 1-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (2 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 8: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @f32_to_i8_n65536(%x: tensor<8x65536xf32>) -> tensor<8x65536xi8> {
  %m = rk.reduce max %x : tensor<8x65536xf32> -> tensor<8xf32>
  %b = rk.broadcast %m dims [0] : tensor<8xf32> -> tensor<8x65536xf32>
  %q = rk.map %x, %b {
  ^bb0(%a: f32, %s: f32):
    %v = arith.divf %a, %s : f32
    %i = arith.fptosi %v : f32 to i8
    rk.yield %i : i8
  } : tensor<8x65536xf32>, tensor<8x65536xf32> -> tensor<8x65536xi8>
  return %q : tensor<8x65536xi8>
}
// SM90-LABEL: func.func @f32_to_i8_n65536
// SM90-SAME:    staging = registers

// N = 262144 f32: 65536 vectors of 4; 256-thread cluster CTAs staging 64
// values (16 vectors, 64 KiB per CTA) each: 65536 / (256 x 16) = 16. Read
// once, but 8 rows are too few to fill the GPU with a CTA each: staged.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (16 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 16: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @f32_n262144(%x: tensor<8x262144xf32>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x262144xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// SM90-LABEL: func.func @f32_n262144
// SM90-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 64, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = async, unroll = 16, min_blocks = 0>}

// The same row over M = 512 rows, read once (no [M, N] result, one
// reduction): it would need a cluster, and its rows fill the GPU twice
// over, so it is streamed instead, one CTA of 512 threads per row, half
// the register budget per pass (8 vectors, 32 values): 262144 / (512 x 32)
// = 16 passes.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = stream: the row is read once (no [M, N] result, one reduction deep) and would need a cluster; it is swept in passes (16) of 16384 elements, with online combiners}}
func.func @f32_n262144_read_once(%x: tensor<512x262144xf32>) -> tensor<512xf32> {
  %s = rk.reduce add %x : tensor<512x262144xf32> -> tensor<512xf32>
  return %s : tensor<512xf32>
}
// SM90-LABEL: func.func @f32_n262144_read_once
// SM90-SAME:    tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 8, min_blocks = 0>

// The same read-once row with N odd: its rows are shifted (each read from
// the 16-byte-aligned address up to 3 elements before it), so it keeps
// 16-byte vectors and is streamed like the aligned row: 50257 + 3 columns,
// ceil(50260 / 16384) = 4 passes.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements (shifted rows: N is not a multiple of 4, so each row is read from the aligned address up to 3 elements before it)}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = stream: the row is read once (no [M, N] result, one reduction deep) and would need a cluster; it is swept in passes (4) of 16384 elements, with online combiners}}
func.func @f32_n50257_read_once_shifted(%x: tensor<4096x50257xf32>) -> tensor<4096xf32> {
  %s = rk.reduce add %x : tensor<4096x50257xf32> -> tensor<4096xf32>
  return %s : tensor<4096xf32>
}
// SM90-LABEL: func.func @f32_n50257_read_once_shifted
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 4, rows = 1>
// SM90-SAME:    staging = stream

// Two reductions deep (max, then the sum of exp(x - max), not fused): a
// streamed kernel would read the row twice, so it stays staged.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (16 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 16: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @f32_n262144_two_deep(%x: tensor<512x262144xf32>) -> tensor<512xf32> {
  %m = rk.reduce max %x : tensor<512x262144xf32> -> tensor<512xf32>
  %b = rk.broadcast %m dims [0] : tensor<512xf32> -> tensor<512x262144xf32>
  %e = rk.map %x, %b {
  ^bb0(%a: f32, %c: f32):
    %d = arith.subf %a, %c : f32
    %v = math.exp %d : f32
    rk.yield %v : f32
  } : tensor<512x262144xf32>, tensor<512x262144xf32> -> tensor<512x262144xf32>
  %s = rk.reduce add %e : tensor<512x262144xf32> -> tensor<512xf32>
  return %s : tensor<512xf32>
}
// SM90-LABEL: func.func @f32_n262144_two_deep
// SM90-SAME:    staging = async

// N = 1048576 f32: 262144 vectors > 16 CTAs x 256 threads x 16 vectors:
// no cluster holds the row, it is streamed with the largest cluster (16)
// and half the register budget per sweep (8 vectors, 32 values):
// 1048576 / (256 x 16 x 32) = 8 passes. 128 rows read once keep the
// clusters (128 x 16 CTAs fill the GPU; the grid tier measured slower for
// cross-entropy, session 24).
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 16: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (8) of 131072 elements, with online combiners}}
func.func @f32_n1048576(%x: tensor<128x1048576xf32>) -> tensor<128xf32> {
  %s = rk.reduce add %x : tensor<128x1048576xf32> -> tensor<128xf32>
  return %s : tensor<128xf32>
}
// SM90-LABEL: func.func @f32_n1048576
// SM90-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 8, min_blocks = 0>}

// The same with 8 rows: 8 clusters of 16 CTAs would leave most of the GPU
// idle; the grid tier splits each row over floor2(2 x 132 / 8) = 32 CTAs
// of a persistent grid (256 CTAs, two per SM), which combine through
// global memory: 1048576 / (256 x 32 x 32) = 4 passes.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: split = 32: the row is split over 32 CTAs of a persistent, co-resident grid that combine their partial states through global memory (clusters of a streamed row leave SMs idle)}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the grid tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (4) of 262144 elements, with online combiners}}
func.func @f32_n1048576_few_rows(%x: tensor<8x1048576xf32>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x1048576xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// SM90-LABEL: func.func @f32_n1048576_few_rows
// SM90-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 8, min_blocks = 0, split = 32>}

// One row of 2^24: floor2(2 x 132) = 256 CTAs would fill the GPU; a
// launch needs every CTA of a row resident, so at most floor2(132) = 128.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: split = 128: the row is split over 128 CTAs of a persistent, co-resident grid that combine their partial states through global memory (clusters of a streamed row leave SMs idle)}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the grid tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (16) of 1048576 elements, with online combiners}}
func.func @f32_one_row(%x: tensor<1x16777216xf32>) -> tensor<1xf32> {
  %s = rk.reduce add %x : tensor<1x16777216xf32> -> tensor<1xf32>
  return %s : tensor<1xf32>
}
// SM90-LABEL: func.func @f32_one_row
// SM90-SAME:    split = 128>

// N = 1048576 bf16 with an [M, N] result: streamed and swept twice, in
// CTAs of 512 threads, two per SM (min_blocks = 2: half the row parts in
// flight of 256-thread CTAs at the same threads per SM, so more of the
// second sweep hits L2):
// 1048576 / (512 x 16 x 32) = 4 passes. The first sweep keeps its first
// passes in shared memory for the second, as many as two CTAs per SM
// leave room for: (227 KiB / 2 - 4 KiB) / (512 x 32 x 2 bytes) = 3.
// 16-bit rows with a result take the grid tier: 16 CTAs per row of a
// persistent grid (clusters of 16 would leave 20 SMs idle).
// expected-remark@below {{plan: keep = 3: the first 3 of the 4 passes stay in shared memory between the sweeps (96 KiB per CTA)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: split = 16: the row is split over 16 CTAs of a persistent, co-resident grid that combine their partial states through global memory (clusters of a streamed row leave SMs idle)}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the grid tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (4) of 262144 elements, with online combiners}}
func.func @bf16_n1048576_result(%x: tensor<128x1048576xbf16>) -> tensor<128x1048576xbf16> {
  %s = rk.reduce add %x : tensor<128x1048576xbf16> -> tensor<128xf32>
  %b = rk.broadcast %s dims [0] : tensor<128xf32> -> tensor<128x1048576xf32>
  %y = rk.map %x, %b {
  ^bb0(%a: f32, %c: f32):
    %p = arith.mulf %a, %c : f32
    rk.yield %p : f32
  } : tensor<128x1048576xbf16>, tensor<128x1048576xf32> -> tensor<128x1048576xbf16>
  return %y : tensor<128x1048576xbf16>
}
// SM90-LABEL: func.func @bf16_n1048576_result
// SM90-SAME:    tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 4, min_blocks = 2, keep = 3, split = 16>}

//--- sm80.mlir
// Rows that fit one CTA are planned as on sm_90a.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 128 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @bf16_n4096(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
// SM80-LABEL: func.func @bf16_n4096
// SM80-SAME:    attributes {tier.arch = "sm_80", tier.layout = #tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}

// No clusters on sm_80: the row (8192 vectors > 1024 x 4) does not fit
// registers; it fits shared memory (65536 x 2 bytes = 128 KiB of 163 KiB),
// so it is staged there once and swept in 1024 threads x 16 values:
// 65536 / 16384 = 4 passes.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 1024 threads per row, 16 values per thread (2 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (1024 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = smem: the row is staged in shared memory (cp.async) and swept in passes (4) of 16384 elements; global memory is read once}}
func.func @bf16_n65536(%x: tensor<8x65536xbf16>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x65536xbf16> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// SM80-LABEL: func.func @bf16_n65536
// SM80-SAME:    attributes {tier.arch = "sm_80", tier.layout = #tier.tv_layout<threads = 1024, values = 16, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = smem, unroll = 2, min_blocks = 0>}

// No clusters: 262144 / (1024 x 16) = 16 passes.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 1024 threads per row, 16 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (1024 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (16) of 16384 elements, with online combiners}}
func.func @f32_n262144(%x: tensor<8x262144xf32>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x262144xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// SM80-LABEL: func.func @f32_n262144
// SM80-SAME:    attributes {tier.arch = "sm_80", tier.layout = #tier.tv_layout<threads = 1024, values = 16, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = stream, unroll = 4, min_blocks = 0>}

//--- softmax.mlir
// A decomposed softmax, N = 32768 bf16 (4096 vectors). x is dead once
// e = exp(x - max) is formed, so one fragment is live at a time and 1024
// threads x 4 vectors hold the row: no cluster.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 1024 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (1024 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @softmax(%arg0: tensor<16x32768xbf16> {rk.name = "x"}) -> tensor<16x32768xbf16> {
  %cst = arith.constant 1.000000e+00 : f32
  %0 = rk.reduce max %arg0 : tensor<16x32768xbf16> -> tensor<16xf32>
  %1 = rk.broadcast %0 dims [0] : tensor<16xf32> -> tensor<16x32768xf32>
  %2 = rk.map %arg0, %1 {
  ^bb0(%arg1: f32, %arg2: f32):
    %7 = arith.subf %arg1, %arg2 : f32
    %8 = math.exp %7 : f32
    rk.yield %8 : f32
  } : tensor<16x32768xbf16>, tensor<16x32768xf32> -> tensor<16x32768xf32>
  %3 = rk.reduce add %2 : tensor<16x32768xf32> -> tensor<16xf32>
  %4 = rk.map %3 {
  ^bb0(%arg1: f32):
    %7 = arith.divf %cst, %arg1 : f32
    rk.yield %7 : f32
  } : tensor<16xf32> -> tensor<16xf32>
  %5 = rk.broadcast %4 dims [0] : tensor<16xf32> -> tensor<16x32768xf32>
  %6 = rk.map %2, %5 {
  ^bb0(%arg1: f32, %arg2: f32):
    %7 = arith.mulf %arg1, %arg2 : f32
    rk.yield %7 : f32
  } : tensor<16x32768xf32>, tensor<16x32768xf32> -> tensor<16x32768xbf16>
  return %6 : tensor<16x32768xbf16>
}
// SOFTMAX-LABEL: func.func @softmax
// SOFTMAX-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 1024, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}

//--- rmsnorm.mlir
// A decomposed RMSNorm, N = 32768. The weight w is first used after the
// last reduction: it is loaded there and consumed element by element, so
// its 16-bit values wait packed, two per register: x (1) + w (1/2) = 1.5
// live fragments at the last map. bf16: 1024 threads have (64 - 16) / 1.5
// = 32 values for the 4096 vectors (4 each): one CTA, no cluster.
// 8 CTAs are far less than a wave, but prefetching w (a whole fragment
// from the start: 1 + 1 + 1/2 -> 2.5 x 32 = 80 > 64 registers) does not fit.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 1024 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (1024 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @rms_bf16(%x: tensor<8x32768xbf16> {rk.name = "x"}, %w: tensor<32768xbf16> {rk.name = "w"}) -> tensor<8x32768xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 3.276800e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<8x32768xbf16> -> tensor<8x32768xf32>
  %1 = rk.reduce add %0 : tensor<8x32768xf32> -> tensor<8xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<8xf32>, f32, f32 -> tensor<8xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<8xf32> -> tensor<8x32768xf32>
  %4 = rk.broadcast %w dims [1] : tensor<32768xbf16> -> tensor<8x32768xbf16>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<8x32768xbf16>, tensor<8x32768xf32>, tensor<8x32768xbf16> -> tensor<8x32768xbf16>
  return %5 : tensor<8x32768xbf16>
}
// RMS-LABEL: func.func @rms_bf16
// RMS-SAME:    tier.tv_layout<threads = 1024, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}

// The same in f32: w's values take a register each, 2 live fragments;
// 1024 threads have (64 - 16) / 2 = 24 -> 16 values, too few for the 8192
// vectors of 4: a cluster of 256-thread CTAs staging 64 values each
// asynchronously (x waits in shared memory: w and the result, 2 fragments
// at the last map), 8192 / (256 x 16) = 2 CTAs. 8 rows x 2 = 16 CTAs, less
// than a wave (108, the smallest target's SM count when the GPU is
// unknown): w is loaded with the row (64 x (2 + 1) = 192 of 255 registers).
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (16 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 2: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: prefetch: the [N] operands are loaded with the row (16 CTAs, about one wave: the kernel is latency-bound)}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @rms_f32(%x: tensor<8x32768xf32> {rk.name = "x"}, %w: tensor<32768xf32> {rk.name = "w"}) -> tensor<8x32768xf32> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 3.276800e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<8x32768xf32> -> tensor<8x32768xf32>
  %1 = rk.reduce add %0 : tensor<8x32768xf32> -> tensor<8xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<8xf32>, f32, f32 -> tensor<8xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<8xf32> -> tensor<8x32768xf32>
  %4 = rk.broadcast %w dims [1] : tensor<32768xf32> -> tensor<8x32768xf32>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<8x32768xf32>, tensor<8x32768xf32>, tensor<8x32768xf32> -> tensor<8x32768xf32>
  return %5 : tensor<8x32768xf32>
}
// RMS-LABEL: func.func @rms_f32
// RMS-SAME:    tier.tv_layout<threads = 256, values = 64, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 2, staging = async, unroll = 16, min_blocks = 0, prefetch = 1>}

// The same f32 row with 4096 rows: 8192 CTAs, many waves; w stays where
// it is first used.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (16 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 2: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @rms_f32_many(%x: tensor<4096x32768xf32> {rk.name = "x"}, %w: tensor<32768xf32> {rk.name = "w"}) -> tensor<4096x32768xf32> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 3.276800e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<4096x32768xf32> -> tensor<4096x32768xf32>
  %1 = rk.reduce add %0 : tensor<4096x32768xf32> -> tensor<4096xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<4096xf32>, f32, f32 -> tensor<4096xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<4096xf32> -> tensor<4096x32768xf32>
  %4 = rk.broadcast %w dims [1] : tensor<32768xf32> -> tensor<4096x32768xf32>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<4096x32768xf32>, tensor<4096x32768xf32>, tensor<4096x32768xf32> -> tensor<4096x32768xf32>
  return %5 : tensor<4096x32768xf32>
}
// RMS-LABEL: func.func @rms_f32_many
// RMS-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 2, staging = async, unroll = 16, min_blocks = 0, evict_last = 1>}

// RMSNorm with a bias, bf16, 128 x 32768 (more than a wave of clusters of 2): x (1) + w and b (1/2 each, packed
// where first used, after the reduction) = 2 live fragments. 1024 threads
// have (64 - 16) / 2 = 24 -> 16 values, too few for the 4096 vectors of 8,
// but one CTA of 512 threads holds them at 64 values each: 64 x 2 = 128,
// the registers exactly (the planner's margin would have said a cluster
// of 2): the row stays in one CTA, in registers.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @rms_bias_bf16(%x: tensor<128x32768xbf16> {rk.name = "x"}, %w: tensor<32768xbf16> {rk.name = "w"}, %b: tensor<32768xbf16> {rk.name = "b"}) -> tensor<128x32768xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 3.276800e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<128x32768xbf16> -> tensor<128x32768xf32>
  %1 = rk.reduce add %0 : tensor<128x32768xf32> -> tensor<128xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %c: f32, %d: f32):
    %6 = arith.divf %a, %c : f32
    %7 = arith.addf %6, %d : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<128xf32>, f32, f32 -> tensor<128xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<128xf32> -> tensor<128x32768xf32>
  %4 = rk.broadcast %w dims [1] : tensor<32768xbf16> -> tensor<128x32768xbf16>
  %5 = rk.broadcast %b dims [1] : tensor<32768xbf16> -> tensor<128x32768xbf16>
  %y = rk.map %x, %3, %4, %5 {
  ^bb0(%a: f32, %c: f32, %d: f32, %e: f32):
    %6 = arith.mulf %a, %c : f32
    %7 = arith.mulf %6, %d : f32
    %8 = arith.addf %7, %e : f32
    rk.yield %8 : f32
  } : tensor<128x32768xbf16>, tensor<128x32768xf32>, tensor<128x32768xbf16>, tensor<128x32768xbf16> -> tensor<128x32768xbf16>
  return %y : tensor<128x32768xbf16>
}
// RMS-LABEL: func.func @rms_bias_bf16
// RMS-SAME:    tier.tv_layout<threads = 512, values = 64, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 8, min_blocks = 0>}

// The same at N = 32000: 4000 vectors, not a multiple of 512 threads (the
// last chunks masked: ptxas spilled them at 128 registers), so a cluster
// (16 CTAs, less than a wave: w and b loaded with the row).
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 2: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: prefetch: the [N] operands are loaded with the row (16 CTAs, about one wave: the kernel is latency-bound)}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @rms_bias_bf16_partial(%x: tensor<8x32000xbf16> {rk.name = "x"}, %w: tensor<32000xbf16> {rk.name = "w"}, %b: tensor<32000xbf16> {rk.name = "b"}) -> tensor<8x32000xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 3.200000e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<8x32000xbf16> -> tensor<8x32000xf32>
  %1 = rk.reduce add %0 : tensor<8x32000xf32> -> tensor<8xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %c: f32, %d: f32):
    %6 = arith.divf %a, %c : f32
    %7 = arith.addf %6, %d : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<8xf32>, f32, f32 -> tensor<8xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<8xf32> -> tensor<8x32000xf32>
  %4 = rk.broadcast %w dims [1] : tensor<32000xbf16> -> tensor<8x32000xbf16>
  %5 = rk.broadcast %b dims [1] : tensor<32000xbf16> -> tensor<8x32000xbf16>
  %y = rk.map %x, %3, %4, %5 {
  ^bb0(%a: f32, %c: f32, %d: f32, %e: f32):
    %6 = arith.mulf %a, %c : f32
    %7 = arith.mulf %6, %d : f32
    %8 = arith.addf %7, %e : f32
    rk.yield %8 : f32
  } : tensor<8x32000xbf16>, tensor<8x32000xf32>, tensor<8x32000xbf16>, tensor<8x32000xbf16> -> tensor<8x32000xbf16>
  return %y : tensor<8x32000xbf16>
}
// RMS-LABEL: func.func @rms_bias_bf16_partial
// RMS-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 2, staging = async

// At N = 24576 (48 values a thread at the edge) the cluster of 2 holds
// 48 values and both [N] operands in registers: with the rows about one
// wave (8 rows, 16 CTAs) it loads w and b with the row (prefetch), which
// the edge's 512-thread CTA cannot, and the planner declines the edge.
// expected-remark@below {{plan: registers edge declined: one CTA of 512 threads would hold the row, but the rows are about one wave and a cluster loads the [N] operands with the row}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 48 values per thread (6 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 2: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: prefetch: the [N] operands are loaded with the row (16 CTAs, about one wave: the kernel is latency-bound)}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @edge_declined_one_wave(%x: tensor<8x24576xbf16> {rk.name = "x"}, %w: tensor<24576xbf16> {rk.name = "w"}, %b: tensor<24576xbf16> {rk.name = "b"}) -> tensor<8x24576xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 2.457600e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<8x24576xbf16> -> tensor<8x24576xf32>
  %1 = rk.reduce add %0 : tensor<8x24576xf32> -> tensor<8xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %c: f32, %d: f32):
    %6 = arith.divf %a, %c : f32
    %7 = arith.addf %6, %d : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<8xf32>, f32, f32 -> tensor<8xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<8xf32> -> tensor<8x24576xf32>
  %4 = rk.broadcast %w dims [1] : tensor<24576xbf16> -> tensor<8x24576xbf16>
  %5 = rk.broadcast %b dims [1] : tensor<24576xbf16> -> tensor<8x24576xbf16>
  %y = rk.map %x, %3, %4, %5 {
  ^bb0(%a: f32, %c: f32, %d: f32, %e: f32):
    %6 = arith.mulf %a, %c : f32
    %7 = arith.mulf %6, %d : f32
    %8 = arith.addf %7, %e : f32
    rk.yield %8 : f32
  } : tensor<8x24576xbf16>, tensor<8x24576xf32>, tensor<8x24576xbf16>, tensor<8x24576xbf16> -> tensor<8x24576xbf16>
  return %y : tensor<8x24576xbf16>
}
// RMS-LABEL: func.func @edge_declined_one_wave
// RMS-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 2, staging = async, unroll = 6, min_blocks = 0, prefetch = 1>}

// The same row over more than a wave of clusters (128 rows): no cluster
// prefetches, and the edge's one CTA a row holds it in registers.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 48 values per thread (6 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @edge_many_rows(%x: tensor<128x24576xbf16> {rk.name = "x"}, %w: tensor<24576xbf16> {rk.name = "w"}, %b: tensor<24576xbf16> {rk.name = "b"}) -> tensor<128x24576xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 2.457600e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<128x24576xbf16> -> tensor<128x24576xf32>
  %1 = rk.reduce add %0 : tensor<128x24576xf32> -> tensor<128xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %c: f32, %d: f32):
    %6 = arith.divf %a, %c : f32
    %7 = arith.addf %6, %d : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<128xf32>, f32, f32 -> tensor<128xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<128xf32> -> tensor<128x24576xf32>
  %4 = rk.broadcast %w dims [1] : tensor<24576xbf16> -> tensor<128x24576xbf16>
  %5 = rk.broadcast %b dims [1] : tensor<24576xbf16> -> tensor<128x24576xbf16>
  %y = rk.map %x, %3, %4, %5 {
  ^bb0(%a: f32, %c: f32, %d: f32, %e: f32):
    %6 = arith.mulf %a, %c : f32
    %7 = arith.mulf %6, %d : f32
    %8 = arith.addf %7, %e : f32
    rk.yield %8 : f32
  } : tensor<128x24576xbf16>, tensor<128x24576xf32>, tensor<128x24576xbf16>, tensor<128x24576xbf16> -> tensor<128x24576xbf16>
  return %y : tensor<128x24576xbf16>
}
// RMS-LABEL: func.func @edge_many_rows
// RMS-SAME:    tier.tv_layout<threads = 512, values = 48, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 6, min_blocks = 0>}

// A streamed 16-bit row with an f32 result (4 bytes a column): too heavy
// for the 32 values a thread of the 16-bit rows' 512-thread CTAs held to
// 64 registers (min_blocks = 2; random programs like it spilled 116-624
// bytes there), so the same CTAs with half the values per pass.
// expected-remark@below {{plan: vector = 4: 8-byte accesses of 2-byte elements (16-byte accesses of the 4-byte results: the row expands)}}
// expected-remark@below {{plan: 512 threads per row, 16 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: split = 32: the row is split over 32 CTAs of a persistent, co-resident grid that combine their partial states through global memory (clusters of a streamed row leave SMs idle)}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the grid tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (4) of 262144 elements, with online combiners}}
func.func @stream_f32_result(%x: tensor<8x1048576xbf16> {rk.name = "x"}) -> tensor<8x1048576xf32> {
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<8x1048576xbf16> -> tensor<8x1048576xf32>
  %1 = rk.reduce add %0 : tensor<8x1048576xf32> -> tensor<8xf32>
  %2 = rk.map %1 {
  ^bb0(%a: f32):
    %8 = math.rsqrt %a : f32
    rk.yield %8 : f32
  } : tensor<8xf32> -> tensor<8xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<8xf32> -> tensor<8x1048576xf32>
  %y = rk.map %x, %3 {
  ^bb0(%a: f32, %c: f32):
    %6 = arith.mulf %a, %c : f32
    rk.yield %6 : f32
  } : tensor<8x1048576xbf16>, tensor<8x1048576xf32> -> tensor<8x1048576xf32>
  return %y : tensor<8x1048576xf32>
}
// RMS-LABEL: func.func @stream_f32_result
// RMS-SAME:    tier.tv_layout<threads = 512, values = 16, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 4, min_blocks = 2, split = 32>}

// An f32 row of 1M with [N] operands (w, b): every row reads them again
// from L2, whose traffic sets the pace, so the split keeps each CTA to few
// passes, all kept in shared memory (the second sweep reads nothing
// again); with one reduction, one pass a CTA whose grid wait is deferred
// past the next row's sweep (a second 32 KiB buffer): 1048576 / (256 x 32)
// = 128 CTAs. Measured at 128 x 1M on the H100: LayerNorm 478 -> 445 us
// against split 64 with two kept passes (session 30).
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: split = 128: the row is split over 128 CTAs of a persistent, co-resident grid that combine their partial states through global memory (clusters of a streamed row leave SMs idle)}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the grid tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (1) of 1048576 elements, with online combiners}}
// expected-remark@below {{plan: keep = 1: the first 1 of the 1 passes stay in shared memory between the sweeps (32 KiB per CTA)}}
// expected-remark@below {{plan: deferred grid waits: each CTA sweeps its next row into a second buffer (32 KiB) before it waits for its group's statistics of this one}}
func.func @stream_f32_operands(%x: tensor<128x1048576xf32> {rk.name = "x"}, %w: tensor<1048576xf32> {rk.name = "w"}, %b: tensor<1048576xf32> {rk.name = "b"}) -> tensor<128x1048576xf32> {
  %eps = arith.constant 9.99999997E-7 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<128x1048576xf32> -> tensor<128x1048576xf32>
  %1 = rk.reduce add %0 : tensor<128x1048576xf32> -> tensor<128xf32>
  %2 = rk.map %1, %eps {
  ^bb0(%a: f32, %d: f32):
    %7 = arith.addf %a, %d : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<128xf32>, f32 -> tensor<128xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<128xf32> -> tensor<128x1048576xf32>
  %4 = rk.broadcast %w dims [1] : tensor<1048576xf32> -> tensor<128x1048576xf32>
  %5 = rk.broadcast %b dims [1] : tensor<1048576xf32> -> tensor<128x1048576xf32>
  %y = rk.map %x, %3, %4, %5 {
  ^bb0(%a: f32, %c: f32, %d: f32, %e: f32):
    %6 = arith.mulf %a, %c : f32
    %7 = arith.mulf %6, %d : f32
    %8 = arith.addf %7, %e : f32
    rk.yield %8 : f32
  } : tensor<128x1048576xf32>, tensor<128x1048576xf32>, tensor<128x1048576xf32>, tensor<128x1048576xf32> -> tensor<128x1048576xf32>
  return %y : tensor<128x1048576xf32>
}
// RMS-LABEL: func.func @stream_f32_operands
// RMS-SAME:    tier.tv_layout<threads = 256, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 8, min_blocks = 0, keep = 1, split = 128>}

// The same without [N] operands: 4 passes a CTA, 3 kept (softmax f32 lost
// 7 % at split 64, session 24).
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: split = 32: the row is split over 32 CTAs of a persistent, co-resident grid that combine their partial states through global memory (clusters of a streamed row leave SMs idle)}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the grid tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (4) of 262144 elements, with online combiners}}
// expected-remark@below {{plan: keep = 3: the first 3 of the 4 passes stay in shared memory between the sweeps (96 KiB per CTA)}}
func.func @stream_f32_no_operands(%x: tensor<128x1048576xf32> {rk.name = "x"}) -> tensor<128x1048576xf32> {
  %eps = arith.constant 9.99999997E-7 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<128x1048576xf32> -> tensor<128x1048576xf32>
  %1 = rk.reduce add %0 : tensor<128x1048576xf32> -> tensor<128xf32>
  %2 = rk.map %1, %eps {
  ^bb0(%a: f32, %d: f32):
    %7 = arith.addf %a, %d : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<128xf32>, f32 -> tensor<128xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<128xf32> -> tensor<128x1048576xf32>
  %y = rk.map %x, %3 {
  ^bb0(%a: f32, %c: f32):
    %6 = arith.mulf %a, %c : f32
    rk.yield %6 : f32
  } : tensor<128x1048576xf32>, tensor<128x1048576xf32> -> tensor<128x1048576xf32>
  return %y : tensor<128x1048576xf32>
}
// RMS-LABEL: func.func @stream_f32_no_operands
// RMS-SAME:    tier.tv_layout<threads = 256, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 8, min_blocks = 0, keep = 3, split = 32>}

// The registers' edge needs an epilogue that consumes its fragments chunk
// by chunk: a row mapped through exp (many temporaries per value: random
// programs with exp, tanh or atan spilled at 128 registers) keeps the
// cluster, and so does a row whose reductions wait with more than the row
// input (here a result computed before them, held to the end).
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 2: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @edge_exp(%x: tensor<4096x32768xbf16> {rk.name = "x"}, %w: tensor<32768xbf16> {rk.name = "w"}, %b: tensor<32768xbf16> {rk.name = "b"}) -> tensor<4096x32768xbf16> {
  %0 = rk.reduce add %x : tensor<4096x32768xbf16> -> tensor<4096xf32>
  %1 = rk.map %0 {
  ^bb0(%a: f32):
    %r = math.rsqrt %a : f32
    rk.yield %r : f32
  } : tensor<4096xf32> -> tensor<4096xf32>
  %2 = rk.broadcast %1 dims [0] : tensor<4096xf32> -> tensor<4096x32768xf32>
  %3 = rk.broadcast %w dims [1] : tensor<32768xbf16> -> tensor<4096x32768xbf16>
  %4 = rk.broadcast %b dims [1] : tensor<32768xbf16> -> tensor<4096x32768xbf16>
  %y = rk.map %x, %2, %3, %4 {
  ^bb0(%a: f32, %s: f32, %c: f32, %d: f32):
    %m = arith.mulf %a, %s : f32
    %e = math.exp %m : f32
    %r = arith.mulf %e, %c : f32
    %q = arith.addf %r, %d : f32
    rk.yield %q : f32
  } : tensor<4096x32768xbf16>, tensor<4096x32768xf32>, tensor<4096x32768xbf16>, tensor<4096x32768xbf16> -> tensor<4096x32768xbf16>
  return %y : tensor<4096x32768xbf16>
}
// RMS-LABEL: func.func @edge_exp
// RMS-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 2, staging = async

// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 2: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @edge_held_result(%x: tensor<4096x32768xbf16> {rk.name = "x"}) -> (tensor<4096x32768xbf16>, tensor<4096x32768xbf16>) {
  %z = rk.map %x {
  ^bb0(%a: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %a, %c : f32
    rk.yield %r : f32
  } : tensor<4096x32768xbf16> -> tensor<4096x32768xbf16>
  %0 = rk.reduce add %x : tensor<4096x32768xbf16> -> tensor<4096xf32>
  %1 = rk.broadcast %0 dims [0] : tensor<4096xf32> -> tensor<4096x32768xf32>
  %y = rk.map %x, %1 {
  ^bb0(%a: f32, %b: f32):
    %r = arith.mulf %a, %b : f32
    rk.yield %r : f32
  } : tensor<4096x32768xbf16>, tensor<4096x32768xf32> -> tensor<4096x32768xbf16>
  return %y, %z : tensor<4096x32768xbf16>, tensor<4096x32768xbf16>
}
// RMS-LABEL: func.func @edge_held_result
// RMS-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 2, staging = async

//--- one_wave_rows.mlir
// Planner rule 3's one-wave rows: one 16- or 32-bit input, a result of its width, no
// math function in the maps over the row, at most one row an SM (128 rows
// on sm_90a's 132): 512 threads of 8 values instead of 128 of 32 (the
// thread's chain is the latency-bound grid's time).
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 8 values per thread (1 vector loads in flight) (at most one row an SM: 128 rows on 132 SMs, a latency-bound grid, few values a thread)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: prefetch: the [N] operands are loaded with the row (128 CTAs, about one wave: the kernel is latency-bound)}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @rms_one_wave(%x: tensor<128x4096xbf16> {rk.name = "x"}, %w: tensor<4096xbf16> {rk.name = "w"}) -> tensor<128x4096xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 4.096000e+03 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<128x4096xbf16> -> tensor<128x4096xf32>
  %1 = rk.reduce add %0 : tensor<128x4096xf32> -> tensor<128xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<128xf32>, f32, f32 -> tensor<128xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<128xf32> -> tensor<128x4096xf32>
  %4 = rk.broadcast %w dims [1] : tensor<4096xbf16> -> tensor<128x4096xbf16>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<128x4096xbf16>, tensor<128x4096xf32>, tensor<128x4096xbf16> -> tensor<128x4096xbf16>
  return %5 : tensor<128x4096xbf16>
}
// WAVE-LABEL: func.func @rms_one_wave
// WAVE-SAME:    tier.tv_layout<threads = 512, values = 8, vector = 8, rows = 1>

// 256 rows: more than one an SM, the widening's 128 threads.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 128 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
func.func @rms_two_waves(%x: tensor<256x4096xbf16> {rk.name = "x"}, %w: tensor<4096xbf16> {rk.name = "w"}) -> tensor<256x4096xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 4.096000e+03 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<256x4096xbf16> -> tensor<256x4096xf32>
  %1 = rk.reduce add %0 : tensor<256x4096xf32> -> tensor<256xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<256xf32>, f32, f32 -> tensor<256xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<256xf32> -> tensor<256x4096xf32>
  %4 = rk.broadcast %w dims [1] : tensor<4096xbf16> -> tensor<256x4096xbf16>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<256x4096xbf16>, tensor<256x4096xf32>, tensor<256x4096xbf16> -> tensor<256x4096xbf16>
  return %5 : tensor<256x4096xbf16>
}
// WAVE-LABEL: func.func @rms_two_waves
// WAVE-SAME:    tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>

// exp in a map over the row (softmax-like rows measured no faster at 512).
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 128 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: prefetch: the [N] operands are loaded with the row (128 CTAs, about one wave: the kernel is latency-bound)}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @exp_row_one_wave(%x: tensor<128x4096xbf16> {rk.name = "x"}, %w: tensor<4096xbf16> {rk.name = "w"}) -> tensor<128x4096xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 4.096000e+03 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = math.exp %a : f32
    rk.yield %6 : f32
  } : tensor<128x4096xbf16> -> tensor<128x4096xf32>
  %1 = rk.reduce add %0 : tensor<128x4096xf32> -> tensor<128xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<128xf32>, f32, f32 -> tensor<128xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<128xf32> -> tensor<128x4096xf32>
  %4 = rk.broadcast %w dims [1] : tensor<4096xbf16> -> tensor<128x4096xbf16>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<128x4096xbf16>, tensor<128x4096xf32>, tensor<128x4096xbf16> -> tensor<128x4096xbf16>
  return %5 : tensor<128x4096xbf16>
}
// WAVE-LABEL: func.func @exp_row_one_wave
// WAVE-SAME:    tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>

// One 32-bit input and a 32-bit result (session 40): 512 threads of 4
// values instead of the widening's 128 of 16.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 4 values per thread (1 vector loads in flight) (at most one row an SM: 128 rows on 132 SMs, a latency-bound grid, few values a thread)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: prefetch: the [N] operands are loaded with the row (128 CTAs, about one wave: the kernel is latency-bound)}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @rms_f32_one_wave(%x: tensor<128x2048xf32> {rk.name = "x"}, %w: tensor<2048xf32> {rk.name = "w"}) -> tensor<128x2048xf32> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 2.048000e+03 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<128x2048xf32> -> tensor<128x2048xf32>
  %1 = rk.reduce add %0 : tensor<128x2048xf32> -> tensor<128xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<128xf32>, f32, f32 -> tensor<128xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<128xf32> -> tensor<128x2048xf32>
  %4 = rk.broadcast %w dims [1] : tensor<2048xf32> -> tensor<128x2048xf32>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<128x2048xf32>, tensor<128x2048xf32>, tensor<128x2048xf32> -> tensor<128x2048xf32>
  return %5 : tensor<128x2048xf32>
}
// WAVE-LABEL: func.func @rms_f32_one_wave
// WAVE-SAME:    tier.tv_layout<threads = 512, values = 4, vector = 4, rows = 1>

// Two 16-bit [M, N] inputs (x + residual): measured mixed at 512 threads
// (0.97-0.99x at 128 x 4096), the widening's 128.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 128 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: prefetch: the [N] operands are loaded with the row (128 CTAs, about one wave: the kernel is latency-bound)}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @rms_residual_one_wave(%x: tensor<128x4096xbf16> {rk.name = "x"}, %r: tensor<128x4096xbf16> {rk.name = "residual"}, %w: tensor<4096xbf16> {rk.name = "w"}) -> tensor<128x4096xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 4.096000e+03 : f32
  %0 = rk.map %x, %r {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    %6 = arith.mulf %s, %s : f32
    rk.yield %6 : f32
  } : tensor<128x4096xbf16>, tensor<128x4096xbf16> -> tensor<128x4096xf32>
  %1 = rk.reduce add %0 : tensor<128x4096xf32> -> tensor<128xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<128xf32>, f32, f32 -> tensor<128xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<128xf32> -> tensor<128x4096xf32>
  %4 = rk.broadcast %w dims [1] : tensor<4096xbf16> -> tensor<128x4096xbf16>
  %5 = rk.map %x, %r, %3, %4 {
  ^bb0(%a: f32, %e: f32, %b: f32, %c: f32):
    %s = arith.addf %a, %e : f32
    %6 = arith.mulf %s, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<128x4096xbf16>, tensor<128x4096xbf16>, tensor<128x4096xf32>, tensor<128x4096xbf16> -> tensor<128x4096xbf16>
  return %5 : tensor<128x4096xbf16>
}
// WAVE-LABEL: func.func @rms_residual_one_wave
// WAVE-SAME:    tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>

//--- override.mlir
// The override replaces the heuristic field by field: 8-byte vectors, 512
// threads -> 4096 / 512 = 8 values; unroll and min_blocks as given.
// expected-remark@below {{plan: vector = 4: 8-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 8 values per thread (2 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @override(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
// OVERRIDE-LABEL: func.func @override
// OVERRIDE-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 512, values = 8, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 1, min_blocks = 2>}

//--- override_cluster.mlir
// Only the cluster is overridden: the row still needs a cluster, so CTAs of
// 256 threads, staged asynchronously; 8192 vectors / (4 x 256) = 8
// vectors, 64 values per thread.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 4: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @override_cluster(%x: tensor<8x65536xbf16>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x65536xbf16> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// OVERRIDE-CLUSTER-LABEL: func.func @override_cluster
// OVERRIDE-CLUSTER-SAME:    attributes {tier.arch = "sm_90a", tier.layout = #tier.tv_layout<threads = 256, values = 64, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = async, unroll = 8, min_blocks = 0>}

//--- read_once.mlir
// Read-only 16-bit rows (no [M, N] result), one per CTA, over more than a
// wave: held in registers (their loads are evict-first), two CTAs per SM
// (min_blocks = 2) only for CTAs of at most 128 threads (measured in
// docs/performance-notes.md, session 21).
// N = 4096 bf16, M = 32768: 128 threads x 32 values.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 128 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @sum_bf16_4k(%x: tensor<32768x4096xbf16>) -> tensor<32768xf32> {
  %s = rk.reduce add %x : tensor<32768x4096xbf16> -> tensor<32768xf32>
  return %s : tensor<32768xf32>
}
// READ-ONCE-LABEL: func.func @sum_bf16_4k
// READ-ONCE-SAME:    tier.layout = #tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 2>}

// N = 8192 bf16, M = 16384: 256 threads x 32 values, no register cap.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @argmax_bf16_8k(%x: tensor<16384x8192xbf16>) -> (tensor<16384xf32>, tensor<16384xi64>) {
  %v, %i = rk.reduce argmax %x : tensor<16384x8192xbf16> -> tensor<16384xf32>, tensor<16384xi64>
  return %v, %i : tensor<16384xf32>, tensor<16384xi64>
}
// READ-ONCE-LABEL: func.func @argmax_bf16_8k
// READ-ONCE-SAME:    tier.layout = #tier.tv_layout<threads = 256, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}

//--- two_sweeps.mlir
// A read-only row swept twice (a sum, then the sum of squares of x minus
// it): streamed like a row with a result, 512 threads and two CTAs per SM
// for 16-bit data, the first sweep's first passes kept in shared memory
// (measured in docs/performance-notes.md, session 22).
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 16: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (4) of 262144 elements, with online combiners}}
// expected-remark@below {{plan: keep = 3: the first 3 of the 4 passes stay in shared memory between the sweeps (96 KiB per CTA)}}
func.func @sum_then_squares_bf16_1m(%arg0: tensor<128x1048576xbf16>) -> (tensor<128xf32>, tensor<128xf32>) {
  %0 = rk.reduce add %arg0 : tensor<128x1048576xbf16> -> tensor<128xf32>
  %1 = rk.broadcast %0 dims [0] : tensor<128xf32> -> tensor<128x1048576xf32>
  %2 = rk.map %arg0, %1 {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %q = arith.mulf %d, %d : f32
    rk.yield %q : f32
  } : tensor<128x1048576xbf16>, tensor<128x1048576xf32> -> tensor<128x1048576xf32>
  %3 = rk.reduce add %2 : tensor<128x1048576xf32> -> tensor<128xf32>
  return %0, %3 : tensor<128xf32>, tensor<128xf32>
}
// TWO-SWEEPS-LABEL: func.func @sum_then_squares_bf16_1m
// TWO-SWEEPS-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 2, keep = 3>}

// One sweep (a sum alone, few rows): nothing kept, 256 threads.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 16: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (8) of 131072 elements, with online combiners}}
func.func @sum_bf16_1m(%arg0: tensor<128x1048576xbf16>) -> tensor<128xf32> {
  %0 = rk.reduce add %arg0 : tensor<128x1048576xbf16> -> tensor<128xf32>
  return %0 : tensor<128xf32>
}
// TWO-SWEEPS-LABEL: func.func @sum_bf16_1m
// TWO-SWEEPS-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 0>}

//--- elementwise.mlir
// A row with no reduction that would need a cluster, 16-bit data: streamed
// in one sweep by CTAs of 512 threads, the cluster what keeps each CTA to
// two passes of its part and spreads the rows over about 2048 CTAs, no
// passes kept (one sweep); 32-bit data keep the staged cluster plan
// (measured in docs/performance-notes.md, session 22).
// N = 262144 bf16, M = 512: passes of 512 x 32 values, cluster 8.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 8: the row is split over the CTAs of a cluster (no reduction: they spread the rows over the GPU)}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: no reduction: every value is mapped on its own}}
// expected-remark@below {{plan: staging = stream: each value is read and written once (no reduction) and the row would need a cluster; it is swept in passes (2) of 131072 elements}}
func.func @scale_bf16_256k(%x: tensor<512x262144xbf16>) -> tensor<512x262144xbf16> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %h = arith.constant 0.5 : f32
    %r = arith.mulf %a, %h : f32
    rk.yield %r : f32
  } : tensor<512x262144xbf16> -> tensor<512x262144xbf16>
  return %y : tensor<512x262144xbf16>
}
// ELEMENTWISE-LABEL: func.func @scale_bf16_256k
// ELEMENTWISE-SAME:    tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 8, staging = stream, unroll = 4, min_blocks = 2>}

// Few rows (M = 8): the largest cluster the row can use.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 16: the row is split over the CTAs of a cluster (no reduction: they spread the rows over the GPU)}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: no reduction: every value is mapped on its own}}
// expected-remark@below {{plan: staging = stream: each value is read and written once (no reduction) and the row would need a cluster; it is swept in passes (1) of 262144 elements}}
func.func @scale_bf16_256k_few_rows(%x: tensor<8x262144xbf16>) -> tensor<8x262144xbf16> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %h = arith.constant 0.5 : f32
    %r = arith.mulf %a, %h : f32
    rk.yield %r : f32
  } : tensor<8x262144xbf16> -> tensor<8x262144xbf16>
  return %y : tensor<8x262144xbf16>
}
// ELEMENTWISE-LABEL: func.func @scale_bf16_256k_few_rows
// ELEMENTWISE-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 2>}

// Many rows (M = 4096 of N = 65536): clusters of 2, two passes per CTA.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 2: the row is split over the CTAs of a cluster (no reduction: they spread the rows over the GPU)}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: no reduction: every value is mapped on its own}}
// expected-remark@below {{plan: staging = stream: each value is read and written once (no reduction) and the row would need a cluster; it is swept in passes (2) of 32768 elements}}
func.func @scale_bf16_64k_many_rows(%x: tensor<4096x65536xbf16>) -> tensor<4096x65536xbf16> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %h = arith.constant 0.5 : f32
    %r = arith.mulf %a, %h : f32
    rk.yield %r : f32
  } : tensor<4096x65536xbf16> -> tensor<4096x65536xbf16>
  return %y : tensor<4096x65536xbf16>
}
// ELEMENTWISE-LABEL: func.func @scale_bf16_64k_many_rows
// ELEMENTWISE-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 2, staging = stream, unroll = 4, min_blocks = 2>}

// The same map of f32 rows: the staged cluster plan.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (16 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 16: the row is split over the CTAs of a cluster (no reduction: they spread the rows over the GPU)}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: no reduction: every value is mapped on its own}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @scale_f32_256k(%x: tensor<512x262144xf32>) -> tensor<512x262144xf32> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %h = arith.constant 0.5 : f32
    %r = arith.mulf %a, %h : f32
    rk.yield %r : f32
  } : tensor<512x262144xf32> -> tensor<512x262144xf32>
  return %y : tensor<512x262144xf32>
}
// ELEMENTWISE-LABEL: func.func @scale_f32_256k
// ELEMENTWISE-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = async, unroll = 16, min_blocks = 0>}

//--- async.mlir
// staging = async (rule 4 in RowPlan.cpp, measured in
// docs/performance-notes.md, session 8): a row split over a cluster is
// copied into shared memory with cp.async, 64 values per thread, and read
// back at each use (nothing held in registers across the reductions).
// N = 65536 bf16: 8192 vectors; 256-thread CTAs of 8 vectors: cluster 4.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 4: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @softmax_bf16_cluster(%arg0: tensor<8x65536xbf16> {rk.name = "x"}) -> tensor<8x65536xbf16> {
  %cst = arith.constant 1.000000e+00 : f32
  %0 = rk.reduce max %arg0 : tensor<8x65536xbf16> -> tensor<8xf32>
  %1 = rk.broadcast %0 dims [0] : tensor<8xf32> -> tensor<8x65536xf32>
  %2 = rk.map %arg0, %1 {
  ^bb0(%arg1: f32, %arg2: f32):
    %7 = arith.subf %arg1, %arg2 : f32
    %8 = math.exp %7 : f32
    rk.yield %8 : f32
  } : tensor<8x65536xbf16>, tensor<8x65536xf32> -> tensor<8x65536xf32>
  %3 = rk.reduce add %2 : tensor<8x65536xf32> -> tensor<8xf32>
  %4 = rk.map %3 {
  ^bb0(%arg1: f32):
    %7 = arith.divf %cst, %arg1 : f32
    rk.yield %7 : f32
  } : tensor<8xf32> -> tensor<8xf32>
  %5 = rk.broadcast %4 dims [0] : tensor<8xf32> -> tensor<8x65536xf32>
  %6 = rk.map %2, %5 {
  ^bb0(%arg1: f32, %arg2: f32):
    %7 = arith.mulf %arg1, %arg2 : f32
    rk.yield %7 : f32
  } : tensor<8x65536xf32>, tensor<8x65536xf32> -> tensor<8x65536xbf16>
  return %6 : tensor<8x65536xbf16>
}
// ASYNC-LABEL: func.func @softmax_bf16_cluster
// ASYNC-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = async, unroll = 8, min_blocks = 0>

// The same row in f32: 64 values per thread too (64 KiB of shared memory
// per CTA). 16384 vectors of 4; 256-thread CTAs of 16 vectors: cluster 4.
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (16 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 4: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @softmax_f32_cluster(%arg0: tensor<8x65536xf32> {rk.name = "x"}) -> tensor<8x65536xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %0 = rk.reduce max %arg0 : tensor<8x65536xf32> -> tensor<8xf32>
  %1 = rk.broadcast %0 dims [0] : tensor<8xf32> -> tensor<8x65536xf32>
  %2 = rk.map %arg0, %1 {
  ^bb0(%arg1: f32, %arg2: f32):
    %7 = arith.subf %arg1, %arg2 : f32
    %8 = math.exp %7 : f32
    rk.yield %8 : f32
  } : tensor<8x65536xf32>, tensor<8x65536xf32> -> tensor<8x65536xf32>
  %3 = rk.reduce add %2 : tensor<8x65536xf32> -> tensor<8xf32>
  %4 = rk.map %3 {
  ^bb0(%arg1: f32):
    %7 = arith.divf %cst, %arg1 : f32
    rk.yield %7 : f32
  } : tensor<8xf32> -> tensor<8xf32>
  %5 = rk.broadcast %4 dims [0] : tensor<8xf32> -> tensor<8x65536xf32>
  %6 = rk.map %2, %5 {
  ^bb0(%arg1: f32, %arg2: f32):
    %7 = arith.mulf %arg1, %arg2 : f32
    rk.yield %7 : f32
  } : tensor<8x65536xf32>, tensor<8x65536xf32> -> tensor<8x65536xf32>
  return %6 : tensor<8x65536xf32>
}
// ASYNC-LABEL: func.func @softmax_f32_cluster
// ASYNC-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = async, unroll = 16, min_blocks = 0>

// One reduction (a row sum) over the same bf16 row: async too.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 4: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @sum_bf16_cluster(%x: tensor<8x65536xbf16>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x65536xbf16> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// ASYNC-LABEL: func.func @sum_bf16_cluster
// ASYNC-SAME:    staging = async

// Two reductions but no [M, N] result (a row logsumexp, as cross-entropy):
// async.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 4: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @lse_bf16_cluster(%x: tensor<8x65536xbf16>) -> tensor<8xf32> {
  %m = rk.reduce max %x : tensor<8x65536xbf16> -> tensor<8xf32>
  %mb = rk.broadcast %m dims [0] : tensor<8xf32> -> tensor<8x65536xf32>
  %e = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    rk.yield %v : f32
  } : tensor<8x65536xbf16>, tensor<8x65536xf32> -> tensor<8x65536xf32>
  %s = rk.reduce add %e : tensor<8x65536xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// ASYNC-LABEL: func.func @lse_bf16_cluster
// ASYNC-SAME:    staging = async

// Two reductions, a row result and an [N] operand (a LayerNorm-like
// scale): async; 8 rows x 4 CTAs, so w is prefetched.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 4: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: prefetch: the [N] operands are loaded with the row (32 CTAs, about one wave: the kernel is latency-bound)}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @scaled_bf16_cluster(%x: tensor<8x65536xbf16>, %w: tensor<65536xbf16>) -> tensor<8x65536xbf16> {
  %m = rk.reduce max %x : tensor<8x65536xbf16> -> tensor<8xf32>
  %s = rk.reduce add %x : tensor<8x65536xbf16> -> tensor<8xf32>
  %t = rk.map %m, %s {
  ^bb0(%a: f32, %b: f32):
    %v = arith.addf %a, %b : f32
    rk.yield %v : f32
  } : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %tb = rk.broadcast %t dims [0] : tensor<8xf32> -> tensor<8x65536xf32>
  %wb = rk.broadcast %w dims [1] : tensor<65536xbf16> -> tensor<8x65536xbf16>
  %y = rk.map %x, %tb, %wb {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.mulf %a, %b : f32
    %v = arith.mulf %d, %c : f32
    rk.yield %v : f32
  } : tensor<8x65536xbf16>, tensor<8x65536xf32>, tensor<8x65536xbf16> -> tensor<8x65536xbf16>
  return %y : tensor<8x65536xbf16>
}
// ASYNC-LABEL: func.func @scaled_bf16_cluster
// ASYNC-SAME:    staging = async

// Two 16-bit [N] operands (a LayerNorm-like weight and bias): staged too,
// 64 values per thread (the emitter loads them in the epilogue's chunk
// loop; measured 1.15-1.45x over 32 values in registers for LayerNorm bf16
// at N = 32768 .. 262144, docs/performance-notes.md, session 9).
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 4: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @scale_shift_bf16_cluster(%x: tensor<2048x65536xbf16>, %w: tensor<65536xbf16>, %b: tensor<65536xbf16>) -> tensor<2048x65536xbf16> {
  %m = rk.reduce max %x : tensor<2048x65536xbf16> -> tensor<2048xf32>
  %s = rk.reduce add %x : tensor<2048x65536xbf16> -> tensor<2048xf32>
  %t = rk.map %m, %s {
  ^bb0(%a: f32, %c: f32):
    %v = arith.addf %a, %c : f32
    rk.yield %v : f32
  } : tensor<2048xf32>, tensor<2048xf32> -> tensor<2048xf32>
  %tb = rk.broadcast %t dims [0] : tensor<2048xf32> -> tensor<2048x65536xf32>
  %wb = rk.broadcast %w dims [1] : tensor<65536xbf16> -> tensor<2048x65536xbf16>
  %bb = rk.broadcast %b dims [1] : tensor<65536xbf16> -> tensor<2048x65536xbf16>
  %y = rk.map %x, %tb, %wb, %bb {
  ^bb0(%a: f32, %c: f32, %d: f32, %e: f32):
    %p = arith.mulf %a, %c : f32
    %q = arith.mulf %p, %d : f32
    %v = arith.addf %q, %e : f32
    rk.yield %v : f32
  } : tensor<2048x65536xbf16>, tensor<2048x65536xf32>, tensor<2048x65536xbf16>, tensor<2048x65536xbf16> -> tensor<2048x65536xbf16>
  return %y : tensor<2048x65536xbf16>
}
// ASYNC-LABEL: func.func @scale_shift_bf16_cluster
// ASYNC-SAME:    staging = async

// One CTA of 512 threads per row of 16384 bf16 values, with a result, over
// 8192 rows (many waves): staged, same layout (measured 1.15x for softmax
// bf16 at this shape, docs/performance-notes.md, session 8).
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
func.func @scaled_bf16_wide(%x: tensor<8192x16384xbf16>) -> tensor<8192x16384xbf16> {
  %m = rk.reduce max %x : tensor<8192x16384xbf16> -> tensor<8192xf32>
  %mb = rk.broadcast %m dims [0] : tensor<8192xf32> -> tensor<8192x16384xf32>
  %y = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %v = arith.subf %a, %b : f32
    rk.yield %v : f32
  } : tensor<8192x16384xbf16>, tensor<8192x16384xf32> -> tensor<8192x16384xbf16>
  return %y : tensor<8192x16384xbf16>
}
// ASYNC-LABEL: func.func @scaled_bf16_wide
// ASYNC-SAME:    tier.layout = #tier.tv_layout<threads = 512, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0, evict_last = 1>

// The same row over 16 rows (16 CTAs, under a wave: latency-bound, not
// measured staged): registers.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @scaled_bf16_wide_few(%x: tensor<16x16384xbf16>) -> tensor<16x16384xbf16> {
  %m = rk.reduce max %x : tensor<16x16384xbf16> -> tensor<16xf32>
  %mb = rk.broadcast %m dims [0] : tensor<16xf32> -> tensor<16x16384xf32>
  %y = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %v = arith.subf %a, %b : f32
    rk.yield %v : f32
  } : tensor<16x16384xbf16>, tensor<16x16384xf32> -> tensor<16x16384xbf16>
  return %y : tensor<16x16384xbf16>
}
// ASYNC-LABEL: func.func @scaled_bf16_wide_few
// ASYNC-SAME:    staging = registers

//--- registers_cluster.mlir
// staging=registers by override on a cluster row: the registers rule, 32
// values per thread (4 vectors): 8192 / (256 x 4) = cluster 8.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 8: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @registers_cluster(%x: tensor<8x65536xbf16>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x65536xbf16> -> tensor<8xf32>
  return %s : tensor<8xf32>
}
// REGISTERS-CLUSTER-LABEL: func.func @registers_cluster
// REGISTERS-CLUSTER-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 8, staging = registers, unroll = 4, min_blocks = 0>

//--- async_override.mlir
// staging=async by override on a short row (x * 2, a row result, so not
// read-only): sub-warp rows, 32 per CTA, each with its own slots (32 rows x
// 4 threads x 16 values x 2 bytes = 4 KiB).
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 4 threads per row (sub-warp), 16 values per thread (2 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 32 (128 threads)}}
// expected-remark@below {{plan: no reduction: every value is mapped on its own}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @sum_short(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %v = arith.addf %a, %a : f32
    rk.yield %v : f32
  } : tensor<64x64xbf16> -> tensor<64x64xbf16>
  return %y : tensor<64x64xbf16>
}
// ASYNC-OVERRIDE-LABEL: func.func @sum_short
// ASYNC-OVERRIDE-SAME:    tier.layout = #tier.tv_layout<threads = 4, values = 16, vector = 8, rows = 32>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = async, unroll = 2, min_blocks = 0>

//--- async_bad.mlir
// cp.async moves 16-byte chunks: 2-element bf16 vectors cannot be staged.
// expected-error@below {{invalid schedule override: staging = async copies 16-byte chunks of [M, N] inputs of one element size}}
func.func @async_bad(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- bad_arch.mlir
// expected-error@below {{unsupported arch 'sm_70' (supported: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a)}}
func.func @bad_arch(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- bad_sms.mlir
// expected-error@below {{sms must be 0 (the arch's largest part) or 1..1024, got 2000}}
func.func @bad_sms(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- bad_dram.mlir
// expected-error@below {{dram-gbs must be 0 (unknown) or the device's DRAM bandwidth in GB/s, 1..1000000, got 2000000}}
func.func @bad_dram(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- fast_memory.mlir
// Planned for an H200 (4917 GB/s over 132 SMs: 37 GB/s an SM, fast memory
// per SM; docs/planner.md rule 3). RMSNorm f32 at N = 16384 (x and w, 2
// live fragments: 1024 threads x 16 values by the estimate) takes two CTAs
// of 512 threads an SM, the row staged asynchronously (no min_blocks: it
// waits in shared memory, session 42); a read-only f32 row of 4096 takes
// 8 vector loads a thread, 128 threads. The H100 (3352 GB/s: 25 GB/s an
// SM) and a device of unknown bandwidth keep 1024 x 16 and 256 x 16.
// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = async without min_blocks: two CTAs an SM's rows of 32-bit data wait in shared memory, not in registers under a launch bound (fast memory per SM)}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @rms_f32_16k(%x: tensor<4096x16384xf32> {rk.name = "x"}, %w: tensor<16384xf32> {rk.name = "w"}) -> tensor<4096x16384xf32> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 1.638400e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<4096x16384xf32> -> tensor<4096x16384xf32>
  %1 = rk.reduce add %0 : tensor<4096x16384xf32> -> tensor<4096xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<4096xf32>, f32, f32 -> tensor<4096xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<4096xf32> -> tensor<4096x16384xf32>
  %4 = rk.broadcast %w dims [1] : tensor<16384xf32> -> tensor<4096x16384xf32>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<4096x16384xf32>, tensor<4096x16384xf32>, tensor<4096x16384xf32> -> tensor<4096x16384xf32>
  return %5 : tensor<4096x16384xf32>
}
// FAST-LABEL: func.func @rms_f32_16k
// FAST-SAME:    tier.tv_layout<threads = 512, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 8, min_blocks = 0, evict_last = 1>}
// NOT-FAST-LABEL: func.func @rms_f32_16k
// NOT-FAST-SAME:    tier.tv_layout<threads = 1024, values = 16, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0, evict_last = 1>}

// RMSNorm f32 at N = 32768, more than a wave of rows: the registers layout
// would need a cluster of 2; on fast memory one CTA of 1024 threads holds
// the row staged asynchronously (rule 4, session 42), elsewhere the cluster.
// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: one CTA of 1024 threads, staged asynchronously, holds the row a cluster of 2 would split (32-bit rows, fast memory per SM)}}
// expected-remark@below {{plan: 1024 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (1024 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @rms_f32_32k(%x: tensor<4096x32768xf32> {rk.name = "x"}, %w: tensor<32768xf32> {rk.name = "w"}) -> tensor<4096x32768xf32> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 3.276800e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<4096x32768xf32> -> tensor<4096x32768xf32>
  %1 = rk.reduce add %0 : tensor<4096x32768xf32> -> tensor<4096xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<4096xf32>, f32, f32 -> tensor<4096xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<4096xf32> -> tensor<4096x32768xf32>
  %4 = rk.broadcast %w dims [1] : tensor<32768xf32> -> tensor<4096x32768xf32>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<4096x32768xf32>, tensor<4096x32768xf32>, tensor<4096x32768xf32> -> tensor<4096x32768xf32>
  return %5 : tensor<4096x32768xf32>
}
// FAST-LABEL: func.func @rms_f32_32k
// FAST-SAME:    tier.tv_layout<threads = 1024, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 8, min_blocks = 0, evict_last = 1>}
// NOT-FAST-LABEL: func.func @rms_f32_32k
// NOT-FAST-SAME:    tier.tv_layout<threads = 256, values = 64, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = cluster, cluster = 2, staging = async, unroll = 16, min_blocks = 0, evict_last = 1>}

// Rule 8 on rows over a cluster, staged asynchronously: evict-last below 1
// MiB of [N] operands (RMSNorm bf16 at 65536: 128 KiB), plain loads from
// there (RMSNorm f32 at 262144: a 1 MiB weight; session 42).
// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (16 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 16: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @rms_f32_256k(%x: tensor<512x262144xf32> {rk.name = "x"}, %w: tensor<262144xf32> {rk.name = "w"}) -> tensor<512x262144xf32> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 2.621440e+05 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<512x262144xf32> -> tensor<512x262144xf32>
  %1 = rk.reduce add %0 : tensor<512x262144xf32> -> tensor<512xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<512xf32>, f32, f32 -> tensor<512xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<512xf32> -> tensor<512x262144xf32>
  %4 = rk.broadcast %w dims [1] : tensor<262144xf32> -> tensor<512x262144xf32>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<512x262144xf32>, tensor<512x262144xf32>, tensor<512x262144xf32> -> tensor<512x262144xf32>
  return %5 : tensor<512x262144xf32>
}
// FAST-LABEL: func.func @rms_f32_256k
// FAST-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = async, unroll = 16, min_blocks = 0>}
// NOT-FAST-LABEL: func.func @rms_f32_256k
// NOT-FAST-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = async, unroll = 16, min_blocks = 0>}

// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 4: the row is split over the CTAs of a cluster and reduced through DSMEM}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the cluster tier}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @rms_bf16_64k(%x: tensor<2048x65536xbf16> {rk.name = "x"}, %w: tensor<65536xbf16> {rk.name = "w"}) -> tensor<2048x65536xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 6.553600e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<2048x65536xbf16> -> tensor<2048x65536xf32>
  %1 = rk.reduce add %0 : tensor<2048x65536xf32> -> tensor<2048xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<2048xf32>, f32, f32 -> tensor<2048xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<2048xf32> -> tensor<2048x65536xf32>
  %4 = rk.broadcast %w dims [1] : tensor<65536xbf16> -> tensor<2048x65536xbf16>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<2048x65536xbf16>, tensor<2048x65536xf32>, tensor<2048x65536xbf16> -> tensor<2048x65536xbf16>
  return %5 : tensor<2048x65536xbf16>
}
// FAST-LABEL: func.func @rms_bf16_64k
// FAST-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = async, unroll = 8, min_blocks = 0, evict_last = 1>}
// NOT-FAST-LABEL: func.func @rms_bf16_64k
// NOT-FAST-SAME:    tier.schedule = #tier.schedule<reduce = cluster, cluster = 4, staging = async, unroll = 8, min_blocks = 0, evict_last = 1>}

// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 4: 16-byte accesses of 4-byte elements}}
// expected-remark@below {{plan: 128 threads per row, 32 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @sum_f32_4k(%x: tensor<32768x4096xf32>) -> tensor<32768xf32> {
  %s = rk.reduce add %x : tensor<32768x4096xf32> -> tensor<32768xf32>
  return %s : tensor<32768xf32>
}
// FAST-LABEL: func.func @sum_f32_4k
// FAST-SAME:    tier.tv_layout<threads = 128, values = 32, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 8, min_blocks = 0>}
// NOT-FAST-LABEL: func.func @sum_f32_4k
// NOT-FAST-SAME:    tier.tv_layout<threads = 256, values = 16, vector = 4, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}

// Read-only bf16 rows with a two-word state or two reductions (argmax;
// cross-entropy, logsumexp alike) at N = 8192 - 32768 over more than a
// wave of rows take 8 vector loads a thread on fast memory (docs/planner.md
// rule 3, session 43): 128 threads in registers at 8192, 512 staged at
// 32768. Not at 4096 (64 threads), not a one-wave grid (128 rows), not on
// the H100, and not a plain row sum (one add: it ran at 0.97-1.00x of the
// copy already and lost 4-6 % staged).
// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 8 vector loads a thread: a read-only row of 16-bit data on fast memory (fewer threads a row, fewer combines a value)}}
// expected-remark@below {{plan: 128 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @argmax_bf16_8k(%x: tensor<16384x8192xbf16>) -> (tensor<16384xi64>, tensor<16384xf32>) {
  %v, %i = rk.reduce argmax %x : tensor<16384x8192xbf16> -> tensor<16384xf32>, tensor<16384xi64>
  return %i, %v : tensor<16384xi64>, tensor<16384xf32>
}
// FAST-LABEL: func.func @argmax_bf16_8k
// FAST-SAME:    tier.tv_layout<threads = 128, values = 64, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 8, min_blocks = 2>}
// NOT-FAST-LABEL: func.func @argmax_bf16_8k
// NOT-FAST-SAME:    tier.tv_layout<threads = 256, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}

// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 8 vector loads a thread: a read-only row of 16-bit data on fast memory (fewer threads a row, fewer combines a value)}}
// expected-remark@below {{plan: 512 threads per row, 64 values per thread (8 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @argmax_bf16_32k(%x: tensor<4096x32768xbf16>) -> (tensor<4096xi64>, tensor<4096xf32>) {
  %v, %i = rk.reduce argmax %x : tensor<4096x32768xbf16> -> tensor<4096xf32>, tensor<4096xi64>
  return %i, %v : tensor<4096xi64>, tensor<4096xf32>
}
// FAST-LABEL: func.func @argmax_bf16_32k
// FAST-SAME:    tier.tv_layout<threads = 512, values = 64, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 8, min_blocks = 0>}
// NOT-FAST-LABEL: func.func @argmax_bf16_32k
// NOT-FAST-SAME:    tier.tv_layout<threads = 1024, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}

// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 128 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @argmax_bf16_4k(%x: tensor<32768x4096xbf16>) -> (tensor<32768xi64>, tensor<32768xf32>) {
  %v, %i = rk.reduce argmax %x : tensor<32768x4096xbf16> -> tensor<32768xf32>, tensor<32768xi64>
  return %i, %v : tensor<32768xi64>, tensor<32768xf32>
}
// FAST-LABEL: func.func @argmax_bf16_4k
// FAST-SAME:    tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 2>}
// NOT-FAST-LABEL: func.func @argmax_bf16_4k
// NOT-FAST-SAME:    tier.tv_layout<threads = 128, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 2>}

// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @argmax_bf16_8k_one_wave(%x: tensor<128x8192xbf16>) -> (tensor<128xi64>, tensor<128xf32>) {
  %v, %i = rk.reduce argmax %x : tensor<128x8192xbf16> -> tensor<128xf32>, tensor<128xi64>
  return %i, %v : tensor<128xi64>, tensor<128xf32>
}
// FAST-LABEL: func.func @argmax_bf16_8k_one_wave
// FAST-SAME:    tier.tv_layout<threads = 256, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}
// NOT-FAST-LABEL: func.func @argmax_bf16_8k_one_wave
// NOT-FAST-SAME:    tier.tv_layout<threads = 256, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}

// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @sum_bf16_8k(%x: tensor<16384x8192xbf16>) -> tensor<16384xf32> {
  %s = rk.reduce add %x : tensor<16384x8192xbf16> -> tensor<16384xf32>
  return %s : tensor<16384xf32>
}
// FAST-LABEL: func.func @sum_bf16_8k
// FAST-SAME:    tier.tv_layout<threads = 256, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}

// RMSNorm bf16 at N = 16384, staged asynchronously in 512-thread CTAs of
// 32 values over the whole row: three CTAs an SM (min_blocks = 3) on fast
// memory only (docs/planner.md rule 3, session 36).
// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the block tier}}
// expected-remark@below {{plan: min_blocks = 3: three CTAs of 512 threads an SM, the epilogue one chunk at a time (fast memory per SM)}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
// expected-remark@below {{plan: evict = last: the row is loaded with an evict-last L2 policy, so that L2 evicts the written results first}}
func.func @rms_bf16_16k(%x: tensor<8192x16384xbf16> {rk.name = "x"}, %w: tensor<16384xbf16> {rk.name = "w"}) -> tensor<8192x16384xbf16> {
  %eps = arith.constant 9.99999997E-7 : f32
  %n = arith.constant 1.638400e+04 : f32
  %0 = rk.map %x {
  ^bb0(%a: f32):
    %6 = arith.mulf %a, %a : f32
    rk.yield %6 : f32
  } : tensor<8192x16384xbf16> -> tensor<8192x16384xf32>
  %1 = rk.reduce add %0 : tensor<8192x16384xf32> -> tensor<8192xf32>
  %2 = rk.map %1, %n, %eps {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.divf %a, %b : f32
    %7 = arith.addf %6, %c : f32
    %8 = math.rsqrt %7 : f32
    rk.yield %8 : f32
  } : tensor<8192xf32>, f32, f32 -> tensor<8192xf32>
  %3 = rk.broadcast %2 dims [0] : tensor<8192xf32> -> tensor<8192x16384xf32>
  %4 = rk.broadcast %w dims [1] : tensor<16384xbf16> -> tensor<8192x16384xbf16>
  %5 = rk.map %x, %3, %4 {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %6 = arith.mulf %a, %b : f32
    %7 = arith.mulf %6, %c : f32
    rk.yield %7 : f32
  } : tensor<8192x16384xbf16>, tensor<8192x16384xf32>, tensor<8192x16384xbf16> -> tensor<8192x16384xbf16>
  return %5 : tensor<8192x16384xbf16>
}
// FAST-LABEL: func.func @rms_bf16_16k
// FAST-SAME:    tier.tv_layout<threads = 512, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 3, evict_last = 1>}
// NOT-FAST-LABEL: func.func @rms_bf16_16k
// NOT-FAST-SAME:    tier.tv_layout<threads = 512, values = 32, vector = 8, rows = 1>, tier.schedule = #tier.schedule<reduce = block, cluster = 1, staging = async, unroll = 4, min_blocks = 0, evict_last = 1>}

// Read-only 16-bit rows several to a CTA (N = 256-2k) over more than a
// wave of CTAs stay in registers on fast memory (docs/planner.md rule 5,
// session 44: staged asynchronously they ran 1-8 % slower on the H200);
// on the H100 they are staged. Not a one-wave grid (256 rows: 64 CTAs),
// not shifted rows (N = 1001), not two [M, N] inputs: staged as before.
// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 32 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 4 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = registers: read-only rows of 16-bit data, 4 to a CTA, stay in registers on fast memory (staged, they measured slower)}}
// expected-remark@below {{plan: staging = registers: the row stays in registers and is read from global memory once}}
func.func @argmax_bf16_1k(%x: tensor<131072x1024xbf16>) -> (tensor<131072xi64>, tensor<131072xf32>) {
  %v, %i = rk.reduce argmax %x : tensor<131072x1024xbf16> -> tensor<131072xf32>, tensor<131072xi64>
  return %i, %v : tensor<131072xi64>, tensor<131072xf32>
}
// FAST-LABEL: func.func @argmax_bf16_1k
// FAST-SAME:    tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = registers, unroll = 4, min_blocks = 0>}
// NOT-FAST-LABEL: func.func @argmax_bf16_1k
// NOT-FAST-SAME:    tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}

// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 32 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 4 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @argmax_bf16_1k_one_wave(%x: tensor<256x1024xbf16>) -> (tensor<256xi64>, tensor<256xf32>) {
  %v, %i = rk.reduce argmax %x : tensor<256x1024xbf16> -> tensor<256xf32>, tensor<256xi64>
  return %i, %v : tensor<256xi64>, tensor<256xf32>
}
// FAST-LABEL: func.func @argmax_bf16_1k_one_wave
// FAST-SAME:    tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}
// NOT-FAST-LABEL: func.func @argmax_bf16_1k_one_wave
// NOT-FAST-SAME:    tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}

// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements (shifted rows: N is not a multiple of 8, so each row is read from the aligned address up to 7 elements before it)}}
// expected-remark@below {{plan: 32 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 4 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @argmax_bf16_1001_shifted(%x: tensor<131072x1001xbf16>) -> (tensor<131072xi64>, tensor<131072xf32>) {
  %v, %i = rk.reduce argmax %x : tensor<131072x1001xbf16> -> tensor<131072xf32>, tensor<131072xi64>
  return %i, %v : tensor<131072xi64>, tensor<131072xf32>
}
// FAST-LABEL: func.func @argmax_bf16_1001_shifted
// FAST-SAME:    tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}
// NOT-FAST-LABEL: func.func @argmax_bf16_1001_shifted
// NOT-FAST-SAME:    tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}

// expected-remark@below {{plan: for a device of 4917 GB/s (fast memory per SM)}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 32 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: cluster = 1}}
// expected-remark@below {{plan: rows per CTA: 4 (128 threads)}}
// expected-remark@below {{plan: reductions climb to the warp tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @dot_bf16_1k_two_inputs(%x: tensor<131072x1024xbf16>, %y: tensor<131072x1024xbf16>) -> tensor<131072xf32> {
  %p = rk.map %x, %y {
  ^bb0(%a: f32, %b: f32):
    %v = arith.mulf %a, %b : f32
    rk.yield %v : f32
  } : tensor<131072x1024xbf16>, tensor<131072x1024xbf16> -> tensor<131072x1024xf32>
  %s = rk.reduce add %p : tensor<131072x1024xf32> -> tensor<131072xf32>
  return %s : tensor<131072xf32>
}
// FAST-LABEL: func.func @dot_bf16_1k_two_inputs
// FAST-SAME:    tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}
// NOT-FAST-LABEL: func.func @dot_bf16_1k_two_inputs
// NOT-FAST-SAME:    tier.tv_layout<threads = 32, values = 32, vector = 8, rows = 4>, tier.schedule = #tier.schedule<reduce = warp, cluster = 1, staging = async, unroll = 4, min_blocks = 0>}

//--- device_sms.mlir
// Planned for a device of 78 SMs (an H20; the JIT passes the current
// device's count). A single streamed row of 1M is split over the largest
// power of two of CTAs that fits at one per SM: 64, not the 128 of 132
// SMs. The long-K GEMV's 128 column tiles outnumber the SMs, so its CTAs
// take 8 warps (16 only when the tiles fit one CTA per SM, as on 132 SMs:
// gemv_long_k of the COLS part), and K is split 8 ways.
// expected-remark@below {{plan: for a device of 78 SMs}}
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: split = 64: the row is split over 64 CTAs}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the grid tier}}
// expected-remark@below {{plan: staging = stream}}
func.func @few_rows(%x: tensor<1x1048576xbf16>) -> tensor<1xf32> {
  %s = rk.reduce add %x : tensor<1x1048576xbf16> -> tensor<1xf32>
  return %s : tensor<1xf32>
}
// SMS78-LABEL: func.func @few_rows
// SMS78-SAME: split = 64>
// expected-remark@below {{plan: for a device of 78 SMs}}
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores}}
// expected-remark@below {{plan: unroll = 8}}
// expected-remark@below {{plan: K split 8 ways: 8 of the 8 warps x cluster 1; CTA tiles of 32 columns (128 CTAs, 1024 warps for ~78 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory}}
func.func @gemv_long_k(%x: tensor<1x14336xf16>, %q: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<112x4096xf16>) -> tensor<1x4096xf16> {
  %o = rk.gemv %x, %q, %s : (tensor<1x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
// SMS78-LABEL: func.func @gemv_long_k
// SMS78-SAME: tier.ksplit_layout<rows = 1, cols = 1, warps = 8, cluster = 1, unroll = 8, mma = true>

//--- bad_integer.mlir
// expected-error@below {{schedule: 'threads' needs a positive integer, got 'abc'}}
func.func @bad_integer(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- bad_field.mlir
// expected-error@below {{schedule: unknown field 'foo' (threads, values, vector, rows, cluster, split, staging, unroll, min_blocks, prefetch, keep, evict = last or normal; column kernels: mma = 0 or 1, kwarps, acts = smem or global)}}
func.func @bad_field(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- keep_override.mlir
// The schedule's keep replaces the planner's (3 here): one pass of the
// row's 4 kept for the second sweep; keep = 0 keeps none (no remark, no
// field in the attribute).
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 512 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: split = 16: the row is split over 16 CTAs of a persistent, co-resident grid that combine their partial states through global memory (clusters of a streamed row leave SMs idle)}}
// expected-remark@below {{plan: rows per CTA: 1 (512 threads)}}
// expected-remark@below {{plan: reductions climb to the grid tier}}
// expected-remark@below {{plan: staging = stream: the row does not fit on chip; it is swept in passes (4) of 262144 elements, with online combiners}}
// expected-remark@below {{plan: keep = 1: the first 1 of the 4 passes stay in shared memory between the sweeps (32 KiB per CTA)}}
func.func @keep_override(%x: tensor<128x1048576xbf16>) -> tensor<128x1048576xbf16> {
  %s = rk.reduce add %x : tensor<128x1048576xbf16> -> tensor<128xf32>
  %b = rk.broadcast %s dims [0] : tensor<128xf32> -> tensor<128x1048576xf32>
  %y = rk.map %x, %b {
  ^bb0(%a: f32, %c: f32):
    %p = arith.mulf %a, %c : f32
    rk.yield %p : f32
  } : tensor<128x1048576xbf16>, tensor<128x1048576xf32> -> tensor<128x1048576xbf16>
  return %y : tensor<128x1048576xbf16>
}
// KEEP1: tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 4, min_blocks = 2, keep = 1, split = 16>}
// KEEP0: tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = stream, unroll = 4, min_blocks = 2, split = 16>}

// A schedule that names the cluster keeps it (the grid tier is the
// planner's choice, or the schedule's split).
// SPLIT-CLUSTER: tier.schedule = #tier.schedule<reduce = cluster, cluster = 16, staging = stream, unroll = 4, min_blocks = 2, keep = 3>}

//--- split_override.mlir
// split = 8 on a row held in registers (N = 65536 bf16): 8 CTAs of 256
// threads x 32 values, through global memory instead of a cluster.
// expected-remark@below {{plan: vector = 8: 16-byte accesses of 2-byte elements}}
// expected-remark@below {{plan: 256 threads per row, 32 values per thread (4 vector loads in flight)}}
// expected-remark@below {{plan: split = 8: the row is split over 8 CTAs of a persistent, co-resident grid that combine their partial states through global memory}}
// expected-remark@below {{plan: rows per CTA: 1 (256 threads)}}
// expected-remark@below {{plan: reductions climb to the grid tier}}
// expected-remark@below {{plan: staging = async: the row is copied to shared memory with cp.async and read back where it is used; global memory is read once}}
func.func @split_override(%x: tensor<4x65536xbf16>) -> tensor<4xf32> {
  %s = rk.reduce max %x : tensor<4x65536xbf16> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
// SPLIT8: tier.layout = #tier.tv_layout<threads = 256, values = 32, vector = 8, rows = 1>
// SPLIT8-SAME: tier.schedule = #tier.schedule<reduce = grid, cluster = 1, staging = async, unroll = 4, min_blocks = 0, split = 8>

//--- split_bad.mlir
// expected-error@below {{invalid schedule override: split > 1 (CTAs of a row combining through global memory) takes cluster = 1 and one row per CTA}}
func.func @split_bad(%x: tensor<4x65536xbf16>) -> tensor<4xf32> {
  %s = rk.reduce max %x : tensor<4x65536xbf16> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

//--- split_bad_pow2.mlir
// expected-error@below {{invalid schedule override: split = 12 must be a power of two up to 1024}}
func.func @split_bad_pow2(%x: tensor<4x65536xbf16>) -> tensor<4xf32> {
  %s = rk.reduce max %x : tensor<4x65536xbf16> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

//--- min_blocks_bad.mlir
// A launch bound no SM can meet (ptxas ignores one silently).
// expected-error@below {{invalid schedule override: min_blocks = 3 CTAs of 1024 threads an SM: sm_90a holds at most 2048 threads and 32 CTAs}}
func.func @min_blocks_bad(%x: tensor<4x8192xbf16>) -> tensor<4xf32> {
  %s = rk.reduce max %x : tensor<4x8192xbf16> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

//--- split_no_reduction.mlir
// expected-error@below {{invalid schedule override: split > 1 combines reductions across CTAs; this row program has none (a cluster spreads its rows)}}
func.func @split_no_reduction(%x: tensor<4x65536xbf16>) -> tensor<4x65536xbf16> {
  %y = rk.map %x {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    rk.yield %p : f32
  } : tensor<4x65536xbf16> -> tensor<4x65536xbf16>
  return %y : tensor<4x65536xbf16>
}

//--- keep_not_streamed.mlir
// expected-error@below {{invalid schedule override: keep > 0 keeps passes of a streamed row (staging = stream, one row per CTA, 16-byte chunks of [M, N] inputs of one element size)}}
func.func @keep_not_streamed(%x: tensor<64x4096xbf16>) -> tensor<64x4096xbf16> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  %b = rk.broadcast %s dims [0] : tensor<64xf32> -> tensor<64x4096xf32>
  %y = rk.map %x, %b {
  ^bb0(%a: f32, %c: f32):
    %p = arith.mulf %a, %c : f32
    rk.yield %p : f32
  } : tensor<64x4096xbf16>, tensor<64x4096xf32> -> tensor<64x4096xbf16>
  return %y : tensor<64x4096xbf16>
}

//--- keep_too_many.mlir
// expected-error@below {{invalid schedule override: keep = 5: the row has 4 passes}}
func.func @keep_too_many(%x: tensor<128x1048576xbf16>) -> tensor<128x1048576xbf16> {
  %s = rk.reduce add %x : tensor<128x1048576xbf16> -> tensor<128xf32>
  %b = rk.broadcast %s dims [0] : tensor<128xf32> -> tensor<128x1048576xf32>
  %y = rk.map %x, %b {
  ^bb0(%a: f32, %c: f32):
    %p = arith.mulf %a, %c : f32
    rk.yield %p : f32
  } : tensor<128x1048576xbf16>, tensor<128x1048576xf32> -> tensor<128x1048576xbf16>
  return %y : tensor<128x1048576xbf16>
}

//--- keep_too_big.mlir
// Two kept passes of 1024 x 64 bf16 values (128 KiB each) do not fit.
// expected-error@below {{invalid schedule override: the schedule needs}}
func.func @keep_too_big(%x: tensor<8x1048576xbf16>) -> tensor<8x1048576xbf16> {
  %s = rk.reduce add %x : tensor<8x1048576xbf16> -> tensor<8xf32>
  %b = rk.broadcast %s dims [0] : tensor<8xf32> -> tensor<8x1048576xf32>
  %y = rk.map %x, %b {
  ^bb0(%a: f32, %c: f32):
    %p = arith.mulf %a, %c : f32
    rk.yield %p : f32
  } : tensor<8x1048576xbf16>, tensor<8x1048576xf32> -> tensor<8x1048576xbf16>
  return %y : tensor<8x1048576xbf16>
}

//--- bad_staging.mlir
// expected-error@below {{schedule: staging must be registers, async, smem or stream, got 'disk'}}
func.func @bad_staging(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- cluster_sm80.mlir
// sm_80 has no thread-block clusters.
// expected-error@below {{invalid schedule override: cluster = 2 needs thread-block clusters, which sm_80 does not have}}
func.func @cluster_sm80(%x: tensor<8x65536xbf16>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x65536xbf16> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

//--- cluster_too_big.mlir
// Clusters have at most 16 CTAs (8 portable, 16 with the opt-in).
// expected-error@below {{invalid schedule override: cluster = 32 must be a power of two up to 16}}
func.func @cluster_too_big(%x: tensor<8x65536xbf16>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x65536xbf16> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

//--- threads_too_many.mlir
// expected-error@below {{invalid schedule override: threads per row must be a power of two up to 1024, got 2048}}
func.func @threads_too_many(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- spill.mlir
// 512 values x 1 live fragment > 255 registers per thread.
// expected-error@below {{invalid schedule override: values per thread x live fragments (512 x 1) would spill: a CTA of 32 threads has 255 registers per thread}}
func.func @spill(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- cluster_rows.mlir
// expected-error@below {{invalid schedule override: a cluster works on one row at a time: rows must be 1}}
func.func @cluster_rows(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

//--- vector_too_wide.mlir
// 16 bf16 = 32 bytes per access.
// expected-error@below {{invalid schedule override: vector = 16 is not a power of two with at most 16 bytes per access (2-byte elements)}}
func.func @vector_too_wide(%x: tensor<64x4096xbf16>) -> tensor<64xf32> {
  %s = rk.reduce add %x : tensor<64x4096xbf16> -> tensor<64xf32>
  return %s : tensor<64xf32>
}
//--- analysis.mlir
// What the planner needs of a row program (lib/Transforms/RowAnalysis.cpp).
// expected-error@below {{a row kernel needs at least one [M, N] tensor}}
func.func @no_rows(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

func.func @two_shapes(%x: tensor<4x64xf32>, %y: tensor<4x128xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = rk.reduce add %x : tensor<4x64xf32> -> tensor<4xf32>
  %b = rk.reduce add %y : tensor<4x128xf32> -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
// expected-error@-5 {{a row kernel works on one [M, N] shape ('tensor<4x64xf32>'); this op uses another}}

// -----

// expected-error@below {{shapes must be bound first (rk-specialize-shapes)}}
func.func @dynamic(%x: tensor<?x64xf32>) -> tensor<?xf32> {
  %a = rk.reduce add %x : tensor<?x64xf32> -> tensor<?xf32>
  return %a : tensor<?xf32>
}

//--- columns.mlir
// Column kernels (lib/Plan/KSplitPlan.cpp). int4 at M = 1 with at most 4
// groups of 32 columns per SM runs on tensor cores, the weights as the A
// operand (the CUDA-core plans of these shapes: columns_cuda_cores.mlir);
// the cluster grows when the staged activations of a CTA's K range would
// need more than 64 KiB (16 rows x 14336 below). 4096 x 4096: 16 warps
// would get 8 blocks each; 8 warps of 16 in blocks of 8 instead.
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered blocks of 8 x 4 packed rows)}}
// expected-remark@below {{plan: K split 8 ways: 8 of the 8 warps x cluster 1; CTA tiles of 32 columns (128 CTAs, 1024 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 4096 values of K per CTA (9216 bytes with the partial sums)}}
func.func @gemv_small_n(%x: tensor<1x4096xf16>, %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> tensor<1x4096xf16> {
// COLS-LABEL: func.func @gemv_small_n
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 8, cluster = 1, unroll = 8, mma = true>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
// One CTA of 16 warps an SM all splitting K: its activations are read
// from global memory (staging them would stall it with nothing to overlap;
// session 38).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: acts = global: one CTA an SM whose 16 warps all split K; staging the activations would stall it with nothing to overlap}}
// expected-remark@below {{plan: K split 16 ways: 16 of the 16 warps x cluster 1; CTA tiles of 32 columns (128 CTAs, 2048 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations read from global memory (through L1) where the products use them, not staged: 2048 bytes of shared memory for the partial sums}}
func.func @gemv_long_k(%x: tensor<1x14336xf16>, %q: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<112x4096xf16>) -> tensor<1x4096xf16> {
// COLS-LABEL: func.func @gemv_long_k
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 16, cluster = 1, unroll = 4, mma = true, global_acts = true>
  %o = rk.gemv %x, %q, %s : (tensor<1x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
// M = 1 with at least 32 blocks of 4 packed rows per warp (8192 / 8 / 8
// warps / 4 = 32): blocks of 8 (gemv_long_k above has 28: unroll 4).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered blocks of 8 x 4 packed rows)}}
// expected-remark@below {{plan: K split 8 ways: 8 of the 8 warps x cluster 1; CTA tiles of 32 columns (256 CTAs, 2048 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 8192 values of K per CTA (17408 bytes with the partial sums)}}
func.func @gemv_long_warp_range(%x: tensor<1x8192xf16>, %q: tensor<8192x8192xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<64x8192xf16>) -> tensor<1x8192xf16> {
// COLS-LABEL: func.func @gemv_long_warp_range
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 8, cluster = 1, unroll = 8, mma = true>
  %o = rk.gemv %x, %q, %s : (tensor<1x8192xf16>, tensor<8192x8192xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<64x8192xf16>) -> tensor<1x8192xf16>
  return %o : tensor<1x8192xf16>
}
// M = 4: blocks of 8 only beyond 64 blocks a warp (14336 / 8 / (2 x 2) / 4
// = 112 here).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered blocks of 8 x 4 packed rows)}}
// expected-remark@below {{plan: K split 4 ways: 2 of the 8 warps x cluster 2; CTA tiles of 128 columns (224 CTAs, 1792 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 4 rows x 7168 values of K per CTA (63488 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_m4_long_warp_range(%x: tensor<4x14336xf16>, %q: tensor<14336x14336xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<112x14336xf16>) -> tensor<4x14336xf16> {
// COLS-LABEL: func.func @gemv_m4_long_warp_range
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 4, cols = 1, warps = 8, cluster = 2, unroll = 8, mma = true, kwarps = 2>
  %o = rk.gemv %x, %q, %s : (tensor<4x14336xf16>, tensor<14336x14336xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x14336xf16>) -> tensor<4x14336xf16>
  return %o : tensor<4x14336xf16>
}
// M = 8, 14336 x 4096: 256 CTAs in clusters of 4 (2 per SM) are more than
// the 248 the GPCs hold at once; 16 warps in clusters of 2 (the same K
// split, 128 CTAs) fit one wave.
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: cluster 4 -> 2: 256 CTAs in clusters of 4 would take 2 waves of the CTAs that fit (a cluster's CTAs share a GPC); 16 warps x cluster 2 take 1}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 16 ways: 8 of the 16 warps x cluster 2; CTA tiles of 64 columns (128 CTAs, 2048 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 8 rows x 7168 values of K per CTA (135168 bytes with the partial sums)}}
// expected-remark@below {{plan: activations staged in 4 parts of each warp's K range, two in flight, while the products run (over 65536 bytes)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_m8_cluster_waves(%x: tensor<8x14336xf16>, %q: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<112x4096xf16>) -> tensor<8x4096xf16> {
// COLS-LABEL: func.func @gemv_m8_cluster_waves
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 8, cols = 1, warps = 16, cluster = 2, unroll = 4, mma = true, kwarps = 8>
  %o = rk.gemv %x, %q, %s : (tensor<8x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16>) -> tensor<8x4096xf16>
  return %o : tensor<8x4096xf16>
}
// M = 16, 16384 x 4096: clusters of 8 whose 256 CTAs fit (2-3 per SM)
// keep their plan (the one-CTA plan's activations would not fit).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 16 ways: 2 of the 8 warps x cluster 8; CTA tiles of 128 columns (256 CTAs, 2048 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 16 rows x 2048 values of K per CTA (90112 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 8 through distributed shared memory}}
func.func @gemv_m16_cluster8_fits(%x: tensor<16x16384xf16>, %q: tensor<16384x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<128x4096xf16>) -> tensor<16x4096xf16> {
// COLS-LABEL: func.func @gemv_m16_cluster8_fits
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 16, cols = 1, warps = 8, cluster = 8, unroll = 4, mma = true, kwarps = 2>
  %o = rk.gemv %x, %q, %s : (tensor<16x16384xf16>, tensor<16384x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<128x4096xf16>) -> tensor<16x4096xf16>
  return %o : tensor<16x4096xf16>
}
// int8, N not a multiple of 128, bf16 activations (CUDA cores): 8-byte
// accesses of two k4 words (65 tiles) so that clusters of 2 fill the SMs.
// expected-remark@below {{plan: cols = 2: 8-byte accesses of packed columns, 1 x 2 accumulators}}
// expected-remark@below {{plan: unroll = 8: 2 x 64 bytes of packed weight in flight per thread, 64 KiB per SM with 16 warps and one CTA per SM}}
// expected-remark@below {{plan: K split 32 ways: 16 warps x cluster 2 over 65 column tiles (130 CTAs, 2080 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 2048 values of K per CTA (16384 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_w8_odd_n(%x: tensor<1x4096xbf16>, %q: tensor<4096x4160xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<32x4160xf16>) -> tensor<1x4160xbf16> {
// COLS-LABEL: func.func @gemv_w8_odd_n
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 2, warps = 16, cluster = 2, unroll = 8>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xbf16>, tensor<4096x4160xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<32x4160xf16>) -> tensor<1x4160xbf16>
  return %o : tensor<1x4160xbf16>
}
// The same with f16 activations: 130 groups of 32 columns, no more than
// the SMs, so int8 runs on tensor cores even at M = 1.
// expected-remark@below {{plan: mma: int8 x f16 products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: acts = global: one CTA an SM whose 16 warps all split K; staging the activations would stall it with nothing to overlap}}
// expected-remark@below {{plan: K split 16 ways: 16 of the 16 warps x cluster 1; CTA tiles of 32 columns (130 CTAs, 2080 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations read from global memory (through L1) where the products use them, not staged: 2048 bytes of shared memory for the partial sums}}
func.func @gemv_w8_odd_n_mma(%x: tensor<1x4096xf16>, %q: tensor<4096x4160xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<32x4160xf16>) -> tensor<1x4160xf16> {
// COLS-LABEL: func.func @gemv_w8_odd_n_mma
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 16, cluster = 1, unroll = 4, mma = true, global_acts = true>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x4160xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<32x4160xf16>) -> tensor<1x4160xf16>
  return %o : tensor<1x4160xf16>
}
// M = 1 with 16 or more groups of 32 columns per SM (an LM head): int4 on tensor
// cores in CTAs of 8 column groups, no K split, unroll 2 up to 128 blocks of 4
// packed rows a warp (H200: 87.4 -> 71.1 us against the CUDA cores).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: N wide (4008 groups of 32 columns, 30 per SM): no K split, CTAs of 8 column groups}}
// expected-remark@below {{plan: unroll = 2: 2 x 32 bytes of packed weight in flight per thread (double-buffered blocks of 2 x 4 packed rows)}}
// expected-remark@below {{plan: K split 1 ways: 1 of the 8 warps x cluster 1; CTA tiles of 256 columns (501 CTAs, 4008 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 4096 values of K per CTA (9216 bytes with the partial sums)}}
func.func @gemv_large_n(%x: tensor<1x4096xbf16>, %q: tensor<4096x128256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = bf16, symmetric = true, packing = k8>>, %s: tensor<32x128256xbf16>) -> tensor<1x128256xbf16> {
// COLS-LABEL: func.func @gemv_large_n
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 8, cluster = 1, unroll = 2, mma = true, kwarps = 1>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xbf16>, tensor<4096x128256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = bf16, symmetric = true, packing = k8>>, tensor<32x128256xbf16>) -> tensor<1x128256xbf16>
  return %o : tensor<1x128256xbf16>
}
// int8 there stays on the CUDA cores (the wide rule is int4's).
// expected-remark@below {{plan: cols = 4: 16-byte accesses of packed columns, 1 x 4 accumulators}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered)}}
// expected-remark@below {{plan: K split 4 ways: 4 warps x cluster 1 over 1002 column tiles (1002 CTAs, 4008 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 4096 values of K per CTA (18432 bytes with the partial sums)}}
func.func @gemv_w8_large_n_m1(%x: tensor<1x4096xf16>, %q: tensor<4096x128256xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<32x128256xf16>) -> tensor<1x128256xf16> {
// COLS-LABEL: func.func @gemv_w8_large_n_m1
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 4, cluster = 1, unroll = 8>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x128256xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<32x128256xf16>) -> tensor<1x128256xf16>
  return %o : tensor<1x128256xf16>
}
// Between 8 and 16 groups per SM (2048 per 132 SMs: 15.5) M = 1 keeps the CUDA
// cores (H200: 25.2 vs 26.7 us on tensor cores).
// expected-remark@below {{plan: cols = 4: 16-byte accesses of packed columns, 1 x 4 accumulators}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered)}}
// expected-remark@below {{plan: K split 8 ways: 8 warps x cluster 1 over 512 column tiles (512 CTAs, 4096 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 2048 values of K per CTA (13312 bytes with the partial sums)}}
func.func @gemv_m1_between_bands(%x: tensor<1x2048xf16>, %q: tensor<2048x65536xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<16x65536xf16>) -> tensor<1x65536xf16> {
// COLS-LABEL: func.func @gemv_m1_between_bands
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 8, cluster = 1, unroll = 8>
  %o = rk.gemv %x, %q, %s : (tensor<1x2048xf16>, tensor<2048x65536xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<16x65536xf16>) -> tensor<1x65536xf16>
  return %o : tensor<1x65536xf16>
}
// expected-remark@below {{plan: cols = 2: 8-byte accesses of packed columns, 16 x 2 accumulators}}
// expected-remark@below {{plan: unroll = 16: 2 x 128 bytes of packed weight in flight per thread (double-buffered)}}
// expected-remark@below {{plan: K split 64 ways: 4 warps x cluster 16 over 64 column tiles (1024 CTAs, 4096 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 16 rows x 896 values of K per CTA (81920 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 16 through distributed shared memory}}
func.func @gemv_w8_m16(%x: tensor<16x14336xbf16>, %q: tensor<14336x4096xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<1x4096xf16>) -> tensor<16x4096xbf16> {
// COLS-LABEL: func.func @gemv_w8_m16
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 16, cols = 2, warps = 4, cluster = 16, unroll = 16>
  %o = rk.gemv %x, %q, %s : (tensor<16x14336xbf16>, tensor<14336x4096xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<1x4096xf16>) -> tensor<16x4096xbf16>
  return %o : tensor<16x4096xbf16>
}

// The same with f16 activations: int8 on tensor cores (blocks of 4 k4
// rows, 16 values of K), one CTA of 16 warps per SM whose partial sums
// reuse its 224 KiB of staged activations (W8A16 33.8 -> 29.9 us).
// expected-remark@below {{plan: mma: int8 x f16 products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns}}
// expected-remark@below {{plan: one CTA of 16 warps per SM: 2 column group(s) x 8 warps splitting K in clusters of 2 (128 CTAs; clusters of 4+ are placed unevenly)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 16 ways: 8 of the 16 warps x cluster 2; CTA tiles of 64 columns (128 CTAs, 2048 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 16 rows x 7168 values of K per CTA (231424 bytes reused by the partial sums once the products are done, the cluster's receive buffer beside them)}}
// expected-remark@below {{plan: activations staged in 4 parts of each warp's K range, two in flight, while the products run (over 65536 bytes)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_w8_m16_mma(%x: tensor<16x14336xf16>, %q: tensor<14336x4096xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<1x4096xf16>) -> tensor<16x4096xf16> {
// COLS-LABEL: func.func @gemv_w8_m16_mma
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 16, cols = 1, warps = 16, cluster = 2, unroll = 4, mma = true, kwarps = 8>
  %o = rk.gemv %x, %q, %s : (tensor<16x14336xf16>, tensor<14336x4096xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<1x4096xf16>) -> tensor<16x4096xf16>
  return %o : tensor<16x4096xf16>
}
// expected-remark@below {{plan: cols = 4: 16-byte accesses of packed columns}}
// expected-remark@below {{plan: one group of 128 values of K per warp, 4 warps per CTA (256 CTAs)}}
func.func @quantize(%w: tensor<4096x4096xf16>) -> (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) {
// COLS-LABEL: func.func @quantize
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 4, cluster = 1, unroll = 1>
  %q, %s = rk.quantize %w : (tensor<4096x4096xf16>) -> (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>)
  return %q, %s : tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>
}
// expected-remark@below {{plan: cols = 4: 16-byte accesses of packed columns}}
// expected-remark@below {{plan: 8 warps x 4 packed rows per CTA (512 CTAs)}}
func.func @dequantize(%q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> tensor<4096x4096xbf16> {
// COLS-LABEL: func.func @dequantize
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 8, cluster = 1, unroll = 4>
  %w = rk.dequantize %q, %s : (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<4096x4096xbf16>
  return %w : tensor<4096x4096xbf16>
}

// From M = 2 on, int4 GEMV runs on tensor cores (mma = true): a warp per
// 32-column group (cols = 1), 16-byte loads of 4 columns of one packed row
// per lane. 448 groups want a K split of 4 (~16 warps per SM); 4 of the 8
// warps split K, the other 4 take further groups (kwarps = 4).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 4 ways: 4 of the 8 warps x cluster 1; CTA tiles of 64 columns (224 CTAs, 1792 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 4 rows x 4096 values of K per CTA (36864 bytes with the partial sums)}}
func.func @gemv_mma_m4(%x: tensor<4x4096xbf16>, %q: tensor<4096x14336xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = bf16, symmetric = true, packing = k8>>, %s: tensor<32x14336xbf16>) -> tensor<4x14336xbf16> {
// COLS-LABEL: func.func @gemv_mma_m4
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 4, cols = 1, warps = 8, cluster = 1, unroll = 4, mma = true, kwarps = 4>
  %o = rk.gemv %x, %q, %s : (tensor<4x4096xbf16>, tensor<4096x14336xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = bf16, symmetric = true, packing = k8>>, tensor<32x14336xbf16>) -> tensor<4x14336xbf16>
  return %o : tensor<4x14336xbf16>
}
// The same with f16 activations: 32 blocks a warp, so the CTAs are the 4
// K-splitting warps alone, with blocks of 8 (rule 3; bf16 keeps the above).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered blocks of 8 x 4 packed rows)}}
// expected-remark@below {{plan: K split 4 ways: 4 of the 4 warps x cluster 1; CTA tiles of 32 columns (448 CTAs, 1792 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 4 rows x 4096 values of K per CTA (34816 bytes with the partial sums)}}
func.func @gemv_mma_m4_f16(%x: tensor<4x4096xf16>, %q: tensor<4096x14336xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x14336xf16>) -> tensor<4x14336xf16> {
// COLS-LABEL: func.func @gemv_mma_m4_f16
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 4, cols = 1, warps = 4, cluster = 1, unroll = 8, mma = true>
  %o = rk.gemv %x, %q, %s : (tensor<4x4096xf16>, tensor<4096x14336xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x14336xf16>) -> tensor<4x14336xf16>
  return %o : tensor<4x14336xf16>
}

// M = 4, N = 128256: 4008 groups want no K split; with 16 or more groups
// per SM, no cluster either: int4 at M <= 4 in CTAs of 8 column groups, unroll 2
// (H200: 87.6 -> 74.9 us against CTAs of 16 groups at unroll 4).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: N wide (4008 groups of 32 columns, 30 per SM): no K split, CTAs of 8 column groups}}
// expected-remark@below {{plan: unroll = 2: 2 x 32 bytes of packed weight in flight per thread (double-buffered blocks of 2 x 4 packed rows)}}
// expected-remark@below {{plan: K split 1 ways: 1 of the 8 warps x cluster 1; CTA tiles of 256 columns (501 CTAs, 4008 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 4 rows x 4096 values of K per CTA (36864 bytes with the partial sums)}}
func.func @gemv_mma_m4_wide(%x: tensor<4x4096xf16>, %q: tensor<4096x128256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x128256xf16>) -> tensor<4x128256xf16> {
// COLS-LABEL: func.func @gemv_mma_m4_wide
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 4, cols = 1, warps = 8, cluster = 1, unroll = 2, mma = true, kwarps = 1>
  %o = rk.gemv %x, %q, %s : (tensor<4x4096xf16>, tensor<4096x128256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x128256xf16>) -> tensor<4x128256xf16>
  return %o : tensor<4x128256xf16>
}
// M = 8 there: CTAs of 16 column groups, one per SM, in 1.90 waves (session 18:
// M = 4 108.6 -> 99.4 us against clusters of 2 of 8 warps), at unroll 2 (H200:
// 88.0 -> 78.4 us).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: N wide (4008 groups of 32 columns, 30 per SM): no K split, CTAs of 16 column groups}}
// expected-remark@below {{plan: unroll = 2: 2 x 32 bytes of packed weight in flight per thread (double-buffered blocks of 2 x 4 packed rows)}}
// expected-remark@below {{plan: K split 1 ways: 1 of the 16 warps x cluster 1; CTA tiles of 512 columns (251 CTAs, 4016 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 8 rows x 4096 values of K per CTA (81920 bytes with the partial sums)}}
func.func @gemv_mma_m8_wide(%x: tensor<8x4096xf16>, %q: tensor<4096x128256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x128256xf16>) -> tensor<8x128256xf16> {
// COLS-LABEL: func.func @gemv_mma_m8_wide
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 8, cols = 1, warps = 16, cluster = 1, unroll = 2, mma = true, kwarps = 1>
  %o = rk.gemv %x, %q, %s : (tensor<8x4096xf16>, tensor<4096x128256xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x128256xf16>) -> tensor<8x128256xf16>
  return %o : tensor<8x128256xf16>
}
// K = 5120: 160 blocks of 4 packed rows a warp, unroll 4.
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: N wide (4752 groups of 32 columns, 36 per SM): no K split, CTAs of 8 column groups}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 1 ways: 1 of the 8 warps x cluster 1; CTA tiles of 256 columns (594 CTAs, 4752 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 2 rows x 5120 values of K per CTA (22528 bytes with the partial sums)}}
func.func @gemv_mma_m2_wide_long_k(%x: tensor<2x5120xf16>, %q: tensor<5120x152064xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<40x152064xf16>) -> tensor<2x152064xf16> {
// COLS-LABEL: func.func @gemv_mma_m2_wide_long_k
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 2, cols = 1, warps = 8, cluster = 1, unroll = 4, mma = true, kwarps = 1>
  %o = rk.gemv %x, %q, %s : (tensor<2x5120xf16>, tensor<5120x152064xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<40x152064xf16>) -> tensor<2x152064xf16>
  return %o : tensor<2x152064xf16>
}

// M = 16, 128 groups of 32 columns, K = 11008: one CTA of 16 warps per SM
// (2 column groups x 8 warps splitting K) in clusters of 2 instead of
// clusters of 8 CTAs of 4 warps (20.4 -> 15.7 us on the H100).
// expected-remark@below {{plan: one CTA of 16 warps per SM: 2 column group(s) x 8 warps splitting K in clusters of 2 (128 CTAs; clusters of 4+ are placed unevenly)}}
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 16 ways: 8 of the 16 warps x cluster 2; CTA tiles of 64 columns (128 CTAs, 2048 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 16 rows x 5504 values of K per CTA (212992 bytes with the partial sums)}}
// expected-remark@below {{plan: activations staged in 4 parts of each warp's K range, two in flight, while the products run (over 65536 bytes)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_m16_cluster2_wide_cta(%x: tensor<16x11008xf16>, %q: tensor<11008x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<86x4096xf16>) -> tensor<16x4096xf16> {
// COLS-LABEL: func.func @gemv_m16_cluster2_wide_cta
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 16, cols = 1, warps = 16, cluster = 2, unroll = 4, mma = true, kwarps = 8>
  %o = rk.gemv %x, %q, %s : (tensor<16x11008xf16>, tensor<11008x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<86x4096xf16>) -> tensor<16x4096xf16>
  return %o : tensor<16x4096xf16>
}
// N = 151936: CTAs of 8 column groups whatever the waves (5120 x 152064 M = 4:
// 133.5 -> 122.2 us on the H200).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: N wide (4748 groups of 32 columns, 35 per SM): no K split, CTAs of 8 column groups}}
// expected-remark@below {{plan: unroll = 2: 2 x 32 bytes of packed weight in flight per thread (double-buffered blocks of 2 x 4 packed rows)}}
// expected-remark@below {{plan: K split 1 ways: 1 of the 8 warps x cluster 1; CTA tiles of 256 columns (594 CTAs, 4752 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 4 rows x 4096 values of K per CTA (36864 bytes with the partial sums)}}
func.func @gemv_mma_m4_wide_tail(%x: tensor<4x4096xf16>, %q: tensor<4096x151936xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x151936xf16>) -> tensor<4x151936xf16> {
// COLS-LABEL: func.func @gemv_mma_m4_wide_tail
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 4, cols = 1, warps = 8, cluster = 1, unroll = 2, mma = true, kwarps = 1>
  %o = rk.gemv %x, %q, %s : (tensor<4x4096xf16>, tensor<4096x151936xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x151936xf16>) -> tensor<4x151936xf16>
  return %o : tensor<4x151936xf16>
}
// M = 8 there: 16 column groups a CTA would take 2.25 waves of one CTA per SM,
// so the clusters of 2 of 8 warps stay (the wide plan lost 12 %).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 2 ways: 1 of the 8 warps x cluster 2; CTA tiles of 256 columns (1188 CTAs, 9504 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 8 rows x 2048 values of K per CTA (49152 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_mma_m8_wide_tail(%x: tensor<8x4096xf16>, %q: tensor<4096x151936xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x151936xf16>) -> tensor<8x151936xf16> {
// COLS-LABEL: func.func @gemv_mma_m8_wide_tail
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 8, cols = 1, warps = 8, cluster = 2, unroll = 4, mma = true, kwarps = 1>
  %o = rk.gemv %x, %q, %s : (tensor<8x4096xf16>, tensor<4096x151936xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x151936xf16>) -> tensor<8x151936xf16>
  return %o : tensor<8x151936xf16>
}
// int8 at M = 1 with 448 groups of 32 columns (at most 8 per SM): tensor
// cores, as int4 (k4 words; session 18: 21.8 vs 23.0 us on CUDA cores).
// expected-remark@below {{plan: mma: int8 x f16 products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered blocks of 8 x 4 packed rows)}}
// expected-remark@below {{plan: K split 4 ways: 4 of the 8 warps x cluster 1; CTA tiles of 64 columns (224 CTAs, 1792 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 4096 values of K per CTA (9216 bytes with the partial sums)}}
func.func @gemv_w8_wide_m1(%x: tensor<1x4096xf16>, %q: tensor<4096x14336xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<32x14336xf16>) -> tensor<1x14336xf16> {
// COLS-LABEL: func.func @gemv_w8_wide_m1
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 8, cluster = 1, unroll = 8, mma = true, kwarps = 4>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x14336xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<32x14336xf16>) -> tensor<1x14336xf16>
  return %o : tensor<1x14336xf16>
}
// M = 1 takes tensor cores while the 32-column groups are at most 8 per
// SM: 1056 groups (N = 33792) on 132 SMs take them, 1057 (N = 33824) the
// CUDA cores (session 32: the H100 and the H200 faster on tensor cores at
// 7-8 per SM, the H200 slower at 15 and more).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered blocks of 8 x 4 packed rows)}}
// expected-remark@below {{plan: K split 2 ways: 2 of the 8 warps x cluster 1; CTA tiles of 128 columns (264 CTAs, 2112 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 4096 values of K per CTA (9216 bytes with the partial sums)}}
func.func @gemv_m1_eight_groups_per_sm(%x: tensor<1x4096xf16>, %q: tensor<4096x33792xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x33792xf16>) -> tensor<1x33792xf16> {
// COLS-LABEL: func.func @gemv_m1_eight_groups_per_sm
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 8, cluster = 1, unroll = 8, mma = true, kwarps = 2>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x33792xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x33792xf16>) -> tensor<1x33792xf16>
  return %o : tensor<1x33792xf16>
}
// expected-remark@below {{plan: cols = 4: 16-byte accesses of packed columns, 1 x 4 accumulators}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered)}}
// expected-remark@below {{plan: K split 8 ways: 8 warps x cluster 1 over 265 column tiles (265 CTAs, 2120 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 4096 values of K per CTA (22528 bytes with the partial sums)}}
func.func @gemv_m1_past_eight_groups_per_sm(%x: tensor<1x4096xf16>, %q: tensor<4096x33824xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x33824xf16>) -> tensor<1x33824xf16> {
// COLS-LABEL: func.func @gemv_m1_past_eight_groups_per_sm
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 8, cluster = 1, unroll = 8>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x33824xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x33824xf16>) -> tensor<1x33824xf16>
  return %o : tensor<1x33824xf16>
}
// int8, M = 4: 32 blocks of 16 values of K a warp take blocks of 8 (int4
// from 65; 13.8 -> 11.0 us at this shape).
// expected-remark@below {{plan: mma: int8 x f16 products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered blocks of 8 x 4 packed rows)}}
// expected-remark@below {{plan: K split 8 ways: 8 of the 8 warps x cluster 1; CTA tiles of 32 columns (192 CTAs, 1536 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 4 rows x 4096 values of K per CTA (36864 bytes with the partial sums)}}
func.func @gemv_w8_m4_blocks8(%x: tensor<4x4096xf16>, %q: tensor<4096x6144xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<32x6144xf16>) -> tensor<4x6144xf16> {
// COLS-LABEL: func.func @gemv_w8_m4_blocks8
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 4, cols = 1, warps = 8, cluster = 1, unroll = 8, mma = true>
  %o = rk.gemv %x, %q, %s : (tensor<4x4096xf16>, tensor<4096x6144xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<32x6144xf16>) -> tensor<4x6144xf16>
  return %o : tensor<4x6144xf16>
}

// int8, M = 1, K = 14336 (issue #8's W8A16 shape): k4 words, a warp reads
// 128 contiguous bytes of each packed row of its 32 columns; 128 groups of
// 32 columns x 16 warps splitting K, one CTA per SM, blocks of 8.
// expected-remark@below {{plan: mma: int8 x f16 products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 8: 2 x 128 bytes of packed weight in flight per thread (double-buffered blocks of 8 x 4 packed rows)}}
// expected-remark@below {{plan: K split 16 ways: 16 of the 16 warps x cluster 1; CTA tiles of 32 columns (128 CTAs, 2048 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 14336 values of K per CTA (30720 bytes with the partial sums)}}
func.func @gemv_w8_long_k_mma(%x: tensor<1x14336xf16>, %q: tensor<14336x4096xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<112x4096xf16>) -> tensor<1x4096xf16> {
// COLS-LABEL: func.func @gemv_w8_long_k_mma
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 16, cluster = 1, unroll = 8, mma = true>
  %o = rk.gemv %x, %q, %s : (tensor<1x14336xf16>, tensor<14336x4096xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<112x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}

// 32 groups want a K split of 32: 16 warps and a cluster of 2.
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 32 ways: 16 of the 16 warps x cluster 2; CTA tiles of 32 columns (64 CTAs, 1024 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 2 rows x 2048 values of K per CTA (16384 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_mma_narrow(%x: tensor<2x4096xf16>, %q: tensor<4096x1024xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x1024xf16>) -> tensor<2x1024xf16> {
// COLS-LABEL: func.func @gemv_mma_narrow
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 2, cols = 1, warps = 16, cluster = 2, unroll = 4, mma = true>
  %o = rk.gemv %x, %q, %s : (tensor<2x4096xf16>, tensor<4096x1024xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x1024xf16>) -> tensor<2x1024xf16>
  return %o : tensor<2x1024xf16>
}

// M = 1, N = 11008: 172 CTAs would put 2 on 40 SMs and 1 on the others; a
// cluster of 2 makes 344 smaller ones (2.6 per SM).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 8 ways: 4 of the 8 warps x cluster 2; CTA tiles of 64 columns (344 CTAs, 2752 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 2048 values of K per CTA (7168 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_balance(%x: tensor<1x4096xf16>, %q: tensor<4096x11008xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x11008xf16>) -> tensor<1x11008xf16> {
// COLS-LABEL: func.func @gemv_balance
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 8, cluster = 2, unroll = 4, mma = true, kwarps = 4>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x11008xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x11008xf16>) -> tensor<1x11008xf16>
  return %o : tensor<1x11008xf16>
}

// K = 2048: 16 warps would get 4 blocks each (one iteration of the double
// buffer); 8 warps with 8.
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns; M <= 8: the weights are the A operand (16 columns per product, the rows of M in its 8 columns)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 8 ways: 8 of the 8 warps x cluster 1; CTA tiles of 32 columns (128 CTAs, 1024 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 2048 values of K per CTA (5120 bytes with the partial sums)}}
func.func @gemv_short_k(%x: tensor<1x2048xf16>, %q: tensor<2048x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<16x4096xf16>) -> tensor<1x4096xf16> {
// COLS-LABEL: func.func @gemv_short_k
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 1, warps = 8, cluster = 1, unroll = 4, mma = true>
  %o = rk.gemv %x, %q, %s : (tensor<1x2048xf16>, tensor<2048x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<16x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}

// M = 16, K = 14336 (issue #8's W4A16 M = 16 shape): the staged
// activations of all of K would be 448 KiB. One CTA of 16 warps per SM
// (2 column groups x 8 warps splitting K) in clusters of 2 stages half of
// K, 224 KiB, which the partial sums then reuse (with them beside it,
// 260 KiB would not fit): 21.9 -> 20.3 us against clusters of 8 CTAs of 4
// warps (those CTAs the GPCs place 0-3 an SM).
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns}}
// expected-remark@below {{plan: one CTA of 16 warps per SM: 2 column group(s) x 8 warps splitting K in clusters of 2 (128 CTAs; clusters of 4+ are placed unevenly)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 16 ways: 8 of the 16 warps x cluster 2; CTA tiles of 64 columns (128 CTAs, 2048 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 16 rows x 7168 values of K per CTA (231424 bytes reused by the partial sums once the products are done, the cluster's receive buffer beside them)}}
// expected-remark@below {{plan: activations staged in 4 parts of each warp's K range, two in flight, while the products run (over 65536 bytes)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_mma_m16_long_k(%x: tensor<16x14336xf16>, %q: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<112x4096xf16>) -> tensor<16x4096xf16> {
// COLS-LABEL: func.func @gemv_mma_m16_long_k
// COLS-SAME: tier.layout = #tier.ksplit_layout<rows = 16, cols = 1, warps = 16, cluster = 2, unroll = 4, mma = true, kwarps = 8>
  %o = rk.gemv %x, %q, %s : (tensor<16x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16>) -> tensor<16x4096xf16>
  return %o : tensor<16x4096xf16>
}

//--- columns_cuda_cores.mlir
// Column kernels on CUDA cores (schedule mma = 0 here; the plan's choice for
// int8 with bf16 activations or wide N): columns per thread from the
// widest access that divides N, narrowed to 4 bytes while there are fewer
// column tiles than a quarter of the SMs (and, for one or two rows, down to
// one word until clusters of at most 2 give every SM a CTA); K split over
// warps and a cluster that brings the CTAs up to about one per SM; for one
// or two rows over at most one CTA per SM, as many warps as keep >= 24
// packed rows each and ~64 KiB in flight per SM; the cluster grows when the
// staged activations of a CTA's K range would need more than 64 KiB (16
// rows x 14336 in columns.mlir).
// expected-remark@below {{plan: cols = 2: 8-byte accesses of packed columns, 1 x 2 accumulators}}
// expected-remark@below {{plan: unroll = 16: 2 x 128 bytes of packed weight in flight per thread, 64 KiB per SM with 8 warps and one CTA per SM}}
// expected-remark@below {{plan: K split 16 ways: 8 warps x cluster 2 over 64 column tiles (128 CTAs, 1024 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 2048 values of K per CTA (13312 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_small_n(%x: tensor<1x4096xf16>, %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> tensor<1x4096xf16> {
// COLS-CC-LABEL: func.func @gemv_small_n
// COLS-CC-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 2, warps = 8, cluster = 2, unroll = 16>
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}
// Long K: 32 warps (896 packed rows per CTA, 28 each) and 4 rows in flight.
// expected-remark@below {{plan: cols = 2: 8-byte accesses of packed columns, 1 x 2 accumulators}}
// expected-remark@below {{plan: unroll = 4: 2 x 32 bytes of packed weight in flight per thread, 64 KiB per SM with 32 warps and one CTA per SM}}
// expected-remark@below {{plan: K split 64 ways: 32 warps x cluster 2 over 64 column tiles (128 CTAs, 4096 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 7168 values of K per CTA (48640 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_long_k(%x: tensor<1x14336xf16>, %q: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<112x4096xf16>) -> tensor<1x4096xf16> {
// COLS-CC-LABEL: func.func @gemv_long_k
// COLS-CC-SAME: tier.layout = #tier.ksplit_layout<rows = 1, cols = 2, warps = 32, cluster = 2, unroll = 4>
  %o = rk.gemv %x, %q, %s : (tensor<1x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}

//--- columns_override.mlir
// COLS-OVERRIDE: tier.layout = #tier.ksplit_layout<rows = 1, cols = 4, warps = 8, cluster = 4, unroll = 4>
// expected-remark@below {{plan: cols = 4: 16-byte accesses of packed columns, 1 x 4 accumulators}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread, 32 KiB per SM with 8 warps and one CTA per SM}}
// expected-remark@below {{plan: K split 32 ways: 8 warps x cluster 4 over 32 column tiles (128 CTAs, 1024 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations staged in shared memory: 1 rows x 1024 values of K per CTA (12800 bytes with the partial sums)}}
// expected-remark@below {{plan: partials combined across the cluster of 4 through distributed shared memory}}
func.func @gemv(%x: tensor<1x4096xf16>, %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> tensor<1x4096xf16> {
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}

//--- columns_bad_field.mlir
// expected-error@below {{schedule: column kernels take only vector (columns per thread), threads, cluster, unroll, mma, kwarps and acts}}
func.func @gemv(%x: tensor<1x4096xf16>, %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> tensor<1x4096xf16> {
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}

//--- columns_bad_cluster.mlir
// expected-error@below {{schedule override rejected: cluster = 64 must be a power of two up to 16}}
func.func @gemv(%x: tensor<1x4096xf16>, %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> tensor<1x4096xf16> {
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<1x4096xf16>
  return %o : tensor<1x4096xf16>
}

//--- columns_unsupported.mlir
// Quantization along the last axis (per token) is not a column kernel:
// rk-decompose makes it a row program (not run here).
func.func @per_token(%x: tensor<64x128xf16>) -> (tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<64x1xf16>) {
  // expected-error@below {{per-token quantization is a row program: run rk-decompose (with static shapes) first}}
  %q, %s = rk.quantize %x : (tensor<64x128xf16>) -> (tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<64x1xf16>)
  return %q, %s : tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<64x1xf16>
}

// -----

// Groups within a row (rk-decompose leaves them) are not lowered.
func.func @per_token_groups(%x: tensor<64x4096xf16>) -> (tensor<64x4096xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<64x32xf16>) {
  // expected-error@below {{per-token quantization takes one group per row (group_size = 0 or D = 4096), got group_size = 128: groups within a row are not supported yet}}
  %q, %s = rk.quantize %x : (tensor<64x4096xf16>) -> (tensor<64x4096xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<64x32xf16>)
  return %q, %s : tensor<64x4096xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<64x32xf16>
}

// -----

// Per-token int4 is not a format.
func.func @per_token_int4(%x: tensor<64x128xf16>) -> (tensor<64x128xi4, #rk.quant<bits = 4, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = k8>>, tensor<64x1xf16>) {
  // expected-error@below {{per-token quantization (axis = 1) is int8 symmetric with packing = none; other formats are not supported}}
  %q, %s = rk.quantize %x : (tensor<64x128xf16>) -> (tensor<64x128xi4, #rk.quant<bits = 4, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = k8>>, tensor<64x1xf16>)
  return %q, %s : tensor<64x128xi4, #rk.quant<bits = 4, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = k8>>, tensor<64x1xf16>
}

// -----

// Per-token dequantization is a row program too (rk-decompose, not run
// here).
func.func @per_token_dequantize(%q: tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, %s: tensor<64x1xf16>) -> tensor<64x128xf16> {
  // expected-error@below {{per-token dequantization is a row program: run rk-decompose (with static shapes) first}}
  %w = rk.dequantize %q, %s : (tensor<64x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<64x1xf16>) -> tensor<64x128xf16>
  return %w : tensor<64x128xf16>
}

// -----

// Per-token dequantization with groups within a row, or of another format.
func.func @per_token_dequantize_groups(%q: tensor<4x256xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, %s: tensor<4x2xf16>) -> tensor<4x256xf16> {
  // expected-error@below {{per-token dequantization takes one group per row (group_size = 0 or D = 256), got group_size = 128: groups within a row are not supported yet}}
  %w = rk.dequantize %q, %s : (tensor<4x256xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<4x2xf16>) -> tensor<4x256xf16>
  return %w : tensor<4x256xf16>
}

// -----

func.func @per_token_dequantize_int4(%q: tensor<64x128xi4, #rk.quant<bits = 4, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = k8>>, %s: tensor<64x1xf16>) -> tensor<64x128xf16> {
  // expected-error@below {{per-token dequantization (axis = 1) is int8 symmetric with packing = none; other formats are not supported}}
  %w = rk.dequantize %q, %s : (tensor<64x128xi4, #rk.quant<bits = 4, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = k8>>, tensor<64x1xf16>) -> tensor<64x128xf16>
  return %w : tensor<64x128xf16>
}

// -----

// A quantized op shares its kernel with nothing else.
func.func @two_ops(%x: tensor<1x4096xf16>, %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> tensor<1x4096xf16> {
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<1x4096xf16>
  // expected-error@below {{'rk.map' cannot share a kernel with a quantized op}}
  %y = rk.map %o {
  ^bb0(%a: f32):
    %b = arith.mulf %a, %a : f32
    rk.yield %b : f32
  } : tensor<1x4096xf16> -> tensor<1x4096xf16>
  return %y : tensor<1x4096xf16>
}

// -----

// A constant (as other ops' decompositions leave them, hoisted without a
// location) is passed over: the op it serves is the one reported.
func.func @constant_and_map(%x: tensor<1x4096xf16>, %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> (tensor<1x4096xf16>, tensor<1x4096xf16>) {
  %c = arith.constant 2.0 : f32
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<1x4096xf16>
  // expected-error@below {{'rk.map' cannot share a kernel with a quantized op}}
  %y = rk.map %x, %c {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    rk.yield %m : f32
  } : tensor<1x4096xf16>, f32 -> tensor<1x4096xf16>
  return %o, %y : tensor<1x4096xf16>, tensor<1x4096xf16>
}

// -----

// Its kernel writes the op's result once: a spec returning it twice (or
// with another value) is refused, not given one output for two results.
func.func @returned_twice(%x: tensor<1x4096xf16>, %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<32x4096xf16>) -> (tensor<1x4096xf16>, tensor<1x4096xf16>) {
  %o = rk.gemv %x, %q, %s : (tensor<1x4096xf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<1x4096xf16>
  // expected-error@below {{a spec with a quantized op returns that op's results once each, in order (it has 1, this returns 2 values)}}
  return %o, %o : tensor<1x4096xf16>, tensor<1x4096xf16>
}

// -----

// int8 weights are k4-packed (four values of K per 32-bit word).
func.func @int8_unpacked(%x: tensor<1x256xf16>, %q: tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = none>>, %s: tensor<2x64xf16>) -> tensor<1x64xf16> {
  // expected-error@below {{8-bit weights are lowered with packing = k4 (four values of K per 32-bit word; docs/quantization.md)}}
  %o = rk.gemv %x, %q, %s : (tensor<1x256xf16>, tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = none>>, tensor<2x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

// K of k4-packed int8 weights is a multiple of 4.
func.func @int8_k_not_4(%x: tensor<1x258xf16>, %q: tensor<258x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = true, packing = k4>>, %s: tensor<1x64xf16>) -> tensor<1x64xf16> {
  // expected-error@below {{K = 258 must be a multiple of 4 for k4-packed 8-bit values}}
  %o = rk.gemv %x, %q, %s : (tensor<1x258xf16>, tensor<258x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<1x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

// 8-bit quantization is symmetric.
func.func @asym8(%x: tensor<1x256xf16>, %q: tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = false, packing = k4>>, %s: tensor<2x64xf16>, %z: tensor<2x64xf16>) -> tensor<1x64xf16> {
  // expected-error@below {{8-bit quantization is symmetric only (asymmetric zero points are supported for 4 bits)}}
  %o = rk.gemv %x, %q, %s zeros %z : (tensor<1x256xf16>, tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = false, packing = k4>>, tensor<2x64xf16>, tensor<2x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

//--- columns_global_acts.mlir
// sm_86 (no clusters, 99 KiB of shared memory a CTA): 16 rows x 14336 of
// K do not fit a CTA's shared memory and no cluster can split K, so the
// activations are read from global memory (global_acts) instead of the
// planner refusing the shape.
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: acts = global: staging a CTA's K range of activations would need 458752 bytes of shared memory, over the 101376 of sm_86, which has no clusters to split K over}}
// expected-remark@below {{plan: K split 8 ways: 8 of the 8 warps x cluster 1; CTA tiles of 32 columns (128 CTAs, 1024 warps for ~108 SMs)}}
// expected-remark@below {{plan: activations read from global memory (through L1) where the products use them, not staged: 16384 bytes of shared memory for the partial sums}}
func.func @gemv_m16(%x: tensor<16x14336xf16>, %q: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<112x4096xf16>) -> tensor<16x4096xf16> {
// GLOBAL-ACTS-LABEL: func.func @gemv_m16
// GLOBAL-ACTS-SAME: tier.layout = #tier.ksplit_layout<rows = 16, cols = 1, warps = 8, cluster = 1, unroll = 4, mma = true, global_acts = true>
  %o = rk.gemv %x, %q, %s : (tensor<16x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16>) -> tensor<16x4096xf16>
  return %o : tensor<16x4096xf16>
}

//--- columns_global_acts_override.mlir
// The same forced on sm_90a (schedule acts=global): the heuristic's layout
// otherwise, shared memory for the partial sums only.
// expected-remark@below {{plan: mma: int4 x 16-bit products on tensor cores (m16n8k16, f32 accumulation); a lane loads 16 bytes = 4 columns of one packed row per group of 32, a warp 1 x 32 columns}}
// expected-remark@below {{plan: one CTA of 16 warps per SM: 2 column group(s) x 8 warps splitting K in clusters of 2 (128 CTAs; clusters of 4+ are placed unevenly)}}
// expected-remark@below {{plan: unroll = 4: 2 x 64 bytes of packed weight in flight per thread (double-buffered blocks of 4 x 4 packed rows)}}
// expected-remark@below {{plan: K split 16 ways: 8 of the 16 warps x cluster 2; CTA tiles of 64 columns (128 CTAs, 2048 warps for ~132 SMs)}}
// expected-remark@below {{plan: activations read from global memory (through L1) where the products use them, not staged: 36864 bytes of shared memory for the partial sums}}
// expected-remark@below {{plan: partials combined across the cluster of 2 through distributed shared memory}}
func.func @gemv_m16(%x: tensor<16x14336xf16>, %q: tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<112x4096xf16>) -> tensor<16x4096xf16> {
// GLOBAL-ACTS-OVERRIDE-LABEL: func.func @gemv_m16
// GLOBAL-ACTS-OVERRIDE-SAME: tier.layout = #tier.ksplit_layout<rows = 16, cols = 1, warps = 16, cluster = 2, unroll = 4, mma = true, kwarps = 8, global_acts = true>
  %o = rk.gemv %x, %q, %s : (tensor<16x14336xf16>, tensor<14336x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<112x4096xf16>) -> tensor<16x4096xf16>
  return %o : tensor<16x4096xf16>
}
