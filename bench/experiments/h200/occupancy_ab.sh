#!/usr/bin/env bash
# Session 37: rows whose registers, not their shared memory or threads,
# bound the CTAs an SM (the H200's heuristic plans; CPU survey: ptxas
# registers against the staging's shared memory). The heuristic against
# the same plan with min_blocks raised to the next CTA count that ptxas
# holds without a spill (cuobjdump, CPU). `rkc tune --try`, reference-
# checked, M x N = 2^27. (Round 1 of the first run, with min_blocks
# alone, also timed LayerNorm bf16 8k at 6 / 8 and log-softmax bf16 8k at 8.)
# Usage: occupancy_ab.sh   (repo root, bundle in .bundle)
set -u
. bench/experiments/h200/try_lib.sh
nvidia-smi -L
# (`--try` takes whole schedules: one naming min_blocks alone is a
# different layout, planned from the tuner's defaults.)
a16="vector=8,rows=1,staging=async,unroll=8"
for r in 1 2; do
  echo "== round $r"
  try_rows layer_norm bf16 65536 "threads=256,values=64,cluster=4,$a16,min_blocks=6"
  try_rows layer_norm bf16 131072 "threads=256,values=64,cluster=8,$a16,min_blocks=6"
  try_rows layer_norm bf16 262144 "threads=256,values=64,cluster=16,$a16,min_blocks=6"
  try_rows layer_norm f16 65536 "threads=256,values=64,cluster=4,$a16,min_blocks=6"
  try_rows layer_norm bf16 32768 "threads=512,values=64,cluster=1,$a16,min_blocks=3"
  try_rows layer_norm bf16 4096 "threads=128,values=32,vector=8,rows=1,cluster=1,staging=registers,unroll=4,min_blocks=8"
  try_rows layer_norm bf16 1024 "threads=32,values=32,vector=8,rows=4,cluster=1,staging=registers,unroll=4,min_blocks=8"
done
