#!/usr/bin/env bash
# A/B of the planner's cluster CTA rule on the GPU (docs/tuning.md): for
# every row op and dtype at N = 65536 .. 262144 (M x N = 2^27), the heuristic
# and CTAs of 256 / 512 / 1024 threads x clusters of 2..16 x min_blocks 0 / 2
# (values per thread follow from coverage; layouts over 16 loads per thread
# or over the register model are rejected), through `rkc tune --try` (the
# tuner's harness: reference check, CUDA events, L2 flush, median).
#   bash bench/ab_cluster_ctas.sh > ab.txt      (rkc on PATH, a GPU)
# AB_OPS, AB_DTYPES, AB_NS narrow the cases; AB_TRY replaces the schedules
# (';'-separated override strings).
T=""
for t in 256 512 1024; do for c in 2 4 8 16; do for b in 0 2; do
  T="$T;threads=$t,cluster=$c,min_blocks=$b"
done; done; done
T=${AB_TRY:-${T#;}}
root=$(cd "$(dirname "$0")/.." && pwd)
for op in ${AB_OPS:-rms_norm layer_norm softmax log_softmax cross_entropy}; do
  a=x; [ "$op" = cross_entropy ] && a=logits
  for dt in ${AB_DTYPES:-bf16 f32}; do for n in ${AB_NS:-65536 131072 262144}; do
    m=$((134217728 / n))
    rkc tune "$root/python/rkc/specs/$op.mlir" --dtype "$dt" --shape "$a=${m}x$n" --try "$T" \
      2>/dev/null | grep -v "^shapes" | sed "s/^$a=/$op $dt /"
  done; done
done
