#!/usr/bin/env bash
# The per-token int8 quantize of [2^20, 128] (the binding's f16-scale
# spec): its heuristic time (f16, bf16 input), the tuner's best, and ncu's
# instruction mix and issue rate. Session 33's first call ran it before the
# reciprocal division (explore-quantize-wide.sh), its second after it.
# Usage: verify-quantize.sh OUT (repo root, bundle in .bundle)
set -u
out=$1; mkdir -p $out
here=bench/experiments/h200
export PATH=$PWD/.bundle/bin:$PATH PYTHONPATH=$PWD/python RKC_CACHE_DIR=/tmp/rkc-cache
python3 -c "
from rkc import _spec
open('/tmp/qpt.mlir', 'w').write(_spec.quant_spec_text('quantize', 8, 0, True, 'f16', 1))"
{
  nvidia-smi -L
  for dt in f16 bf16; do
    RKC_DISABLE_TUNING_DB=1 rkc run /tmp/qpt.mlir --dtype $dt --shape x=1048576x128 --reps 50 --print-plan 2>&1 \
      | grep -E 'kernel|time|PASS|FAIL|rror'
    rkc tune /tmp/qpt.mlir --dtype $dt --shape x=1048576x128 --budget-ms 8000 2>&1 | tail -3
  done
  rkc tune --export $out/tuning-quantize.jsonl
} > $out/quantize.txt 2>&1
$here/kernel_ncu.sh $out quantize-pt-f16 /tmp/qpt.mlir f16 x=1048576x128
python3 $here/sass_summary.py $out/ncu-quantize-pt-f16-sass.csv > $out/ncu-quantize-pt-f16-summary.txt 2>&1
