#!/usr/bin/env bash
# Session 43, third call: rule 3's read-only 16-bit rows at 8 vectors a
# thread. (a) bench.py's sweep, cross-entropy bf16 4k-32k, BASE =
# .bundle-prev (the commit before) against .bundle (lib_ab.sh); (b) the 60
# random plans it changes (deep_read_only_try.py: the new heuristic against
# the old plan in the tuner's harness).
# Usage: s43_deep_ro.sh OUT   (repo root)
set -u
out=$1/work
mkdir -p "$out"
here=$(dirname "$0")
BASE=.bundle-prev bash "$here/lib_ab.sh" "$out/ab" deep .bundle \
  --ops cross_entropy --dtypes bf16 --ns 4k,8k,16k,32k > "$out/deep-ro-ab.txt" 2>&1
echo "A/B done at $SECONDS s"
PATH=$PWD/.bundle/bin:$PATH RKC_DISABLE_TUNING_DB=1 RKC_LIBRARY=$PWD/.bundle/lib/librkc.so \
  python3 "$here/deep_read_only_try.py" "$here/deep-read-only-random.txt" > "$out/deep-ro-random-try.txt" 2>&1
echo "random tries done at $SECONDS s"
cat "$out/deep-ro-ab.txt"
grep "heuristic/old\|^-- .*error" "$out/deep-ro-random-try.txt"
tar czf "$1/s43c.tgz" -C "$out" . && rm -rf "$out"
