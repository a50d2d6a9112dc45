//===- Passes.td - rkc passes ------------------------------*- tablegen -*-===//
#ifndef RKC_TRANSFORMS_PASSES_TD
#define RKC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RkSpecializeShapesPass : Pass<"rk-specialize-shapes", "mlir::ModuleOp"> {
  let summary = "Bind dynamic dims and the generic dtype from a compile request";
  let description = [{
    Replaces every `?` dimension of the kernel's argument and result types
    with the sizes of one compile request, and every `!rk.dtype` with the
    requested float type; then re-types every op and folds `rk.dim`. Sizes
    not given explicitly are inferred from the ops that tie dimensions
    together (e.g. the weight of `rk.rms_norm` has the input's row length).

    Before (`--rk-specialize-shapes="shapes=x=128x4096 dtype=bf16"`):
    ```mlir
    func.func @k(%x: tensor<?x?x!rk.dtype> {rk.name = "x"}) -> tensor<?x?x!rk.dtype> {
      %y = rk.softmax %x : (tensor<?x?x!rk.dtype>) -> tensor<?x?x!rk.dtype>
      return %y : tensor<?x?x!rk.dtype>
    }
    ```
    After:
    ```mlir
    func.func @k(%x: tensor<128x4096xbf16> {rk.name = "x"}) -> tensor<128x4096xbf16> {
      %y = rk.softmax %x : (tensor<128x4096xbf16>) -> tensor<128x4096xbf16>
      return %y : tensor<128x4096xbf16>
    }
    ```
  }];
  let options = [
    ListOption<"shapes", "shapes", "std::string",
               "Argument shapes, NAME=D0xD1... (by rk.name or argN)">,
    Option<"dtype", "dtype", "std::string", /*default=*/"\"\"",
           "Float type bound to !rk.dtype: f32, bf16 or f16">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def RkDecomposePass : Pass<"rk-decompose", "mlir::func::FuncOp"> {
  let summary = "Rewrite named row ops into rk.map / rk.reduce / rk.broadcast programs";
  let description = [{
    Each named row op becomes a row program of generic ops, so that the
    planner and the lowering only ever see `rk.map`, `rk.reduce`,
    `rk.broadcast`, `rk.gather` and `rk.dim`. For example `rk.softmax`:

    ```mlir
    %m = rk.reduce max %x : tensor<8x1024xf32> -> tensor<8xf32>
    %mb = rk.broadcast %m dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
    %e = rk.map %x, %mb { ... math.exp ... } : ... -> tensor<8x1024xf32>
    %s = rk.reduce add %e : tensor<8x1024xf32> -> tensor<8xf32>
    %sb = rk.broadcast %s dims [0] : tensor<8xf32> -> tensor<8x1024xf32>
    %y = rk.map %e, %sb { ... arith.divf ... } : ... -> tensor<8x1024xf32>
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect"];
}

def RkFuseReductionsPass : Pass<"rk-fuse-reductions", "mlir::func::FuncOp"> {
  let summary = "Merge reductions of the same row into one pass over the data";
  let description = [{
    * Sibling reductions (independent reductions over rows of the same
      shape) become one `rk.reduce` with a tuple state, so the row is
      reduced in one climb of the tiers.
    * When the row cannot stay on chip (`streaming=always`, or `auto` and
      either the schedule asks for `staging=stream` or, without a staging
      in the schedule, the planner's capacity model says so), `max` followed by a sum of
      `exp(x - max)` becomes one online (m, l) reduction, and `sum(x)`, its
      mean `sum / N` and the sum of `(x - mean)^2` one Welford (count,
      mean, M2) reduction with Chan's combiner (no cancellation), so the
      row is read once for the statistics.
    * When the row stays on chip but the planner splits it over a cluster
      of 4 or more CTAs, the variance becomes the same Welford reduction: one cluster-wide
      barrier for the mean and the variance instead of two. Welford states
      are tagged `rk.fold = "mean_m2"` (a thread folds groups of its values
      as two-pass statistics).

    Each input element is read from global memory once whenever the row
    stays on chip: the lowering keeps every loaded fragment in registers.
  }];
  let options = [
    Option<"streaming", "streaming", "std::string", /*default=*/"\"auto\"",
           "When to form online combiners: auto (ask the planner), always, never">,
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90a\"",
           "Target architecture for the capacity model (auto mode)">,
    Option<"sms", "sms", "int", /*default=*/"0",
           "SMs of the device (0: the arch's largest part)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "The plan override rk-plan-tiers will get (auto mode: its staging "
           "decides)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect"];
}

def RkPlanTiersPass : Pass<"rk-plan-tiers", "mlir::func::FuncOp"> {
  let summary = "Choose the TV layout and tier schedule of a row kernel";
  let description = [{
    Decides, from the cost model in lib/Plan (docs/planner.md), the vector
    width, threads per row, rows per CTA, cluster size, staging and unroll
    of the kernel and attaches them as `tier.layout` / `tier.schedule`
    function attributes. Each decision is reported as a remark. An explicit
    `schedule` overrides the heuristic (for the autotuner and tests).

    ```mlir
    func.func @k(...) attributes {
        tier.arch = "sm_90a",
        tier.layout = #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>,
        tier.schedule = #tier.schedule<reduce = block, cluster = 1,
                                       staging = registers, unroll = 2, min_blocks = 0>}
    ```
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90a\"",
           "Target architecture: sm_90a, sm_90, sm_80, sm_100a">,
    Option<"sms", "sms", "int", /*default=*/"0",
           "SMs of the device planned for (0: the arch's largest part: sm_80 "
           "108, sm_90 132, sm_100a 148)">,
    Option<"dramGBs", "dram-gbs", "int", /*default=*/"0",
           "DRAM bandwidth of the device planned for, in GB/s (0: unknown; "
           "the rules of parts with fast memory per SM stay off)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"\"",
           "Override: comma-separated threads=,vector=,values=,rows=,cluster=,staging=,unroll=,min_blocks=">
  ];
  // It creates #tier.tv_layout / #tier.schedule attributes.
  let dependentDialects = ["mlir::tier::TierDialect"];
}

def RkLowerToTierPass : Pass<"rk-lower-to-tier", "mlir::func::FuncOp"> {
  let summary = "Lower a planned row program to per-thread tier ops";
  let description = [{
    Rewrites the row program into what one thread does under the planned
    TV layout: `tier.load` of each input fragment (once), `tier.map` for
    elementwise work, and every reduction as a climb through the hardware
    tiers, in hardware order:

    ```mlir
    %t = tier.thread_reduce %x {kind = #rk<reduce_kind max>, ...}  // registers
    %w = tier.warp_reduce %t {width = 32 : i64, ...}               // shfl.sync.bfly
    %b = tier.block_reduce %w {warps = 8 : i64, ...}               // smem + 1 barrier
    %c = tier.cluster_reduce %b {cluster = 4 : i64, ...}           // DSMEM
    tier.store %y, %out : ...
    ```

    Column programs (`#tier.ksplit_layout`: rk.gemv, rk.quantize and
    rk.dequantize along K) become `tier.kdot` -> `tier.ksplit_reduce` ->
    [`tier.load_tile` + `tier.map`] -> `tier.store_tile`, or one
    `tier.quantize_tile` / `tier.dequantize_tile`.
  }];
  let dependentDialects = ["mlir::tier::TierDialect", "mlir::arith::ArithDialect",
                           "mlir::math::MathDialect"];
}

def TierEmitCudaPass : Pass<"tier-emit-cuda", "mlir::ModuleOp"> {
  let summary = "Emit CUDA C++ for the tier kernels of a module";
  let description = [{
    Translates every planned and lowered kernel into CUDA C++ that includes
    the device templates (`templates/rkc/*.cuh`) and attaches the source to
    the module as the `tier.cuda_source` string attribute (with
    `print=true` it is also printed to stdout, for tests).
  }];
  let options = [
    Option<"print", "print", "bool", /*default=*/"false",
           "Print the CUDA source to stdout">
  ];
}

#endif // RKC_TRANSFORMS_PASSES_TD
