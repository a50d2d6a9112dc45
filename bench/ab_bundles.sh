#!/usr/bin/env bash
# A/B of two librkc builds on the GPU: `rkc run` (the tuner's harness:
# reference check, CUDA events, L2 flush, median of --reps) of the same
# specs and shapes with bundle A and bundle B, heuristic plans (database
# off) and database plans.
#   bash bench/ab_bundles.sh BUNDLE_A BUNDLE_B > ab.txt
# AB_OPS, AB_DTYPES, AB_NS choose the cases (M x N = 2^27).
a=${1:?usage: ab_bundles.sh BUNDLE_A BUNDLE_B}
b=${2:?usage: ab_bundles.sh BUNDLE_A BUNDLE_B}
root=$(cd "$(dirname "$0")/.." && pwd)
for op in ${AB_OPS:-softmax log_softmax cross_entropy}; do
  arg=x; [ "$op" = cross_entropy ] && arg=logits
  for dt in ${AB_DTYPES:-bf16 f32}; do for n in ${AB_NS:-65536 131072 262144}; do
    m=$((134217728 / n))
    for db in off on; do
      line="$op $dt $n db=$db"
      for bundle in "$a" "$b"; do
        env=(RKC_DISABLE_TUNING_DB=1); [ $db = on ] && env=(RKC_DISABLE_TUNING_DB=0)
        r=$(env "${env[@]}" "$bundle/bin/rkc" run "$root/python/rkc/specs/$op.mlir" --dtype "$dt" \
            --shape "$arg=${m}x$n" --reps 25 2>&1 | grep -E "TB/s|PASS|FAIL|error" | tr '\n' ' ')
        line="$line | $r"
      done
      echo "$line"
    done
  done; done
done
