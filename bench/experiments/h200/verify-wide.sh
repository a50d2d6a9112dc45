#!/usr/bin/env bash
# Session 33's last H200 call: the wide-N GEMV rule as committed (int4 M <=
# 4 in CTAs of 8 column groups, unroll 2 up to 128 blocks a warp else 4;
# M = 5-8 CTAs of 16 at unroll 2 up to 128 blocks) against its untested
# neighbours: K = 5120 at M = 2 / 4 (unroll 4 against 2), K = 8192 at M = 4
# (against the old CTAs of 16 groups), M = 6 / 8 at K = 4096 (unroll 2
# against 4). One round. Usage: verify-wide.sh OUT
set -u
out=$1; mkdir -p $out
here=bench/experiments/h200
{
  CASES="4 f16 5120 152064 2,4 f16 5120 152064 4" ROUNDS=1 \
    ALT="vector=1,threads=256,cluster=1,unroll=2,mma=1,kwarps=1" $here/gemv_mma_ab.sh
  CASES="4 f16 8192 128256 4" ROUNDS=1 \
    ALT="vector=1,threads=512,cluster=1,unroll=4,mma=1,kwarps=1" $here/gemv_mma_ab.sh
  CASES="4 f16 4096 128256 6,4 f16 4096 128256 8" ROUNDS=1 \
    ALT="vector=1,threads=512,cluster=1,unroll=4,mma=1,kwarps=1" $here/gemv_mma_ab.sh
} > $out/wide.txt 2>&1
