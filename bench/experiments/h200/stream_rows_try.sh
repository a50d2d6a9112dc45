#!/usr/bin/env bash
# Session 40: Inductor's shape of the mid-length rows where torch.compile
# led rkc's heuristic on the H200 (f2cf322 bench: RMSNorm f32 512-32k
# 0.95-0.98x, LayerNorm f32 512-8k 0.96-0.98x, RMSNorm bf16 8k 0.95x,
# softmax / log-softmax / cross-entropy at 512-1k 0.97-0.98x). Inductor's
# `triton_red` kernel sweeps the row twice in chunks (512 threads x 4
# values, the second sweep re-read from L1 / L2), where rkc keeps the row
# in registers. rkc's own `staging=stream` (split=1, keep=0) is that
# shape; the tuner never tries it (streamed schedules are outside its
# space). `rkc tune --try`, M x N = 2^27, no database.
# Usage: stream_rows_try.sh   (repo root; rkc and librkc from .bundle)
set -u
. bench/experiments/h200/try_lib.sh
export RKC_CACHE_DIR=/tmp/rkc-stream-try
nvidia-smi -L
# tries SPEC DTYPE N: streamed schedules of threads x values (<= N) a pass
tries() {
  local vec=$([ "$2" = f32 ] && echo 4 || echo 8) n=$3 out=() t v
  for t in 128 256 512 1024; do
    for v in $vec $((2 * vec)); do
      [ $((t * v)) -le $n ] && out+=("threads=$t,values=$v,staging=stream,split=1,keep=0")
    done
  done
  (IFS=';'; echo "${out[*]}")
}
while read -r spec dt ns; do
  for n in ${ns//,/ }; do
    try_rows "$spec" "$dt" "$n" "$(tries "$spec" "$dt" "$n")"
  done
done <<'LIST'
rms_norm f32 512,1024,2048,4096,8192,16384,32768
layer_norm f32 512,1024,4096,8192
rms_norm bf16 1024,8192,32768
layer_norm bf16 16384
softmax f32 1024
log_softmax bf16 1024
cross_entropy f32 1024
LIST
