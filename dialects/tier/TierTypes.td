//===- TierTypes.td - tier dialect types -------------------*- tablegen -*-===//
#ifndef TIER_TYPES_TD
#define TIER_TYPES_TD

include "tier/TierDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Tier_FragType : TypeDef<Tier_Dialect, "Frag"> {
  let mnemonic = "frag";
  let summary = "The values of one row that one thread holds";
  let description = [{
    A thread's fragment of a row under the function's `#tier.tv_layout`:
    `size` values (the layout's `values`) of compute type `elementType`
    (f32 for float data, or an integer type), held in registers.

    ```mlir
    !tier.frag<16 x f32>
    ```
  }];
  let parameters = (ins "int64_t":$size, "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $size `x` $elementType `>`";
}

#endif // TIER_TYPES_TD
