#!/usr/bin/env bash
# Session 41: planner rule 8 (schedule evict=last: the row's one sweep
# loaded / copied evict-last in L2) as built, against the build before it:
# BASE = .bundle-base/lib (the commit before the rule), EXP = .bundle/lib,
# bench.py's sweep at the shapes of evict_last_ab.sh plus log-softmax and
# cross-entropy (the rule's exclusion: rows without a result), two
# interleaved rounds (lib_ab.sh).
# Usage: evict_rule_ab.sh OUT   (repo root; PyTorch on the machine)
BASE=.bundle-base exec "$(dirname "$0")/lib_ab.sh" "$1" evr .bundle \
  --ops rms_norm,layer_norm,softmax,log_softmax,cross_entropy --dtypes bf16,f32 \
  --ns 1k,2k,4k,8k,16k,32k,256k
