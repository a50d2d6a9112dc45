//===- TierOps.td - tier dialect operations ----------------*- tablegen -*-===//
#ifndef TIER_OPS_TD
#define TIER_OPS_TD

include "tier/TierDialect.td"
include "tier/TierTypes.td"
include "tier/TierAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

// Per-row scalars (the same value in every thread of a row) are plain
// builtin scalars; per-thread row fragments are !tier.frag.
def Tier_Value : AnyTypeOf<[Tier_FragType, AnyInteger, AnyFloat, Index]>;

def Tier_LoadOp : Tier_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "Load this thread's fragment of a row (or row vector)";
  let description = [{
    Loads the values the TV layout gives this thread from `source`, an
    `[M, N]` argument (row `m` of the thread's row group) or an `[N]` row
    vector (same columns, no row offset), converting to the compute type.
    Accesses are `vector` elements wide; columns past N are predicated off
    and read as `fill`.

    ```mlir
    %x = tier.load %arg0 {fill = 0.0 : f32} : tensor<4096x8192xbf16> -> !tier.frag<32 x f32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, TypedAttrInterface:$fill);
  let results = (outs Tier_FragType:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tier_LoadRowScalarOp : Tier_Op<"load_row_scalar", [MemoryEffects<[MemRead]>]> {
  let summary = "Load the element of an [M] argument for this thread's row";
  let description = [{
    ```mlir
    %t = tier.load_row_scalar %arg1 : tensor<4096xi64> -> i64
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs AnyTypeOf<[AnyInteger, AnyFloat]>:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
}

def Tier_GatherOp : Tier_Op<"gather", [MemoryEffects<[MemRead]>]> {
  let summary = "Load element [row, index] of an [M, N] argument";
  let description = [{
    A per-row scalar load of one element; indices outside `[0, N)` give 0.

    ```mlir
    %v = tier.gather %arg0[%t] : tensor<4096x8192xbf16>, i64 -> f32
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source, AnyInteger:$index);
  let results = (outs AnyFloat:$result);
  let assemblyFormat = "$source `[` $index `]` attr-dict `:` type($source) `,` type($index) `->` type($result)";
}

def Tier_StoreOp : Tier_Op<"store", [MemoryEffects<[MemWrite]>]> {
  let summary = "Store this thread's fragment of a row";
  let description = [{
    The inverse of `tier.load`: columns past N and rows past M are not
    written; values are converted to the destination's element type.

    ```mlir
    tier.store %y, %arg2 : !tier.frag<32 x f32>, tensor<4096x8192xbf16>
    ```
  }];
  let arguments = (ins Tier_FragType:$value, AnyRankedTensor:$dest);
  let assemblyFormat = "$value `,` $dest attr-dict `:` type($value) `,` type($dest)";
  let hasVerifier = 1;
}

def Tier_StoreRowScalarOp : Tier_Op<"store_row_scalar", [MemoryEffects<[MemWrite]>]> {
  let summary = "Store a per-row scalar to an [M] argument (one thread per row)";
  let description = [{
    ```mlir
    tier.store_row_scalar %loss, %arg2 : f32, tensor<4096xf32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[AnyInteger, AnyFloat]>:$value, AnyRankedTensor:$dest);
  let assemblyFormat = "$value `,` $dest attr-dict `:` type($value) `,` type($dest)";
}

def Tier_MapOp : Tier_Op<"map", [Pure]> {
  let summary = "Elementwise computation on fragments and per-row scalars";
  let description = [{
    Applies the region to every value of the fragment operands; scalar
    operands are the same for every value. With no fragment operand the
    result is a scalar. The region yields with `tier.yield`.

    ```mlir
    %y = tier.map %x, %r {
    ^bb0(%a: f32, %b: f32):
      %p = arith.mulf %a, %b : f32
      tier.yield %p : f32
    } : !tier.frag<32 x f32>, f32 -> !tier.frag<32 x f32>
    ```
  }];
  let arguments = (ins Variadic<Tier_Value>:$inputs);
  let results = (outs Variadic<Tier_Value>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$inputs $body attr-dict `:` type($inputs) `->` type($results)";
  let hasVerifier = 1;
}

class Tier_ReduceOp<string mnemonic, string tierDoc> : Tier_Op<mnemonic, [Pure]> {
  let description = tierDoc # [{

    The combiner is a builtin `kind` or, without `kind`, the region, which
    combines two states `(a_1..a_k, b_1..b_k)` and yields one.
  }];
  let regions = (region AnyRegion:$combiner);
  let hasVerifier = 1;
}

def Tier_ThreadReduceOp : Tier_ReduceOp<"thread_reduce", [{
    Reduces the values of fragments in one thread's registers into a state
    (k scalars), starting from `init`. Argmax/argmin states carry the column
    index given by the TV layout.

    ```mlir
    %s = tier.thread_reduce %x {} {kind = #rk<reduce_kind add>, init = [0.0 : f32]}
        : !tier.frag<32 x f32> -> f32
    ```
  }]> {
  let summary = "Reduce a thread's fragment values (registers)";
  let arguments = (ins Variadic<Tier_FragType>:$inputs, OptionalAttr<AnyAttr>:$kind,
                       ArrayAttr:$init);
  let results = (outs Variadic<AnyTypeOf<[AnyInteger, AnyFloat]>>:$results);
  let assemblyFormat = "$inputs $combiner attr-dict `:` type($inputs) `->` type($results)";
}

def Tier_WarpReduceOp : Tier_ReduceOp<"warp_reduce", [{
    Butterfly reduction (`shfl.sync.bfly`) over groups of `width` lanes;
    every lane of a group ends with the group's state.

    ```mlir
    %w = tier.warp_reduce %s {} {kind = #rk<reduce_kind add>, width = 32 : i64} : f32 -> f32
    ```
  }]> {
  let summary = "Reduce states across the lanes of a warp (shuffles)";
  let arguments = (ins Variadic<AnyTypeOf<[AnyInteger, AnyFloat]>>:$inputs,
                       OptionalAttr<AnyAttr>:$kind, I64Attr:$width);
  let results = (outs Variadic<AnyTypeOf<[AnyInteger, AnyFloat]>>:$results);
  let assemblyFormat = "$inputs $combiner attr-dict `:` type($inputs) `->` type($results)";
}

def Tier_BlockReduceOp : Tier_ReduceOp<"block_reduce", [{
    Combines the warp states of a row through shared memory with one
    barrier: lane 0 of each of the row's `warps` warps writes its state,
    and every warp reads and reduces them. Each op owns its buffer.

    ```mlir
    %b = tier.block_reduce %w {} {kind = #rk<reduce_kind add>, warps = 8 : i64} : f32 -> f32
    ```
  }]> {
  let summary = "Reduce warp states of a row across a CTA (shared memory)";
  let arguments = (ins Variadic<AnyTypeOf<[AnyInteger, AnyFloat]>>:$inputs,
                       OptionalAttr<AnyAttr>:$kind, I64Attr:$warps);
  let results = (outs Variadic<AnyTypeOf<[AnyInteger, AnyFloat]>>:$results);
  let assemblyFormat = "$inputs $combiner attr-dict `:` type($inputs) `->` type($results)";
}

def Tier_ClusterReduceOp : Tier_ReduceOp<"cluster_reduce", [{
    Combines the warp states of a row across the `cluster` CTAs of a
    thread-block cluster: each warp sends its state to every CTA's buffer in
    distributed shared memory (`mapa`, `st.async` completing on an
    `mbarrier`), then every warp reduces the `warps * cluster` states. Each
    op owns its buffer and mbarrier.

    ```mlir
    %c = tier.cluster_reduce %w {} {kind = #rk<reduce_kind max>, warps = 32 : i64, cluster = 4 : i64} : f32 -> f32
    ```
  }]> {
  let summary = "Reduce warp states of a row across a cluster (DSMEM)";
  let arguments = (ins Variadic<AnyTypeOf<[AnyInteger, AnyFloat]>>:$inputs,
                       OptionalAttr<AnyAttr>:$kind, I64Attr:$warps, I64Attr:$cluster);
  let results = (outs Variadic<AnyTypeOf<[AnyInteger, AnyFloat]>>:$results);
  let assemblyFormat = "$inputs $combiner attr-dict `:` type($inputs) `->` type($results)";
}

def Tier_GridReduceOp : Tier_ReduceOp<"grid_reduce", [{
    Combines the warp states of a row across the `split` CTAs of its group
    in a persistent, co-resident grid (schedule `split`): the CTA first
    combines its warps' states (shared memory), publishes the result in its
    slot of the group's global-memory workspace and arrives on the group's
    counter (release); every CTA waits for all `split` arrivals (acquire)
    and combines the `split` slots in the same order, so all get the same
    result. Each op owns its slots and shared buffer.

    ```mlir
    %g = tier.grid_reduce %w {} {kind = #rk<reduce_kind add>, warps = 16 : i64, split = 32 : i64} : f32 -> f32
    ```
  }]> {
  let summary = "Reduce warp states of a row across the CTAs of a split (global memory)";
  let arguments = (ins Variadic<AnyTypeOf<[AnyInteger, AnyFloat]>>:$inputs,
                       OptionalAttr<AnyAttr>:$kind, I64Attr:$warps, I64Attr:$split);
  let results = (outs Variadic<AnyTypeOf<[AnyInteger, AnyFloat]>>:$results);
  let assemblyFormat = "$inputs $combiner attr-dict `:` type($inputs) `->` type($results)";
}

//===----------------------------------------------------------------------===//
// Column (K-split) kernels: the layout is #tier.ksplit_layout on the function.
//===----------------------------------------------------------------------===//

def Tier_KDotOp : Tier_Op<"kdot", [MemoryEffects<[MemRead]>]> {
  let summary = "This thread's partial dot products over its part of K";
  let description = [{
    For the `rows` activation rows of `act` `[M, K]` and this thread's
    `cols` columns of the quantized `weight` `[K, N]`, sums
    `act[m, k] * scale[g, n] * (q[k, n] - zero[g, n])` over the thread's
    range of K (#tier.ksplit_layout). The activations of the CTA's K range
    are staged once in shared memory (as f32); the packed weights are loaded
    `cols` words at a time with `unroll` rows in flight and converted by bit
    tricks; integer-weighted partial sums are scaled once per group (scale
    folding). The result holds `rows * cols` values, row-major.

    ```mlir
    %p = tier.kdot %x, %q, %s : tensor<1x4096xf16>, tensor<4096x4096xi4, #q>,
        tensor<32x4096xf16> -> !tier.frag<4 x f32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$act, AnyRankedTensor:$weight,
                       AnyRankedTensor:$scales, Optional<AnyRankedTensor>:$zeros);
  let results = (outs Tier_FragType:$result);
  let assemblyFormat = [{
    $act `,` $weight `,` $scales (`zeros` $zeros^)? attr-dict `:` type($act) `,`
    type($weight) `,` type($scales) (`,` type($zeros)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tier_KSplitReduceOp : Tier_Op<"ksplit_reduce", [Pure]> {
  let summary = "Sum the K-split partials of the warps of a CTA and its cluster";
  let description = [{
    Adds the partials of the `warps` warps of the CTA (shared memory, one
    barrier) and, with `cluster > 1`, of the CTAs of the cluster (each CTA
    reads its share of the tile from every CTA's shared memory through
    `mapa` + `ld.shared::cluster` between two cluster barriers; no global
    workspace, no second kernel). The result is this thread's share of the
    CTA's output tile: value `j` of thread `t` in CTA `r` is tile element
    `(j * cluster + r) * threads + t` (row-major `[rows, 32 * cols]`).

    ```mlir
    %o = tier.ksplit_reduce %p : !tier.frag<4 x f32> -> !tier.frag<1 x f32>
    ```
  }];
  let arguments = (ins Tier_FragType:$partial);
  let results = (outs Tier_FragType:$result);
  let assemblyFormat = "$partial attr-dict `:` type($partial) `->` type($result)";
}

def Tier_LoadTileOp : Tier_Op<"load_tile", [MemoryEffects<[MemRead]>]> {
  let summary = "Load an [N] vector at this thread's output-tile positions";
  let description = [{
    Element `n` of `source` for every value of this thread's share of the
    output tile (see `tier.ksplit_reduce`); 0 past N.

    ```mlir
    %b = tier.load_tile %bias : tensor<4096xf16> -> !tier.frag<1 x f32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$source);
  let results = (outs Tier_FragType:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
}

def Tier_StoreTileOp : Tier_Op<"store_tile", [MemoryEffects<[MemWrite]>]> {
  let summary = "Store this thread's share of the output tile to an [M, N] result";
  let description = [{
    ```mlir
    tier.store_tile %o, %out : !tier.frag<1 x f32>, tensor<1x4096xf16>
    ```
  }];
  let arguments = (ins Tier_FragType:$value, AnyRankedTensor:$dest);
  let assemblyFormat = "$value `,` $dest attr-dict `:` type($value) `,` type($dest)";
}

def Tier_DequantizeTileOp : Tier_Op<"dequantize_tile", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Dequantize this thread's packed rows x cols of a [K, N] tensor";
  let description = [{
    Warp `w` of CTA `b` takes `unroll` packed rows (8 values of K for int4,
    one for int8) starting at row `(b / tiles * warps + w) * unroll`; lane
    `l` takes columns `l * cols ..` of the CTA's column tile. Writes
    `dest[k, n] = scale[g, n] * (q[k, n] - zero[g, n])`.

    ```mlir
    tier.dequantize_tile %q, %s, %out : tensor<4096x4096xi4, #q>,
        tensor<32x4096xf16>, tensor<4096x4096xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$quantized, AnyRankedTensor:$scales,
                       Optional<AnyRankedTensor>:$zeros, AnyRankedTensor:$dest);
  let assemblyFormat = [{
    $quantized `,` $scales (`zeros` $zeros^)? `,` $dest attr-dict `:`
    type($quantized) `,` type($scales) (`,` type($zeros)^)? `,` type($dest)
  }];
}

def Tier_QuantizeTileOp : Tier_Op<"quantize_tile", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Quantize one group of K for this thread's columns of a [K, N] tensor";
  let description = [{
    Warp `w` of CTA `b` takes group `b / tiles * warps + w` of K; lane `l`
    takes columns `l * cols ..` of the CTA's column tile. A first pass over
    the group reduces |x| (or min and max) per column in registers; the
    scale (and zero point) follow `rk.quantize`; a second pass rounds,
    clamps, packs and stores.

    ```mlir
    tier.quantize_tile %w, %q, %s : tensor<4096x4096xf16>,
        tensor<4096x4096xi4, #q>, tensor<32x4096xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$quantized,
                       AnyRankedTensor:$scales, Optional<AnyRankedTensor>:$zeros);
  let assemblyFormat = [{
    $input `,` $quantized `,` $scales (`,` $zeros^)? attr-dict `:`
    type($input) `,` type($quantized) `,` type($scales) (`,` type($zeros)^)?
  }];
}

def Tier_YieldOp : Tier_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["MapOp", "ThreadReduceOp", "WarpReduceOp", "BlockReduceOp",
                 "ClusterReduceOp", "GridReduceOp"]>]> {
  let summary = "Yield the values of a tier region";
  let description = [{
    ```mlir
    tier.yield %a : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // TIER_OPS_TD
