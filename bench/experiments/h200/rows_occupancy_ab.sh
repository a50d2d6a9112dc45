#!/usr/bin/env bash
# 32-bit rows with a result held in registers at N = 2k-16k (one CTA a row):
# the heuristic (4 vectors a thread; RMSNorm 40 registers, 6 CTAs of 256 an
# SM at N = 4096: 75 % occupancy, LayerNorm 64: 50 %) against more threads
# with fewer values (512 x 8 at 4096: 30 registers, 100 %), the layout of
# torch.compile's kernel (512 threads, 28 registers, 100 %, 246 vs rkc's
# 256 us under ncu; session 34). `rkc tune --try`, no database, 2^27 values.
# Usage: rows_occupancy_ab.sh   (repo root, bundle in .bundle)
set -u
. bench/experiments/h200/try_lib.sh
nvidia-smi -L
for op in rms_norm layer_norm; do
  try_rows $op f32 2048 "threads=256,values=8;threads=512,values=4"
  try_rows $op f32 4096 "threads=512,values=8;threads=1024,values=4;threads=256,values=16,min_blocks=8"
  try_rows $op f32 8192 "threads=1024,values=8;threads=512,values=16,min_blocks=4"
done
try_rows softmax f32 4096 "threads=512,values=8"
try_rows log_softmax f32 4096 "threads=512,values=8"
