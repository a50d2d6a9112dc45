#!/usr/bin/env bash
# Session 44: read-only 16-bit rows several to a CTA (N = 256-2k), staged
# asynchronously by the heuristic (planner rule 5's read-only rows, from
# the H100), against the same layout in registers, with and without
# min_blocks = 2, and the H200's tuned cross-entropy layouts
# (data/tuning/h200.jsonl: registers at 256-2k, 1.05-1.08x over the
# heuristic). The tuner's harness (`rkc tune --try`), no database.
# Usage: short_read_only_try.sh   (repo root, bundle in .bundle)
. "$(dirname "$0")/try_lib.sh"
for spec in cross_entropy logsumexp argmax; do
  for dt in bf16 f16; do
    [ $spec != cross_entropy ] && [ $dt = f16 ] && continue
    for n in 256 512 1024 2048 1536 640; do
      tries="staging=registers;staging=registers,min_blocks=2"
      if [ $spec = cross_entropy ] && [ $dt = bf16 ]; then
        case $n in
          1024) tries="$tries;threads=16,values=64,rows=8,staging=registers,unroll=8" ;;
          2048) tries="$tries;threads=32,values=64,rows=2,staging=registers,unroll=8" ;;
        esac
      fi
      try_rows $spec $dt $n "$tries"
    done
  done
done
