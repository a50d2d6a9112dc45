// RUN: rk-opt %s -split-input-file --rk-fuse-reductions="streaming=never" | FileCheck %s --check-prefixes=CHECK,NEVER --enable-var-scope
// RUN: rk-opt %s -split-input-file --rk-fuse-reductions="streaming=always" | FileCheck %s --check-prefixes=CHECK,ALWAYS --enable-var-scope
// RUN: rk-opt %s -split-input-file --rk-fuse-reductions="streaming=auto arch=sm_90a" | FileCheck %s --check-prefixes=CHECK,AUTO --enable-var-scope
// A schedule that names its staging decides in auto mode: staging=stream
// fuses as always does (even for rows that fit on chip), any other staging
// as never does (even for rows that do not).
// RUN: rk-opt %s -split-input-file --rk-fuse-reductions="streaming=auto arch=sm_90a schedule={cluster=4,staging=stream}" | FileCheck %s --check-prefixes=CHECK,ALWAYS --enable-var-scope
// RUN: rk-opt %s -split-input-file --rk-fuse-reductions="streaming=auto arch=sm_90a schedule={threads=256,staging=async}" | FileCheck %s --check-prefixes=CHECK,NEVER --enable-var-scope
// A row the planner splits over a cluster of 4 or more (and keeps on chip)
// gets its variance as one Welford reduction too, whatever the streaming
// mode (one cluster barrier instead of two); a cluster of 2 keeps both.
// RUN: rk-opt %s -split-input-file --rk-fuse-reductions="streaming=auto arch=sm_90a schedule={cluster=2,threads=1024,values=32,staging=smem}" | FileCheck %s --check-prefix=SMALLCLUSTER --enable-var-scope
// The same for a row split over CTAs that are not a cluster (schedule
// split, the grid tier: each reduction is a wait on global memory): 4 or
// more CTAs per row take the Welford state, 2 keep both reductions.
// RUN: rk-opt %s -split-input-file --rk-fuse-reductions="streaming=auto arch=sm_90a schedule={split=4,threads=256,staging=async}" | FileCheck %s --check-prefix=SPLIT --enable-var-scope
// RUN: rk-opt %s -split-input-file --rk-fuse-reductions="streaming=auto arch=sm_90a schedule={split=2,threads=1024,values=32,staging=async}" | FileCheck %s --check-prefix=SMALLSPLIT --enable-var-scope
// RUN: not rk-opt %s --rk-fuse-reductions="streaming=sometimes" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADMODE
// RUN: not rk-opt %s --rk-fuse-reductions="streaming=auto arch=sm_70" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADARCH
// RUN: not rk-opt %s --rk-fuse-reductions="streaming=auto arch=sm_90a sms=-3" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADSMS

// BADMODE: error: streaming must be auto, always or never, got 'sometimes'
// BADARCH: error: unsupported arch 'sm_70' (supported: sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100a)
// BADSMS: error: sms must be 0 (the arch's largest part) or 1..1024, got -3

// Two independent reductions of the same row become one rk.reduce whose
// state is the pair (sum, max): one climb of the tiers instead of two.
// CHECK-LABEL: func.func @siblings
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1024xf32>)
// CHECK:         %[[SQ:.*]] = rk.map %[[X]] {
// CHECK:         %[[R:.*]]:2 = rk.reduce %[[X]], %[[SQ]] init [0.000000e+00 : f32, 0xFF800000 : f32] {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[B0:.*]]: f32, %[[B1:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A0]], %[[B0]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[A1]], %[[B1]] : f32
// CHECK-NEXT:      rk.yield %[[S]], %[[M]] : f32, f32
// CHECK-NEXT:    } : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8xf32>, tensor<8xf32>
// CHECK-NOT:     rk.reduce
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @siblings(%x: tensor<8x1024xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = rk.reduce add %x : tensor<8x1024xf32> -> tensor<8xf32>
  %sq = rk.map %x {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    rk.yield %p : f32
  } : tensor<8x1024xf32> -> tensor<8x1024xf32>
  %q = rk.reduce max %sq : tensor<8x1024xf32> -> tensor<8xf32>
  return %s, %q : tensor<8xf32>, tensor<8xf32>
}

// -----

// Siblings merge when their inputs have the same type: the two f32
// reductions (a builtin and a custom combiner) become one, the two i32 ones
// another. Each keeps its identity and combiner; the state is in program order.
// CHECK-LABEL: func.func @siblings_by_type
// CHECK-SAME:    (%[[I:.*]]: tensor<4x64xi32>, %[[X:.*]]: tensor<4x64xf32>)
// CHECK:         %[[F:.*]]:2 = rk.reduce %[[X]], %[[X]] init [1.000000e+00 : f32, 0.000000e+00 : f32] {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[B0:.*]]: f32, %[[B1:.*]]: f32):
// CHECK-NEXT:      %[[C0:.*]] = arith.mulf %[[A0]], %[[B0]] : f32
// CHECK-NEXT:      %[[C1:.*]] = arith.addf %[[A1]], %[[B1]] : f32
// CHECK-NEXT:      rk.yield %[[C0]], %[[C1]] : f32, f32
// CHECK-NEXT:    } : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[N:.*]]:2 = rk.reduce %[[I]], %[[I]] init [-2147483648 : i32, 2147483647 : i32] {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: i32, %[[A1:.*]]: i32, %[[B0:.*]]: i32, %[[B1:.*]]: i32):
// CHECK-NEXT:      %[[C0:.*]] = arith.maxsi %[[A0]], %[[B0]] : i32
// CHECK-NEXT:      %[[C1:.*]] = arith.minsi %[[A1]], %[[B1]] : i32
// CHECK-NEXT:      rk.yield %[[C0]], %[[C1]] : i32, i32
// CHECK-NEXT:    } : tensor<4x64xi32>, tensor<4x64xi32> -> tensor<4xi32>, tensor<4xi32>
// CHECK-NEXT:    return %[[N]]#0, %[[F]]#0, %[[F]]#1, %[[N]]#1
func.func @siblings_by_type(%i: tensor<4x64xi32>, %x: tensor<4x64xf32>)
    -> (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %a = rk.reduce max %i : tensor<4x64xi32> -> tensor<4xi32>
  %b = rk.reduce mul %x : tensor<4x64xf32> -> tensor<4xf32>
  %c = rk.reduce %x init [0.0 : f32] {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    rk.yield %s : f32
  } : tensor<4x64xf32> -> tensor<4xf32>
  %d = rk.reduce min %i : tensor<4x64xi32> -> tensor<4xi32>
  return %a, %b, %c, %d : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// A decomposed softmax: the sum depends on the max, so the two are never
// merged as siblings. With streaming=always, max(x) and sum(exp(x - max))
// become one online (m, l) reduction of x and a row of ones, whose combiner
// spends one exp (on the smaller max's side), tagged rk.fold = "max_exp_sum"
// (a thread folds its values as max, then sum of exp); with never (and
// auto for a row that fits on chip) nothing changes.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1024xf32>)
// ALWAYS:        %[[ONES:.*]] = rk.map %[[X]] {
// ALWAYS-NEXT:   ^bb0(%{{.*}}: f32):
// ALWAYS-NEXT:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// ALWAYS-NEXT:     rk.yield %[[ONE]] : f32
// ALWAYS-NEXT:   } : tensor<8x1024xf32> -> tensor<8x1024xf32>
// ALWAYS-NEXT:   %[[ML:.*]]:2 = rk.reduce %[[X]], %[[ONES]] init [0xFF800000 : f32, 0.000000e+00 : f32] {
// ALWAYS-NEXT:   ^bb0(%[[M1:.*]]: f32, %[[L1:.*]]: f32, %[[M2:.*]]: f32, %[[L2:.*]]: f32):
// ALWAYS-NEXT:     %[[M:.*]] = arith.maximumf %[[M1]], %[[M2]] : f32
// ALWAYS-NEXT:     %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// ALWAYS-NEXT:     %[[EMPTY:.*]] = arith.cmpf oeq, %[[M]], %[[NINF]] : f32
// ALWAYS-NEXT:     %[[MN:.*]] = arith.minimumf %[[M1]], %[[M2]] : f32
// ALWAYS-NEXT:     %[[D:.*]] = arith.subf %[[MN]], %[[M]] : f32
// ALWAYS-NEXT:     %[[E:.*]] = math.exp %[[D]] : f32
// ALWAYS-NEXT:     %[[FIRST:.*]] = arith.cmpf oge, %[[M1]], %[[M2]] : f32
// ALWAYS-NEXT:     %[[BIG:.*]] = arith.select %[[FIRST]], %[[L1]], %[[L2]] : f32
// ALWAYS-NEXT:     %[[SMALL:.*]] = arith.select %[[FIRST]], %[[L2]], %[[L1]] : f32
// ALWAYS-NEXT:     %[[P:.*]] = arith.mulf %[[SMALL]], %[[E]] : f32
// ALWAYS-NEXT:     %[[L:.*]] = arith.addf %[[BIG]], %[[P]] : f32
// ALWAYS-NEXT:     %[[BOTH:.*]] = arith.addf %[[L1]], %[[L2]] : f32
// ALWAYS-NEXT:     %[[LSEL:.*]] = arith.select %[[EMPTY]], %[[BOTH]], %[[L]] : f32
// ALWAYS-NEXT:     rk.yield %[[M]], %[[LSEL]] : f32, f32
// ALWAYS-NEXT:   } {rk.fold = "max_exp_sum"} : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8xf32>, tensor<8xf32>
// ALWAYS-NEXT:   %[[MB:.*]] = rk.broadcast %[[ML]]#0 dims [0]
// ALWAYS-NEXT:   %[[E:.*]] = rk.map %[[X]], %[[MB]] {
// ALWAYS:        rk.map %[[ML]]#1 {
// ALWAYS-NOT:    rk.reduce
// NEVER:         %[[M:.*]] = rk.reduce max %[[X]] : tensor<8x1024xf32> -> tensor<8xf32>
// NEVER:         %[[E:.*]] = rk.map %[[X]], %{{.*}} {
// NEVER:         %[[S:.*]] = rk.reduce add %[[E]] : tensor<8x1024xf32> -> tensor<8xf32>
// NEVER:         rk.map %[[S]] {
// AUTO:          rk.reduce max %[[X]]
// AUTO:          rk.reduce add
func.func @softmax(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %one = arith.constant 1.0 : f32
  %m = rk.reduce max %x : tensor<8x1024xf32> -> tensor<8xf32>
  %mb = rk.broadcast %m dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
  %e = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %x1 = math.exp %d : f32
    rk.yield %x1 : f32
  } : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8x1024xf32>
  %s = rk.reduce add %e : tensor<8x1024xf32> -> tensor<8xf32>
  %inv = rk.map %s {
  ^bb0(%a: f32):
    %q = arith.divf %one, %a : f32
    rk.yield %q : f32
  } : tensor<8xf32> -> tensor<8xf32>
  %ib = rk.broadcast %inv dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
  %y = rk.map %e, %ib {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    rk.yield %p : f32
  } : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8x1024xf32>
  return %y : tensor<8x1024xf32>
}

// -----

// A row too long for any register-staged schedule, even a 16-CTA cluster:
// auto forms the online reduction as always does.
// CHECK-LABEL: func.func @softmax_huge
// NEVER:         rk.reduce max
// ALWAYS:        %[[ML:.*]]:2 = rk.reduce %{{.*}}, %{{.*}} init [0xFF800000 : f32, 0.000000e+00 : f32] {
// AUTO:          %[[ML:.*]]:2 = rk.reduce %{{.*}}, %{{.*}} init [0xFF800000 : f32, 0.000000e+00 : f32] {
// AUTO-NOT:      rk.reduce max
func.func @softmax_huge(%x: tensor<2x16777216xf32>) -> tensor<2xf32> {
  %m = rk.reduce max %x : tensor<2x16777216xf32> -> tensor<2xf32>
  %mb = rk.broadcast %m dims [0] : tensor<2xf32> -> tensor<2x16777216xf32>
  %e = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %x1 = math.exp %d : f32
    rk.yield %x1 : f32
  } : tensor<2x16777216xf32>, tensor<2x16777216xf32> -> tensor<2x16777216xf32>
  %s = rk.reduce add %e : tensor<2x16777216xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// A read-once row (no [M, N] result) that would need a cluster: the planner
// streams it once it is one reduction deep, so auto forms the online
// reduction (cross-entropy at N = 262144).
// CHECK-LABEL: func.func @logsumexp_read_once
// NEVER:         rk.reduce max
// ALWAYS:        %[[ML:.*]]:2 = rk.reduce %{{.*}}, %{{.*}} init [0xFF800000 : f32, 0.000000e+00 : f32] {
// AUTO:          %[[ML:.*]]:2 = rk.reduce %{{.*}}, %{{.*}} init [0xFF800000 : f32, 0.000000e+00 : f32] {
// AUTO-NOT:      rk.reduce max
func.func @logsumexp_read_once(%x: tensor<512x262144xf32>) -> tensor<512xf32> {
  %m = rk.reduce max %x : tensor<512x262144xf32> -> tensor<512xf32>
  %mb = rk.broadcast %m dims [0] : tensor<512xf32> -> tensor<512x262144xf32>
  %e = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %x1 = math.exp %d : f32
    rk.yield %x1 : f32
  } : tensor<512x262144xf32>, tensor<512x262144xf32> -> tensor<512x262144xf32>
  %s = rk.reduce add %e : tensor<512x262144xf32> -> tensor<512xf32>
  return %s : tensor<512xf32>
}

// -----

// The same read-once row, short enough for one CTA: held on chip, auto
// keeps the two reductions.
// CHECK-LABEL: func.func @logsumexp_on_chip
// NEVER:         rk.reduce max
// ALWAYS:        %[[ML:.*]]:2 = rk.reduce %{{.*}}, %{{.*}} init [0xFF800000 : f32, 0.000000e+00 : f32] {
// AUTO:          rk.reduce max
// AUTO:          rk.reduce add
func.func @logsumexp_on_chip(%x: tensor<512x8192xf32>) -> tensor<512xf32> {
  %m = rk.reduce max %x : tensor<512x8192xf32> -> tensor<512xf32>
  %mb = rk.broadcast %m dims [0] : tensor<512xf32> -> tensor<512x8192xf32>
  %e = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %x1 = math.exp %d : f32
    rk.yield %x1 : f32
  } : tensor<512x8192xf32>, tensor<512x8192xf32> -> tensor<512x8192xf32>
  %s = rk.reduce add %e : tensor<512x8192xf32> -> tensor<512xf32>
  return %s : tensor<512xf32>
}

// -----

// The first result is used before the second reduction: merging would move
// its producer past that use, so the two stay apart.
// CHECK-LABEL: func.func @used_in_between
// CHECK:         %[[A:.*]] = rk.reduce add %{{.*}} : tensor<4x64xf32> -> tensor<4xf32>
// CHECK-NEXT:    %[[U:.*]] = rk.map %[[A]] {
// CHECK:         %[[B:.*]] = rk.reduce max %{{.*}} : tensor<4x64xf32> -> tensor<4xf32>
func.func @used_in_between(%x: tensor<4x64xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = rk.reduce add %x : tensor<4x64xf32> -> tensor<4xf32>
  %u = rk.map %a {
  ^bb0(%p: f32):
    %q = arith.mulf %p, %p : f32
    rk.yield %q : f32
  } : tensor<4xf32> -> tensor<4xf32>
  %b = rk.reduce max %x : tensor<4x64xf32> -> tensor<4xf32>
  return %u, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// argmax / argmin keep their own (value, index) reduction.
// CHECK-LABEL: func.func @argmax_alone
// CHECK:         rk.reduce argmax %{{.*}} : tensor<4x64xf32> -> tensor<4xf32>, tensor<4xi64>
// CHECK-NEXT:    rk.reduce add %{{.*}} : tensor<4x64xf32> -> tensor<4xf32>
func.func @argmax_alone(%x: tensor<4x64xf32>) -> (tensor<4xi64>, tensor<4xf32>) {
  %v, %i = rk.reduce argmax %x : tensor<4x64xf32> -> tensor<4xf32>, tensor<4xi64>
  %s = rk.reduce add %x : tensor<4x64xf32> -> tensor<4xf32>
  return %i, %s : tensor<4xi64>, tensor<4xf32>
}

// -----

// A column program (a quantized op) has no row reductions: left as it is.
// CHECK-LABEL: func.func @gemv_untouched
// CHECK-NEXT:    rk.gemv
// CHECK-NEXT:    return
func.func @gemv_untouched(%x: tensor<1x256xf16>, %q: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %s: tensor<2x64xf16>) -> tensor<1x64xf16> {
  %o = rk.gemv %x, %q, %s : (tensor<1x256xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<2x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

// A variance: sum(x), mean = sum / N, sum((x - mean)^2). When streamed
// (always; auto at this length does not stream) it becomes one Welford
// reduction of (1, x, 0) with state (count, mean, M2) and Chan's combiner;
// the sum's uses get count * mean, the variance sum's uses get M2. The
// deviation map stays for the normalisation.
// CHECK-LABEL: func.func @variance
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1024xf32>)
// ALWAYS:        %[[ONES:.*]] = rk.map %[[X]] {
// ALWAYS:          arith.constant 1.000000e+00 : f32
// ALWAYS:        %[[ZEROS:.*]] = rk.map %[[X]] {
// ALWAYS:          arith.constant 0.000000e+00 : f32
// ALWAYS:        %[[W:.*]]:3 = rk.reduce %[[ONES]], %[[X]], %[[ZEROS]] init [0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32] {
// ALWAYS-NEXT:   ^bb0(%[[N1:.*]]: f32, %[[M1:.*]]: f32, %[[Q1:.*]]: f32, %[[N2:.*]]: f32, %[[M2:.*]]: f32, %[[Q2:.*]]: f32):
// ALWAYS-NEXT:     %[[N:.*]] = arith.addf %[[N1]], %[[N2]] : f32
// ALWAYS-NEXT:     %[[D:.*]] = arith.subf %[[M2]], %[[M1]] : f32
// ALWAYS-NEXT:     %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// ALWAYS-NEXT:     %[[EMPTY:.*]] = arith.cmpf oeq, %[[N]], %[[Z]] : f32
// ALWAYS-NEXT:     %[[Q:.*]] = arith.divf %[[N2]], %[[N]] fastmath<afn> : f32
// ALWAYS-NEXT:     %[[T:.*]] = arith.select %[[EMPTY]], %[[Z]], %[[Q]] : f32
// ALWAYS-NEXT:     %[[DT:.*]] = arith.mulf %[[D]], %[[T]] : f32
// ALWAYS-NEXT:     %[[M:.*]] = arith.addf %[[M1]], %[[DT]] : f32
// ALWAYS-NEXT:     %[[NT:.*]] = arith.mulf %[[N1]], %[[T]] : f32
// ALWAYS-NEXT:     %[[DN:.*]] = arith.mulf %[[D]], %[[NT]] : f32
// ALWAYS-NEXT:     %[[DDN:.*]] = arith.mulf %[[D]], %[[DN]] : f32
// ALWAYS-NEXT:     %[[QQ:.*]] = arith.addf %[[Q1]], %[[Q2]] : f32
// ALWAYS-NEXT:     %[[QS:.*]] = arith.addf %[[QQ]], %[[DDN]] : f32
// ALWAYS-NEXT:     rk.yield %[[N]], %[[M]], %[[QS]] : f32, f32, f32
// ALWAYS-NEXT:   } {rk.fold = "mean_m2"} : tensor<8x1024xf32>, tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
// ALWAYS:        %[[S:.*]] = rk.map %[[W]]#0, %[[W]]#1 {
// ALWAYS:          arith.mulf
// ALWAYS:        %[[MEAN:.*]] = rk.map %[[S]], %{{.*}} {
// ALWAYS-NOT:    rk.reduce
// ALWAYS:        return %[[MEAN]], %[[W]]#2
// NEVER:         rk.reduce add %[[X]]
// NEVER:         rk.reduce add
// AUTO:          rk.reduce add %[[X]]
// AUTO:          rk.reduce add
func.func @variance(%x: tensor<8x1024xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %n = arith.constant 1024.0 : f32
  %s = rk.reduce add %x : tensor<8x1024xf32> -> tensor<8xf32>
  %mean = rk.map %s, %n {
  ^bb0(%a: f32, %b: f32):
    %q = arith.divf %a, %b : f32
    rk.yield %q : f32
  } : tensor<8xf32>, f32 -> tensor<8xf32>
  %mb = rk.broadcast %mean dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
  %d = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %r = arith.subf %a, %b : f32
    rk.yield %r : f32
  } : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8x1024xf32>
  %sq = rk.map %d {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    rk.yield %p : f32
  } : tensor<8x1024xf32> -> tensor<8x1024xf32>
  %v = rk.reduce add %sq : tensor<8x1024xf32> -> tensor<8xf32>
  return %mean, %v : tensor<8xf32>, tensor<8xf32>
}

// -----

// The same with the mean as a multiplication by 1 / N and the square of the
// deviation in the same map: also a Welford reduction when streamed.
// CHECK-LABEL: func.func @variance_fused_square
// ALWAYS:        rk.reduce %{{.*}}, %{{.*}}, %{{.*}} init [0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32] {
// ALWAYS-NOT:    rk.reduce add
// NEVER-COUNT-2: rk.reduce add
func.func @variance_fused_square(%x: tensor<8x1024xf32>) -> tensor<8xf32> {
  %s = rk.reduce add %x : tensor<8x1024xf32> -> tensor<8xf32>
  %mean = rk.map %s {
  ^bb0(%a: f32):
    %inv = arith.constant 9.765625E-4 : f32
    %q = arith.mulf %a, %inv : f32
    rk.yield %q : f32
  } : tensor<8xf32> -> tensor<8xf32>
  %mb = rk.broadcast %mean dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
  %sq = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %r = arith.subf %a, %b : f32
    %p = arith.mulf %r, %r : f32
    rk.yield %p : f32
  } : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8x1024xf32>
  %v = rk.reduce add %sq : tensor<8x1024xf32> -> tensor<8xf32>
  return %v : tensor<8xf32>
}

// -----

// Squared deviations from sum / 1000 of a row of 1024 are not a variance
// (not the row's mean): the two reductions stay, streamed or not.
// CHECK-LABEL: func.func @not_the_mean
// CHECK-COUNT-2: rk.reduce add
func.func @not_the_mean(%x: tensor<8x1024xf32>) -> tensor<8xf32> {
  %n = arith.constant 1000.0 : f32
  %s = rk.reduce add %x : tensor<8x1024xf32> -> tensor<8xf32>
  %mean = rk.map %s, %n {
  ^bb0(%a: f32, %b: f32):
    %q = arith.divf %a, %b : f32
    rk.yield %q : f32
  } : tensor<8xf32>, f32 -> tensor<8xf32>
  %mb = rk.broadcast %mean dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
  %sq = rk.map %x, %mb {
  ^bb0(%a: f32, %b: f32):
    %r = arith.subf %a, %b : f32
    %p = arith.mulf %r, %r : f32
    rk.yield %p : f32
  } : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8x1024xf32>
  %v = rk.reduce add %sq : tensor<8x1024xf32> -> tensor<8xf32>
  return %v : tensor<8xf32>
}

// -----

// A decomposed LayerNorm of 2048 rows of 65536 f32: planned on chip in
// clusters of 4 (auto, never), streamed with always; either way its mean
// and variance become one Welford reduction tagged for the two-pass group
// fold (on chip: one cluster barrier instead of two). A schedule with a
// cluster of 2 keeps the two reductions.
// CHECK-LABEL: func.func @layer_norm_cluster
// CHECK:         rk.reduce %{{.*}}, %arg0, %{{.*}} init [0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32] {
// CHECK:         } {rk.fold = "mean_m2"}
// CHECK-NOT:     rk.reduce
// SMALLCLUSTER-LABEL: func.func @layer_norm_cluster
// SMALLCLUSTER-COUNT-2: rk.reduce add
// SMALLCLUSTER-NOT: rk.fold
// SPLIT-LABEL: func.func @layer_norm_cluster
// SPLIT:         rk.reduce %{{.*}}, %arg0, %{{.*}} init [0.000000e+00 : f32, 0.000000e+00 : f32, 0.000000e+00 : f32] {
// SPLIT:         } {rk.fold = "mean_m2"}
// SMALLSPLIT-LABEL: func.func @layer_norm_cluster
// SMALLSPLIT-COUNT-2: rk.reduce add
// SMALLSPLIT-NOT: rk.fold
func.func @layer_norm_cluster(%arg0: tensor<2048x65536xf32> {rk.name = "x"}, %arg1: tensor<65536xf32> {rk.name = "w"}, %arg2: tensor<65536xf32> {rk.name = "b"}) -> tensor<2048x65536xf32> {
  %cst = arith.constant 9.99999974E-6 : f32
  %cst_0 = arith.constant 6.553600e+04 : f32
  %0 = rk.reduce add %arg0 : tensor<2048x65536xf32> -> tensor<2048xf32>
  %1 = rk.map %0, %cst_0 {
  ^bb0(%arg3: f32, %arg4: f32):
    %11 = arith.divf %arg3, %arg4 : f32
    rk.yield %11 : f32
  } : tensor<2048xf32>, f32 -> tensor<2048xf32>
  %2 = rk.broadcast %1 dims [0] : tensor<2048xf32> -> tensor<2048x65536xf32>
  %3 = rk.map %arg0, %2 {
  ^bb0(%arg3: f32, %arg4: f32):
    %11 = arith.subf %arg3, %arg4 : f32
    rk.yield %11 : f32
  } : tensor<2048x65536xf32>, tensor<2048x65536xf32> -> tensor<2048x65536xf32>
  %4 = rk.map %3 {
  ^bb0(%arg3: f32):
    %11 = arith.mulf %arg3, %arg3 : f32
    rk.yield %11 : f32
  } : tensor<2048x65536xf32> -> tensor<2048x65536xf32>
  %5 = rk.reduce add %4 : tensor<2048x65536xf32> -> tensor<2048xf32>
  %6 = rk.map %5, %cst_0, %cst {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %11 = arith.divf %arg3, %arg4 : f32
    %12 = arith.addf %11, %arg5 : f32
    %13 = math.rsqrt %12 : f32
    rk.yield %13 : f32
  } : tensor<2048xf32>, f32, f32 -> tensor<2048xf32>
  %7 = rk.broadcast %6 dims [0] : tensor<2048xf32> -> tensor<2048x65536xf32>
  %8 = rk.broadcast %arg1 dims [1] : tensor<65536xf32> -> tensor<2048x65536xf32>
  %9 = rk.broadcast %arg2 dims [1] : tensor<65536xf32> -> tensor<2048x65536xf32>
  %10 = rk.map %3, %7, %8, %9 {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32, %arg6: f32):
    %11 = arith.mulf %arg3, %arg4 : f32
    %12 = arith.mulf %11, %arg5 : f32
    %13 = arith.addf %12, %arg6 : f32
    rk.yield %13 : f32
  } : tensor<2048x65536xf32>, tensor<2048x65536xf32>, tensor<2048x65536xf32>, tensor<2048x65536xf32> -> tensor<2048x65536xf32>
  return %10 : tensor<2048x65536xf32>
}

// -----

// A scalar argument (a runtime eps) and no row op: the analysis behind the
// auto decision skips it (a pipeline_fuzzer input once crashed it there).
// CHECK-LABEL: func.func @scalar_arg
// CHECK-NEXT:    return %arg0 : tensor<4x8xf32>
func.func @scalar_arg(%x: tensor<4x8xf32> {rk.name = "x"}, %e: f32 {rk.name = "eps"}) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}
