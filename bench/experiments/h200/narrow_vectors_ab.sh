#!/usr/bin/env bash
# Rows with a result at 2k-8k on the H200, 3-4 % behind torch.compile with
# 16-byte vectors: the H200's tuner chose 8-byte vectors for RMSNorm f32 at
# N = 1k / 4k (1.03x / 1.02x; bench/results/2026-11-28-h200-tune-42118be.txt).
# The heuristic against half-width vectors (twice the load instructions for
# the same bytes in flight), and with two rows a CTA. `rkc tune --try`, no
# database, M x N = 2^27.
# Usage: narrow_vectors_ab.sh   (repo root, bundle in .bundle)
set -u
. bench/experiments/h200/try_lib.sh
nvidia-smi -L
for n in 2048 4096 8192; do
  for op in rms_norm layer_norm softmax; do try_rows $op f32 $n "vector=2;vector=2,rows=2"; done
done
try_rows rms_norm bf16 8192 "vector=4;vector=4,rows=2"
