#!/usr/bin/env bash
# Session 39: the small-batch row shapes of bench.py (bf16, M in {1, 16,
# 128}, N in {4096, 8192}) in the single-launch regime (the row harness: an
# L2 flush, one launch, median), the heuristic against other thread counts
# and a cluster of 2 (`rkc tune --try`: unset fields the heuristic's).
# Session 40: DT (default bf16), NS (default 4096 8192) and OPS choose the rows; rms_norm_residual
# (two [M, N] inputs) takes its residual at the same shape.
# Usage: small_batch_try.sh   (repo root; rkc and librkc from .bundle)
set -u
export PATH=$PWD/.bundle/bin:$PATH RKC_CACHE_DIR=/tmp/rkc-small-try
TRY=${TRY:-threads=128;threads=512;threads=1024;cluster=2}
DT=${DT:-bf16}
nvidia-smi -L
for op in ${OPS:-rms_norm layer_norm softmax cross_entropy}; do
  arg=x extra=()
  [ "$op" = cross_entropy ] && arg=logits
  for N in ${NS:-4096 8192}; do
    for M in 1 16 128; do
      [ "$op" = rms_norm_residual ] && extra=(--shape residual=${M}x$N)
      echo "== $op $DT $M x $N"
      rkc tune python/rkc/specs/$op.mlir --dtype $DT --shape $arg=${M}x$N "${extra[@]}" --try "$TRY" 2>&1 |
        grep -E "^  "
    done
  done
done
