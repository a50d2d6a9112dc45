#!/usr/bin/env bash
# Session 40: small_single_modes.py's three timing regimes, then the same
# kernels' GPU durations under ncu (cold caches, clocks as they run).
# Usage: small_single_modes.sh OUT   (repo root; bundle in .bundle)
set -u
out=$1
d=bench/experiments/h200
export PATH=$PWD/.bundle/bin:$PATH RKC_LIBRARY=$PWD/.bundle/lib/librkc.so PYTHONPATH=$PWD/python \
  RKC_DISABLE_TUNING_DB=1 RKC_CACHE_DIR=/tmp/rkc-small-modes
python3 $d/small_single_modes.py > "$out/small-single-modes.txt" 2>&1
timeout 300 ncu --profile-from-start off --cache-control all --clock-control none \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread \
  --csv python3 $d/small_single_modes.py --ncu > "$out/small-single-ncu.csv" 2>&1
