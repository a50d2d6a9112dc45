//===- RkDialect.td - the rk dialect: what a kernel computes -*- tablegen -*-===//
#ifndef RK_DIALECT_TD
#define RK_DIALECT_TD

include "mlir/IR/OpBase.td"

def Rk_Dialect : Dialect {
  let name = "rk";
  let cppNamespace = "::mlir::rk";
  let summary = "What a memory-bound kernel computes: row ops, reductions, quantized ops";
  let description = [{
    The `rk` dialect describes *what* a memory-bound GPU kernel computes,
    independent of how it is mapped onto the hardware. A kernel spec is a
    `func.func` whose arguments are tensors (dynamic dims allowed, bound at
    compile time by `rk-specialize-shapes`) and whose body uses:

    * named ops for the common kernels (`rk.rms_norm`, `rk.layer_norm`,
      `rk.softmax`, `rk.log_softmax`, `rk.cross_entropy`, `rk.quantize`,
      `rk.dequantize`, `rk.gemv`, `rk.decode_attention`);
    * generic ops with which users write new kernels without C++:
      `rk.reduce` (builtin kinds or a custom associative combiner region),
      `rk.map` (elementwise region), `rk.broadcast`, `rk.gather`, `rk.dim`.

    Row ops work on 2-D tensors `[M, N]`: M independent rows, each reduced
    along the last dimension N. Per-row values are 1-D `[M]`, row-wide
    vectors (weights, biases) are 1-D `[N]`; `rk.broadcast` states how a 1-D
    value is spread over `[M, N]`.

    Element types: `f32`, `bf16`, `f16`, `i8`, packed `i4`, and `!rk.dtype`,
    the float type of the compile request, so that one spec serves every
    float dtype. Regions of `rk.map` / `rk.reduce` compute in `f32` for float
    operands (storage types are converted on load and store).

    Function arguments may carry `rk.name = "x"`, the name used by
    `rkc compile --shape x=...`; unnamed arguments are called `arg<i>`.

    ```mlir
    func.func @rms_norm(%x: tensor<?x?x!rk.dtype> {rk.name = "x"},
                        %w: tensor<?x!rk.dtype> {rk.name = "w"})
        -> tensor<?x?x!rk.dtype> {
      %y = rk.rms_norm %x, %w {eps = 1.0e-6 : f32}
          : (tensor<?x?x!rk.dtype>, tensor<?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
      return %y : tensor<?x?x!rk.dtype>
    }
    ```
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class Rk_Op<string mnemonic, list<Trait> traits = []>
    : Op<Rk_Dialect, mnemonic, traits>;

#endif // RK_DIALECT_TD
