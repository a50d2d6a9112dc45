#!/usr/bin/env bash
# Session 42's one device call for session 41's prepared experiments and
# session 5's persistent clusters on the H200, each part under its own
# time limit so that the call ends inside the device's 10 minutes:
#  pipe: bench/experiments/pipelined_rows.cu, built here with nvcc and
#        carried as .bundle-pipe/pipelined_rows (its header says how);
#  try:  f32_rows_try.sh (async f32 rows with [N] operands, cluster rows
#        evict=last), the tuner's harness;
#  oev:  operands_evict_ab.sh against .bundle-oev (operands_evict_last.patch);
#  sev:  stream_evict_ab.sh against .bundle-sev (stream_first_sweep_evict.patch).
# Usage: prepared_abs.sh OUT   (repo root; .bundle and the three dirs carried)
set -u
out=$1
mkdir -p "$out"
here=$(dirname "$0")
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total --format=csv > "$out/gpu.txt" 2>&1
( cd "$out" && timeout 100 "$OLDPWD/.bundle-pipe/pipelined_rows" ) > "$out/pipe.txt" 2>&1
echo "pipe rc=$?" >> "$out/rc.txt"
timeout 200 bash "$here/f32_rows_try.sh" > "$out/try.txt" 2>&1
echo "try rc=$?" >> "$out/rc.txt"
timeout 130 bash "$here/lib_ab.sh" "$out/oev" oev .bundle-oev \
  --ops rms_norm,layer_norm --dtypes bf16,f32 --ns 1k,2k,4k,8k,16k,32k > "$out/oev.txt" 2>&1
echo "oev rc=$?" >> "$out/rc.txt"
timeout 130 bash "$here/lib_ab.sh" "$out/sev" sev .bundle-sev \
  --ops rms_norm,layer_norm,softmax,log_softmax,cross_entropy --dtypes bf16,f32 --ns 1M > "$out/sev.txt" 2>&1
echo "sev rc=$?" >> "$out/rc.txt"
tar czf "$out/raw.tgz" -C "$out" oev sev 2>/dev/null && rm -rf "$out/oev" "$out/sev"
