#!/usr/bin/env bash
# The row rules where the H200's tuner and the H100's disagree (session 35):
#  - read-only rows (cross-entropy, logsumexp, argmax) of 1k-16k values:
#    the heuristic's 4 vector loads a thread against 8 (the H200's tuner
#    took 8 at cross-entropy f32 / bf16 1k-2k, 1.05-1.07x; the H100's
#    kept 4);
#  - 32-bit rows with a result at 8k < N <= 16k, where the heuristic has
#    one 1024-thread CTA an SM: 512 threads with twice the values and
#    min_blocks=2 (two CTAs an SM; the H200's tuner: LayerNorm f32 16k
#    1.07x, RMSNorm 1.03x; the H100's kept 1024 x 16 within 1 %).
# `rkc tune --try` (reference-checked, no database), M x N = 2^27.
# Usage: fast_memory_rows_ab.sh   (repo root, bundle in .bundle)
set -u
. bench/experiments/h200/try_lib.sh
half() { # spec N [rkc args]: 32-bit rows with a result, 512 threads
  local spec=$1 n=$2 v=$(( ($2 / 4 + 511) / 512 * 4 ))
  shift 2
  try_rows $spec f32 $n "threads=512,values=$v,min_blocks=2;threads=512,values=$v" "$@"
}
nvidia-smi -L
for n in 1024 2048 4096 8192; do try_vectors cross_entropy f32 $n 4 8; done
for n in 1024 2048 4096 8192 16384; do try_vectors cross_entropy bf16 $n 4 8; done
for n in 1024 4096; do try_vectors logsumexp f32 $n 4 8; try_vectors argmax f32 $n 4 8; done
for n in 12288 16384; do
  half rms_norm $n; half layer_norm $n; half l2_normalize $n
  half rms_norm_residual $n --shape residual=@Mx$n
done
half softmax 12288; half log_softmax 12288
