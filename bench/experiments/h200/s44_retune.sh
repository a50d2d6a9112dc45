#!/usr/bin/env bash
# Session 44: re-tunes the H200 database rows that predate the heuristic
# field (retune-s44-rows.txt: spec dtype shapes), each against today's
# heuristic, 4 s a shape, no new shape after 280 s; exports every result
# to OUT/tuning.jsonl (merged with scripts/tuning-merge --replace where it
# differs from the row). Usage: s44_retune.sh OUT   (repo root, bundle in .bundle)
set -u
out=$1
mkdir -p "$out"
export PATH=$PWD/.bundle/bin:$PATH RKC_LIBRARY=$PWD/.bundle/lib/librkc.so RKC_CACHE_DIR=/tmp/rkc-s44-retune
grep -v '^[[:space:]]*\(#\|$\)' bench/experiments/h200/retune-s44-rows.txt | while read -r spec dt shapes; do
  if [ $SECONDS -ge 280 ]; then echo "not tuned (time): $spec $dt $shapes"; continue; fi
  echo "$shapes" > /tmp/s44-one.txt
  rkc tune python/rkc/specs/$spec.mlir --dtype $dt --shapes /tmp/s44-one.txt --budget-ms 4000 \
    </dev/null 2>>"$out/tune-progress.log" | tee -a "$out/run.log"
done
rkc tune --export "$out/tuning.jsonl" </dev/null
echo "exported $(wc -l < "$out/tuning.jsonl") rows at $SECONDS s"
