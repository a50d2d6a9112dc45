#!/usr/bin/env bash
# Session 41's Next (3) and the clusters' hint, prepared (not yet run):
# `rkc tune --try` (the tuner's harness, reference-checked, no database)
# of the heuristic against
#  - async staging of the same layout, for f32 rows with [N] operands at
#    8k-32k (the H200's four tunings chose it at 16k / 32k, 1.05x);
#  - evict=last on the heuristic's cluster rows at 32k-256k (rule 8
#    declines clusters; the hint's first A/B was mixed there: RMSNorm f32
#    32k / 256k 0.98x / 0.91x with the L1 half too, LayerNorm f32 32k
#    1.04x).
# Usage: f32_rows_try.sh   (repo root, bundle in .bundle)
. "$(dirname "$0")/try_lib.sh"
for spec in rms_norm layer_norm rms_norm_residual; do
  extra() { [ $spec = rms_norm_residual ] && echo "--shape residual=@Mx$1"; }
  try_rows $spec f32 8192 'staging=async;staging=async,min_blocks=0' $(extra 8192)
  try_rows $spec f32 16384 'staging=async;staging=async,min_blocks=0;threads=1024,values=16,staging=async' $(extra 16384)
  try_rows $spec f32 32768 'threads=1024,values=32,cluster=1,staging=async;threads=512,values=64,cluster=1,staging=async' $(extra 32768)
done
for spec in rms_norm layer_norm softmax log_softmax; do
  for dt in bf16 f32; do
    for n in 32768 65536 131072 262144; do
      try_rows $spec $dt $n 'evict=last'
    done
  done
done
