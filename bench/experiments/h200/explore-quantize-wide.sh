#!/usr/bin/env bash
# Session 33's first GPU call (H200): (1) the per-token int8 quantize of
# [2^20, 128] f16 under ncu, its heuristic time and the tuner on it (f16,
# bf16); (2) the tensor-core GEMV at wide N, M = 1-8: the heuristic against
# CTAs of 8 / 16 column groups at unroll 2 / 4 (gemv_mma_ab.sh); (3) the
# tuned W4A16 M = 1 4096 x 14336 GEMV under ncu. Usage: explore-quantize-wide.sh OUT
set -u
out=$1; mkdir -p $out
here=bench/experiments/h200
export PATH=$PWD/.bundle/bin:$PATH PYTHONPATH=$PWD/python RKC_CACHE_DIR=/tmp/rkc-cache
# (1): the same steps as verify-quantize.sh, which repeats them later.
$here/verify-quantize.sh $out
W='vector=1,threads=256,cluster=1,unroll=2,mma=1,kwarps=1'
CASES="4 f16 4096 128256 2,4 f16 5120 152064 2,4 f16 4096 128256 4,4 f16 5120 152064 4,\
4 f16 8192 128256 4,4 f16 4096 256000 4,4 f16 3584 152064 4,4 bf16 4096 128256 4" \
  ALT="$W" $here/gemv_mma_ab.sh > $out/wide-m2-4.txt 2>&1
CASES="4 f16 4096 128256 8,4 f16 5120 152064 8" \
  ALT="$W;vector=1,threads=512,cluster=1,unroll=2,mma=1,kwarps=1" $here/gemv_mma_ab.sh > $out/wide-m8.txt 2>&1
CASES="4 f16 4096 128256 1,4 f16 5120 152064 1,4 f16 4096 256000 1" \
  ALT="vector=1,threads=256,cluster=1,unroll=4,mma=1,kwarps=1;$W" $here/gemv_mma_ab.sh > $out/wide-m1.txt 2>&1
bench/experiments/h200/gemv_ncu.sh $out 4 4096 14336 1
python3 $here/sass_summary.py $out/ncu-gemv-w4-4096x14336-m1-sass.csv 58720256 > $out/ncu-gemv-w4-4096x14336-summary.txt 2>&1
