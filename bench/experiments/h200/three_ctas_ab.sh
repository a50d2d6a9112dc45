#!/usr/bin/env bash
# Planner rule of session 36 (min_blocks = 3 for whole 16-bit rows of 32
# values staged asynchronously in 512-thread CTAs, fast memory): the
# heuristic against the same layout at min_blocks = 0, which the emitter
# builds as before the rule (its epilogue two chunks at a time). `rkc tune
# --try`, reference-checked, M x N = 2^27. Controls where the rule does
# not apply (the try is then the heuristic's plan: the spread).
# Usage: three_ctas_ab.sh   (repo root, bundle in .bundle)
set -u
. bench/experiments/h200/try_lib.sh
nvidia-smi -L
old="threads=512,values=32,staging=async,min_blocks=0"
for r in 1 2; do
  echo "== round $r"
  for c in layer_norm:bf16 rms_norm:bf16 l2_normalize:bf16 layer_norm:f16 rms_norm:f16; do
    try_rows ${c%%:*} ${c##*:} 16384 "$old"
  done
  try_rows layer_norm bf16 15000 "$old"        # partial row: no rule
  try_rows softmax bf16 16384 "$old"           # row math: no rule
  try_rows rms_norm_residual bf16 16384 "threads=512,values=32,staging=async,min_blocks=2" --shape residual=@Mx16384
done
