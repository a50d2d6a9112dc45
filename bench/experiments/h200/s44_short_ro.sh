#!/usr/bin/env bash
# Session 44, the short read-only rows rule (planner rule 5 on fast
# memory): (a) its GPU tests and session 43's deep read-only ones; (b)
# bench.py's sweep, BASE = .bundle-prev (the commit before the rule)
# against .bundle (lib_ab.sh): cross-entropy bf16 at 256-2k (the rule's),
# 4k and f32 (controls, the same kernels); (c) the random programs whose
# plans it changes (short-read-only-random.txt: the new heuristic against
# the old plan in the tuner's harness).
# Usage: s44_short_ro.sh OUT   (repo root)
set -u
out=$1/work
mkdir -p "$out"
here=$(dirname "$0")
RKC_BUNDLE=$PWD/.bundle bash test/gpu/run_gpu_suite.sh "$out/tests" \
  test/gpu/test_staging_gpu.py -k "short_read_only or deep_read_only" > "$out/tests.txt" 2>&1
tail -3 "$out/tests.txt"
echo "tests done at $SECONDS s"
BASE=.bundle-prev bash "$here/lib_ab.sh" "$out/ab" sro .bundle \
  --ops cross_entropy --dtypes bf16,f32 --ns 256,512,1k,2k,4k > "$out/sro-ab.txt" 2>&1
echo "A/B done at $SECONDS s"
cat "$out/sro-ab.txt"
PATH=$PWD/.bundle/bin:$PATH RKC_DISABLE_TUNING_DB=1 RKC_LIBRARY=$PWD/.bundle/lib/librkc.so \
  timeout 240 python3 "$here/deep_read_only_try.py" "$here/short-read-only-random.txt" > "$out/sro-random-try.txt" 2>&1
echo "random tries done at $SECONDS s"
grep "heuristic/old\|^-- .*error" "$out/sro-random-try.txt"
tar czf "$1/s44b.tgz" -C "$out" . && rm -rf "$out"
