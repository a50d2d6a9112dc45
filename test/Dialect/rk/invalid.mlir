// RUN: rk-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// One case per verifier message of the rk dialect (dialects/rk/RkOps.cpp,
// RkDialect.cpp), each with its full text. -allow-unregistered-dialect is
// only needed for the "must end with rk.yield" case (the one way to end a
// region with a terminator other than rk.yield).

//===----------------------------------------------------------------------===//
// Shared row-op rules (rk.rms_norm, rk.layer_norm, rk.softmax, ...)
//===----------------------------------------------------------------------===//

func.func @input_rank(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.rms_norm' op input must be a rank-2 tensor [M, N], got 'tensor<4xf32>'}}
  %y = rk.rms_norm %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @input_float(%x: tensor<4x8xi32>, %w: tensor<8xf32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'rk.rms_norm' op input must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i32'}}
  %y = rk.rms_norm %x, %w : (tensor<4x8xi32>, tensor<8xf32>) -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

func.func @weight_rank(%x: tensor<4x8xf32>, %w: tensor<1x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op weight must be a rank-1 tensor [N], got 'tensor<1x8xf32>'}}
  %y = rk.rms_norm %x, %w : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @weight_float(%x: tensor<4x8xf32>, %w: tensor<8xi8>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op weight must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i8'}}
  %y = rk.rms_norm %x, %w : (tensor<4x8xf32>, tensor<8xi8>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @weight_size(%x: tensor<4x8xf32>, %w: tensor<16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op weight size (16) must equal the row length N of the input (8)}}
  %y = rk.rms_norm %x, %w : (tensor<4x8xf32>, tensor<16xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @result_shape(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x?x2xf32> {
  // expected-error @+1 {{'rk.rms_norm' op result shape [4, ?, 2] must equal the input shape [4, 8]}}
  %y = rk.rms_norm %x, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x?x2xf32>
  return %y : tensor<4x?x2xf32>
}

// -----

func.func @result_float(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'rk.rms_norm' op result must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i32'}}
  %y = rk.rms_norm %x, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

func.func @eps_negative(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op 'eps' must be finite and non-negative, got -1}}
  %y = rk.rms_norm %x, %w {eps = -1.0 : f32} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @eps_nan(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.layer_norm' op 'eps' must be finite and non-negative, got nan}}
  %y = rk.layer_norm %x, %w {eps = 0x7FC00000 : f32} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// rk.rms_norm with a residual
//===----------------------------------------------------------------------===//

func.func @residual_without_sum(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %r: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op with a 'residual' operand the op also returns the sum input + residual as a second result}}
  %y = rk.rms_norm %x, %w residual %r : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @sum_without_residual(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op a second result (the residual sum) needs the 'residual' operand}}
  %y, %h = rk.rms_norm %x, %w : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @residual_shape(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %r: tensor<2x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op residual shape [2, 8] must equal the input shape [4, 8]}}
  %y, %h = rk.rms_norm %x, %w residual %r : (tensor<4x8xf32>, tensor<8xf32>, tensor<2x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @residual_float(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %r: tensor<4x8xi32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op residual must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i32'}}
  %y, %h = rk.rms_norm %x, %w residual %r : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @residual_sum_shape(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %r: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op residual sum result shape [4, 16] must equal the input shape [4, 8]}}
  %y, %h = rk.rms_norm %x, %w residual %r : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x16xf32>)
  return %y : tensor<4x8xf32>
}

// -----

func.func @residual_sum_float(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %r: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.rms_norm' op residual sum result must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i8'}}
  %y, %h = rk.rms_norm %x, %w residual %r : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi8>)
  return %y : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// rk.layer_norm bias
//===----------------------------------------------------------------------===//

func.func @bias_rank(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.layer_norm' op bias must be a rank-1 tensor [N], got 'tensor<4x8xf32>'}}
  %y = rk.layer_norm %x, %w, %b : (tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @bias_float(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<8xi32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.layer_norm' op bias must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i32'}}
  %y = rk.layer_norm %x, %w, %b : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xi32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @bias_size(%x: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.layer_norm' op bias size (4) must equal the row length N of the input (8)}}
  %y = rk.layer_norm %x, %w, %b : (tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// rk.softmax / rk.log_softmax
//===----------------------------------------------------------------------===//

func.func @softmax_rank(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'rk.softmax' op input must be a rank-2 tensor [M, N], got 'tensor<2x4x8xf32>'}}
  %y = rk.softmax %x : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

func.func @softmax_result_shape(%x: tensor<4x8xbf16>) -> tensor<8x4xbf16> {
  // expected-error @+1 {{'rk.softmax' op result shape [8, 4] must equal the input shape [4, 8]}}
  %y = rk.softmax %x : (tensor<4x8xbf16>) -> tensor<8x4xbf16>
  return %y : tensor<8x4xbf16>
}

// -----

func.func @log_softmax_input_float(%x: tensor<4x8xi64>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.log_softmax' op input must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i64'}}
  %y = rk.log_softmax %x : (tensor<4x8xi64>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @log_softmax_result_float(%x: tensor<4x8xf16>) -> tensor<4x8xf64> {
  // expected-error @+1 {{'rk.log_softmax' op result must have a float element type (f32, bf16, f16 or !rk.dtype), got 'f64'}}
  %y = rk.log_softmax %x : (tensor<4x8xf16>) -> tensor<4x8xf64>
  return %y : tensor<4x8xf64>
}

// -----

//===----------------------------------------------------------------------===//
// rk.cross_entropy
//===----------------------------------------------------------------------===//

func.func @ce_logits_rank(%l: tensor<8xf32>, %t: tensor<8xi64>) -> (tensor<8xf32>, tensor<8xf32>) {
  // expected-error @+1 {{'rk.cross_entropy' op logits must be a rank-2 tensor [M, N], got 'tensor<8xf32>'}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<8xf32>, tensor<8xi64>) -> (tensor<8xf32>, tensor<8xf32>)
  return %loss, %lse : tensor<8xf32>, tensor<8xf32>
}

// -----

func.func @ce_logits_float(%l: tensor<4x8xi32>, %t: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.cross_entropy' op logits must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i32'}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xi32>, tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>)
  return %loss, %lse : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @ce_targets_rank(%l: tensor<4x8xf32>, %t: tensor<4x1xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.cross_entropy' op targets must be a rank-1 tensor [M], got 'tensor<4x1xi64>'}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xf32>, tensor<4x1xi64>) -> (tensor<4xf32>, tensor<4xf32>)
  return %loss, %lse : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @ce_targets_integer(%l: tensor<4x8xf32>, %t: tensor<4xi16>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.cross_entropy' op targets must have an integer element type (i32 or i64), got 'i16'}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xf32>, tensor<4xi16>) -> (tensor<4xf32>, tensor<4xf32>)
  return %loss, %lse : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @ce_targets_size(%l: tensor<4x8xf32>, %t: tensor<5xi64>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.cross_entropy' op targets size (5) must equal the number of rows M of the logits (4)}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xf32>, tensor<5xi64>) -> (tensor<4xf32>, tensor<4xf32>)
  return %loss, %lse : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @ce_loss_rank(%l: tensor<4x8xf32>, %t: tensor<4xi64>) -> (tensor<4x1xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.cross_entropy' op loss must be a rank-1 tensor [M], got 'tensor<4x1xf32>'}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xf32>, tensor<4xi64>) -> (tensor<4x1xf32>, tensor<4xf32>)
  return %loss, %lse : tensor<4x1xf32>, tensor<4xf32>
}

// -----

func.func @ce_loss_float(%l: tensor<4x8xf32>, %t: tensor<4xi64>) -> (tensor<4xi32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.cross_entropy' op loss must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i32'}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xf32>, tensor<4xi64>) -> (tensor<4xi32>, tensor<4xf32>)
  return %loss, %lse : tensor<4xi32>, tensor<4xf32>
}

// -----

func.func @ce_loss_size(%l: tensor<4x8xf32>, %t: tensor<?xi64>) -> (tensor<3xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.cross_entropy' op loss size (3) must equal the number of rows M of the logits (4)}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xf32>, tensor<?xi64>) -> (tensor<3xf32>, tensor<4xf32>)
  return %loss, %lse : tensor<3xf32>, tensor<4xf32>
}

// -----

func.func @ce_lse_rank(%l: tensor<4x8xf32>, %t: tensor<4xi32>) -> (tensor<4xf32>, tensor<f32>) {
  // expected-error @+1 {{'rk.cross_entropy' op lse must be a rank-1 tensor [M], got 'tensor<f32>'}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<f32>)
  return %loss, %lse : tensor<4xf32>, tensor<f32>
}

// -----

func.func @ce_lse_float(%l: tensor<4x8xf32>, %t: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi64>) {
  // expected-error @+1 {{'rk.cross_entropy' op lse must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i64'}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi64>)
  return %loss, %lse : tensor<4xf32>, tensor<4xi64>
}

// -----

func.func @ce_lse_size(%l: tensor<4x8xf32>, %t: tensor<4xi32>) -> (tensor<4xf32>, tensor<2xf32>) {
  // expected-error @+1 {{'rk.cross_entropy' op lse size (2) must equal the number of rows M of the logits (4)}}
  %loss, %lse = rk.cross_entropy %l, %t : (tensor<4x8xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<2xf32>)
  return %loss, %lse : tensor<4xf32>, tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// #rk.quant and the quantized-tensor rules (rk.quantize / rk.dequantize)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{#rk.quant bits must be 4 or 8, got 3}}
func.func private @quant_bits(tensor<8x8xi3, #rk.quant<bits = 3, group_size = 8, axis = 0, scale = f16, symmetric = true, packing = none>>)

// -----

// expected-error @+1 {{#rk.quant group_size must be positive (or 0 for one group over the whole axis), got -1}}
func.func private @quant_group(tensor<8x8xi8, #rk.quant<bits = 8, group_size = -1, axis = 0, scale = f16, symmetric = true, packing = none>>)

// -----

// expected-error @+1 {{#rk.quant scale type must be f16, bf16 or f32, got 'i32'}}
func.func private @quant_scale(tensor<8x8xi8, #rk.quant<bits = 8, group_size = 8, axis = 0, scale = i32, symmetric = true, packing = k4>>)

// -----

// expected-error @+1 {{#rk.quant packing 'k8' holds eight 4-bit values per 32-bit word and needs bits = 4}}
func.func private @quant_k8(tensor<8x8xi8, #rk.quant<bits = 8, group_size = 8, axis = 0, scale = f16, symmetric = true, packing = k8>>)

// -----

// expected-error @+1 {{#rk.quant packing 'k4' holds four 8-bit values per 32-bit word and needs bits = 8}}
func.func private @quant_k4(tensor<8x8xi4, #rk.quant<bits = 4, group_size = 8, axis = 0, scale = f16, symmetric = true, packing = k4>>)

// -----

func.func @quantize_input_float(%w: tensor<256x8xi32>) -> (tensor<256x8xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<2x8xf16>) {
  // expected-error @+1 {{'rk.quantize' op input must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i32'}}
  %q, %s = rk.quantize %w : (tensor<256x8xi32>) -> (tensor<256x8xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<2x8xf16>)
  return %q, %s : tensor<256x8xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<2x8xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @quantize_shape(%w: tensor<256x8xf16>) -> (tensor<256x16xi4, #q4>, tensor<2x16xf16>) {
  // expected-error @+1 {{'rk.quantize' op quantized result shape [256, 16] must equal the input shape [256, 8]}}
  %q, %s = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x16xi4, #q4>, tensor<2x16xf16>)
  return %q, %s : tensor<256x16xi4, #q4>, tensor<2x16xf16>
}

// -----

func.func @quantize_no_encoding(%w: tensor<256x8xf16>) -> (tensor<256x8xi4>, tensor<2x8xf16>) {
  // expected-error @+1 {{'rk.quantize' op quantized result must carry a #rk.quant encoding, got 'tensor<256x8xi4>'}}
  %q, %s = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi4>, tensor<2x8xf16>)
  return %q, %s : tensor<256x8xi4>, tensor<2x8xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @quantize_bits_type(%w: tensor<256x8xf16>) -> (tensor<256x8xi8, #q4>, tensor<2x8xf16>) {
  // expected-error @+1 {{'rk.quantize' op a 4-bit #rk.quant needs an i4 element type, got 'i8'}}
  %q, %s = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi8, #q4>, tensor<2x8xf16>)
  return %q, %s : tensor<256x8xi8, #q4>, tensor<2x8xf16>
}

// -----

#q = #rk.quant<bits = 8, group_size = 0, axis = 2, scale = f16, symmetric = true, packing = none>
func.func @quantize_axis(%w: tensor<256x8xf16>) -> (tensor<256x8xi8, #q>, tensor<256x8xf16>) {
  // expected-error @+1 {{'rk.quantize' op #rk.quant axis 2 is out of range for the rank-2 quantized result}}
  %q, %s = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi8, #q>, tensor<256x8xf16>)
  return %q, %s : tensor<256x8xi8, #q>, tensor<256x8xf16>
}

// -----

#q = #rk.quant<bits = 8, group_size = 100, axis = 0, scale = f16, symmetric = true, packing = k4>
func.func @quantize_group_divides(%w: tensor<256x8xf16>) -> (tensor<256x8xi8, #q>, tensor<2x8xf16>) {
  // expected-error @+1 {{'rk.quantize' op group_size 100 does not divide dimension #0 (256) of the quantized result}}
  %q, %s = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi8, #q>, tensor<2x8xf16>)
  return %q, %s : tensor<256x8xi8, #q>, tensor<2x8xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @quantize_scales_shape(%w: tensor<256x8xf16>) -> (tensor<256x8xi4, #q4>, tensor<4x8xf16>) {
  // expected-error @+1 {{'rk.quantize' op scales shape [4, 8] must be [2, 8] (the quantized result shape with dimension #0 divided by group_size 128)}}
  %q, %s = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi4, #q4>, tensor<4x8xf16>)
  return %q, %s : tensor<256x8xi4, #q4>, tensor<4x8xf16>
}

// -----

#q = #rk.quant<bits = 8, group_size = 0, axis = 1, scale = f32, symmetric = true, packing = none>
func.func @quantize_scales_per_channel(%w: tensor<256x8xf16>) -> (tensor<256x8xi8, #q>, tensor<256xf32>) {
  // expected-error @+1 {{'rk.quantize' op scales shape [256] must be [256, 1] (the quantized result shape with dimension #1 reduced to 1 group)}}
  %q, %s = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi8, #q>, tensor<256xf32>)
  return %q, %s : tensor<256x8xi8, #q>, tensor<256xf32>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @quantize_scales_type(%w: tensor<256x8xf16>) -> (tensor<256x8xi4, #q4>, tensor<2x8xbf16>) {
  // expected-error @+1 {{'rk.quantize' op scales element type 'bf16' must equal the #rk.quant scale type 'f16'}}
  %q, %s = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi4, #q4>, tensor<2x8xbf16>)
  return %q, %s : tensor<256x8xi4, #q4>, tensor<2x8xbf16>
}

// -----

#a4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = false, packing = k8>
func.func @quantize_needs_zeros(%w: tensor<256x8xf16>) -> (tensor<256x8xi4, #a4>, tensor<2x8xf16>) {
  // expected-error @+1 {{'rk.quantize' op an asymmetric #rk.quant needs zero points}}
  %q, %s = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi4, #a4>, tensor<2x8xf16>)
  return %q, %s : tensor<256x8xi4, #a4>, tensor<2x8xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @quantize_no_zeros(%w: tensor<256x8xf16>) -> (tensor<256x8xi4, #q4>, tensor<2x8xf16>, tensor<2x8xi8>) {
  // expected-error @+1 {{'rk.quantize' op a symmetric #rk.quant takes no zero points}}
  %q, %s, %z = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi4, #q4>, tensor<2x8xf16>, tensor<2x8xi8>)
  return %q, %s, %z : tensor<256x8xi4, #q4>, tensor<2x8xf16>, tensor<2x8xi8>
}

// -----

#a4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = false, packing = k8>
func.func @quantize_zeros_shape(%w: tensor<256x8xf16>) -> (tensor<256x8xi4, #a4>, tensor<2x8xf16>, tensor<8x2xi8>) {
  // expected-error @+1 {{'rk.quantize' op zeros shape [8, 2] must be [2, 8] (the quantized result shape with dimension #0 divided by group_size 128)}}
  %q, %s, %z = rk.quantize %w : (tensor<256x8xf16>) -> (tensor<256x8xi4, #a4>, tensor<2x8xf16>, tensor<8x2xi8>)
  return %q, %s, %z : tensor<256x8xi4, #a4>, tensor<2x8xf16>, tensor<8x2xi8>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @dequantize_encoding(%q: tensor<256x8xi4>, %s: tensor<2x8xf16>) -> tensor<256x8xf16> {
  // expected-error @+1 {{'rk.dequantize' op quantized operand must carry a #rk.quant encoding, got 'tensor<256x8xi4>'}}
  %w = rk.dequantize %q, %s : (tensor<256x8xi4>, tensor<2x8xf16>) -> tensor<256x8xf16>
  return %w : tensor<256x8xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @dequantize_shape(%q: tensor<256x8xi4, #q4>, %s: tensor<2x8xf16>) -> tensor<128x8xf16> {
  // expected-error @+1 {{'rk.dequantize' op result shape [128, 8] must equal the quantized operand shape [256, 8]}}
  %w = rk.dequantize %q, %s : (tensor<256x8xi4, #q4>, tensor<2x8xf16>) -> tensor<128x8xf16>
  return %w : tensor<128x8xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @dequantize_float(%q: tensor<256x8xi4, #q4>, %s: tensor<2x8xf16>) -> tensor<256x8xi8> {
  // expected-error @+1 {{'rk.dequantize' op result must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i8'}}
  %w = rk.dequantize %q, %s : (tensor<256x8xi4, #q4>, tensor<2x8xf16>) -> tensor<256x8xi8>
  return %w : tensor<256x8xi8>
}

// -----

//===----------------------------------------------------------------------===//
// rk.gemv
//===----------------------------------------------------------------------===//

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_act_rank(%a: tensor<256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>) -> tensor<1x64xf16> {
  // expected-error @+1 {{'rk.gemv' op activations must be a rank-2 tensor [M, K], got 'tensor<256xf16>'}}
  %o = rk.gemv %a, %q, %s : (tensor<256xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_act_float(%a: tensor<1x256xi8>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>) -> tensor<1x64xf16> {
  // expected-error @+1 {{'rk.gemv' op activations must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i8'}}
  %o = rk.gemv %a, %q, %s : (tensor<1x256xi8>, tensor<256x64xi4, #q4>, tensor<2x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_weight_rank(%a: tensor<1x256xf16>, %q: tensor<256x64x1xi4, #q4>, %s: tensor<2x64x1xf16>) -> tensor<1x64xf16> {
  // expected-error @+1 {{'rk.gemv' op weight must be a rank-2 tensor [K, N], got 'tensor<256x64x1xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>'}}
  %o = rk.gemv %a, %q, %s : (tensor<1x256xf16>, tensor<256x64x1xi4, #q4>, tensor<2x64x1xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_weight_scales(%a: tensor<1x256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<1x64xf16>) -> tensor<1x64xf16> {
  // expected-error @+1 {{'rk.gemv' op scales shape [1, 64] must be [2, 64] (the weight shape with dimension #0 divided by group_size 128)}}
  %o = rk.gemv %a, %q, %s : (tensor<1x256xf16>, tensor<256x64xi4, #q4>, tensor<1x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

#q = #rk.quant<bits = 4, group_size = 32, axis = 1, scale = f16, symmetric = true, packing = k8>
func.func @gemv_axis(%a: tensor<1x256xf16>, %q: tensor<256x64xi4, #q>, %s: tensor<256x2xf16>) -> tensor<1x64xf16> {
  // expected-error @+1 {{'rk.gemv' op the weight must be quantized along K (axis = 0), got axis = 1}}
  %o = rk.gemv %a, %q, %s : (tensor<1x256xf16>, tensor<256x64xi4, #q>, tensor<256x2xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_k(%a: tensor<1x512xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>) -> tensor<1x64xf16> {
  // expected-error @+1 {{'rk.gemv' op weight rows K (256) must equal the activation columns (512)}}
  %o = rk.gemv %a, %q, %s : (tensor<1x512xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_rows(%a: tensor<17x256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>) -> tensor<17x64xf16> {
  // expected-error @+1 {{'rk.gemv' op rk.gemv is a decode GEMV: at most 16 activation rows, got 17}}
  %o = rk.gemv %a, %q, %s : (tensor<17x256xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>) -> tensor<17x64xf16>
  return %o : tensor<17x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_bias_rank(%a: tensor<1x256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>, %b: tensor<1x64xf16>) -> tensor<1x64xf16> {
  // expected-error @+1 {{'rk.gemv' op bias must be a rank-1 tensor [N], got 'tensor<1x64xf16>'}}
  %o = rk.gemv %a, %q, %s bias %b : (tensor<1x256xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>, tensor<1x64xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_bias_float(%a: tensor<1x256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>, %b: tensor<64xi32>) -> tensor<1x64xf16> {
  // expected-error @+1 {{'rk.gemv' op bias must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i32'}}
  %o = rk.gemv %a, %q, %s bias %b : (tensor<1x256xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>, tensor<64xi32>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_bias_size(%a: tensor<1x256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>, %b: tensor<32xf16>) -> tensor<1x64xf16> {
  // expected-error @+1 {{'rk.gemv' op bias size (32) must equal the weight columns N (64)}}
  %o = rk.gemv %a, %q, %s bias %b : (tensor<1x256xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>, tensor<32xf16>) -> tensor<1x64xf16>
  return %o : tensor<1x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_result_rank(%a: tensor<1x256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>) -> tensor<64xf16> {
  // expected-error @+1 {{'rk.gemv' op result must be a rank-2 tensor [M, N], got 'tensor<64xf16>'}}
  %o = rk.gemv %a, %q, %s : (tensor<1x256xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>) -> tensor<64xf16>
  return %o : tensor<64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_result_float(%a: tensor<1x256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>) -> tensor<1x64xi32> {
  // expected-error @+1 {{'rk.gemv' op result must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i32'}}
  %o = rk.gemv %a, %q, %s : (tensor<1x256xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>) -> tensor<1x64xi32>
  return %o : tensor<1x64xi32>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_result_rows(%a: tensor<2x256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>) -> tensor<4x64xf16> {
  // expected-error @+1 {{'rk.gemv' op result rows (4) must equal the activation rows M (2)}}
  %o = rk.gemv %a, %q, %s : (tensor<2x256xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>) -> tensor<4x64xf16>
  return %o : tensor<4x64xf16>
}

// -----

#q4 = #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>
func.func @gemv_result_cols(%a: tensor<2x256xf16>, %q: tensor<256x64xi4, #q4>, %s: tensor<2x64xf16>) -> tensor<2x128xf16> {
  // expected-error @+1 {{'rk.gemv' op result columns (128) must equal the weight columns N (64)}}
  %o = rk.gemv %a, %q, %s : (tensor<2x256xf16>, tensor<256x64xi4, #q4>, tensor<2x64xf16>) -> tensor<2x128xf16>
  return %o : tensor<2x128xf16>
}

// -----

//===----------------------------------------------------------------------===//
// rk.decode_attention
//===----------------------------------------------------------------------===//

func.func @attn_query_rank(%q: tensor<2x8xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x8xf16> {
  // expected-error @+1 {{'rk.decode_attention' op query must be a rank-3 tensor [B, H, D], got 'tensor<2x8xf16>'}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x8xf16>
  return %o : tensor<2x8xf16>
}

// -----

func.func @attn_query_float(%q: tensor<2x8x64xi8>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op query must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i8'}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xi8>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

func.func @attn_keys_rank(%q: tensor<2x8x64xf16>, %k: tensor<2x8x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op keys must be a rank-4 tensor [B, H_kv, S, D], got 'tensor<2x8x64xf16>'}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

func.func @attn_values_rank(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x64xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op values must be a rank-4 tensor [B, H_kv, S, D], got 'tensor<2x8x64xf16>'}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x64xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

func.func @attn_values_shape(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x128xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op values shape [2, 8, ?, 128] must equal the keys shape [2, 8, ?, 64]}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x128xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

func.func @attn_batch(%q: tensor<3x8x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<3x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op keys batch (2) must equal the query batch B (3)}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<3x8x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<3x8x64xf16>
  return %o : tensor<3x8x64xf16>
}

// -----

func.func @attn_head_dim(%q: tensor<2x8x128xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x8x128xf16> {
  // expected-error @+1 {{'rk.decode_attention' op keys head dim (64) must equal the query head dim D (128)}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x128xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x8x128xf16>
  return %o : tensor<2x8x128xf16>
}

// -----

func.func @attn_gqa_ratio(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op gqa_ratio must be at least 1, got 0}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 0 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

func.func @attn_heads_divisible(%q: tensor<2x12x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x12x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op query heads (12) must be divisible by key/value heads (8)}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x12x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x12x64xf16>
  return %o : tensor<2x12x64xf16>
}

// -----

func.func @attn_heads_ratio(%q: tensor<2x32x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x32x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op query heads (32) must equal gqa_ratio (2) x key/value heads (8)}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 2 : i64, scale = 0.125 : f32} : (tensor<2x32x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x32x64xf16>
  return %o : tensor<2x32x64xf16>
}

// -----

func.func @attn_scale(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op 'scale' must be finite and positive, got 0}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.0 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

#i8 = #rk.quant<bits = 8, group_size = 0, axis = 3, scale = f16, symmetric = true, packing = none>
func.func @attn_quant_needs_scales(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xi8, #i8>, %v: tensor<2x8x?x64xi8, #i8>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op a quantized KV cache needs key and value scales}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xi8, #i8>, tensor<2x8x?x64xi8, #i8>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

#i8 = #rk.quant<bits = 8, group_size = 0, axis = 3, scale = f16, symmetric = true, packing = none>
func.func @attn_key_scales(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xi8, #i8>, %v: tensor<2x8x?x64xi8, #i8>,
                           %ks: tensor<2x8x?x64xf16>, %vs: tensor<2x8x?x1xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op scales shape [2, 8, ?, 64] must be [2, 8, ?, 1] (the keys shape with dimension #3 reduced to 1 group)}}
  %o = rk.decode_attention %q, %k, %v scales(%ks, %vs) {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xi8, #i8>, tensor<2x8x?x64xi8, #i8>, tensor<2x8x?x64xf16>, tensor<2x8x?x1xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

#i8 = #rk.quant<bits = 8, group_size = 0, axis = 3, scale = f16, symmetric = true, packing = none>
func.func @attn_values_encoding(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xi8, #i8>, %v: tensor<2x8x?x64xi8>,
                                %ks: tensor<2x8x?x1xf16>, %vs: tensor<2x8x?x1xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op values must carry a #rk.quant encoding, got 'tensor<2x8x?x64xi8>'}}
  %o = rk.decode_attention %q, %k, %v scales(%ks, %vs) {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xi8, #i8>, tensor<2x8x?x64xi8>, tensor<2x8x?x1xf16>, tensor<2x8x?x1xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

func.func @attn_keys_float(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xi8>, %v: tensor<2x8x?x64xi8>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op keys must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i8'}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xi8>, tensor<2x8x?x64xi8>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

func.func @attn_float_no_scales(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>,
                                %ks: tensor<2x8x?x1xf16>, %vs: tensor<2x8x?x1xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{'rk.decode_attention' op a float KV cache takes no scales}}
  %o = rk.decode_attention %q, %k, %v scales(%ks, %vs) {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x1xf16>, tensor<2x8x?x1xf16>) -> tensor<2x8x64xf16>
  return %o : tensor<2x8x64xf16>
}

// -----

func.func @attn_result_shape(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x8x32xf16> {
  // expected-error @+1 {{'rk.decode_attention' op result shape [2, 8, 32] must equal the query shape [2, 8, 64]}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x8x32xf16>
  return %o : tensor<2x8x32xf16>
}

// -----

func.func @attn_result_float(%q: tensor<2x8x64xf16>, %k: tensor<2x8x?x64xf16>, %v: tensor<2x8x?x64xf16>) -> tensor<2x8x64xi16> {
  // expected-error @+1 {{'rk.decode_attention' op result must have a float element type (f32, bf16, f16 or !rk.dtype), got 'i16'}}
  %o = rk.decode_attention %q, %k, %v {gqa_ratio = 1 : i64, scale = 0.125 : f32} : (tensor<2x8x64xf16>, tensor<2x8x?x64xf16>, tensor<2x8x?x64xf16>) -> tensor<2x8x64xi16>
  return %o : tensor<2x8x64xi16>
}

// -----

//===----------------------------------------------------------------------===//
// rk.reduce
//===----------------------------------------------------------------------===//

func.func @reduce_no_input() -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op expects at least one input}}
  %r = "rk.reduce"() ({}) {kind = #rk<reduce_kind add>} : () -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_input_rank(%x: tensor<4x8x2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op input #0 must be a rank-2 tensor [M, N], got 'tensor<4x8x2xf32>'}}
  %r = rk.reduce add %x : tensor<4x8x2xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_input_shape(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.reduce' op input #1 shape [4, 16] must equal the input #0 shape [4, 8]}}
  %a, %b = rk.reduce %x, %y init [0.0 : f32, 0.0 : f32] {
  ^bb0(%a0: f32, %b0: f32, %a1: f32, %b1: f32):
    rk.yield %a0, %b0 : f32, f32
  } : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<4xf32>, tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @reduce_result_rank(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'rk.reduce' op result #0 must be a rank-1 tensor [M], got 'tensor<4x1xf32>'}}
  %r = rk.reduce add %x : tensor<4x8xf32> -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

func.func @reduce_result_size(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'rk.reduce' op result #0 size (8) must equal the number of rows M (4)}}
  %r = rk.reduce add %x : tensor<4x8xf32> -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

func.func @reduce_builtin_one_input(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op builtin kind 'add' takes exactly one input, got 2}}
  %r = rk.reduce add %x, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_builtin_region(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op a builtin kind takes no combiner region}}
  %r = "rk.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    rk.yield %a : f32
  }) {kind = #rk<reduce_kind max>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_builtin_init(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op a builtin kind takes no 'init' (its identity is known)}}
  %r = rk.reduce add %x {init = [0.0 : f32]} : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_argmax_results(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op builtin kind 'argmax' has 2 results (value, index), got 1}}
  %r = rk.reduce argmax %x : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_add_results(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op builtin kind 'min' has 1 result, got 2}}
  %r, %i = rk.reduce min %x : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xi64>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_result_type(%x: tensor<4x8xbf16>) -> tensor<4xi32> {
  // expected-error @+1 {{'rk.reduce' op result #0 element type 'i32' does not fit input element type 'bf16' (float inputs give float results, integer inputs the same integer type)}}
  %r = rk.reduce max %x : tensor<4x8xbf16> -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

func.func @reduce_input_type(%x: tensor<4x8xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{'rk.reduce' op input element type 'f64' cannot be reduced}}
  %r = rk.reduce add %x : tensor<4x8xf64> -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// -----

func.func @reduce_argmax_index(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.reduce' op result #1 (the column index) must have an integer element type (i32 or i64), got 'f32'}}
  %v, %i = rk.reduce argmax %x : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32>
  return %v, %i : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @reduce_needs_init(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op a custom combiner needs 'init' (the identity state)}}
  %r = "rk.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    rk.yield %a : f32
  }) : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_init_count(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.reduce' op 'init' has 1 values, expected one per input (2)}}
  %a, %b = rk.reduce %x, %y init [0.0 : f32] {
  ^bb0(%a0: f32, %b0: f32, %a1: f32, %b1: f32):
    rk.yield %a0, %b0 : f32, f32
  } : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @reduce_result_count(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op expects one result per input (2), got 1}}
  %a = rk.reduce %x, %y init [0.0 : f32, 0.0 : f32] {
  ^bb0(%a0: f32, %b0: f32, %a1: f32, %b1: f32):
    rk.yield %a0, %b0 : f32, f32
  } : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

func.func @reduce_init_type(%x: tensor<4x8xbf16>) -> tensor<4xf32> {
  // Float states are f32 whatever the storage type.
  // expected-error @+1 {{'rk.reduce' op init value #0 must be a 'f32' attribute, got 0.000000e+00 : bf16}}
  %r = rk.reduce %x init [0.0 : bf16] {
  ^bb0(%a: f32, %b: f32):
    rk.yield %a : f32
  } : tensor<4x8xbf16> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_state_result(%x: tensor<4x8xi32>) -> tensor<4xi64> {
  // expected-error @+1 {{'rk.reduce' op result #0 element type 'i64' does not fit state component type 'i32'}}
  %r = rk.reduce %x init [0 : i32] {
  ^bb0(%a: i32, %b: i32):
    rk.yield %a : i32
  } : tensor<4x8xi32> -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

func.func @reduce_one_block(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op the combiner region must have one block}}
  %r = "rk.reduce"(%x) ({
  ^bb0(%a: f32, %b: f32):
    rk.yield %a : f32
  ^bb1(%c: f32, %d: f32):
    rk.yield %c : f32
  }) {init = [0.0 : f32]} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_arg_count(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op the combiner region must have 2 arguments, got 1}}
  %r = rk.reduce %x init [0.0 : f32] {
  ^bb0(%a: f32):
    rk.yield %a : f32
  } : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_arg_type(%x: tensor<4x8xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op combiner region argument #1 has type 'f16', expected 'f32'}}
  %r = rk.reduce %x init [0.0 : f32] {
  ^bb0(%a: f32, %b: f16):
    rk.yield %a : f32
  } : tensor<4x8xf16> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_terminator(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op the combiner region must end with rk.yield}}
  %r = rk.reduce %x init [0.0 : f32] {
  ^bb0(%a: f32, %b: f32):
    "test.terminator"(%a) : (f32) -> ()
  } : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_yield_count(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op the combiner region yields 2 values, expected 1}}
  %r = rk.reduce %x init [0.0 : f32] {
  ^bb0(%a: f32, %b: f32):
    rk.yield %a, %b : f32, f32
  } : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_yield_type(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op combiner yield #0 has type 'i1', expected 'f32'}}
  %r = rk.reduce %x init [0.0 : f32] {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    rk.yield %c : i1
  } : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_region_ops(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.reduce' op 'rk.dim' is not allowed in a combiner region (only arith and math ops)}}
  %r = rk.reduce %x init [0.0 : f32] {
  ^bb0(%a: f32, %b: f32):
    %n = rk.dim %x[1] : tensor<4x8xf32> -> f32
    rk.yield %n : f32
  } : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @reduce_unknown_kind(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown reduction kind 'sum' (expected add, mul, max, min, argmax or argmin)}}
  %r = rk.reduce sum %x : tensor<4x8xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// rk.map
//===----------------------------------------------------------------------===//

func.func @map_no_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'rk.map' op expects at least one result}}
  "rk.map"(%x) ({
  ^bb0(%a: f32):
    rk.yield
  }) : (tensor<4x8xf32>) -> ()
  return
}

// -----

func.func @map_result_type(%x: tensor<4x8xf32>) -> tensor<4x8xindex> {
  // expected-error @+1 {{'rk.map' op result #0 must have a float (f32, bf16, f16, !rk.dtype) or integer element type, got 'index'}}
  %y = rk.map %x {
  ^bb0(%a: f32):
    %i = arith.fptosi %a : f32 to i64
    %j = arith.index_cast %i : i64 to index
    rk.yield %j : index
  } : tensor<4x8xf32> -> tensor<4x8xindex>
  return %y : tensor<4x8xindex>
}

// -----

func.func @map_result_shape(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>) {
  // expected-error @+1 {{'rk.map' op result #1 shape [4] must equal the result #0 shape [4, 8]}}
  %y, %z = rk.map %x {
  ^bb0(%a: f32):
    rk.yield %a, %a : f32, f32
  } : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return %y, %z : tensor<4x8xf32>, tensor<4xf32>
}

// -----

func.func @map_operand_shape(%x: tensor<4x8xf32>, %v: tensor<4xf32>) -> tensor<4x8xf32> {
  // A per-row [M] value needs an rk.broadcast to reach an [M, N] map.
  // expected-error @+1 {{'rk.map' op operand #1 shape [4] must equal the result shape [4, 8]}}
  %y = rk.map %x, %v {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %a, %b : f32
    rk.yield %p : f32
  } : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @map_operand_kind(%x: tensor<4x8xf32>, %s: !rk.dtype) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.map' op operand #1 must be a tensor of the result shape or an int, float or index scalar, got '!rk.dtype'}}
  %y = rk.map %x, %s {
  ^bb0(%a: f32, %b: !rk.dtype):
    rk.yield %a : f32
  } : tensor<4x8xf32>, !rk.dtype -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @map_one_block(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // SizedRegion<1> rejects a second block before RkOps.cpp's "the map region
  // must have one block" is reached (that message cannot fire for rk.map).
  // expected-error @+1 {{'rk.map' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
  %y = "rk.map"(%x) ({
  ^bb0(%a: f32):
    rk.yield %a : f32
  ^bb1(%b: f32):
    rk.yield %b : f32
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @map_arg_count(%x: tensor<4x8xf32>, %c: f32) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.map' op the map region must have 2 arguments, got 1}}
  %y = rk.map %x, %c {
  ^bb0(%a: f32):
    rk.yield %a : f32
  } : tensor<4x8xf32>, f32 -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @map_arg_type(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  // Region arguments are compute types: f32 for a bf16 tensor.
  // expected-error @+1 {{'rk.map' op map region argument #0 has type 'bf16', expected 'f32'}}
  %y = rk.map %x {
  ^bb0(%a: bf16):
    rk.yield %a : bf16
  } : tensor<4x8xbf16> -> tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}

// -----

func.func @map_yield_count(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.map' op the map region yields 0 values, expected 1}}
  %y = rk.map %x {
  ^bb0(%a: f32):
    rk.yield
  } : tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @map_yield_type(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'rk.map' op map yield #0 has type 'i64', expected 'i32'}}
  %y = rk.map %x {
  ^bb0(%a: i32):
    %b = arith.extsi %a : i32 to i64
    rk.yield %b : i64
  } : tensor<4x8xi32> -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

func.func @map_region_ops(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.map' op 'func.call' is not allowed in a map region (only arith and math ops)}}
  %y = rk.map %x {
  ^bb0(%a: f32):
    %b = func.call @callee(%a) : (f32) -> f32
    rk.yield %b : f32
  } : tensor<4x8xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func private @callee(f32) -> f32

// -----

//===----------------------------------------------------------------------===//
// rk.broadcast, rk.gather, rk.dim, rk.yield
//===----------------------------------------------------------------------===//

func.func @broadcast_dims_count(%v: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.broadcast' op 'dims' has 2 entries, expected one per input dimension (1)}}
  %b = rk.broadcast %v dims [0, 1] : tensor<4xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

func.func @broadcast_dims_order(%v: tensor<4x4xf32>) -> tensor<4x4x2xf32> {
  // expected-error @+1 {{'rk.broadcast' op 'dims' must be strictly increasing result dimensions below the result rank 3}}
  %b = rk.broadcast %v dims [1, 0] : tensor<4x4xf32> -> tensor<4x4x2xf32>
  return %b : tensor<4x4x2xf32>
}

// -----

func.func @broadcast_dims_range(%v: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.broadcast' op 'dims' must be strictly increasing result dimensions below the result rank 2}}
  %b = rk.broadcast %v dims [2] : tensor<4xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

func.func @broadcast_dim_size(%v: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.broadcast' op input dimension #0 (4) does not match result dimension #1 (8)}}
  %b = rk.broadcast %v dims [1] : tensor<4xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

// -----

func.func @broadcast_elem(%v: tensor<4xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'rk.broadcast' op result element type 'bf16' must equal the input element type 'f32'}}
  %b = rk.broadcast %v dims [0] : tensor<4xf32> -> tensor<4x8xbf16>
  return %b : tensor<4x8xbf16>
}

// -----

func.func @gather_input_rank(%x: tensor<8xf32>, %i: tensor<8xi64>) -> tensor<8xf32> {
  // expected-error @+1 {{'rk.gather' op input must be a rank-2 tensor [M, N], got 'tensor<8xf32>'}}
  %g = rk.gather %x[%i] : tensor<8xf32>, tensor<8xi64> -> tensor<8xf32>
  return %g : tensor<8xf32>
}

// -----

func.func @gather_index_rank(%x: tensor<4x8xf32>, %i: tensor<4x1xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.gather' op index must be a rank-1 tensor [M], got 'tensor<4x1xi64>'}}
  %g = rk.gather %x[%i] : tensor<4x8xf32>, tensor<4x1xi64> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @gather_index_int(%x: tensor<4x8xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.gather' op index must have an integer element type (i32 or i64), got 'f32'}}
  %g = rk.gather %x[%i] : tensor<4x8xf32>, tensor<4xf32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @gather_index_size(%x: tensor<4x8xf32>, %i: tensor<8xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.gather' op index size (8) must equal the number of rows M (4)}}
  %g = rk.gather %x[%i] : tensor<4x8xf32>, tensor<8xi32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @gather_result_rank(%x: tensor<4x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'rk.gather' op result must be a rank-1 tensor [M], got 'tensor<4x8xf32>'}}
  %g = rk.gather %x[%i] : tensor<4x8xf32>, tensor<4xi32> -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// -----

func.func @gather_result_size(%x: tensor<4x8xf32>, %i: tensor<?xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{'rk.gather' op result size (2) must equal the number of rows M (4)}}
  %g = rk.gather %x[%i] : tensor<4x8xf32>, tensor<?xi32> -> tensor<2xf32>
  return %g : tensor<2xf32>
}

// -----

func.func @gather_result_type(%x: tensor<4x8xbf16>, %i: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'rk.gather' op result element type must equal the input element type}}
  %g = rk.gather %x[%i] : tensor<4x8xbf16>, tensor<4xi32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @dim_range(%x: tensor<4x8xf32>) -> index {
  // expected-error @+1 {{'rk.dim' op dimension index 2 is out of range for a rank-2 tensor}}
  %n = rk.dim %x[2] : tensor<4x8xf32> -> index
  return %n : index
}

// -----

func.func @dim_negative(%x: tensor<4x8xf32>) -> index {
  // expected-error @+1 {{'rk.dim' op dimension index -1 is out of range for a rank-2 tensor}}
  %n = rk.dim %x[-1] : tensor<4x8xf32> -> index
  return %n : index
}

// -----

func.func @yield_parent() {
  // expected-error @+1 {{'rk.yield' op expects parent op to be one of 'rk.map, rk.reduce'}}
  rk.yield
}

// -----

//===----------------------------------------------------------------------===//
// rk attributes on operations and function arguments (RkDialect.cpp)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'rk.name' is not an rk operation attribute (rk.name belongs on function arguments)}}
func.func @op_attr(%x: tensor<4x8xf32>) attributes {rk.name = "k"} {
  return
}

// -----

// expected-error @+1 {{unknown argument attribute 'rk.nmae' (rk knows only 'rk.name')}}
func.func @arg_attr_unknown(%x: tensor<4x8xf32> {rk.nmae = "x"}) {
  return
}

// -----

// expected-error @+1 {{'rk.name' of argument #1 must be a non-empty string}}
func.func @arg_name_empty(%x: tensor<4x8xf32> {rk.name = "x"}, %w: tensor<8xf32> {rk.name = ""}) {
  return
}

// -----

// expected-error @+1 {{argument #1 is named 'w=2': an rk.name is letters, digits, '_', '.' and '-'}}
func.func @arg_name_not_a_name(%x: tensor<4x8xf32> {rk.name = "x"}, %w: tensor<8xf32> {rk.name = "w=2"}) {
  return
}

// -----

// expected-error @+1 {{'rk.name' of argument #0 must be a non-empty string}}
func.func @arg_name_not_string(%x: tensor<4x8xf32> {rk.name = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{arguments #0 and #2 have the same rk.name "x"}}
func.func @arg_name_twice(%x: tensor<4x8xf32> {rk.name = "x"}, %w: tensor<8xf32> {rk.name = "w"},
                          %y: tensor<4x8xf32> {rk.name = "x"}) {
  return
}

// -----

// expected-error @+2 {{'rk.fold' = "max_exp_sum" belongs on a two-input, two-result rk.reduce or tier.thread_reduce (the online softmax state)}}
func.func @fold_on_one_state(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = rk.reduce add %x {rk.fold = "max_exp_sum"} : tensor<4x8xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// expected-error @+1 {{'rk.fold' = "max_exp_sum" belongs on a two-input, two-result rk.reduce or tier.thread_reduce (the online softmax state)}}
%c = arith.constant {rk.fold = "max_exp_sum"} 1.0 : f32

// -----

// expected-error @+2 {{'rk.fold' = "mean_m2" belongs on a three-input, three-result rk.reduce or tier.thread_reduce (the Welford state)}}
func.func @mean_m2_on_one_state(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = rk.reduce add %x {rk.fold = "mean_m2"} : tensor<4x8xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

// expected-error @+2 {{'rk.fold' must be "max_exp_sum" or "mean_m2"}}
func.func @fold_unknown(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %s = rk.reduce add %x {rk.fold = "sum_sq"} : tensor<4x8xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
