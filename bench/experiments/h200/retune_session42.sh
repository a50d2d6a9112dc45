#!/usr/bin/env bash
# Session 42: re-tune the 13 H200 rows that the planner's session-42 rules
# made stale (scripts/tuning-stale): rule 8's hint on cluster rows (64k /
# 256k), rule 3's async two-CTA f32 rows (16k) and rule 4's one-CTA f32
# rows (32k). Exports into OUT/<part>/tuning.jsonl.
# Usage: retune_session42.sh OUT   (repo root, bundle in .bundle)
set -u
out=$1
. "$(dirname "$0")/retune_lib.sh"
tune a "rms_norm softmax" bf16 retune-s42-a.txt   # 64k, 256k
tune b "layer_norm rms_norm" f32 retune-s42-b.txt # 16k, 32k, 64k
tune c softmax f32 retune-s42-a.txt               # 64k, 256k
tune d layer_norm bf16 retune-s42-c.txt           # 64k
