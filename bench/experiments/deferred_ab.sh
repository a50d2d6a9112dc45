#!/usr/bin/env bash
# A/B of two rkc bundles (OLD, NEW: directories with bin/rkc) on the rows the
# grid tier's deferred waits change (session 30, docs/performance-notes.md):
# `rkc run` (reference check + median of REPS timed launches) per case,
# old then new, ROUNDS rounds. Extra cases compare schedules within NEW.
# Usage: OLD=.bundle-old NEW=.bundle [ROUNDS=2] [REPS=50] deferred_ab.sh
set -u
cd "$(dirname "$0")/../.."
E=examples; ROUNDS=${ROUNDS:-2}; REPS=${REPS:-50}
run() { # label bundle spec dtype shape [schedule]
  local out
  out=$("$2/bin/rkc" run $E/$3.mlir --dtype $4 --shape x=$5 --reps $REPS ${6:+--schedule $6} 2>&1)
  printf '%-4s %-13s %-5s %-12s %-42s %s %s\n' "$1" "$3" "$4" "$5" "${6:-heuristic}" \
    "$(echo "$out" | grep -o 'time: [0-9.]* us' | head -1)" \
    "$(echo "$out" | grep -E '^(PASS|FAIL)' | head -1)$(echo "$out" | grep -m1 -i error)"
}
CASES=(
  "layer_norm f32 128x1048576" "rms_norm f32 128x1048576"
  "layer_norm f32 32x1048576" "layer_norm f32 64x1048576" "layer_norm f32 256x1048576"
  "rms_norm f32 32x1048576" "rms_norm f32 64x1048576" "rms_norm f32 256x1048576"
  "layer_norm f32 134x1000003" "rms_norm f32 134x1000003"
  "layer_norm f32 1x1048576" "layer_norm f32 2x1048576" "softmax bf16 2x1048576"
  "l2_normalize f32 128x1048576" "layer_norm f32 128x2097152"
)
TRIES=(
  "softmax f32 128x1048576 split=128,keep=1" "log_softmax f32 128x1048576 split=128,keep=1"
  "layer_norm bf16 128x1048576 threads=256,values=32,vector=8,staging=stream,split=128,keep=1"
  "rms_norm bf16 128x1048576 threads=256,values=32,vector=8,staging=stream,split=128,keep=1"
  "softmax bf16 128x1048576 threads=256,values=32,vector=8,staging=stream,split=128,keep=1"
)
nvidia-smi -L
for r in $(seq $ROUNDS); do
  echo "== round $r"
  for c in "${CASES[@]}"; do set -- $c; run old "$OLD" $1 $2 $3; run new "$NEW" $1 $2 $3; done
  for c in "${TRIES[@]}"; do set -- $c; run new "$NEW" $1 $2 $3; run new "$NEW" $1 $2 $3 $4; done
done
