# The re-tuning scripts' helper (retune_evict.sh, retune_session42.sh):
# sourced after `out` is set; run from the repo root with the bundle in
# .bundle. 5 s a shape unless RKC_TUNE_BUDGET_MS says otherwise.
export RKC_TUNE_BUDGET_MS=${RKC_TUNE_BUDGET_MS:-5000}
# tune PART SPECS DTYPES SHAPES-FILE: scripts/gpu-run's tune step over the
# shapes of this directory's SHAPES-FILE -> $out/PART/tuning.jsonl.
tune() {
  RKC_TUNE_SPECS="$2" RKC_TUNE_DTYPES="$3" RKC_TUNE_SHAPES=bench/experiments/h200/$4 \
    RKC_CACHE_DIR=/tmp/rkc-retune-$1 scripts/gpu-run "$out/$1" tune
}
