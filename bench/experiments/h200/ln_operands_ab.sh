#!/usr/bin/env bash
# Why LayerNorm trails RMSNorm by 8-12 % at 16k-256k on the H200 (against
# ~5 % on the H100) with the same plans: its second [N] operand's L2
# traffic, or its own arithmetic (Welford fold, Chan combines, centring)?
# Five specs, each with its heuristic plan (`rkc run`, reference-checked,
# median of REPS launches, tuning database off), ROUNDS interleaved rounds:
#   rms_norm   the example (one operand, x * r * w)
#   rms_w      the same as a user spec
#   rms_ww     x * r * w + w (a bias's arithmetic, one operand)
#   rms_wb     x * r * w + b (a bias's arithmetic and bytes: two operands)
#   layer_norm the example (two operands, mean and variance)
# rms_wb against rms_ww is the second operand's bytes; layer_norm against
# rms_wb is LayerNorm's statistics. M x N = 2^27.
# Usage: ln_operands_ab.sh   (repo root, bundle in .bundle; ROUNDS, REPS, NS)
set -u
export RKC_DISABLE_TUNING_DB=1 PATH=$PWD/.bundle/bin:$PATH
ROUNDS=${ROUNDS:-2}; REPS=${REPS:-30}
NS=${NS:-"bf16:16384 bf16:65536 bf16:262144 f32:65536 f32:262144"}
sp=bench/experiments/n-operands
run() { # spec-file dtype N
  local f=$1 dt=$2 n=$3 m=$((134217728 / $3)) extra=() out
  case $f in
    $sp/rms_wb.mlir) extra=(--shape w=$n --shape b=$n) ;;
    $sp/*) extra=(--shape w=$n) ;;
  esac
  out=$(timeout 120 rkc run "$f" --dtype $dt --shape x=${m}x$n "${extra[@]}" --reps $REPS --print-plan 2>&1)
  printf '%-12s %-5s %-8s %-16s %-40s %s\n' "$(basename "$f" .mlir)" $dt $n \
    "$(echo "$out" | grep -o 'time: [0-9.]* us' | head -1)" \
    "$(echo "$out" | grep -o -m1 'threads=[0-9]*,values=[0-9]*,[^ ]*cluster=[0-9]*')" \
    "$(echo "$out" | grep -E '^(PASS|FAIL)' | head -1)$(echo "$out" | grep -m1 -i error)"
}
nvidia-smi -L
for r in $(seq $ROUNDS); do
  echo "== round $r"
  for c in $NS; do
    for f in examples/rms_norm.mlir $sp/rms_w.mlir $sp/rms_ww.mlir $sp/rms_wb.mlir examples/layer_norm.mlir; do
      run $f ${c%%:*} ${c##*:}
    done
  done
done
