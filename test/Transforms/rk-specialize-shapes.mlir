// Each part below is a separate input (split-file); its RUN line gives the
// compile request (shapes, dtype) that part needs. CHECK prefixes name the part.

// RUN: split-file %s %t

// Binding by rk.name; w and the result are inferred from x; !rk.dtype -> bf16.
// RUN: rk-opt %t/by_name.mlir --rk-specialize-shapes="shapes=x=128x4096 dtype=bf16" | FileCheck %s --check-prefix=NAME --enable-var-scope
// The same spec with both shapes given, and --dtype f16.
// RUN: rk-opt %t/by_name.mlir --rk-specialize-shapes="shapes=x=2x64,w=64 dtype=f16" | FileCheck %s --check-prefix=F16 --enable-var-scope
// Unnamed arguments are argN; dims fixed in the spec are kept.
// RUN: rk-opt %t/by_index.mlir --rk-specialize-shapes="shapes=arg0=8x1000" | FileCheck %s --check-prefix=INDEX --enable-var-scope
// rk.dim folds to constants of its result type.
// RUN: rk-opt %t/dim.mlir --rk-specialize-shapes="shapes=x=16x512 dtype=f32" | FileCheck %s --check-prefix=DIM --enable-var-scope
// Inference through reductions, broadcasts, maps and gathers.
// RUN: rk-opt %t/infer.mlir --rk-specialize-shapes="shapes=logits=32x50257 dtype=bf16" | FileCheck %s --check-prefix=INFER --enable-var-scope
// Quantized groups: scales are [K / group_size, N].
// RUN: rk-opt %t/quant.mlir --rk-specialize-shapes="shapes=q=4096x1024" | FileCheck %s --check-prefix=QUANT --enable-var-scope
// group_size = 0: one group over the whole axis pins the scales' dimension to 1.
// RUN: rk-opt %t/quant_whole.mlir --rk-specialize-shapes="shapes=q=256x72" | FileCheck %s --check-prefix=WHOLE --enable-var-scope
// RUN: rk-opt %t/quant_not_multiple.mlir --rk-specialize-shapes="shapes=q=4000x1024" -verify-diagnostics
// A --dtype for a spec without !rk.dtype is ignored, with a warning.
// RUN: rk-opt %t/not_generic.mlir --rk-specialize-shapes="shapes=x=4x8 dtype=bf16" -verify-diagnostics | FileCheck %s --check-prefix=NOTGEN

// Errors (-verify-diagnostics: the expected-error lines are in the parts).
// RUN: rk-opt %t/unknown_arg.mlir --rk-specialize-shapes="shapes=y=4x8 dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/rank.mlir --rk-specialize-shapes="shapes=x=4096 dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/zero.mlir --rk-specialize-shapes="shapes=x=0x4096 dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/negative.mlir --rk-specialize-shapes="shapes=x=4x-8 dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/too_big.mlir --rk-specialize-shapes="shapes=x=4x2147483648 dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/not_integer.mlir --rk-specialize-shapes="shapes=x=4xN dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/no_dims.mlir --rk-specialize-shapes="shapes=x= dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/twice.mlir --rk-specialize-shapes="shapes=x=4x8,x=8x8 dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/conflict.mlir --rk-specialize-shapes="shapes=x=128x4096,w=1024 dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/fixed.mlir --rk-specialize-shapes="shapes=x=4x4096" -verify-diagnostics
// RUN: rk-opt %t/missing_dtype.mlir --rk-specialize-shapes="shapes=x=4x8" -verify-diagnostics
// RUN: rk-opt %t/bad_dtype.mlir --rk-specialize-shapes="shapes=x=4x8 dtype=f64" -verify-diagnostics
// RUN: rk-opt %t/cannot_infer.mlir --rk-specialize-shapes="shapes=w=4096 dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/cannot_infer_result.mlir --rk-specialize-shapes="shapes=x=4x8" -verify-diagnostics
// RUN: rk-opt %t/not_tensor.mlir --rk-specialize-shapes="shapes=eps=4" -verify-diagnostics
// RUN: rk-opt %t/no_result.mlir --rk-specialize-shapes="shapes=x=4x8 dtype=bf16" -verify-diagnostics
// RUN: rk-opt %t/bad_name.mlir --rk-specialize-shapes="shapes=x=4x8 dtype=bf16" -verify-diagnostics

//--- by_name.mlir
func.func @rms_norm(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                    %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.rms_norm %x, %w {eps = 1.0e-6 : f32}
      : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

// NAME-LABEL: func.func @rms_norm
// NAME-SAME:    (%[[X:.*]]: tensor<128x4096xbf16> {rk.name = "x"}, %[[W:.*]]: tensor<4096xbf16> {rk.name = "w"}) -> tensor<128x4096xbf16>
// NAME:         %[[Y:.*]] = rk.rms_norm %[[X]], %[[W]] : (tensor<128x4096xbf16>, tensor<4096xbf16>) -> tensor<128x4096xbf16>
// NAME:         return %[[Y]] : tensor<128x4096xbf16>
// NAME-NOT:     !rk.dtype

// F16-LABEL: func.func @rms_norm
// F16-SAME:    (%{{.*}}: tensor<2x64xf16> {rk.name = "x"}, %{{.*}}: tensor<64xf16> {rk.name = "w"}) -> tensor<2x64xf16>
// F16:         rk.rms_norm {{.*}} : (tensor<2x64xf16>, tensor<64xf16>) -> tensor<2x64xf16>

//--- by_index.mlir
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y = rk.softmax %x : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
func.func @fixed_n(%x: tensor<?x1000xf32>) -> tensor<?x1000xf32> {
  %y = rk.log_softmax %x : (tensor<?x1000xf32>) -> tensor<?x1000xf32>
  return %y : tensor<?x1000xf32>
}

// INDEX-LABEL: func.func @softmax
// INDEX-SAME:    (%[[X:.*]]: tensor<8x1000xf32>) -> tensor<8x1000xf32>
// INDEX:         rk.softmax %[[X]] : (tensor<8x1000xf32>) -> tensor<8x1000xf32>
// INDEX-LABEL: func.func @fixed_n
// INDEX-SAME:    (%[[X:.*]]: tensor<8x1000xf32>) -> tensor<8x1000xf32>
// INDEX:         rk.log_softmax %[[X]] : (tensor<8x1000xf32>) -> tensor<8x1000xf32>

//--- dim.mlir
func.func @mean(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?xf32> {
  %s = rk.reduce add %x : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  %n = rk.dim %x[1] : tensor<?x?x!rk.dtype> -> f32
  %m = rk.dim %x[0] : tensor<?x?x!rk.dtype> -> index
  %k = rk.dim %x[1] : tensor<?x?x!rk.dtype> -> i32
  %mean = rk.map %s, %n, %m, %k {
  ^bb0(%a: f32, %b: f32, %c: index, %d: i32):
    %q = arith.divf %a, %b : f32
    rk.yield %q : f32
  } : tensor<?xf32>, f32, index, i32 -> tensor<?xf32>
  return %mean : tensor<?xf32>
}

// DIM-LABEL: func.func @mean
// DIM-SAME:    (%[[X:.*]]: tensor<16x512xf32> {rk.name = "x"}) -> tensor<16xf32>
// DIM:         %[[S:.*]] = rk.reduce add %[[X]] : tensor<16x512xf32> -> tensor<16xf32>
// DIM-DAG:     %[[N:.*]] = arith.constant 5.120000e+02 : f32
// DIM-DAG:     %[[M:.*]] = arith.constant 16 : index
// DIM-DAG:     %[[K:.*]] = arith.constant 512 : i32
// DIM:         rk.map %[[S]], %[[N]], %[[M]], %[[K]] {
// DIM:         } : tensor<16xf32>, f32, index, i32 -> tensor<16xf32>
// DIM-NOT:     rk.dim

//--- infer.mlir
func.func @ce(%logits: tensor<?x?x!rk.dtype> {rk.name = "logits"},
              %t: tensor<?xi64> {rk.name = "t"}) -> (tensor<?xf32>, tensor<?x?x!rk.dtype>) {
  %m = rk.reduce max %logits : tensor<?x?x!rk.dtype> -> tensor<?xf32>
  %mb = rk.broadcast %m dims [0] : tensor<?xf32> -> tensor<?x?xf32>
  %e = rk.map %logits, %mb {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %x = math.exp %d : f32
    rk.yield %x : f32
  } : tensor<?x?x!rk.dtype>, tensor<?x?xf32> -> tensor<?x?x!rk.dtype>
  %g = rk.gather %logits[%t] : tensor<?x?x!rk.dtype>, tensor<?xi64> -> tensor<?x!rk.dtype>
  %l = rk.map %m, %g {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    rk.yield %d : f32
  } : tensor<?xf32>, tensor<?x!rk.dtype> -> tensor<?xf32>
  return %l, %e : tensor<?xf32>, tensor<?x?x!rk.dtype>
}

// INFER-LABEL: func.func @ce
// INFER-SAME:    (%[[L:.*]]: tensor<32x50257xbf16> {rk.name = "logits"}, %[[T:.*]]: tensor<32xi64> {rk.name = "t"}) -> (tensor<32xf32>, tensor<32x50257xbf16>)
// INFER:         %[[M:.*]] = rk.reduce max %[[L]] : tensor<32x50257xbf16> -> tensor<32xf32>
// INFER:         %[[MB:.*]] = rk.broadcast %[[M]] dims [0] : tensor<32xf32> -> tensor<32x50257xf32>
// INFER:         %[[E:.*]] = rk.map %[[L]], %[[MB]] {
// INFER:         } : tensor<32x50257xbf16>, tensor<32x50257xf32> -> tensor<32x50257xbf16>
// INFER:         %[[G:.*]] = rk.gather %[[L]][%[[T]]] : tensor<32x50257xbf16>, tensor<32xi64> -> tensor<32xbf16>
// INFER:         rk.map %[[M]], %[[G]] {
// INFER:         } : tensor<32xf32>, tensor<32xbf16> -> tensor<32xf32>

//--- quant.mlir
func.func @dequant(%q: tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>> {rk.name = "q"},
                   %s: tensor<?x?xf16> {rk.name = "s"}) -> tensor<?x?xf16> {
  %w = rk.dequantize %q, %s : (tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<?x?xf16>) -> tensor<?x?xf16>
  return %w : tensor<?x?xf16>
}

// 4096 / 128 = 32 groups along K.
// QUANT-LABEL: func.func @dequant
// QUANT-SAME:    tensor<4096x1024xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>> {rk.name = "q"}
// QUANT-SAME:    tensor<32x1024xf16> {rk.name = "s"}) -> tensor<4096x1024xf16>

//--- quant_whole.mlir
func.func @dequant(%q: tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = true, packing = k4>> {rk.name = "q"},
                   %s: tensor<?x?xf16> {rk.name = "s"}) -> tensor<?x?xf16> {
  %w = rk.dequantize %q, %s : (tensor<?x?xi8, #rk.quant<bits = 8, group_size = 0, axis = 0, scale = f16, symmetric = true, packing = k4>>, tensor<?x?xf16>) -> tensor<?x?xf16>
  return %w : tensor<?x?xf16>
}

// WHOLE-LABEL: func.func @dequant
// WHOLE-SAME:    tensor<1x72xf16> {rk.name = "s"}) -> tensor<256x72xf16>

//--- quant_not_multiple.mlir
func.func @dequant(%q: tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>> {rk.name = "q"},
                   %s: tensor<?x?xf16> {rk.name = "s"}) -> tensor<?x?xf16> {
  // expected-error @+1 {{dimension #0 (4000) must be a multiple of 128 (the group size of a tied tensor)}}
  %w = rk.dequantize %q, %s : (tensor<?x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, symmetric = true, packing = k8>>, tensor<?x?xf16>) -> tensor<?x?xf16>
  return %w : tensor<?x?xf16>
}

//--- not_generic.mlir
// expected-warning @+1 {{the spec has no !rk.dtype; --dtype bf16 is ignored}}
func.func @softmax(%x: tensor<?x?xf32> {rk.name = "x"}) -> tensor<?x?xf32> {
  %y = rk.softmax %x : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// NOTGEN-LABEL: func.func @softmax
// NOTGEN-SAME:    tensor<4x8xf32>

//--- unknown_arg.mlir
// expected-error @+1 {{unknown argument 'y' in --shape (arguments: x, arg1)}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}, %w: tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype> {
  %y = rk.rms_norm %x, %w : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- rank.mlir
// expected-error @+1 {{--shape x has rank 1, but the argument is rank 2 ('tensor<?x?x!rk.dtype>')}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- zero.mlir
// expected-error @+1 {{dimension #0 of 'x' must be positive, got 0}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- negative.mlir
// expected-error @+1 {{dimension #1 of 'x' must be positive, got -8}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- too_big.mlir
// expected-error @+1 {{dimension #1 of 'x' (2147483648) exceeds 2^31 - 1}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- not_integer.mlir
// expected-error @+1 {{dimension #1 of 'x' must be an integer, got 'N'}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- no_dims.mlir
// expected-error @+1 {{--shape x= needs dimensions, e.g. x=128x4096}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- twice.mlir
// expected-error @+1 {{--shape x is given twice}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- conflict.mlir
// The weight must have the row length of x: 4096 != 1024.
// expected-error @+1 {{the compile request gives inconsistent sizes: dimension #1 is 4096 but dimension #0 of a tied tensor is 1024}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
             %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.rms_norm %x, %w : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- fixed.mlir
// expected-error @+1 {{--shape x gives dimension #1 = 4096, but the spec fixes it to 1024}}
func.func @k(%x: tensor<?x1024xf32> {rk.name = "x"}) -> tensor<?x1024xf32> {
  %y = rk.softmax %x : (tensor<?x1024xf32>) -> tensor<?x1024xf32>
  return %y : tensor<?x1024xf32>
}

//--- missing_dtype.mlir
// expected-error @+1 {{the spec is dtype-generic (!rk.dtype): give --dtype f32, bf16 or f16}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- bad_dtype.mlir
// The error is reported at the first function (an implicit module's own
// location would be line 0).
module {
  // expected-error @+1 {{unsupported dtype 'f64' (expected f32, bf16 or f16)}}
  func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
    %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
    return %y : tensor<?x?x!rk.dtype>
  }
}

//--- cannot_infer.mlir
// Only the weight is given: it fixes N, but nothing fixes M.
// expected-error @+1 {{cannot infer dimension #0 of argument 'x' ('tensor<?x?x!rk.dtype>'): give it with --shape x=...}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
             %w: tensor<?x!rk.dtype> {rk.name = "w"}) -> tensor<?x?x!rk.dtype> {
  %y = rk.rms_norm %x, %w : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
  return %y : tensor<?x?x!rk.dtype>
}

//--- cannot_infer_result.mlir
// A map of scalars only: no argument ties the size of its result.
func.func @k(%x: tensor<?x?xf32> {rk.name = "x"}) -> tensor<?xf32> {
  %c = arith.constant 1.0 : f32
  // expected-error @+1 {{cannot infer dimension #0 of 'tensor<?xf32>'}}
  %r = rk.map %c {
  ^bb0(%a: f32):
    rk.yield %a : f32
  } : f32 -> tensor<?xf32>
  return %r : tensor<?xf32>
}

//--- not_tensor.mlir
// expected-error @+1 {{argument 'eps' is not a tensor}}
func.func @k(%x: tensor<4x8xf32> {rk.name = "x"}, %e: f32 {rk.name = "eps"}) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

//--- no_result.mlir
// A kernel writes at least one result (this one compiled to an empty kernel).
// expected-error @+1 {{the function returns nothing: a kernel spec returns at least one result}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) {
  return
}

//--- bad_name.mlir
// Names are what --shape addresses and what the kernel's argument list
// records (the disk cache's entry too): "a b" or "a=b" could never be
// given a shape, and a space split the cached entry into other fields.
// expected-error @+1 {{argument #1 is named 'w b': an rk.name is letters, digits, '_', '.' and '-'}}
func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}, %w: tensor<?x!rk.dtype> {rk.name = "w b"}) -> tensor<?x?x!rk.dtype> {
  return %x : tensor<?x?x!rk.dtype>
}
