// RUN: rk-opt %s -split-input-file | rk-opt -split-input-file | FileCheck %s --enable-var-scope
// RUN: rk-opt %s -split-input-file --mlir-print-op-generic | rk-opt -split-input-file | FileCheck %s --enable-var-scope

// Round trip of every rk op, the !rk.dtype type and the #rk.quant attribute,
// in the custom form and through the generic form.

// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x!rk.dtype> {rk.name = "x"}, %[[W:.*]]: tensor<?x!rk.dtype> {rk.name = "w"})
// CHECK:         %[[Y:.*]] = rk.rms_norm %[[X]], %[[W]] : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
// CHECK:         return %[[Y]]
func.func @rms_norm(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                    %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.rms_norm %x, %w {eps = 1.0e-6 : f32}
      : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

// eps = 1e-6 (above) is the default and is not printed; left out it is the same.
// CHECK-LABEL: func.func @rms_norm_default_eps
// CHECK:         rk.rms_norm %{{.*}}, %{{.*}} : (tensor<8x4096xbf16>, tensor<4096xbf16>) -> tensor<8x4096xbf16>
func.func @rms_norm_default_eps(%x: tensor<8x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<8x4096xbf16> {
  %y = rk.rms_norm %x, %w : (tensor<8x4096xbf16>, tensor<4096xbf16>) -> tensor<8x4096xbf16>
  return %y : tensor<8x4096xbf16>
}

// CHECK-LABEL: func.func @rms_norm_residual
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xbf16>, %[[W:.*]]: tensor<?xbf16>, %[[R:.*]]: tensor<?x?xbf16>)
// CHECK:         %[[Y:.*]], %[[H:.*]] = rk.rms_norm %[[X]], %[[W]] residual %[[R]] {eps = 9.99999974E-6 : f32} : (tensor<?x?xbf16>, tensor<?xbf16>, tensor<?x?xbf16>) -> (tensor<?x?xbf16>, tensor<?x?xbf16>)
// CHECK:         return %[[Y]], %[[H]]
func.func @rms_norm_residual(%x: tensor<?x?xbf16>, %w: tensor<?xbf16>, %r: tensor<?x?xbf16>)
    -> (tensor<?x?xbf16>, tensor<?x?xbf16>) {
  %y, %h = rk.rms_norm %x, %w residual %r {eps = 1.0e-5 : f32}
      : (tensor<?x?xbf16>, tensor<?xbf16>, tensor<?x?xbf16>) -> (tensor<?x?xbf16>, tensor<?x?xbf16>)
  return %y, %h : tensor<?x?xbf16>, tensor<?x?xbf16>
}

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xf32>, %[[W:.*]]: tensor<?xf32>)
// CHECK:         rk.layer_norm %[[X]], %[[W]] : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
func.func @layer_norm(%x: tensor<?x?xf32>, %w: tensor<?xf32>) -> tensor<?x?xf32> {
  %y = rk.layer_norm %x, %w : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @layer_norm_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xf16>, %[[W:.*]]: tensor<?xf16>, %[[B:.*]]: tensor<?xf16>)
// CHECK:         rk.layer_norm %[[X]], %[[W]], %[[B]] : (tensor<?x?xf16>, tensor<?xf16>, tensor<?xf16>) -> tensor<?x?xf16>
func.func @layer_norm_bias(%x: tensor<?x?xf16>, %w: tensor<?xf16>, %b: tensor<?xf16>) -> tensor<?x?xf16> {
  // eps = 1e-5 is the default: the printer leaves it out.
  %y = rk.layer_norm %x, %w, %b {eps = 1.0e-5 : f32}
      : (tensor<?x?xf16>, tensor<?xf16>, tensor<?xf16>) -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}

// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x!rk.dtype>)
// CHECK:         rk.softmax %[[X]] : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
func.func @softmax(%x: tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<16x1000xf32>)
// CHECK:         rk.log_softmax %[[X]] : (tensor<16x1000xf32>) -> tensor<16x1000xf32>
func.func @log_softmax(%x: tensor<16x1000xf32>) -> tensor<16x1000xf32> {
  %y = rk.log_softmax %x : (tensor<16x1000xf32>) -> tensor<16x1000xf32>
  return %y : tensor<16x1000xf32>
}

// CHECK-LABEL: func.func @cross_entropy
// CHECK-SAME:    (%[[L:.*]]: tensor<?x?xbf16>, %[[T:.*]]: tensor<?xi64>)
// CHECK:         %[[LOSS:.*]], %[[LSE:.*]] = rk.cross_entropy %[[L]], %[[T]] {ignore_index = -1 : i64} : (tensor<?x?xbf16>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xf32>)
// CHECK:         return %[[LOSS]], %[[LSE]]
func.func @cross_entropy(%logits: tensor<?x?xbf16>, %t: tensor<?xi64>) -> (tensor<?xf32>, tensor<?xf32>) {
  %loss, %lse = rk.cross_entropy %logits, %t {ignore_index = -1 : i64}
      : (tensor<?x?xbf16>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xf32>)
  return %loss, %lse : tensor<?xf32>, tensor<?xf32>
}

// The default ignore_index (-100) is not printed; i32 targets are accepted.
// CHECK-LABEL: func.func @cross_entropy_default
// CHECK:         rk.cross_entropy %{{.*}}, %{{.*}} : (tensor<4x32000xf16>, tensor<4xi32>) -> (tensor<4xf16>, tensor<4xf32>)
func.func @cross_entropy_default(%logits: tensor<4x32000xf16>, %t: tensor<4xi32>) -> (tensor<4xf16>, tensor<4xf32>) {
  %loss, %lse = rk.cross_entropy %logits, %t
      : (tensor<4x32000xf16>, tensor<4xi32>) -> (tensor<4xf16>, tensor<4xf32>)
  return %loss, %lse : tensor<4xf16>, tensor<4xf32>
}

// -----

// Quantized ops and #rk.quant.

// Symmetric int4, groups of 128 along K (axis 0), eight values per word.
// CHECK-LABEL: func.func @quantize_int4_sym
// CHECK-SAME:    (%[[W:.*]]: tensor<4096x4096xf16>)
// CHECK:         %[[Q:.*]], %[[S:.*]] = rk.quantize %[[W]] : (tensor<4096x4096xf16>) -> (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>)
// CHECK:         return %[[Q]], %[[S]]
func.func @quantize_int4_sym(%w: tensor<4096x4096xf16>)
    -> (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
        tensor<32x4096xf16>) {
  %q, %s = rk.quantize %w : (tensor<4096x4096xf16>)
      -> (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
          tensor<32x4096xf16>)
  return %q, %s : tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
                  tensor<32x4096xf16>
}

// Asymmetric int4 with zero points, groups of 64 along axis 1, interleaved.
// CHECK-LABEL: func.func @quantize_int4_asym
// CHECK:         %[[Q:.*]], %[[S:.*]], %[[Z:.*]] = rk.quantize %{{.*}} : (tensor<?x4096xbf16>) -> (tensor<?x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 1, scale = bf16, symmetric = false, packing = interleaved>>, tensor<?x64xbf16>, tensor<?x64xi8>)
// CHECK:         return %[[Q]], %[[S]], %[[Z]]
func.func @quantize_int4_asym(%w: tensor<?x4096xbf16>)
    -> (tensor<?x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 1, scale = bf16, symmetric = false, packing = interleaved>>,
        tensor<?x64xbf16>, tensor<?x64xi8>) {
  %q, %s, %z = rk.quantize %w : (tensor<?x4096xbf16>)
      -> (tensor<?x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 1, scale = bf16, symmetric = false, packing = interleaved>>,
          tensor<?x64xbf16>, tensor<?x64xi8>)
  return %q, %s, %z : tensor<?x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 1, scale = bf16, symmetric = false, packing = interleaved>>,
                      tensor<?x64xbf16>, tensor<?x64xi8>
}

// int8 per-channel: group_size = 0 is one group over the whole axis.
// CHECK-LABEL: func.func @quantize_int8_per_channel
// CHECK:         rk.quantize %{{.*}} : (tensor<1024x512xf32>) -> (tensor<1024x512xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>>, tensor<1024x1xf32>)
func.func @quantize_int8_per_channel(%w: tensor<1024x512xf32>)
    -> (tensor<1024x512xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>>,
        tensor<1024x1xf32>) {
  %q, %s = rk.quantize %w : (tensor<1024x512xf32>)
      -> (tensor<1024x512xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>>,
          tensor<1024x1xf32>)
  return %q, %s : tensor<1024x512xi8, #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>>,
                  tensor<1024x1xf32>
}

// CHECK-LABEL: func.func @dequantize_int4_sym
// CHECK-SAME:    (%[[Q:.*]]: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, %[[S:.*]]: tensor<32x4096xf16>)
// CHECK:         rk.dequantize %[[Q]], %[[S]] : (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>) -> tensor<4096x4096xf16>
func.func @dequantize_int4_sym(
    %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
    %s: tensor<32x4096xf16>) -> tensor<4096x4096xf16> {
  %w = rk.dequantize %q, %s
      : (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
         tensor<32x4096xf16>) -> tensor<4096x4096xf16>
  return %w : tensor<4096x4096xf16>
}

// CHECK-LABEL: func.func @dequantize_int4_asym
// CHECK-SAME:    (%[[Q:.*]]: tensor<{{.*}}>, %[[S:.*]]: tensor<?x64xbf16>, %[[Z:.*]]: tensor<?x64xi8>)
// CHECK:         rk.dequantize %[[Q]], %[[S]] zeros %[[Z]] : (tensor<?x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 1, scale = bf16, symmetric = false, packing = interleaved>>, tensor<?x64xbf16>, tensor<?x64xi8>) -> tensor<?x4096xbf16>
func.func @dequantize_int4_asym(
    %q: tensor<?x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 1, scale = bf16, symmetric = false, packing = interleaved>>,
    %s: tensor<?x64xbf16>, %z: tensor<?x64xi8>) -> tensor<?x4096xbf16> {
  %w = rk.dequantize %q, %s zeros %z
      : (tensor<?x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 1, scale = bf16, symmetric = false, packing = interleaved>>,
         tensor<?x64xbf16>, tensor<?x64xi8>) -> tensor<?x4096xbf16>
  return %w : tensor<?x4096xbf16>
}

// CHECK-LABEL: func.func @gemv_bias
// CHECK-SAME:    (%[[A:.*]]: tensor<?x4096xf16>, %[[Q:.*]]: tensor<{{.*}}>, %[[S:.*]]: tensor<32x11008xf16>, %[[B:.*]]: tensor<11008xf16>)
// CHECK:         rk.gemv %[[A]], %[[Q]], %[[S]] bias %[[B]] : (tensor<?x4096xf16>, tensor<4096x11008xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<32x11008xf16>, tensor<11008xf16>) -> tensor<?x11008xf16>
func.func @gemv_bias(
    %a: tensor<?x4096xf16>,
    %q: tensor<4096x11008xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
    %s: tensor<32x11008xf16>, %b: tensor<11008xf16>) -> tensor<?x11008xf16> {
  %o = rk.gemv %a, %q, %s bias %b
      : (tensor<?x4096xf16>,
         tensor<4096x11008xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>,
         tensor<32x11008xf16>, tensor<11008xf16>) -> tensor<?x11008xf16>
  return %o : tensor<?x11008xf16>
}

// CHECK-LABEL: func.func @gemv_zeros
// CHECK-SAME:    (%[[A:.*]]: tensor<4x4096xbf16>, %[[Q:.*]]: tensor<{{.*}}>, %[[S:.*]]: tensor<64x4096xbf16>, %[[Z:.*]]: tensor<64x4096xi8>)
// CHECK:         rk.gemv %[[A]], %[[Q]], %[[S]] zeros %[[Z]] : (tensor<4x4096xbf16>, tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 0, scale = bf16, symmetric = false, packing = k8>>, tensor<64x4096xbf16>, tensor<64x4096xi8>) -> tensor<4x4096xbf16>
func.func @gemv_zeros(
    %a: tensor<4x4096xbf16>,
    %q: tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 0, scale = bf16, symmetric = false, packing = k8>>,
    %s: tensor<64x4096xbf16>, %z: tensor<64x4096xi8>) -> tensor<4x4096xbf16> {
  %o = rk.gemv %a, %q, %s zeros %z
      : (tensor<4x4096xbf16>,
         tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 64, axis = 0, scale = bf16, symmetric = false, packing = k8>>,
         tensor<64x4096xbf16>, tensor<64x4096xi8>) -> tensor<4x4096xbf16>
  return %o : tensor<4x4096xbf16>
}

// CHECK-LABEL: func.func @gemv_zeros_bias
// CHECK:         rk.gemv %{{.*}}, %{{.*}}, %{{.*}} zeros %{{.*}} bias %{{.*}} : (tensor<1x1024xf16>, tensor<1024x256xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = false, packing = k4>>, tensor<1x256xf16>, tensor<1x256xi8>, tensor<256xf16>) -> tensor<1x256xf16>
func.func @gemv_zeros_bias(
    %a: tensor<1x1024xf16>,
    %q: tensor<1024x256xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = false, packing = k4>>,
    %s: tensor<1x256xf16>, %z: tensor<1x256xi8>, %b: tensor<256xf16>) -> tensor<1x256xf16> {
  %o = rk.gemv %a, %q, %s zeros %z bias %b
      : (tensor<1x1024xf16>,
         tensor<1024x256xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = false, packing = k4>>,
         tensor<1x256xf16>, tensor<1x256xi8>, tensor<256xf16>) -> tensor<1x256xf16>
  return %o : tensor<1x256xf16>
}

// -----

// CHECK-LABEL: func.func @decode_attention_fp16
// CHECK-SAME:    (%[[Q:.*]]: tensor<8x32x128xf16>, %[[K:.*]]: tensor<8x8x?x128xf16>, %[[V:.*]]: tensor<8x8x?x128xf16>)
// CHECK:         %[[O:.*]] = rk.decode_attention %[[Q]], %[[K]], %[[V]] {gqa_ratio = 4 : i64, scale = 8.838830e-02 : f32} : (tensor<8x32x128xf16>, tensor<8x8x?x128xf16>, tensor<8x8x?x128xf16>) -> tensor<8x32x128xf16>
// CHECK:         return %[[O]]
func.func @decode_attention_fp16(%q: tensor<8x32x128xf16>, %k: tensor<8x8x?x128xf16>,
                                 %v: tensor<8x8x?x128xf16>) -> tensor<8x32x128xf16> {
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 4 : i64, scale = 0.0883883 : f32}
      : (tensor<8x32x128xf16>, tensor<8x8x?x128xf16>, tensor<8x8x?x128xf16>) -> tensor<8x32x128xf16>
  return %o : tensor<8x32x128xf16>
}

// INT8 per-token cache: one scale per (b, h_kv, s), i.e. group_size 0 along D.
// CHECK-LABEL: func.func @decode_attention_int8
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x16x64xbf16>, %[[K:.*]]: tensor<{{.*}}>, %[[V:.*]]: tensor<{{.*}}>, %[[KS:.*]]: tensor<2x16x?x1xbf16>, %[[VS:.*]]: tensor<2x16x?x1xbf16>)
// CHECK:         rk.decode_attention %[[Q]], %[[K]], %[[V]] scales(%[[KS]], %[[VS]]) {gqa_ratio = 1 : i64, scale = 1.250000e-01 : f32} : (tensor<2x16x64xbf16>, tensor<2x16x?x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 3, scale = bf16, symmetric = true, packing = none>>, tensor<2x16x?x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 3, scale = bf16, symmetric = true, packing = none>>, tensor<2x16x?x1xbf16>, tensor<2x16x?x1xbf16>) -> tensor<2x16x64xbf16>
func.func @decode_attention_int8(
    %q: tensor<2x16x64xbf16>,
    %k: tensor<2x16x?x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 3, scale = bf16, symmetric = true, packing = none>>,
    %v: tensor<2x16x?x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 3, scale = bf16, symmetric = true, packing = none>>,
    %ks: tensor<2x16x?x1xbf16>, %vs: tensor<2x16x?x1xbf16>) -> tensor<2x16x64xbf16> {
  %o = rk.decode_attention %q, %k, %v scales(%ks, %vs) {gqa_ratio = 1 : i64, scale = 0.125 : f32}
      : (tensor<2x16x64xbf16>,
         tensor<2x16x?x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 3, scale = bf16, symmetric = true, packing = none>>,
         tensor<2x16x?x64xi8, #rk.quant<bits = 8, group_size = 0, axis = 3, scale = bf16, symmetric = true, packing = none>>,
         tensor<2x16x?x1xbf16>, tensor<2x16x?x1xbf16>) -> tensor<2x16x64xbf16>
  return %o : tensor<2x16x64xbf16>
}

// -----

// Generic ops.

// Every builtin kind; argmax / argmin have a second (index) result.
// CHECK-LABEL: func.func @reduce_builtin
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xbf16>, %[[I:.*]]: tensor<?x?xi32>)
// CHECK:         %[[ADD:.*]] = rk.reduce add %[[X]] : tensor<?x?xbf16> -> tensor<?xf32>
// CHECK:         %[[MUL:.*]] = rk.reduce mul %[[X]] : tensor<?x?xbf16> -> tensor<?xf32>
// CHECK:         %[[MAX:.*]] = rk.reduce max %[[X]] : tensor<?x?xbf16> -> tensor<?xbf16>
// CHECK:         %[[MIN:.*]] = rk.reduce min %[[I]] : tensor<?x?xi32> -> tensor<?xi32>
// CHECK:         %[[AMAX:.*]]:2 = rk.reduce argmax %[[X]] : tensor<?x?xbf16> -> tensor<?xf32>, tensor<?xi64>
// CHECK:         %[[AMIN:.*]]:2 = rk.reduce argmin %[[I]] : tensor<?x?xi32> -> tensor<?xi32>, tensor<?xi32>
// CHECK:         return %[[ADD]], %[[MUL]], %[[MAX]], %[[MIN]], %[[AMAX]]#0, %[[AMAX]]#1, %[[AMIN]]#0, %[[AMIN]]#1
func.func @reduce_builtin(%x: tensor<?x?xbf16>, %i: tensor<?x?xi32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xbf16>, tensor<?xi32>,
        tensor<?xf32>, tensor<?xi64>, tensor<?xi32>, tensor<?xi32>) {
  %add = rk.reduce add %x : tensor<?x?xbf16> -> tensor<?xf32>
  %mul = rk.reduce mul %x : tensor<?x?xbf16> -> tensor<?xf32>
  %max = rk.reduce max %x : tensor<?x?xbf16> -> tensor<?xbf16>
  %min = rk.reduce min %i : tensor<?x?xi32> -> tensor<?xi32>
  %v, %idx = rk.reduce argmax %x : tensor<?x?xbf16> -> tensor<?xf32>, tensor<?xi64>
  %vi, %ii = rk.reduce argmin %i : tensor<?x?xi32> -> tensor<?xi32>, tensor<?xi32>
  return %add, %mul, %max, %min, %v, %idx, %vi, %ii
      : tensor<?xf32>, tensor<?xf32>, tensor<?xbf16>, tensor<?xi32>,
        tensor<?xf32>, tensor<?xi64>, tensor<?xi32>, tensor<?xi32>
}

// A custom combiner: the online softmax state (m, l).
// CHECK-LABEL: func.func @reduce_online_ml
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xf32>, %[[ONE:.*]]: tensor<?x?xf32>)
// CHECK:         %[[R:.*]]:2 = rk.reduce %[[X]], %[[ONE]] init [0xFF800000 : f32, 0.000000e+00 : f32] {
// CHECK-NEXT:    ^bb0(%[[M1:.*]]: f32, %[[L1:.*]]: f32, %[[M2:.*]]: f32, %[[L2:.*]]: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[M1]], %[[M2]] : f32
// CHECK-NEXT:      %[[D1:.*]] = arith.subf %[[M1]], %[[M]] : f32
// CHECK-NEXT:      %[[D2:.*]] = arith.subf %[[M2]], %[[M]] : f32
// CHECK-NEXT:      %[[E1:.*]] = math.exp %[[D1]] : f32
// CHECK-NEXT:      %[[E2:.*]] = math.exp %[[D2]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.mulf %[[L1]], %[[E1]] : f32
// CHECK-NEXT:      %[[B:.*]] = arith.mulf %[[L2]], %[[E2]] : f32
// CHECK-NEXT:      %[[L:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT:      rk.yield %[[M]], %[[L]] : f32, f32
// CHECK-NEXT:    } : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @reduce_online_ml(%x: tensor<?x?xf32>, %one: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %m, %l = rk.reduce %x, %one init [0xFF800000 : f32, 0.0 : f32] {
  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):
    %m = arith.maximumf %m1, %m2 : f32
    %d1 = arith.subf %m1, %m : f32
    %d2 = arith.subf %m2, %m : f32
    %e1 = math.exp %d1 : f32
    %e2 = math.exp %d2 : f32
    %a = arith.mulf %l1, %e1 : f32
    %b = arith.mulf %l2, %e2 : f32
    %l = arith.addf %a, %b : f32
    rk.yield %m, %l : f32, f32
  } : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>
  return %m, %l : tensor<?xf32>, tensor<?xf32>
}

// A single-input custom combiner over an integer tensor, with an extra
// attribute (kept in the attribute dictionary after the region).
// CHECK-LABEL: func.func @reduce_custom_int
// CHECK:         rk.reduce %{{.*}} init [0 : i32] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32):
// CHECK-NEXT:      %[[O:.*]] = arith.ori %[[A]], %[[B]] : i32
// CHECK-NEXT:      rk.yield %[[O]] : i32
// CHECK-NEXT:    } {note = "bitwise or"} : tensor<4x64xi32> -> tensor<4xi32>
func.func @reduce_custom_int(%x: tensor<4x64xi32>) -> tensor<4xi32> {
  %r = rk.reduce %x init [0 : i32] {
  ^bb0(%a: i32, %b: i32):
    %o = arith.ori %a, %b : i32
    rk.yield %o : i32
  } {note = "bitwise or"} : tensor<4x64xi32> -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// rk.map with a scalar operand (broadcast to every position), two results.
// CHECK-LABEL: func.func @map
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xbf16>, %[[Y:.*]]: tensor<?x?xf32>)
// CHECK:         %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:         %[[R:.*]]:2 = rk.map %[[X]], %[[Y]], %[[C]] {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[S:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A]], %[[S]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.addf %[[P]], %[[B]] : f32
// CHECK-NEXT:      rk.yield %[[Q]], %[[P]] : f32, f32
// CHECK-NEXT:    } : tensor<?x?xbf16>, tensor<?x?xf32>, f32 -> tensor<?x?xbf16>, tensor<?x?xf32>
func.func @map(%x: tensor<?x?xbf16>, %y: tensor<?x?xf32>) -> (tensor<?x?xbf16>, tensor<?x?xf32>) {
  %c = arith.constant 2.0 : f32
  %r0, %r1 = rk.map %x, %y, %c {
  ^bb0(%a: f32, %b: f32, %s: f32):
    %p = arith.mulf %a, %s : f32
    %q = arith.addf %p, %b : f32
    rk.yield %q, %p : f32, f32
  } : tensor<?x?xbf16>, tensor<?x?xf32>, f32 -> tensor<?x?xbf16>, tensor<?x?xf32>
  return %r0, %r1 : tensor<?x?xbf16>, tensor<?x?xf32>
}

// Integer tensors and index scalars keep their types in the region.
// CHECK-LABEL: func.func @map_int
// CHECK:         rk.map %{{.*}}, %{{.*}} {
// CHECK-NEXT:    ^bb0(%{{.*}}: i64, %{{.*}}: index):
// CHECK:         } : tensor<8xi64>, index -> tensor<8xi64>
func.func @map_int(%t: tensor<8xi64>, %n: index) -> tensor<8xi64> {
  %r = rk.map %t, %n {
  ^bb0(%a: i64, %b: index):
    %bi = arith.index_cast %b : index to i64
    %s = arith.addi %a, %bi : i64
    rk.yield %s : i64
  } : tensor<8xi64>, index -> tensor<8xi64>
  return %r : tensor<8xi64>
}

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME:    (%[[V:.*]]: tensor<?xf32>, %[[W:.*]]: tensor<?x!rk.dtype>)
// CHECK:         %[[B0:.*]] = rk.broadcast %[[V]] dims [0] : tensor<?xf32> -> tensor<?x?xf32>
// CHECK:         %[[B1:.*]] = rk.broadcast %[[W]] dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
// CHECK:         return %[[B0]], %[[B1]]
func.func @broadcast(%v: tensor<?xf32>, %w: tensor<?x!rk.dtype>) -> (tensor<?x?xf32>, tensor<?x?x!rk.dtype>) {
  %b0 = rk.broadcast %v dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %b1 = rk.broadcast %w dims [1] : tensor<?x!rk.dtype> -> tensor<?x?x!rk.dtype>
  return %b0, %b1 : tensor<?x?xf32>, tensor<?x?x!rk.dtype>
}

// CHECK-LABEL: func.func @gather
// CHECK-SAME:    (%[[L:.*]]: tensor<?x?xbf16>, %[[T:.*]]: tensor<?xi64>)
// CHECK:         %[[G:.*]] = rk.gather %[[L]][%[[T]]] : tensor<?x?xbf16>, tensor<?xi64> -> tensor<?xbf16>
// CHECK:         return %[[G]]
func.func @gather(%logits: tensor<?x?xbf16>, %t: tensor<?xi64>) -> tensor<?xbf16> {
  %g = rk.gather %logits[%t] : tensor<?x?xbf16>, tensor<?xi64> -> tensor<?xbf16>
  return %g : tensor<?xbf16>
}

// rk.dim as an index, an integer and a float; a static dim folds.
// CHECK-LABEL: func.func @dim
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xbf16>)
// CHECK:         %[[N:.*]] = rk.dim %[[X]][1] : tensor<?x?xbf16> -> f32
// CHECK:         %[[M:.*]] = rk.dim %[[X]][0] : tensor<?x?xbf16> -> index
// CHECK:         %[[K:.*]] = rk.dim %[[X]][0] : tensor<?x?xbf16> -> i32
// CHECK:         return %[[N]], %[[M]], %[[K]]
func.func @dim(%x: tensor<?x?xbf16>) -> (f32, index, i32) {
  %n = rk.dim %x[1] : tensor<?x?xbf16> -> f32
  %m = rk.dim %x[0] : tensor<?x?xbf16> -> index
  %k = rk.dim %x[0] : tensor<?x?xbf16> -> i32
  return %n, %m, %k : f32, index, i32
}

// The !rk.dtype type on its own, in a function signature.
// CHECK-LABEL: func.func private @dtype_decl(tensor<?x!rk.dtype>, !rk.dtype) -> !rk.dtype
func.func private @dtype_decl(tensor<?x!rk.dtype>, !rk.dtype) -> !rk.dtype
