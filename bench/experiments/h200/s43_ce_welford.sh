#!/usr/bin/env bash
# Session 43, second call. (a) Read-only 16-bit rows at 64 values a thread:
# the tuner took cross-entropy bf16 at N = 8k (128 x 64, registers) and 32k
# (512 x 64, async) 1.07x / 1.10x over the heuristic's 32 values; session
# 35 had measured 64 x 64 at 4k 0.83x. Tries at 4k-32k for cross-entropy,
# argmax and a user-written logsumexp (rkc tune --try, the tuner's harness).
# (b) LayerNorm's mean and variance as one Welford state in one-CTA rows
# (welford_one_cta.patch: kWelfordMinCluster 4 -> 1; .bundle-exp) against
# the commit's two reductions, in bench.py's sweep (lib_ab.sh).
# Usage: s43_ce_welford.sh OUT   (repo root, bundles in .bundle, .bundle-exp)
set -u
out=$1/work
mkdir -p "$out"
here=$(dirname "$0")
(
  . "$here/try_lib.sh"
  for n in 4096 8192 16384 32768; do
    t=$((n / 64))
    tries="threads=$t,values=64,staging=registers;threads=$t,values=64,staging=async"
    tries+=";threads=$t,values=64,staging=registers,min_blocks=1"
    [ $t -ge 128 ] && tries+=";threads=$((t / 2)),values=128,staging=async"
    for spec in cross_entropy argmax logsumexp; do
      try_rows $spec bf16 $n "$tries"
    done
  done
) > "$out/ce-values64-try.txt" 2>&1
echo "tries done at $SECONDS s"
bash "$here/lib_ab.sh" "$out/welford" welford .bundle-exp \
  --ops layer_norm --dtypes bf16,f32 --ns 1k,2k,4k,8k,16k,32k > "$out/welford-ab.txt" 2>&1
echo "welford A/B done at $SECONDS s"
cat "$out/ce-values64-try.txt" "$out/welford-ab.txt"
tar czf "$1/s43b.tgz" -C "$out" . && rm -rf "$out"
