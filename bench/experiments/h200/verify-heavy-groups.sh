#!/usr/bin/env bash
# Session 33: int4 with zero points in groups of 32 at wide N, M = 6 / 8,
# K = 8192: the heuristic's CTAs of 8 warps (160 registers, no spill)
# against the 16-warp CTAs that spilled 40-72 bytes (ptxas). One round.
# Usage: verify-heavy-groups.sh OUT
set -u
out=$1; mkdir -p $out
CASES="4 f16 8192 128256 8,4 bf16 8192 128256 6" ROUNDS=1 GROUP=32 ASYM=1 \
  ALT="vector=1,threads=512,cluster=1,unroll=4,mma=1,kwarps=1" \
  bench/experiments/h200/gemv_mma_ab.sh > $out/heavy-groups.txt 2>&1
