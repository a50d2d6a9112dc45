// RUN: rk-opt %s --rk-decompose -split-input-file | FileCheck %s --enable-var-scope

// Each named row op becomes rk.reduce / rk.broadcast / rk.map (+ rk.gather).
// Intermediates are f32; only the op's results keep its element types.
// Scalar constants (eps, N, 1.0, ...) end up at the top of the function: the
// rewrite driver hoists the constants it creates inside map regions.

// y = x * rsqrt(sum(x^2) / N + eps) * w
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1024xbf16>, %[[W:.*]]: tensor<1024xbf16>)
// CHECK-DAG:     %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-DAG:     %[[N:.*]] = arith.constant 1.024000e+03 : f32
// CHECK:         %[[SQ:.*]] = rk.map %[[X]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:      rk.yield %[[P]] : f32
// CHECK-NEXT:    } : tensor<8x1024xbf16> -> tensor<8x1024xf32>
// CHECK-NEXT:    %[[SUM:.*]] = rk.reduce add %[[SQ]] : tensor<8x1024xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[INV:.*]] = rk.map %[[SUM]], %[[N]], %[[EPS]] {
// CHECK-NEXT:    ^bb0(%[[S:.*]]: f32, %[[NN:.*]]: f32, %[[E:.*]]: f32):
// CHECK-NEXT:      %[[MEAN:.*]] = arith.divf %[[S]], %[[NN]] : f32
// CHECK-NEXT:      %[[ME:.*]] = arith.addf %[[MEAN]], %[[E]] : f32
// CHECK-NEXT:      %[[R:.*]] = math.rsqrt %[[ME]] : f32
// CHECK-NEXT:      rk.yield %[[R]] : f32
// CHECK-NEXT:    } : tensor<8xf32>, f32, f32 -> tensor<8xf32>
// CHECK-NEXT:    %[[INVB:.*]] = rk.broadcast %[[INV]] dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
// CHECK-NEXT:    %[[WB:.*]] = rk.broadcast %[[W]] dims [1] : tensor<1024xbf16> -> tensor<8x1024xbf16>
// CHECK-NEXT:    %[[Y:.*]] = rk.map %[[X]], %[[INVB]], %[[WB]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.mulf %[[P]], %[[C]] : f32
// CHECK-NEXT:      rk.yield %[[Q]] : f32
// CHECK-NEXT:    } : tensor<8x1024xbf16>, tensor<8x1024xf32>, tensor<8x1024xbf16> -> tensor<8x1024xbf16>
// CHECK-NEXT:    return %[[Y]] : tensor<8x1024xbf16>
// CHECK-NOT:     rk.rms_norm
func.func @rms_norm(%x: tensor<8x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<8x1024xbf16> {
  %y = rk.rms_norm %x, %w {eps = 1.0e-5 : f32} : (tensor<8x1024xbf16>, tensor<1024xbf16>) -> tensor<8x1024xbf16>
  return %y : tensor<8x1024xbf16>
}

// -----

// h = x + r is normalised and also returned (a copy map into the result type).
// CHECK-LABEL: func.func @rms_norm_residual
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1024xbf16>, %[[W:.*]]: tensor<1024xbf16>, %[[RES:.*]]: tensor<8x1024xbf16>)
// CHECK:         %[[H:.*]] = rk.map %[[X]], %[[RES]] {
// CHECK:           arith.addf
// CHECK:         } : tensor<8x1024xbf16>, tensor<8x1024xbf16> -> tensor<8x1024xf32>
// CHECK-NEXT:    %[[SQ:.*]] = rk.map %[[H]] {
// CHECK:           arith.mulf
// CHECK:         } : tensor<8x1024xf32> -> tensor<8x1024xf32>
// CHECK-NEXT:    %[[SUM:.*]] = rk.reduce add %[[SQ]] : tensor<8x1024xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[INV:.*]] = rk.map %[[SUM]], %{{.*}}, %{{.*}} {
// CHECK:           math.rsqrt
// CHECK:         %[[INVB:.*]] = rk.broadcast %[[INV]] dims [0]
// CHECK-NEXT:    %[[WB:.*]] = rk.broadcast %[[W]] dims [1]
// CHECK-NEXT:    %[[Y:.*]] = rk.map %[[H]], %[[INVB]], %[[WB]] {
// CHECK:         } : tensor<8x1024xf32>, tensor<8x1024xf32>, tensor<8x1024xbf16> -> tensor<8x1024xbf16>
// CHECK-NEXT:    %[[HOUT:.*]] = rk.map %[[H]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      rk.yield %[[A]] : f32
// CHECK-NEXT:    } : tensor<8x1024xf32> -> tensor<8x1024xbf16>
// CHECK-NEXT:    return %[[Y]], %[[HOUT]] : tensor<8x1024xbf16>, tensor<8x1024xbf16>
func.func @rms_norm_residual(%x: tensor<8x1024xbf16>, %w: tensor<1024xbf16>, %r: tensor<8x1024xbf16>)
    -> (tensor<8x1024xbf16>, tensor<8x1024xbf16>) {
  %y, %h = rk.rms_norm %x, %w residual %r
      : (tensor<8x1024xbf16>, tensor<1024xbf16>, tensor<8x1024xbf16>) -> (tensor<8x1024xbf16>, tensor<8x1024xbf16>)
  return %y, %h : tensor<8x1024xbf16>, tensor<8x1024xbf16>
}

// -----

// mean = sum(x) / N; d = x - mean; y = d * rsqrt(sum(d^2) / N + eps) * w + b
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1024xf32>, %[[W:.*]]: tensor<1024xf32>, %[[B:.*]]: tensor<1024xf32>)
// CHECK:         %[[S1:.*]] = rk.reduce add %[[X]] : tensor<8x1024xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[MEAN:.*]] = rk.map %[[S1]], %{{.*}} {
// CHECK:           arith.divf
// CHECK:         } : tensor<8xf32>, f32 -> tensor<8xf32>
// CHECK-NEXT:    %[[MEANB:.*]] = rk.broadcast %[[MEAN]] dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
// CHECK-NEXT:    %[[D:.*]] = rk.map %[[X]], %[[MEANB]] {
// CHECK:           arith.subf
// CHECK:         %[[SQ:.*]] = rk.map %[[D]] {
// CHECK:           arith.mulf
// CHECK:         %[[S2:.*]] = rk.reduce add %[[SQ]] : tensor<8x1024xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[INV:.*]] = rk.map %[[S2]], %{{.*}}, %{{.*}} {
// CHECK:           arith.divf
// CHECK:           arith.addf
// CHECK:           math.rsqrt
// CHECK:         %[[INVB:.*]] = rk.broadcast %[[INV]] dims [0]
// CHECK-NEXT:    %[[WB:.*]] = rk.broadcast %[[W]] dims [1]
// CHECK-NEXT:    %[[BB:.*]] = rk.broadcast %[[B]] dims [1]
// CHECK-NEXT:    %[[Y:.*]] = rk.map %[[D]], %[[INVB]], %[[WB]], %[[BB]] {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[A2:.*]]: f32, %[[A3:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A0]], %[[A1]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.mulf %[[P]], %[[A2]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[Q]], %[[A3]] : f32
// CHECK-NEXT:      rk.yield %[[R]] : f32
// CHECK:         return %[[Y]]
func.func @layer_norm(%x: tensor<8x1024xf32>, %w: tensor<1024xf32>, %b: tensor<1024xf32>) -> tensor<8x1024xf32> {
  %y = rk.layer_norm %x, %w, %b : (tensor<8x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<8x1024xf32>
  return %y : tensor<8x1024xf32>
}

// -----

// Without a bias the final map has three operands and no addf.
// CHECK-LABEL: func.func @layer_norm_no_bias
// CHECK-SAME:    (%{{.*}}: tensor<4x256xf16>, %[[W:.*]]: tensor<256xf16>)
// CHECK:         %[[WB:.*]] = rk.broadcast %[[W]] dims [1] : tensor<256xf16> -> tensor<4x256xf16>
// CHECK-NEXT:    rk.map %{{.*}}, %{{.*}}, %[[WB]] {
// CHECK-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      arith.mulf
// CHECK-NEXT:      rk.yield
// CHECK-NEXT:    } : tensor<4x256xf32>, tensor<4x256xf32>, tensor<4x256xf16> -> tensor<4x256xf16>
func.func @layer_norm_no_bias(%x: tensor<4x256xf16>, %w: tensor<256xf16>) -> tensor<4x256xf16> {
  %y = rk.layer_norm %x, %w : (tensor<4x256xf16>, tensor<256xf16>) -> tensor<4x256xf16>
  return %y : tensor<4x256xf16>
}

// -----

// m = max(x); e = exp(x - m); y = e * (1 / sum(e))
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1024xf32>)
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    %[[M:.*]] = rk.reduce max %[[X]] : tensor<8x1024xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[MB:.*]] = rk.broadcast %[[M]] dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
// CHECK-NEXT:    %[[E:.*]] = rk.map %[[X]], %[[MB]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[EX:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      rk.yield %[[EX]] : f32
// CHECK-NEXT:    } : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8x1024xf32>
// CHECK-NEXT:    %[[S:.*]] = rk.reduce add %[[E]] : tensor<8x1024xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[INV:.*]] = rk.map %[[S]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[ONE]], %[[A]] : f32
// CHECK-NEXT:      rk.yield %[[Q]] : f32
// CHECK-NEXT:    } : tensor<8xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[INVB:.*]] = rk.broadcast %[[INV]] dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
// CHECK-NEXT:    %[[Y:.*]] = rk.map %[[E]], %[[INVB]] {
// CHECK:           arith.mulf
// CHECK:         } : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8x1024xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @softmax(%x: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %y = rk.softmax %x : (tensor<8x1024xf32>) -> tensor<8x1024xf32>
  return %y : tensor<8x1024xf32>
}

// -----

// lse = m + log(sum(exp(x - m))); y = x - lse
// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1024xbf16>)
// CHECK:         %[[M:.*]] = rk.reduce max %[[X]] : tensor<8x1024xbf16> -> tensor<8xf32>
// CHECK-NEXT:    %[[MB:.*]] = rk.broadcast %[[M]] dims [0]
// CHECK-NEXT:    %[[E:.*]] = rk.map %[[X]], %[[MB]] {
// CHECK:           arith.subf
// CHECK-NEXT:      math.exp
// CHECK:         %[[S:.*]] = rk.reduce add %[[E]] : tensor<8x1024xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[LSE:.*]] = rk.map %[[M]], %[[S]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT:      %[[L:.*]] = math.log %[[B]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.addf %[[A]], %[[L]] : f32
// CHECK-NEXT:      rk.yield %[[R]] : f32
// CHECK-NEXT:    } : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[LB:.*]] = rk.broadcast %[[LSE]] dims [0]
// CHECK-NEXT:    %[[Y:.*]] = rk.map %[[X]], %[[LB]] {
// CHECK:           arith.subf
// CHECK:         } : tensor<8x1024xbf16>, tensor<8x1024xf32> -> tensor<8x1024xbf16>
// CHECK-NEXT:    return %[[Y]]
func.func @log_softmax(%x: tensor<8x1024xbf16>) -> tensor<8x1024xbf16> {
  %y = rk.log_softmax %x : (tensor<8x1024xbf16>) -> tensor<8x1024xbf16>
  return %y : tensor<8x1024xbf16>
}

// -----

// lse as in log_softmax; loss = target == ignore_index ? 0 : lse - x[target]
// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME:    (%[[X:.*]]: tensor<8x1024xbf16>, %[[T:.*]]: tensor<8xi64>)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[IGN:.*]] = arith.constant -7 : i64
// CHECK:         %[[M:.*]] = rk.reduce max %[[X]]
// CHECK:         %[[S:.*]] = rk.reduce add
// CHECK-NEXT:    %[[LSE:.*]] = rk.map %[[M]], %[[S]] {
// CHECK:           math.log
// CHECK:         %[[G:.*]] = rk.gather %[[X]][%[[T]]] : tensor<8x1024xbf16>, tensor<8xi64> -> tensor<8xbf16>
// CHECK-NEXT:    %[[LOSS:.*]] = rk.map %[[LSE]], %[[G]], %[[T]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: i64):
// CHECK-NEXT:      %[[IS:.*]] = arith.cmpi eq, %[[C]], %[[IGN]] : i64
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[IS]], %[[ZERO]], %[[D]] : f32
// CHECK-NEXT:      rk.yield %[[SEL]] : f32
// CHECK-NEXT:    } : tensor<8xf32>, tensor<8xbf16>, tensor<8xi64> -> tensor<8xf32>
// CHECK-NEXT:    return %[[LOSS]], %[[LSE]] : tensor<8xf32>, tensor<8xf32>
func.func @cross_entropy(%l: tensor<8x1024xbf16>, %t: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xf32>) {
  %loss, %lse = rk.cross_entropy %l, %t {ignore_index = -7 : i64}
      : (tensor<8x1024xbf16>, tensor<8xi64>) -> (tensor<8xf32>, tensor<8xf32>)
  return %loss, %lse : tensor<8xf32>, tensor<8xf32>
}

// -----

// An lse result narrower than f32 gets a converting map.
// CHECK-LABEL: func.func @cross_entropy_bf16_lse
// CHECK:         %[[M:.*]] = rk.reduce max
// CHECK:         %[[S:.*]] = rk.reduce add
// CHECK-NEXT:    %[[LSE:.*]] = rk.map %[[M]], %[[S]] {
// CHECK:           math.log
// CHECK:         } : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK:         %[[LOSS:.*]] = rk.map %[[LSE]], %{{.*}}, %{{.*}} {
// CHECK:         } : tensor<4xf32>, tensor<4xf16>, tensor<4xi32> -> tensor<4xf16>
// CHECK-NEXT:    %[[LSE16:.*]] = rk.map %[[LSE]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      rk.yield %[[A]] : f32
// CHECK-NEXT:    } : tensor<4xf32> -> tensor<4xbf16>
// CHECK-NEXT:    return %[[LOSS]], %[[LSE16]] : tensor<4xf16>, tensor<4xbf16>
func.func @cross_entropy_bf16_lse(%l: tensor<4x512xf16>, %t: tensor<4xi32>) -> (tensor<4xf16>, tensor<4xbf16>) {
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x512xf16>, tensor<4xi32>) -> (tensor<4xf16>, tensor<4xbf16>)
  return %loss, %lse : tensor<4xf16>, tensor<4xbf16>
}

// -----

// Per-token int8 (one group per row, group_size 0): |x|, the row max, the
// scale rounded to its type (the map's f16 result), then the values from x
// and the rounded scale: with an f16 scale the IEEE quotient through the
// row's reciprocal and one correction (y = 1 / s and s per row, both 0
// where s is 0 or inf; q = x * y, r = fma(-q, s, x), fma(r, y, q)), clamp.
// The map yields f32 (the compute type of a quantized tensor); the i8
// result rounds half to even where it is stored. The scales result [T, 1]
// is the per-row scale broadcast over a row of one element.
// CHECK-LABEL: func.func @quantize_per_token
// CHECK-SAME:    (%[[X:.*]]: tensor<16x128xbf16>)
// CHECK-DAG:     %[[HI:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-DAG:     %[[LO:.*]] = arith.constant -1.270000e+02 : f32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[R:.*]] = arith.constant 0.00787401571 : f32
// CHECK:         %[[ABS:.*]] = rk.map %[[X]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32):
// CHECK-NEXT:      %[[AA:.*]] = math.absf %[[A]] : f32
// CHECK-NEXT:      rk.yield %[[AA]] : f32
// CHECK-NEXT:    } : tensor<16x128xbf16> -> tensor<16x128xf32>
// CHECK-NEXT:    %[[MAX:.*]] = rk.reduce max %[[ABS]] : tensor<16x128xf32> -> tensor<16xf32>
// CHECK-NEXT:    %[[S:.*]] = rk.map %[[MAX]], %[[R]] {
// CHECK-NEXT:    ^bb0(%[[M:.*]]: f32, %[[RR:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[M]], %[[RR]] : f32
// CHECK-NEXT:      rk.yield %[[P]] : f32
// CHECK-NEXT:    } : tensor<16xf32>, f32 -> tensor<16xf16>
// CHECK-NEXT:    %[[Y:.*]] = rk.map %[[S]] {
// CHECK-NEXT:    ^bb0(%[[S1:.*]]: f32):
// CHECK-NEXT:      %[[Z1:.*]] = arith.cmpf oeq, %[[S1]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[I1:.*]] = arith.cmpf oeq, %[[S1]], %[[INF]] : f32
// CHECK-NEXT:      %[[O1:.*]] = arith.ori %[[Z1]], %[[I1]] : i1
// CHECK-NEXT:      %[[RCP:.*]] = arith.divf %[[ONE]], %[[S1]] : f32
// CHECK-NEXT:      %[[Y1:.*]] = arith.select %[[O1]], %[[ZERO]], %[[RCP]] : f32
// CHECK-NEXT:      rk.yield %[[Y1]] : f32
// CHECK-NEXT:    } : tensor<16xf16> -> tensor<16xf32>
// CHECK-NEXT:    %[[SS:.*]] = rk.map %[[S]] {
// CHECK-NEXT:    ^bb0(%[[S2:.*]]: f32):
// CHECK-NEXT:      %[[Z2:.*]] = arith.cmpf oeq, %[[S2]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[I2:.*]] = arith.cmpf oeq, %[[S2]], %[[INF]] : f32
// CHECK-NEXT:      %[[O2:.*]] = arith.ori %[[Z2]], %[[I2]] : i1
// CHECK-NEXT:      %[[S3:.*]] = arith.select %[[O2]], %[[ZERO]], %[[S2]] : f32
// CHECK-NEXT:      rk.yield %[[S3]] : f32
// CHECK-NEXT:    } : tensor<16xf16> -> tensor<16xf32>
// CHECK-NEXT:    %[[YB:.*]] = rk.broadcast %[[Y]] dims [0] : tensor<16xf32> -> tensor<16x128xf32>
// CHECK-NEXT:    %[[SB:.*]] = rk.broadcast %[[SS]] dims [0] : tensor<16xf32> -> tensor<16x128xf32>
// CHECK-NEXT:    %[[Q:.*]] = rk.map %[[X]], %[[YB]], %[[SB]] {
// CHECK-NEXT:    ^bb0(%[[XV:.*]]: f32, %[[YV:.*]]: f32, %[[SV:.*]]: f32):
// CHECK-NEXT:      %[[Q0:.*]] = arith.mulf %[[XV]], %[[YV]] : f32
// CHECK-NEXT:      %[[NQ:.*]] = arith.negf %[[Q0]] : f32
// CHECK-NEXT:      %[[REM:.*]] = math.fma %[[NQ]], %[[SV]], %[[XV]] : f32
// CHECK-NEXT:      %[[QQ:.*]] = math.fma %[[REM]], %[[YV]], %[[Q0]] : f32
// CHECK-NEXT:      %[[C1:.*]] = arith.maxnumf %[[QQ]], %[[LO]] : f32
// CHECK-NEXT:      %[[C2:.*]] = arith.minnumf %[[C1]], %[[HI]] : f32
// CHECK-NEXT:      rk.yield %[[C2]] : f32
// CHECK-NEXT:    } : tensor<16x128xbf16>, tensor<16x128xf32>, tensor<16x128xf32> -> tensor<16x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>
// CHECK-NEXT:    %[[SOUT:.*]] = rk.broadcast %[[S]] dims [0] : tensor<16xf16> -> tensor<16x1xf16>
// CHECK-NEXT:    return %[[Q]], %[[SOUT]]
// CHECK-NOT:     rk.quantize
func.func @quantize_per_token(%x: tensor<16x128xbf16>)
    -> (tensor<16x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<16x1xf16>) {
  %q, %s = rk.quantize %x : (tensor<16x128xbf16>)
      -> (tensor<16x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<16x1xf16>)
  return %q, %s : tensor<16x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<16x1xf16>
}

// -----

// group_size = D is the same single group; f32 scales need no rounding map
// beyond the f32 product. An f32 (or bf16) scale can be subnormal, where
// its reciprocal would overflow: k = 2^64 for scales below 2^-24 (1 else)
// scales s and x before the reciprocal's division.
// CHECK-LABEL: func.func @quantize_per_token_group_d
// CHECK-DAG:     %[[BIG:.*]] = arith.constant 1.84467441E+19 : f32
// CHECK-DAG:     %[[SMALL:.*]] = arith.constant 5.96046448E-8 : f32
// CHECK:         rk.reduce max %{{.*}} : tensor<4x64xf32> -> tensor<4xf32>
// CHECK:         } : tensor<4xf32>, f32 -> tensor<4xf32>
// CHECK:         %[[K:.*]] = rk.map
// CHECK:           arith.cmpf olt, %{{.*}}, %[[SMALL]] : f32
// CHECK-NEXT:      arith.select %{{.*}}, %[[BIG]], %{{.*}} : f32
// CHECK:         } : tensor<4xf32> -> tensor<4xf32>
// CHECK:         arith.divf
// CHECK:         rk.map %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[SK:.*]]: f32, %[[KV:.*]]: f32):
// CHECK-NEXT:      %[[XK:.*]] = arith.mulf %[[X]], %[[KV]] : f32
// CHECK-NEXT:      %[[Q0:.*]] = arith.mulf %[[XK]], %[[Y]] : f32
// CHECK-NEXT:      %[[NQ:.*]] = arith.negf %[[Q0]] : f32
// CHECK-NEXT:      %[[REM:.*]] = math.fma %[[NQ]], %[[SK]], %[[XK]] : f32
// CHECK-NEXT:      math.fma %[[REM]], %[[Y]], %[[Q0]] : f32
// CHECK:         } : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xi8, #rk.quant<bits = 8, group_size = 64, axis = 1, scale = f32, symmetric = true, packing = none>>
// CHECK:         rk.broadcast %{{.*}} dims [0] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK-NOT:     rk.quantize
func.func @quantize_per_token_group_d(%x: tensor<4x64xf32>)
    -> (tensor<4x64xi8, #rk.quant<bits = 8, group_size = 64, axis = 1, scale = f32, symmetric = true, packing = none>>, tensor<4x1xf32>) {
  %q, %s = rk.quantize %x : (tensor<4x64xf32>)
      -> (tensor<4x64xi8, #rk.quant<bits = 8, group_size = 64, axis = 1, scale = f32, symmetric = true, packing = none>>, tensor<4x1xf32>)
  return %q, %s : tensor<4x64xi8, #rk.quant<bits = 8, group_size = 64, axis = 1, scale = f32, symmetric = true, packing = none>>, tensor<4x1xf32>
}

// -----

// Per-token int8 dequantization (one group per row): the [T, 1] scales as
// a per-row value (the max of a row of one element: the lowering reads it
// as that element), then y = scale * q in f32, rounded to the result type.
// CHECK-LABEL: func.func @dequantize_per_token
// CHECK-SAME:    (%[[Q:.*]]: tensor<16x128xi8, {{.*}}>, %[[S:.*]]: tensor<16x1xf16>)
// CHECK:         %[[SR:.*]] = rk.reduce max %[[S]] : tensor<16x1xf16> -> tensor<16xf32>
// CHECK-NEXT:    %[[SB:.*]] = rk.broadcast %[[SR]] dims [0] : tensor<16xf32> -> tensor<16x128xf32>
// CHECK-NEXT:    %[[Y:.*]] = rk.map %[[Q]], %[[SB]] {
// CHECK-NEXT:    ^bb0(%[[QV:.*]]: f32, %[[SV:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[SV]], %[[QV]] : f32
// CHECK-NEXT:      rk.yield %[[P]] : f32
// CHECK-NEXT:    } : tensor<16x128xi8, {{.*}}>, tensor<16x128xf32> -> tensor<16x128xbf16>
// CHECK-NEXT:    return %[[Y]]
// CHECK-NOT:     rk.dequantize
func.func @dequantize_per_token(%q: tensor<16x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, %s: tensor<16x1xf16>) -> tensor<16x128xbf16> {
  %y = rk.dequantize %q, %s : (tensor<16x128xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<16x1xf16>) -> tensor<16x128xbf16>
  return %y : tensor<16x128xbf16>
}

// -----

// Groups within a row, and dequantization along K, stay.
// CHECK-LABEL: func.func @dequantize_not_per_row
// CHECK:         rk.dequantize %{{.*}} : (tensor<4x256xi8, #rk.quant<bits = 8, group_size = 128, axis = 1
// CHECK:         rk.dequantize %{{.*}} : (tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0
// CHECK-NOT:     rk.reduce
func.func @dequantize_not_per_row(%q: tensor<4x256xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, %s: tensor<4x2xf16>,
                                  %w: tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, %ws: tensor<2x64xf16>)
    -> (tensor<4x256xf16>, tensor<256x64xf16>) {
  %y = rk.dequantize %q, %s : (tensor<4x256xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<4x2xf16>) -> tensor<4x256xf16>
  %v = rk.dequantize %w, %ws : (tensor<256x64xi8, #rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<2x64xf16>) -> tensor<256x64xf16>
  return %y, %v : tensor<4x256xf16>, tensor<256x64xf16>
}

// -----

// What the row path does not take stays for the column path (which reports
// it): groups within a row, weights quantized along K (axis 0).
// CHECK-LABEL: func.func @quantize_not_per_row
// CHECK:         rk.quantize %{{.*}} : (tensor<4x256xf16>) -> (tensor<4x256xi8, #rk.quant<bits = 8, group_size = 128, axis = 1
// CHECK:         rk.quantize %{{.*}} : (tensor<256x64xf16>) -> (tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0
// CHECK-NOT:     rk.reduce
func.func @quantize_not_per_row(%x: tensor<4x256xf16>, %w: tensor<256x64xf16>)
    -> (tensor<4x256xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<4x2xf16>,
        tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<2x64xf16>) {
  %q, %s = rk.quantize %x : (tensor<4x256xf16>)
      -> (tensor<4x256xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<4x2xf16>)
  %q4, %s4 = rk.quantize %w : (tensor<256x64xf16>)
      -> (tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<2x64xf16>)
  return %q, %s, %q4, %s4 : tensor<4x256xi8, #rk.quant<bits = 8, group_size = 128, axis = 1, scale = f16, symmetric = true, packing = none>>, tensor<4x2xf16>,
                            tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<2x64xf16>
}

// -----

// Dynamic shapes are left alone (rk-specialize-shapes runs first).
// CHECK-LABEL: func.func @dynamic
// CHECK:         rk.softmax %{{.*}} : (tensor<?x1024xf32>) -> tensor<?x1024xf32>
// CHECK-NOT:     rk.reduce
func.func @dynamic(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %y = rk.softmax %x : (tensor<?x1024xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}

// -----

// Generic ops and the quantized ops are not touched.
// CHECK-LABEL: func.func @generic
// CHECK:         rk.reduce argmax
// CHECK:         rk.gemv
func.func @generic(%x: tensor<4x64xf32>, %a: tensor<1x256xf16>,
                   %q: tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
                   %s: tensor<2x64xf16>) -> (tensor<4xi64>, tensor<1x64xf16>) {
  %v, %i = rk.reduce argmax %x : tensor<4x64xf32> -> tensor<4xf32>, tensor<4xi64>
  %o = rk.gemv %a, %q, %s : (tensor<1x256xf16>, tensor<256x64xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<2x64xf16>) -> tensor<1x64xf16>
  return %i, %o : tensor<4xi64>, tensor<1x64xf16>
}
