#!/usr/bin/env bash
# A/B of the heuristic plans of two rkc bundles (OLD, NEW: directories with
# bin/rkc) on the shapes session 31's planner rules change (short rows take
# two vectors per thread; 32-bit rows with a result stop at 512 threads where
# two CTAs fit an SM): `rkc run` (reference check + median of REPS timed
# launches), old then new, ROUNDS rounds, with the tuning database off so
# both sides time their heuristic. M x N = 2^27 unless noted.
# Usage: OLD=.bundle-old NEW=.bundle [ROUNDS=2] [REPS=30] [CASES=...] plan_ab.sh
set -u
cd "$(dirname "$0")/../../.."
E=examples; ROUNDS=${ROUNDS:-2}; REPS=${REPS:-30}
export RKC_DISABLE_TUNING_DB=1
run() { # label bundle spec dtype shape
  local out
  out=$("$2/bin/rkc" run $E/$3.mlir --dtype $4 --shape x=$5 --reps $REPS --print-plan 2>&1)
  printf '%-4s %-13s %-5s %-12s %-16s %s %s\n' "$1" "$3" "$4" "$5" \
    "$(echo "$out" | grep -o 'time: [0-9.]* us' | head -1)" \
    "$(echo "$out" | grep -o -m1 'threads=[0-9]*,values=[0-9]*')" \
    "$(echo "$out" | grep -E '^(PASS|FAIL)' | head -1)$(echo "$out" | grep -m1 -i error)"
}
# CASES: "SPEC DTYPE MxN" cases separated by commas (default: session 31's).
IFS=, read -ra CASES <<< "${CASES:-rms_norm bf16 524288x256,layer_norm bf16 524288x256,\
softmax bf16 524288x256,log_softmax f16 524288x256,rms_norm bf16 1048576x128,\
rms_norm f32 1048576x128,softmax f32 8192x16384,log_softmax f32 8192x16384,\
l2_normalize f32 8192x16384,softmax f32 11184x12000,rms_norm_residual bf16 524288x256}"
nvidia-smi -L
for r in $(seq $ROUNDS); do
  echo "== round $r"
  for c in "${CASES[@]}"; do set -- $c; run old "$OLD" $1 $2 $3; run new "$NEW" $1 $2 $3; done
done
