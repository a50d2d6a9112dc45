#!/usr/bin/env bash
# Session 37: re-tune the H200 rows whose shapes' heuristic plans changed
# after they were tuned (a shipped row wins over the heuristic, so a stale
# one hides a better rule): LayerNorm / RMSNorm bf16 and RMSNorm f32 at N
# = 16384 (sessions 35-36), cross-entropy bf16 / f32 at N = 256-2048
# (sessions 34-35's read-only rows). Exports into OUT/<part>/tuning.jsonl.
# Usage: retune.sh OUT   (repo root, bundle in .bundle)
set -u
out=$1 d=bench/experiments/h200
export RKC_TUNE_BUDGET_MS=${RKC_TUNE_BUDGET_MS:-5000}
RKC_TUNE_SPECS="layer_norm rms_norm" RKC_TUNE_DTYPES=bf16 RKC_TUNE_SHAPES=$d/retune-16k-shapes.txt \
  RKC_CACHE_DIR=/tmp/rkc-retune-a scripts/gpu-run "$out/a" tune
RKC_TUNE_SPECS=rms_norm RKC_TUNE_DTYPES=f32 RKC_TUNE_SHAPES=$d/retune-16k-shapes.txt \
  RKC_CACHE_DIR=/tmp/rkc-retune-b scripts/gpu-run "$out/b" tune
RKC_TUNE_SPECS=cross_entropy RKC_TUNE_DTYPES="bf16 f32" RKC_TUNE_SHAPES=$d/short-row-shapes.txt \
  RKC_CACHE_DIR=/tmp/rkc-retune-c scripts/gpu-run "$out/c" tune
