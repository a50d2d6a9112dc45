#!/usr/bin/env bash
# Rows whose N is not a multiple of the 16-byte vector, before and after
# shifted rows (templates/rkc/vec.cuh): the heuristic kernels of two librkc
# builds on the same shapes (database off), then, with the new build, the
# shifted 16-byte vector against the widest vector that divides N, and the
# streamed read-once row against the cluster plan at an odd N.
#
#   bash bench/experiments/odd_n_ab.sh OLD_LIBRKC NEW_LIBRKC OUTDIR
set -euo pipefail
old=$1 new=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
ab() { python3 "$here/sched_ab.py" "$@"; }
export RKC_DISABLE_TUNING_DB=1
ops=rms_norm,layer_norm,softmax,log_softmax,cross_entropy
for side in old new; do
  lib=$old; [ $side = new ] && lib=$new
  RKC_LIBRARY=$lib RKC_CACHE_DIR=$(mktemp -d) ab --ops $ops --dtypes bf16,f32 \
    --n 4095,50257,131071,1000003 --schedules '' 2>&1 | sed "s/^/$side /" | tee -a "$out/odd-n-ab.txt"
done
export RKC_LIBRARY=$new RKC_CACHE_DIR=$(mktemp -d)
ab --ops $ops --dtypes bf16 --n 50260 --schedules ';vector=4' 2>&1 | sed 's/^/width /' | tee -a "$out/odd-n-ab.txt"
ab --ops $ops --dtypes f32 --n 50258 --schedules ';vector=2' 2>&1 | sed 's/^/width /' | tee -a "$out/odd-n-ab.txt"
ab --ops cross_entropy --dtypes bf16,f32 --n 50257 --schedules ';staging=registers;staging=async' 2>&1 |
  sed 's/^/read-once /' | tee -a "$out/odd-n-ab.txt"
