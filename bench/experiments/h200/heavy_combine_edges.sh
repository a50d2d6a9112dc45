#!/usr/bin/env bash
# The edges of the heavy-combiner rule (session 34: read-only short rows
# whose reduction's combiner calls math functions take 32 values a thread):
# logsumexp f32 at N = 32 / 64 (1 and 2 threads a row) against 4 vectors a
# thread, and bf16 at N = 128-512 (the rule's 32 values = 4 vectors) against
# 8. `rkc tune --try`, no database, 2^27 values.
# Usage: heavy_combine_edges.sh   (repo root, bundle in .bundle)
set -u
. bench/experiments/h200/try_lib.sh
nvidia-smi -L
try_rows logsumexp f32 32 "threads=2,values=16;threads=4,values=8"
try_rows logsumexp f32 64 "threads=4,values=16;threads=8,values=8"
try_rows logsumexp bf16 128 "threads=2,values=64"
try_rows logsumexp bf16 256 "threads=4,values=64"
try_rows logsumexp bf16 512 "threads=8,values=64"
