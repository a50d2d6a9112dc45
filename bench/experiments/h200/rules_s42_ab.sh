#!/usr/bin/env bash
# Session 42's planner rules against the commit before them, in bench.py's
# sweep (lib_ab.sh: two interleaved rounds, torch.compile once):
#  rules 3-4 (f32 rows of one input and one result on fast memory: two
#  CTAs an SM staged asynchronously without min_blocks at 12k-16k, one CTA
#  of 1024 threads staged asynchronously for the cluster of 2 at 20k-32k);
#  rule 8 on cluster rows (64k, 256k). BASE = .bundle-prev (the commit
#  before), EXP = .bundle (this commit).
# Usage: rules_s42_ab.sh OUT   (repo root)
set -u
here=$(dirname "$0")
BASE=.bundle-prev bash "$here/lib_ab.sh" "$1/f32" r34 .bundle \
  --ops rms_norm,layer_norm --dtypes f32 --ns 12288,16384,20480,24576,32768
BASE=.bundle-prev bash "$here/lib_ab.sh" "$1/cl" r8 .bundle \
  --ops rms_norm,layer_norm,softmax,log_softmax --dtypes bf16,f32 --ns 64k,256k
