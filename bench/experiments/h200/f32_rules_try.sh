#!/usr/bin/env bash
# Session 42's f32 rules (planner rules 3-4 on fast memory), the new
# heuristic against the plans the commit before chose, through the tuner's
# harness (reference-checked; bench.py's sweep takes only powers of two):
# two CTAs of 512 threads an SM in registers under min_blocks = 2 (N =
# 12288, 16384) and the cluster of 2 of 256 threads (20480-32768).
# Usage: f32_rules_try.sh   (repo root, bundle in .bundle)
. "$(dirname "$0")/try_lib.sh"
for spec in rms_norm layer_norm; do
  try_rows $spec f32 12288 'threads=512,values=24,cluster=1,staging=registers,min_blocks=2,evict=normal'
  try_rows $spec f32 16384 'threads=512,values=32,cluster=1,staging=registers,min_blocks=2,evict=normal'
  try_rows $spec f32 20480 'threads=256,values=40,cluster=2,staging=async,evict=normal'
  try_rows $spec f32 24576 'threads=256,values=48,cluster=2,staging=async,evict=normal'
  try_rows $spec f32 32768 'threads=256,values=64,cluster=2,staging=async,evict=normal'
done
