#!/usr/bin/env bash
# Is LayerNorm's gap at 256k-1M the L2 traffic of its second [N] operand? Three user
# specs with RMSNorm's reduction: x*r*w (1 operand), x*r*w + w (same arithmetic as
# a bias, one operand), x*r*w + b (two operands), same schedules.
# carry: [".bundle"]  (run from the repository root on the GPU machine; results under $OUT)
root=$(pwd); bundle=$root/.bundle
export PATH="$bundle/bin:$PATH" RKC_LIBRARY="$bundle/lib/librkc.so" PYTHONPATH="$root/python" RKC_CACHE_DIR=/tmp/rkc-cache RKC_DISABLE_TUNING_DB=1
log=$OUT/n-operands-ab.txt
nvidia-smi -L | tee -a $log; cat $bundle/COMMIT | tee -a $log
sp=$root/bench/experiments/n-operands
for dt in f32 bf16; do
  for s in rms_w rms_ww rms_wb; do
    extra="--shape w=1048576"; [ $s = rms_wb ] && extra="$extra --shape b=1048576"
    echo "== $s $dt 128x1M (tries: split=32,keep=2; split=64,keep=2)" | tee -a $log
    timeout 60 rkc tune $sp/$s.mlir --dtype $dt --shape x=128x1048576 $extra --try "split=32,keep=2;split=64,keep=2" 2>&1 | grep -E 'heuristic|try|rror' | tee -a $log
  done
  for s in rms_w rms_ww rms_wb; do
    extra="--shape w=262144"; [ $s = rms_wb ] && extra="$extra --shape b=262144"
    echo "== $s $dt 512x256k (heuristic; try the same)" | tee -a $log
    timeout 60 rkc tune $sp/$s.mlir --dtype $dt --shape x=512x262144 $extra --try "unroll=8" 2>&1 | grep -E 'heuristic|try|rror' | tee -a $log
  done
done
