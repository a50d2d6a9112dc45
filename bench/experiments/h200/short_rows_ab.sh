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
export RKC_DISABLE_TUNING_DB=1 PATH=$PWD/.bundle/bin:$PATH
try() { # spec dtype N vectors-per-thread...
  local spec=$1 dt=$2 n=$3 vec tries=() v
  shift 3
  vec=$([ $dt = f32 ] && echo 4 || echo 8)
  for v in "$@"; do
    local t=$((n / vec / v))
    [ $t -ge 1 ] && tries+=("threads=$t,values=$((v * vec))")
  done
  echo "-- $spec $dt N=$n"
  rkc tune examples/$spec.mlir --dtype $dt --shape x=$((134217728 / n))x$n \
    --try "$(IFS=';'; echo "${tries[*]}")" 2>&1 | grep -v '^$'
}
nvidia-smi -L
for r in $(seq $ROUNDS); do
  echo "== round $r"
  for n in 64 128 256 512; do try cross_entropy f32 $n 2 4 8; done
  for n in 128 256; do try logsumexp f32 $n 2 4 8; try argmax f32 $n 2 4 8; done
  for n in 256 512 1024 2048; do try cross_entropy bf16 $n 4 8; done
done
