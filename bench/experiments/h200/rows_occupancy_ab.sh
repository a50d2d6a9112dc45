#!/usr/bin/env bash
# 32-bit rows with a result held in registers at N = 2k-16k (one CTA a row):
# the heuristic (4 vectors a thread; RMSNorm 40 registers, 6 CTAs of 256 an
# SM at N = 4096: 75 % occupancy, LayerNorm 64: 50 %) against more threads
# with fewer values (512 x 8 at 4096: 30 registers, 100 %), the layout of
# torch.compile's kernel (512 threads, 28 registers, 100 %, 246 vs rkc's
# 256 us under ncu; session 34). `rkc tune --try`, no database, 2^27 values.
# Usage: rows_occupancy_ab.sh   (repo root, bundle in .bundle)
set -u
export RKC_DISABLE_TUNING_DB=1 PATH=$PWD/.bundle/bin:$PATH
try() { # spec N tries
  echo "-- $1 f32 N=$2"
  rkc tune examples/$1.mlir --dtype f32 --shape x=$((134217728 / $2))x$2 --try "$3" 2>&1 |
    grep -E '^  (heuristic|try)|error'
}
nvidia-smi -L
for op in rms_norm layer_norm; do
  try $op 2048 "threads=256,values=8;threads=512,values=4"
  try $op 4096 "threads=512,values=8;threads=1024,values=4;threads=256,values=16,min_blocks=8"
  try $op 8192 "threads=1024,values=8;threads=512,values=16,min_blocks=4"
done
try softmax 4096 "threads=512,values=8"
try log_softmax 4096 "threads=512,values=8"
