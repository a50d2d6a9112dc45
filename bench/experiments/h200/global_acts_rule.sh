#!/usr/bin/env bash
# Session 38's acts=global rule (docs/planner.md, column rule 5): the
# heuristic (now reading activations from global memory at these shapes)
# against the same plan staged (`--try acts=smem`), `rkc tune --try`, no
# database; W4A16 M = 1 4096 x 14336 is a control the rule leaves alone.
# Usage: global_acts_rule.sh   (repo root, the bundle in .bundle)
set -u
export RKC_DISABLE_TUNING_DB=1 PATH=$PWD/.bundle/bin:$PATH
sed 's/bits = 4/bits = 8/g; s/xi4/xi8/g; s/packing = k8/packing = k4/g' examples/gemv_w4a16.mlir > /tmp/gemv_w8a16.mlir
for c in "4 1 14336 4096" "4 1 11008 4096" "4 2 14336 4096" "8 1 4096 4096" "4 16 28672 8192" \
         "8 16 28672 8192" "4 1 4096 14336"; do
  set -- $c
  spec=examples/gemv_w4a16.mlir
  [ $1 = 8 ] && spec=/tmp/gemv_w8a16.mlir
  echo "-- W$1A16 M=$2 K=$3 N=$4"
  rkc tune $spec --dtype f16 --shape x=$2x$3 --shape q=$3x$4 --try 'acts=smem' 2>&1 |
    grep -E '^  (heuristic|try)|error'
done
