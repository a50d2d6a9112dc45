//===- TierAttrs.td - tier layout and schedule attributes --*- tablegen -*-===//
#ifndef TIER_ATTRS_TD
#define TIER_ATTRS_TD

include "tier/TierDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tier_Level : I32EnumAttr<"Level", "hardware tier", [
    I32EnumAttrCase<"thread", 0>, I32EnumAttrCase<"warp", 1>,
    I32EnumAttrCase<"block", 2>, I32EnumAttrCase<"cluster", 3>,
    I32EnumAttrCase<"grid", 4>]> {
  let cppNamespace = "::mlir::tier";
  let genSpecializedAttr = 0;
}
def Tier_LevelAttr : EnumAttr<Tier_Dialect, Tier_Level, "level"> {
  let summary = "A hardware tier: thread, warp, block, cluster or grid";
  let description = [{
    The tier a reduction climbs to: `thread` (registers of one thread),
    `warp` (shuffles), `block` (shared memory and one barrier), `cluster`
    (distributed shared memory of a thread-block cluster) or `grid` (the
    CTAs of a row in a persistent, co-resident grid, through global memory).
  }];
}

def Tier_Staging : I32EnumAttr<"Staging", "where a row is staged", [
    I32EnumAttrCase<"registers", 0>, I32EnumAttrCase<"smem", 1>,
    I32EnumAttrCase<"stream", 2>, I32EnumAttrCase<"async", 3>]> {
  let cppNamespace = "::mlir::tier";
  let genSpecializedAttr = 0;
}
def Tier_StagingAttr : EnumAttr<Tier_Dialect, Tier_Staging, "staging"> {
  let summary = "Where a row lives between reductions";
  let description = [{
    `registers`: the row is loaded once into registers and stays there;
    `smem`: it is copied to shared memory (cp.async) and re-read from there;
    `stream`: the row is streamed in chunks with online combiners and read
    again from global memory where a later phase needs it;
    `async`: as `registers` (the row is held in registers, read from global
    memory once), but every `[M, N]` input is first copied into
    thread-private shared-memory slots with `cp.async` (16-byte chunks that
    occupy no registers while in flight) and the loads read those slots.
  }];
}

def Tier_TvLayoutAttr : AttrDef<Tier_Dialect, "TvLayout"> {
  let mnemonic = "tv_layout";
  let summary = "Thread-value layout of a row over one CTA";
  let description = [{
    How the N elements of a row map onto threads and values:
    `threads` threads of a CTA work on one row (a power of two, 1..1024;
    below 32 several rows share a warp), each holding `values` elements of
    the row in `values / vector` chunks of `vector` consecutive elements
    (one 16-byte access when `vector * sizeof(element) == 16`). Chunk `c` of
    thread `t` in CTA `r` of the `C` CTAs of a row (a cluster's, or a
    split's: the schedule's `cluster` times `split`) starts at column
    `((c * C + r) * threads + t) * vector`. A CTA holds `rows` rows
    (`rows * threads` threads in all, at most 1024).

    ```mlir
    #tier.tv_layout<threads = 256, values = 16, vector = 8, rows = 1>
    ```
  }];
  let parameters = (ins "int64_t":$threads, "int64_t":$values,
                        "int64_t":$vector, "int64_t":$rows);
  let assemblyFormat = [{
    `<` `threads` `=` $threads `,` `values` `=` $values `,` `vector` `=` $vector
    `,` `rows` `=` $rows `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads per CTA.
    int64_t getCtaThreads() const { return getThreads() * getRows(); }
    /// Vector chunks per thread.
    int64_t getChunks() const { return getValues() / getVector(); }
  }];
}

def Tier_ScheduleAttr : AttrDef<Tier_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "How reductions climb the tiers and where rows are staged";
  let description = [{
    * `reduce`: the highest tier a row reduction reaches (`thread`, `warp`,
      `block`, `cluster` or `grid`); it follows from the layout, the
      cluster size and the split.
    * `cluster`: CTAs per thread-block cluster working on one row (1..16;
      1 means no cluster; above 8 needs the non-portable cluster size).
    * `staging`: `registers`, `smem` or `stream`.
    * `unroll`: independent vector loads each thread keeps in flight.
    * `min_blocks`: the `__launch_bounds__` minimum CTAs per SM (0: none).
    * `prefetch` (optional, default 0): 1 loads the `[N]` operands shared
      by every row (weights, biases) at the start of the kernel, with the
      row, instead of where they are first used (after the reductions):
      for grids of about one wave, where that second memory round trip is
      on the critical path.
    * `keep` (optional, default 0; `staging = stream` only): the first
      `keep` passes of each [M, N] input a streamed row reads in its first
      sweep are also kept in shared memory, and later sweeps read those
      passes from there instead of global memory (the passes they re-read
      from global memory are the ones the first sweep read last, still in
      L2).
    * `split` (optional, default 1): CTAs on one row that are not a cluster
      (with `cluster = 1` and `reduce = grid`; a power of two up to 1024):
      the kernel runs as a persistent, co-resident (cooperative) grid whose
      groups of `split` CTAs loop over the rows, and each reduction
      combines the group's per-CTA states through a global-memory
      workspace and a counter (rkc/grid.cuh).
    * `evict_last` (optional, default 0; not with `staging = stream`): 1
      loads the row's `[M, N]` inputs (or copies them into shared memory)
      with an evict-last L2 policy, so that L2 evicts the written results
      before them; 0 loads them without a hint (rows read once without a
      result are then loaded evict-first).

    ```mlir
    #tier.schedule<reduce = cluster, cluster = 4, staging = registers,
                   unroll = 4, min_blocks = 1>
    ```
  }];
  let parameters = (ins "::mlir::tier::Level":$reduce, "int64_t":$cluster,
                        "::mlir::tier::Staging":$staging, "int64_t":$unroll,
                        "int64_t":$minBlocks,
                        DefaultValuedParameter<"int64_t", "0">:$prefetch,
                        DefaultValuedParameter<"int64_t", "0">:$keep,
                        DefaultValuedParameter<"int64_t", "1">:$split,
                        DefaultValuedParameter<"int64_t", "0">:$evictLast);
  // The optional fields follow in any order, each `, name = value`, and
  // are printed only when not 0 (TierDialect.cpp).
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tier_KSplitLayoutAttr : AttrDef<Tier_Dialect, "KSplitLayout"> {
  let mnemonic = "ksplit_layout";
  let summary = "Layout of a column kernel: columns over lanes, K over warps and a cluster";
  let description = [{
    The layout of kernels that reduce over the leading dimension K of a
    `[K, N]` operand for every column (decode GEMV, group-wise quantization
    along K). A CTA owns a tile of `32 * cols` consecutive columns: lane `l`
    of every warp holds columns `l * cols .. l * cols + cols - 1` (one
    `cols`-word access per packed weight row; 16 bytes when `cols = 4` for
    int4). The `warps` warps of the CTA and the `cluster` CTAs of a
    thread-block cluster split K: CTA `r` of the cluster takes the `r`-th of
    `cluster` contiguous ranges of K (group aligned), and warp `w` the `w`-th
    contiguous part of it. Each thread keeps `unroll` packed rows of loads in
    flight. `rows` is the number of activation rows M (1..16).

    With `mma = true` (rk.gemv on int4 weights) the products run on tensor
    cores (`mma.sync.m16n8k16`, f32 accumulation): a warp covers `cols`
    (1, 2 or 4) groups of 32 columns; for each group its lanes (g, t) load
    16 bytes = 4 columns `4g..4g+3` of packed row `t` of each block of 4
    packed rows, and the group is the `n` of four m16n8 products that share
    the block's activation fragments; activations are staged in shared
    memory once per CTA. With `kwarps = k` (tensor cores only; a divisor
    of `warps`) only `k` warps split K: warp `w` takes the `w % k`-th part
    of the CTA's range of K and column group `w / k` of a CTA tile of
    `warps / k` groups, so one staging of the activations serves more
    columns. With `global_acts = true` (tensor cores only) the activation
    fragments are read from global memory where the products use them
    instead of being staged: the plan of parts without clusters whose
    shared memory cannot hold a CTA's K range of activations.

    ```mlir
    #tier.ksplit_layout<rows = 1, cols = 4, warps = 4, cluster = 8, unroll = 16>
    ```
  }];
  let parameters = (ins "int64_t":$rows, "int64_t":$cols, "int64_t":$warps,
                        "int64_t":$cluster, "int64_t":$unroll,
                        DefaultValuedParameter<"bool", "false">:$mma,
                        DefaultValuedParameter<"int64_t", "0">:$kwarps,
                        DefaultValuedParameter<"bool", "false">:$global_acts);
  // `mma`, `kwarps` and `global_acts` are printed only when not their
  // defaults.
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads per CTA.
    int64_t getCtaThreads() const { return getWarps() * 32; }
    /// Warps splitting K (`kwarps`, 0: all of them) and the column groups
    /// of a CTA (the other warps each take further columns).
    int64_t getKWarps() const { return getKwarps() > 0 ? getKwarps() : getWarps(); }
    int64_t getColWarps() const { return getWarps() / getKWarps(); }
    /// Output columns of one CTA (and of its cluster).
    int64_t getTileCols() const { return getCols() * 32 * getColWarps(); }
    /// Partial sums per thread of tier.kdot: rows x cols on CUDA cores,
    /// four m16n8 accumulators (16 floats) per 32 columns on tensor cores.
    int64_t getPartialSize() const {
      return getMma() ? 16 * getCols() : getRows() * getCols();
    }
  }];
}

#endif // TIER_ATTRS_TD
