#!/usr/bin/env bash
# Times the variants of make_variants.py with row_cubin_bench (one launch
# after an L2 flush, median; every variant checked bit for bit against the
# emitted kernel). The CUBINs and the bench binary: gen.sh, into $CUBINS
# (default: this directory's cubin/).
# Usage: gen.sh here, then run.sh on the GPU machine   (repo root)
set -u
d=${CUBINS:-bench/experiments/h200/epilogue-groups/cubin}
b=$d/row_cubin_bench
v() { echo "$1=$d/$1.cubin:$2:$3:$4:$5${6:+:exact}"; }
nvidia-smi -L
for r in 1 2; do
  echo "== round $r"
  $b 2 2 8192 16384 $(v ln16k rkc_layer_norm 8192 512 32768) $(for x in g1 m3 g1-m3; do v ln16k-$x rkc_layer_norm 8192 512 32768 1; done)
  $b 2 2 16384 8192 $(v ln8k rkc_layer_norm 16384 256 16384) $(for x in g1 m6 g1-m6; do v ln8k-$x rkc_layer_norm 16384 256 16384 1; done)
  $b 2 2 2048 65536 $(v ln64k rkc_layer_norm 8192 256 32768) $(for x in g1 m6 g1-m6; do v ln64k-$x rkc_layer_norm 8192 256 32768 1; done)
  $b 2 1 8192 16384 $(v rms16k rkc_rms_norm 8192 512 32768) $(for x in g1 m3 g1-m3; do v rms16k-$x rkc_rms_norm 8192 512 32768 1; done)
done
