#!/usr/bin/env bash
# Quantized GEMVs: the heuristic plan against other schedules, `rkc run`
# (reference check + the harness's serving-mode time: PDL launches over
# distinct weight copies), tuning database off, ROUNDS rounds. Written for
# M = 1 over wide N (session 32: the heuristic against `--schedule mma=1`);
# session 33 adds M and several schedules.
#   ALT:   the other schedules, separated by ';' (default mma=1; mma=0 for
#          the CUDA cores once the heuristic takes tensor cores)
#   CASES: "BITS DTYPE K N [M]" cases separated by commas (M default 1;
#          default cases below)
#   GROUP, ASYM: the weights' group size (default 128) and zero points
#          (ASYM=1: asymmetric int4)
# Usage: [ROUNDS=2] [ALT='S1;S2'] [CASES=...] gemv_mma_ab.sh (repo root,
# bundle in .bundle).
set -u
ROUNDS=${ROUNDS:-2}
export RKC_DISABLE_TUNING_DB=1 PATH=$PWD/.bundle/bin:$PATH PYTHONPATH=$PWD/python
d=/tmp/rkc-mma-ab; mkdir -p $d
G=${GROUP:-128} A=${ASYM:-0}
python3 -c "
from rkc import _spec
for b in (4, 8):
    for dt in ('f16', 'bf16'):
        open('$d/w%d-%s.mlir' % (b, dt), 'w').write(_spec.quant_spec_text('gemv', b, $G, $A == 0, dt, 0, False))"
run() { # label bits dtype K N M [schedule]
  local out zeros=()
  [ "$A" = 1 ] && zeros=(--shape zeros=$(($4 / G))x$5)
  out=$(rkc run $d/w$2-$3.mlir --dtype $3 --shape x=$6x$4 --shape q=$4x$5 --shape scales=$(($4 / G))x$5 \
        "${zeros[@]}" --reps 50 --print-plan ${7:+--schedule $7} 2>&1)
  printf '%-44s w%s %-4s M=%-2s %-12s %-16s %-48s %s\n' "$1" $2 $3 $6 "$4x$5" \
    "$(echo "$out" | grep -o 'time: [0-9.]* us' | head -1)" \
    "$(echo "$out" | grep -o -m1 'cols=[0-9a-z=,]*')" \
    "$(echo "$out" | grep -E '^(PASS|FAIL)' | head -1)$(echo "$out" | grep -m1 -i error)"
}
nvidia-smi -L
IFS=';' read -ra alts <<< "${ALT:-mma=1}"
for r in $(seq $ROUNDS); do
  echo "== round $r"
  IFS=, read -ra cases <<< "${CASES:-4 f16 4096 128256,8 f16 4096 128256,4 bf16 4096 128256,\
4 f16 8192 28672,8 f16 8192 28672,4 f16 4096 32000,8 f16 4096 32000,4 f16 2048 65536,\
4 f16 5120 152064,8 f16 5120 152064}"
  for c in "${cases[@]}"; do
    set -- $c
    [ "$1" = 8 ] && [ "$2" = bf16 ] && continue
    m=${5:-1}
    run heur $1 $2 $3 $4 $m
    for a in "${alts[@]}"; do run "$a" $1 $2 $3 $4 $m "$a"; done
  done
done
