#!/usr/bin/env bash
# Rows with a result, f32 (and the 16-bit rows slower than torch.compile on
# the H200), the heuristic against torch.compile's layout: Inductor's
# `triton_red` RMSNorm f32 kernel reads x twice (a first pass for the sum of
# squares, a second for the result, from L1 / L2) at 512 threads, 28
# registers, 100 % occupancy (session 34: 246 against rkc's 256 us under ncu
# at [32768, 4096]). rkc expresses it as `staging=stream` with one CTA a row
# (split=1, keep=0): sweeps of threads x values, the second in reverse order
# so its first sweep finds the last one's data in L1. Also LayerNorm f32 at
# 16k: 512 x 32 with min_blocks=2 (the H200 tuner's choice, 1.07x; 101
# registers by the estimate, so it spills). `rkc tune --try`, no database,
# M x N = 2^27.
# Usage: two_pass_rows_ab.sh   (repo root, bundle in .bundle)
set -u
S=staging=stream,split=1,keep=0
. bench/experiments/h200/try_lib.sh
nvidia-smi -L
for op in rms_norm layer_norm; do
  try_rows $op f32 2048 "$S,threads=256,values=8;$S,threads=512,values=4"
  try_rows $op f32 4096 "$S,threads=512,values=8;$S,threads=512,values=4;$S,threads=1024,values=4"
  try_rows $op f32 8192 "$S,threads=512,values=8;$S,threads=1024,values=8;$S,threads=512,values=16"
  try_rows $op f32 16384 "$S,threads=512,values=8;$S,threads=1024,values=8;threads=512,values=32;threads=512,values=32,min_blocks=2"
  try_rows $op f32 32768 "$S,threads=1024,values=8;$S,threads=512,values=16"
done
try_rows softmax f32 4096 "$S,threads=512,values=8"
try_rows rms_norm bf16 8192 "$S,threads=512,values=16,vector=8;$S,threads=1024,values=8,vector=8;$S,threads=256,values=16,vector=8"
try_rows layer_norm bf16 16384 "$S,threads=512,values=16,vector=8;$S,threads=1024,values=16,vector=8"
