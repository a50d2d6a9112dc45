//===- RkTypes.td - rk dialect types -----------------------*- tablegen -*-===//
#ifndef RK_TYPES_TD
#define RK_TYPES_TD

include "rk/RkDialect.td"
include "mlir/IR/AttrTypeBase.td"

class Rk_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Rk_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Rk_DTypeType : Rk_Type<"DType", "dtype"> {
  let summary = "The float element type of the compile request";
  let description = [{
    A placeholder element type for dtype-generic specs: `rk-specialize-shapes`
    replaces every `!rk.dtype` with the float type of the compile request
    (`f32`, `bf16` or `f16`, `rkc compile --dtype`). A spec written with
    `!rk.dtype` therefore compiles for every supported float dtype without
    being edited. It counts as a float type for every verifier.

    ```mlir
    %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
    ```
  }];
}

#endif // RK_TYPES_TD
