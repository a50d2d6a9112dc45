//===- RkOps.td - rk dialect operations --------------------*- tablegen -*-===//
#ifndef RK_OPS_TD
#define RK_OPS_TD

include "rk/RkDialect.td"
include "rk/RkTypes.td"
include "rk/RkAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

// Tensors of any element type; verifiers check the precise rules with
// messages that say which rule failed.
def Rk_Tensor : RankedTensorOf<[AnyType]>;

//===----------------------------------------------------------------------===//
// Named row ops
//===----------------------------------------------------------------------===//

def Rk_RmsNormOp : Rk_Op<"rms_norm", [Pure]> {
  let summary = "Root-mean-square normalisation of each row";
  let description = [{
    `y[m, n] = x[m, n] * rsqrt(mean_n(x[m, :]^2) + eps) * weight[n]`.

    With the optional `residual` operand, `h = x + residual` is normalised
    instead of `x`, and `h` is also returned as the second result (the fused
    "add + RMSNorm" of transformer blocks). `x`, `residual` and both results
    are `[M, N]`; `weight` is `[N]`; `eps` must be finite and non-negative.

    ```mlir
    %y = rk.rms_norm %x, %w {eps = 1.0e-6 : f32}
        : (tensor<?x?xbf16>, tensor<?xbf16>) -> tensor<?x?xbf16>
    %y2, %h = rk.rms_norm %x, %w residual %r {eps = 1.0e-6 : f32}
        : (tensor<?x?xbf16>, tensor<?xbf16>, tensor<?x?xbf16>)
        -> (tensor<?x?xbf16>, tensor<?x?xbf16>)
    ```
  }];
  let arguments = (ins Rk_Tensor:$input, Rk_Tensor:$weight,
                       Optional<Rk_Tensor>:$residual,
                       DefaultValuedAttr<F32Attr, "1.0e-6">:$eps);
  let results = (outs Rk_Tensor:$result, Optional<Rk_Tensor>:$residual_out);
  let assemblyFormat = [{
    $input `,` $weight (`residual` $residual^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Rk_LayerNormOp : Rk_Op<"layer_norm", [Pure]> {
  let summary = "Layer normalisation of each row";
  let description = [{
    `y[m, n] = (x[m, n] - mean) * rsqrt(var + eps) * weight[n] + bias[n]`,
    with the mean and the biased variance of row `m`. `x` and `y` are
    `[M, N]`; `weight` and the optional `bias` are `[N]`.

    ```mlir
    %y = rk.layer_norm %x, %w, %b {eps = 1.0e-5 : f32}
        : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Rk_Tensor:$input, Rk_Tensor:$weight,
                       Optional<Rk_Tensor>:$bias,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$eps);
  let results = (outs Rk_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Rk_SoftmaxOp : Rk_Op<"softmax", [Pure]> {
  let summary = "Softmax of each row";
  let description = [{
    `y[m, n] = exp(x[m, n] - max_m) / sum_n exp(x[m, n] - max_m)`. A row of
    `-inf` gives NaN, as in PyTorch. `x` and `y` are `[M, N]`.

    ```mlir
    %y = rk.softmax %x : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
    ```
  }];
  let arguments = (ins Rk_Tensor:$input);
  let results = (outs Rk_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Rk_LogSoftmaxOp : Rk_Op<"log_softmax", [Pure]> {
  let summary = "Log-softmax of each row";
  let description = [{
    `y[m, n] = x[m, n] - logsumexp_n(x[m, :])`. `x` and `y` are `[M, N]`.

    ```mlir
    %y = rk.log_softmax %x : (tensor<?x?xf32>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Rk_Tensor:$input);
  let results = (outs Rk_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Rk_CrossEntropyOp : Rk_Op<"cross_entropy", [Pure]> {
  let summary = "Cross-entropy loss of each row against an integer target";
  let description = [{
    For logits `[M, N]` and integer targets `[M]`:
    `lse[m] = logsumexp_n(logits[m, :])` and
    `loss[m] = lse[m] - logits[m, target[m]]`, or `0` where
    `target[m] == ignore_index` (default -100). Both results are `[M]` and
    float. Targets outside `[0, N)` other than `ignore_index` give a loss
    computed with a target logit of 0.

    ```mlir
    %loss, %lse = rk.cross_entropy %logits, %t {ignore_index = -100 : i64}
        : (tensor<?x?xbf16>, tensor<?xi64>) -> (tensor<?xf32>, tensor<?xf32>)
    ```
  }];
  let arguments = (ins Rk_Tensor:$logits, Rk_Tensor:$targets,
                       DefaultValuedAttr<I64Attr, "-100">:$ignore_index);
  let results = (outs Rk_Tensor:$loss, Rk_Tensor:$lse);
  let assemblyFormat = "$logits `,` $targets attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantized ops
//===----------------------------------------------------------------------===//

def Rk_QuantizeOp : Rk_Op<"quantize", [Pure]> {
  let summary = "Quantize a float tensor to int8 / int4 with group scales";
  let description = [{
    Quantizes `input` with the descriptor `#rk.quant` carried by the result
    type: for each group of `group_size` elements along `axis`,
    `scale = absmax / qmax` (symmetric; qmax = 127 for 8 bits, 7 for 4 bits)
    or `scale = (max - min) / (2^bits - 1)`, `zero = round(-min / scale)`
    (asymmetric), and `q = clamp(round(x / scale) + zero)`. Results: the
    quantized tensor, the scales (the input shape with `axis` divided by the
    group size) and, when asymmetric, the zero points (same shape as scales).

    ```mlir
    %q, %s = rk.quantize %w : (tensor<4096x4096xf16>)
        -> (tensor<4096x4096xi4, #rk.quant<bits = 4, group_size = 128, axis = 0,
              scale = f16, symmetric = true, packing = k8>>, tensor<32x4096xf16>)
    ```
  }];
  let arguments = (ins Rk_Tensor:$input);
  let results = (outs Rk_Tensor:$quantized, Rk_Tensor:$scales,
                      Optional<Rk_Tensor>:$zeros);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Rk_DequantizeOp : Rk_Op<"dequantize", [Pure]> {
  let summary = "Dequantize an int8 / int4 tensor with its group scales";
  let description = [{
    `y = scale[g] * (q - zero[g])`, the inverse of `rk.quantize` up to
    rounding. Operand and result shapes follow `rk.quantize`.

    ```mlir
    %w = rk.dequantize %q, %s : (tensor<4096x4096xi4, #rk.quant<bits = 4,
        group_size = 128, axis = 0, scale = f16, symmetric = true,
        packing = k8>>, tensor<32x4096xf16>) -> tensor<4096x4096xf16>
    ```
  }];
  let arguments = (ins Rk_Tensor:$quantized, Rk_Tensor:$scales,
                       Optional<Rk_Tensor>:$zeros);
  let results = (outs Rk_Tensor:$result);
  let assemblyFormat = "$quantized `,` $scales (`zeros` $zeros^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Rk_GemvOp : Rk_Op<"gemv", [Pure, AttrSizedOperandSegments]> {
  let summary = "Activations times a quantized weight matrix (decode GEMV)";
  let description = [{
    `out[m, n] = sum_k act[m, k] * dequant(weight)[k, n] (+ bias[n])` with
    fp32 accumulation, for `M` = 1..16 rows of f16/bf16 activations. The
    weight is `[K, N]` of `i4`/`i8` quantized along `axis = 0` (K), its
    scales `[K / group_size, N]`; `zeros` (asymmetric) has the scales' shape.

    ```mlir
    %o = rk.gemv %a, %q, %s : (tensor<?x4096xf16>, tensor<4096x4096xi4,
        #rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16,
        symmetric = true, packing = k8>>, tensor<32x4096xf16>)
        -> tensor<?x4096xf16>
    ```
  }];
  let arguments = (ins Rk_Tensor:$act, Rk_Tensor:$weight, Rk_Tensor:$scales,
                       Optional<Rk_Tensor>:$zeros, Optional<Rk_Tensor>:$bias);
  let results = (outs Rk_Tensor:$result);
  let assemblyFormat = [{
    $act `,` $weight `,` $scales (`zeros` $zeros^)? (`bias` $bias^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Rk_DecodeAttentionOp : Rk_Op<"decode_attention", [Pure, AttrSizedOperandSegments]> {
  let summary = "Single-token attention over a (possibly quantized) KV cache";
  let description = [{
    For queries `q [B, H, D]` and caches `k, v [B, H_kv, S, D]`:
    `out[b, h] = softmax_s(scale * q[b, h] . k[b, h / r, s]) . v[b, h / r]`
    where `r = gqa_ratio = H / H_kv` (grouped-query attention). The caches
    may be f16/bf16, or `i8`/`i4` quantized (their element type carries the
    `#rk.quant` encoding) with `k_scales` / `v_scales` operands: INT8
    per-token, or INT4 KIVI (K per-channel in groups of tokens, V per-token).

    ```mlir
    %o = rk.decode_attention %q, %k, %v {gqa_ratio = 4 : i64, scale = 0.0883883 : f32}
        : (tensor<8x32x128xf16>, tensor<8x8x?x128xf16>, tensor<8x8x?x128xf16>)
        -> tensor<8x32x128xf16>
    ```
  }];
  let arguments = (ins Rk_Tensor:$query, Rk_Tensor:$keys, Rk_Tensor:$values,
                       Optional<Rk_Tensor>:$key_scales,
                       Optional<Rk_Tensor>:$value_scales,
                       I64Attr:$gqa_ratio, F32Attr:$scale);
  let results = (outs Rk_Tensor:$result);
  let assemblyFormat = [{
    $query `,` $keys `,` $values (`scales` `(` $key_scales^ `,` $value_scales `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Generic ops
//===----------------------------------------------------------------------===//

def Rk_ReduceOp : Rk_Op<"reduce", [Pure]> {
  let summary = "Reduce each row over the last dimension";
  let description = [{
    Reduces `[M, N]` inputs along N into per-row `[M]` results.

    With a builtin kind (`add`, `mul`, `max`, `min`: one input, one result;
    `argmax`, `argmin`: one input, results value and integer index) the
    region is empty. Float inputs are accumulated in f32; results of float
    reductions are f32.

    With a custom combiner, the k inputs give each element's state (a tuple
    of k scalars: the input elements, floats promoted to f32), `init` gives
    the identity state (k typed attributes), and the region combines two
    states `(a_1..a_k, b_1..b_k)` into one with `rk.yield`. The combiner must
    be associative and commutative and `init` its identity: the reduction
    order is the hardware's (threads, warps, blocks, clusters). Example, the
    online softmax state (max, sum of exp):

    ```mlir
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
    %s = rk.reduce add %x : tensor<?x?xbf16> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Variadic<Rk_Tensor>:$inputs,
                       OptionalAttr<Rk_ReduceKindAttr>:$kind,
                       OptionalAttr<ArrayAttr>:$init);
  let results = (outs Variadic<Rk_Tensor>:$results);
  let regions = (region AnyRegion:$combiner);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::ValueRange":$inputs,
                   "::mlir::rk::ReduceKind":$kind)>,
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::ValueRange":$inputs,
                   "::mlir::ArrayAttr":$init)>
  ];
  let extraClassDeclaration = [{
    /// True when the op uses a custom combiner region.
    bool hasCombiner() { return !getKind().has_value(); }
  }];
}

def Rk_MapOp : Rk_Op<"map", [Pure]> {
  let summary = "Elementwise computation over tensors of one shape";
  let description = [{
    Applies the region to each element position. Operands are tensors of
    the result shape or scalars (int, float or index values, broadcast to
    every position). Region arguments are the operands' compute types (f32
    for float tensors and for the integers of quantized (`#rk.quant`)
    tensors, the element type for other integer tensors, the type of a
    scalar); the region yields one value per result, in the results'
    compute types, and may use `arith` and `math` ops. A result is rounded
    to its element type where it is stored: to nearest even for narrow
    floats, and, for a quantized integer tensor, half to even to an integer
    saturated to the element type's range (NaN to its lowest value).
    Per-row values
    (`[M]`) and row vectors (`[N]`) reach `[M, N]` maps through
    `rk.broadcast`.

    ```mlir
    %y = rk.map %x, %inv {
    ^bb0(%a: f32, %b: f32):
      %p = arith.mulf %a, %b : f32
      rk.yield %p : f32
    } : tensor<?x?xbf16>, tensor<?x?xf32> -> tensor<?x?xbf16>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands_);
  let results = (outs Variadic<Rk_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Rk_BroadcastOp : Rk_Op<"broadcast", [Pure]> {
  let summary = "Spread a tensor along new dimensions";
  let description = [{
    `dims` lists, for each operand dimension, the result dimension it maps
    to (strictly increasing). The other result dimensions are new: the
    value is repeated along them. Element types are equal.

    ```mlir
    // A per-row value [M] over the row: result[m, n] = v[m].
    %b = rk.broadcast %v dims [0] : tensor<?xf32> -> tensor<?x?xf32>
    // A row vector [N] over all rows: result[m, n] = w[n].
    %c = rk.broadcast %w dims [1] : tensor<?xbf16> -> tensor<?x?xbf16>
    ```
  }];
  let arguments = (ins Rk_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Rk_Tensor:$result);
  let assemblyFormat = "$input `dims` $dims attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Rk_GatherOp : Rk_Op<"gather", [Pure]> {
  let summary = "Pick one element of each row by an integer index";
  let description = [{
    `result[m] = input[m, index[m]]`; indices outside `[0, N)` give 0 and
    never read out of bounds (so an `ignore_index` of -100 is harmless).

    ```mlir
    %t = rk.gather %logits[%targets] : tensor<?x?xbf16>, tensor<?xi64> -> tensor<?xbf16>
    ```
  }];
  let arguments = (ins Rk_Tensor:$input, Rk_Tensor:$index);
  let results = (outs Rk_Tensor:$result);
  let assemblyFormat = "$input `[` $index `]` attr-dict `:` type($input) `,` type($index) `->` type($result)";
  let hasVerifier = 1;
}

def Rk_DimOp : Rk_Op<"dim", [Pure]> {
  let summary = "A dimension of a tensor as a scalar";
  let description = [{
    The size of dimension `index` of `input`, as an index, integer or float
    scalar (e.g. `N` as f32 for a mean). Folded to a constant once shapes
    are bound.

    ```mlir
    %n = rk.dim %x[1] : tensor<?x?xbf16> -> f32
    ```
  }];
  let arguments = (ins Rk_Tensor:$input, I64Attr:$index);
  let results = (outs AnyTypeOf<[AnyInteger, Index, AnyFloat]>:$result);
  let assemblyFormat = "$input `[` $index `]` attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Rk_YieldOp : Rk_Op<"yield", [Pure, Terminator, ReturnLike,
                                ParentOneOf<["MapOp", "ReduceOp"]>]> {
  let summary = "Yield the values of a map or combiner region";
  let description = [{
    Terminates the region of `rk.map` and `rk.reduce`.

    ```mlir
    rk.yield %a, %b : f32, f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // RK_OPS_TD
