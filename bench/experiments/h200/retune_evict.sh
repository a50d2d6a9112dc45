#!/usr/bin/env bash
# Session 41: re-tune the H200 rows that planner rule 8 (evict=last)
# made stale (scripts/tuning-stale: 11 rows, each a layout other than the
# heuristic's, carried with evict=normal; the tuner's phase 3 now times
# the best with the other hint). Exports into OUT/<part>/tuning.jsonl.
# With RETUNE_BOUND_ONLY=1: only the two f32 rows at 8192 x 16384 tuned
# against the hinted heuristic that 7fcd316 took the hint off (rows in
# registers under a launch bound).
# Usage: retune_evict.sh OUT   (repo root, bundle in .bundle)
set -u
out=$1
. "$(dirname "$0")/retune_lib.sh"
if [ -n "${RETUNE_BOUND_ONLY:-}" ]; then
  tune f "layer_norm rms_norm" f32 retune-evict-f.txt
  exit 0
fi
tune a layer_norm bf16 retune-evict-a.txt
tune b "layer_norm rms_norm softmax" f32 retune-evict-b.txt
tune c "rms_norm softmax" bf16 retune-evict-c.txt
tune d "softmax" f16 retune-evict-d.txt
tune e "log_softmax" bf16 retune-evict-d.txt
