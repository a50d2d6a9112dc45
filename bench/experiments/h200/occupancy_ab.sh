#!/usr/bin/env bash
# Session 37: rows whose registers, not their shared memory or threads,
# bound the CTAs an SM (the H200's heuristic plans; CPU survey: ptxas
# registers against the staging's shared memory). The heuristic against
# the same plan with min_blocks raised to the next CTA count that ptxas
# holds without a spill (cuobjdump, CPU). `rkc tune --try`, reference-
# checked, M x N = 2^27. Control: RMSNorm bf16 at 64k, already at its
# shared-memory bound (the try is the heuristic's occupancy).
# Usage: occupancy_ab.sh   (repo root, bundle in .bundle)
set -u
. bench/experiments/h200/try_lib.sh
nvidia-smi -L
for r in 1 2; do
  echo "== round $r"
  for n in 65536 131072 262144; do
    try_rows layer_norm bf16 $n "min_blocks=6"
  done
  try_rows layer_norm f16 65536 "min_blocks=6"
  try_rows layer_norm bf16 8192 "min_blocks=6;min_blocks=8"
  try_rows log_softmax bf16 8192 "min_blocks=8"
  try_rows layer_norm bf16 32768 "min_blocks=3"
  try_rows layer_norm bf16 4096 "min_blocks=8"
  try_rows layer_norm bf16 1024 "min_blocks=8"
  try_rows rms_norm bf16 65536 "min_blocks=6"
done
