#!/usr/bin/env bash
# Times gen.sh's kernels on the GPU (session 37): each emitted kernel against
# its fold-as-staged variant (bit for bit the same output), two rounds.
# Usage: run.sh [DIR]   (DIR: gen.sh's output, default this directory's cubin/)
set -u
c=${1:-bench/experiments/h200/fold-as-staged/cubin}
nvidia-smi -L
v() { echo "$1=$c/$2.cubin:$3:$4:$5:$6${7:-}"; }
for r in 1 2; do
  echo "== round $r"
  for k in "ln64k 2 2048 65536 rkc_layer_norm 8192 256 32768" \
           "ln256k 2 512 262144 rkc_layer_norm 8192 256 32768" \
           "ln16k 2 8192 16384 rkc_layer_norm 8192 512 32768" \
           "rms64k 1 2048 65536 rkc_rms_norm 8192 256 32768" \
           "rms256k 1 512 262144 rkc_rms_norm 8192 256 32768"; do
    set -- $k
    echo "-- $1"
    "$c/row_cubin_bench" 2 $2 $3 $4 "$(v base $1 $5 $6 $7 $8)" "$(v fold $1-fold $5 $6 $7 $8 :exact)"
  done
done
