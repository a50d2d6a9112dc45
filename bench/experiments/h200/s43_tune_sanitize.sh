#!/usr/bin/env bash
# Session 43, first call: (a) tune the bench's row shapes at N = 8k and
# 32k for every row op and dtype (no H200 database row covered them), each
# search's candidates listed; (b) compute-sanitizer over rule 8's rows,
# now with clusters (test/gpu/sanitize_cases.py). Results packed in
# OUT/s43.tgz (the device returns at most 8 files).
# Usage: s43_tune_sanitize.sh OUT   (repo root, bundle in .bundle)
set -u
out=$1/work
mkdir -p "$out"
. "$(dirname "$0")/retune_lib.sh"
export RKC_TUNE_CANDIDATES=1
start=$SECONDS
tune a "layer_norm rms_norm softmax log_softmax cross_entropy" "" retune-s43-shapes.txt
echo "tune: $((SECONDS - start)) s" | tee -a "$out/times.txt"
start=$SECONDS
PATH=$PWD/.bundle/bin:$PATH RKC_BUNDLE=$PWD/.bundle RKC_SANITIZE_CASES=evict \
  bash test/gpu/sanitize.sh "$out/sanitize" > "$out/sanitize.txt" 2>&1
echo "sanitize: rc $? $((SECONDS - start)) s" | tee -a "$out/times.txt"
tail -3 "$out/sanitize.txt"
tar czf "$1/s43.tgz" -C "$out" . && rm -rf "$out"
