#!/usr/bin/env bash
# The tensor-core GEMV's activations read from global memory (acts=global)
# against the heuristic's staged plan (session 38): `rkc tune --try` (the
# tuner's harness, reference-checked, no database) at issue #8's shapes
# and a few long-K ones, W4A16 / W8A16, M = 1 / 4 / 16.
# Usage: global_acts_try.sh   (repo root, the bundle in .bundle)
set -u
export RKC_DISABLE_TUNING_DB=1 PATH=$PWD/.bundle/bin:$PATH
nvidia-smi -L
sed 's/bits = 4/bits = 8/g; s/xi4/xi8/g; s/packing = k8/packing = k4/g' examples/gemv_w4a16.mlir > /tmp/gemv_w8a16.mlir
for bits in 4 8; do
  spec=examples/gemv_w4a16.mlir
  [ $bits = 8 ] && spec=/tmp/gemv_w8a16.mlir
  for kn in 4096x4096 4096x14336 14336x4096 4096x128256 11008x4096 28672x8192 8192x28672; do
    k=${kn%x*} n=${kn#*x}
    for m in 1 4 16; do
      [ $bits = 8 ] && [ $m = 4 ] && continue
      echo "-- W${bits}A16 M=$m K=$k N=$n"
      rkc tune $spec --dtype f16 --shape x=${m}x$k --shape q=${k}x$n --try 'acts=global' 2>&1 |
        grep -E '^  (heuristic|try)|error'
    done
  done
done
