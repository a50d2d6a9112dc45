#!/usr/bin/env bash
# Read-only short rows (no [M, N] result: cross-entropy, logsumexp, argmax):
# the heuristic against 4 and 8 vector loads per thread, `rkc tune --try`
# (same harness, reference-checked, no database), M x N = 2^27.
# Session 34: the f32 rows' heuristic gives 2 vectors a thread up to N = 256
# (the read-only rule of 16-bit rows takes 4); the H100's tuner chose 16 x 4
# at cross-entropy f32 N = 256, the H200's 8 x 8.
# Usage: [ROUNDS=1] short_rows_ab.sh   (repo root, bundle in .bundle)
set -u
ROUNDS=${ROUNDS:-1}
. bench/experiments/h200/try_lib.sh
nvidia-smi -L
for r in $(seq $ROUNDS); do
  echo "== round $r"
  for n in 64 128 256 512; do try_vectors cross_entropy f32 $n 2 4 8; done
  for n in 128 256; do try_vectors logsumexp f32 $n 2 4 8; try_vectors argmax f32 $n 2 4 8; done
  for n in 256 512 1024 2048; do try_vectors cross_entropy bf16 $n 4 8; done
done
