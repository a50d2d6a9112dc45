#!/usr/bin/env bash
# Shared memory / L1 split of async-staged rows (session 36): the driver's
# choice against RKC_SMEM_CARVEOUT=auto (the least shared memory that keeps
# the driver's CTAs per SM, the rest L1, where the [N] operands every row
# reads again could hit). ln_operands_ab.sh: LayerNorm bf16 at 16k pays 5.7 %
# for its bias's bytes, L2 at 85-90 % of its throughput under ncu.
# `rkc run` (reference check + median of REPS), ROUNDS interleaved rounds,
# tuning database off. Usage: carveout_ab.sh (repo root, bundle in .bundle)
set -u
export RKC_DISABLE_TUNING_DB=1 PATH=$PWD/.bundle/bin:$PATH
ROUNDS=${ROUNDS:-2}; REPS=${REPS:-30}
CASES=${CASES:-"layer_norm:bf16:8192 layer_norm:bf16:16384 layer_norm:bf16:32768 rms_norm:bf16:16384
rms_norm:bf16:32768 layer_norm:bf16:65536 layer_norm:f32:32768 layer_norm:f32:65536
softmax:bf16:16384 rms_norm_residual:bf16:16384 layer_norm:bf16:262144"}
run() { # label carveout spec dtype N
  local n=$5 m=$((134217728 / $5)) extra=() out
  [ $3 = rms_norm_residual ] && extra=(--shape residual=${m}x$n)
  out=$(RKC_SMEM_CARVEOUT=$2 timeout 120 rkc run examples/$3.mlir --dtype $4 --shape x=${m}x$n \
        "${extra[@]}" --reps $REPS --print-plan 2>&1)
  printf '%-8s %-18s %-5s %-8s %-16s %-44s %s\n' $1 $3 $4 $n \
    "$(echo "$out" | grep -o 'time: [0-9.]* us' | head -1)" \
    "$(echo "$out" | grep -o -m1 'threads=[0-9]*,values=[0-9]*,[^ ]*staging=[a-z]*')" \
    "$(echo "$out" | grep -E '^(PASS|FAIL)' | head -1 | cut -c1-4)$(echo "$out" | grep -m1 -i error)"
}
nvidia-smi -L
for r in $(seq $ROUNDS); do
  echo "== round $r"
  for c in $CASES; do
    IFS=: read -r spec dt n <<< "$c"
    run driver "" $spec $dt $n; run auto auto $spec $dt $n
  done
done
