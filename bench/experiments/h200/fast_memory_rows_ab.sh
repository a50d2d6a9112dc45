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
export RKC_DISABLE_TUNING_DB=1 PATH=$PWD/.bundle/bin:$PATH
vectors() { # spec dtype N vectors-per-thread... : read-only rows
  local spec=$1 dt=$2 n=$3 vec tries=() v
  shift 3
  vec=$([ $dt = f32 ] && echo 4 || echo 8)
  for v in "$@"; do
    local t=$((n / vec / v))
    [ $t -ge 1 ] && tries+=("threads=$t,values=$((v * vec))")
  done
  echo "-- $spec $dt N=$n"
  rkc tune examples/$spec.mlir --dtype $dt --shape x=$((134217728 / n))x$n \
    --try "$(IFS=';'; echo "${tries[*]}")" 2>&1 | grep -E '^  (heuristic|try)|error'
}
half() { # spec N [extra shape args]: 32-bit rows with a result
  local spec=$1 n=$2 m=$((134217728 / $2)) v=$(( ($2 / 4 + 511) / 512 * 4 ))
  shift 2
  echo "-- $spec f32 N=$n"
  rkc tune examples/$spec.mlir --dtype f32 --shape x=${m}x$n "${@/@M/$m}" \
    --try "threads=512,values=$v,min_blocks=2;threads=512,values=$v" 2>&1 |
    grep -E '^  (heuristic|try)|error'
}
nvidia-smi -L
for n in 1024 2048 4096 8192; do vectors cross_entropy f32 $n 4 8; done
for n in 1024 2048 4096 8192 16384; do vectors cross_entropy bf16 $n 4 8; done
for n in 1024 4096; do vectors logsumexp f32 $n 4 8; vectors argmax f32 $n 4 8; done
for n in 12288 16384; do
  half rms_norm $n; half layer_norm $n; half l2_normalize $n
  half rms_norm_residual $n --shape residual=@Mx$n
done
half softmax 12288; half log_softmax 12288
