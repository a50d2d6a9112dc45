#!/usr/bin/env bash
# Session 33's third H200 call: the per-token int8 quantize with the
# reciprocal division for every scale type (f16 / bf16 / f32 scales; f16,
# bf16, f32 inputs; rows of 64 .. 4096 values, 256 MiB of input), `rkc run`
# with the database off; the GPU tests of quantization (-k quantize or
# per_token); random row programs 0-99; the wide-N GEMV at M = 8 (the
# heuristic's CTAs of 16 groups against 8 / 16 at unroll 2), one round.
# At most 8 result files come back from a call: they all go to OUT/*.txt
# and the suite's three files.
# Usage: verify-per-token.sh OUT (repo root, bundle in .bundle)
set -u
out=$1; mkdir -p $out
here=bench/experiments/h200
export PATH=$PWD/.bundle/bin:$PATH PYTHONPATH=$PWD/python RKC_CACHE_DIR=/tmp/rkc-cache \
  RKC_LIBRARY=$PWD/.bundle/lib/librkc.so
python3 -c "
from rkc import _spec
for sc in ('f16', 'bf16', 'f32'):
    open('/tmp/qpt-%s.mlir' % sc, 'w').write(_spec.quant_spec_text('quantize', 8, 0, True, sc, 1))"
{
  nvidia-smi -L
  for c in "f16 f16 128" "f16 bf16 128" "bf16 bf16 128" "f32 f32 128" "f16 f16 64" "f16 f16 256" \
           "f16 f16 4096" "bf16 bf16 4096" "bf16 bf16 1024"; do
    set -- $c
    b=$([ $2 = f32 ] && echo 4 || echo 2)
    T=$((268435456 / ($3 * b)))
    printf '%-5s scales, %-4s x [%d, %d]: ' $1 $2 $T $3
    RKC_DISABLE_TUNING_DB=1 rkc run /tmp/qpt-$1.mlir --dtype $2 --shape x=${T}x$3 --reps 50 --print-plan 2>&1 \
      | grep -E 'time|FAIL|rror' | tr '\n' ' '
    echo
  done
} > $out/per-token.txt 2>&1
timeout 200 bash test/gpu/run_gpu_suite.sh $out -k "quantize or per_token" > /dev/null 2>&1
RKC_RANDOM_SPECS=0-99 timeout 120 python3 -m pytest test/gpu/test_random_specs_gpu.py -q --tb=short \
  -p no:cacheprovider --maxfail=20 2>&1 | tail -15 > $out/random-specs.txt
CASES="4 f16 4096 128256 8,4 f16 5120 152064 8" ROUNDS=1 \
  ALT="vector=1,threads=256,cluster=1,unroll=2,mma=1,kwarps=1;vector=1,threads=512,cluster=1,unroll=2,mma=1,kwarps=1" \
  timeout 150 $here/gemv_mma_ab.sh > $out/wide-m8.txt 2>&1
