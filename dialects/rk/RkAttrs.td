//===- RkAttrs.td - rk dialect attributes ------------------*- tablegen -*-===//
#ifndef RK_ATTRS_TD
#define RK_ATTRS_TD

include "rk/RkDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Rk_ReduceKind : I32EnumAttr<"ReduceKind", "builtin reduction kind", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"mul", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"argmax", 4>, I32EnumAttrCase<"argmin", 5>]> {
  let cppNamespace = "::mlir::rk";
  let genSpecializedAttr = 0;
}
def Rk_ReduceKindAttr : EnumAttr<Rk_Dialect, Rk_ReduceKind, "reduce_kind"> {
  let summary = "Builtin reduction kind of `rk.reduce`";
  let description = [{
    One of `add`, `mul`, `max`, `min` (one result) or `argmax`, `argmin`
    (two results: the extreme value and its column index; the lowest index
    wins ties). Printed bare in `rk.reduce`, e.g. `rk.reduce max %x`.
  }];
}

def Rk_QuantPacking : I32EnumAttr<"QuantPacking", "quantized packing", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"k8", 1>,
    I32EnumAttrCase<"interleaved", 2>,
    I32EnumAttrCase<"k4", 3>]> {
  let cppNamespace = "::mlir::rk";
  let genSpecializedAttr = 0;
}

def Rk_QuantAttr : AttrDef<Rk_Dialect, "Quant"> {
  let mnemonic = "quant";
  let summary = "Quantization descriptor of a tensor of quantized values";
  let description = [{
    Describes how a tensor of `i8` or packed `i4` values encodes real numbers:
    `real = scale[g] * (q - zero[g])` where `g` is the group of the element
    along `axis` (`group_size` consecutive elements share one scale; `0`
    means one group over the whole axis, i.e. per-channel / per-row scales).

    * `bits`: 4 or 8; the tensor's element type must be `i4` / `i8`.
    * `packing`: `none` (one value per byte), `k8` (eight 4-bit values per
      32-bit word, consecutive along `axis`), `k4` (four 8-bit values per
      32-bit word, consecutive along `axis`: the int8 weights' layout, whose
      warps read 128-byte segments of a packed row) or `interleaved` (the
      layout of docs/quantization.md that lets 128-bit loads feed whole
      warps).
    * `scale`: element type of the scales, `f16` or `bf16` (or `f32`).
    * `symmetric`: no zero points when true (q in [-qmax, qmax]).

    It is used as the encoding of a ranked tensor type:

    ```mlir
    tensor<4096x?xi4, #rk.quant<bits = 4, group_size = 128, axis = 0,
                                 scale = f16, symmetric = true, packing = k8>>
    ```
  }];
  let parameters = (ins "unsigned":$bits, "int64_t":$groupSize, "unsigned":$axis,
                        "::mlir::Type":$scaleType, "bool":$symmetric,
                        "::mlir::rk::QuantPacking":$packing);
  let assemblyFormat = [{
    `<` `bits` `=` $bits `,` `group_size` `=` $groupSize `,` `axis` `=` $axis
    `,` `scale` `=` $scaleType `,` `symmetric` `=` $symmetric
    `,` `packing` `=` $packing `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Values per 32-bit word along `axis`: 8 (k8), 4 (k4), else 1.
    int64_t valuesPerWord() const;
  }];
}

#endif // RK_ATTRS_TD
