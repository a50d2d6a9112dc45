#!/usr/bin/env bash
# Rows with [N] operands over many rows on the H200: the heuristic loads the
# weight (and bias) after the reductions (planner rule 7: prefetch only for
# a grid of about one wave), so each epilogue group waits an L2 round trip.
# ln_operands_ab.sh measured the bias's cost at 4-8 % (x*r*w+b against
# x*r*w+w). Here: the heuristic against the same schedule with prefetch=1
# (the operands loaded with the row), where the registers allow it.
# `rkc tune --try` (reference-checked, no database), M x N = 2^27.
# Usage: prefetch_rows_ab.sh   (repo root, bundle in .bundle; SMS, GBS: the
#   device the schedules are planned for, H200 by default)
set -u
. bench/experiments/h200/try_lib.sh
SMS=${SMS:-132}; GBS=${GBS:-4917}
pre() { # spec dtype N [rkc args]: heuristic vs heuristic + prefetch=1
  local spec=$1 dt=$2 n=$3 m=$((134217728 / $3)) s
  shift 3
  s=$(rkc compile examples/$spec.mlir --dtype $dt --shape x=${m}x$n "${@//@M/$m}" --sms $SMS \
        --dram-gbs $GBS --emit cuda -o /dev/null --print-plan 2>&1 |
      sed -n 's/^kernel [^:]*: \([^ ]*\), .*/\1/p')
  s=${s%,}
  case $s in *prefetch=1*) echo "-- $spec $dt N=$n: heuristic prefetches"; return ;; esac
  try_rows $spec $dt $n "$s,prefetch=1" "$@"
}
nvidia-smi -L
for n in 2048 4096 8192 16384 32768; do
  for dt in bf16 f32; do pre layer_norm $dt $n; pre rms_norm $dt $n; done
done
pre layer_norm f32 65536
for n in 4096 16384; do pre rms_norm_residual bf16 $n --shape residual=@Mx$n; done
