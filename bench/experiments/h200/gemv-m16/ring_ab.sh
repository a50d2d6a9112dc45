#!/usr/bin/env bash
# Times make_ring16_variant.py's LM-head kernel (session 39) against the
# emitted one in gemv_graph's decode regime, two rounds, bit for bit the
# same output; then ncu (a few metrics) of one launch of each.
# Usage: ring_ab.sh DIR OUT   (DIR: lm.cubin, lm-ring.cubin, gemv_graph)
set -u
c=$1 out=$2
mkdir -p "$out"
nvidia-smi -L
for r in 1 2; do
  echo "== round $r"
  GEMV_KERNEL=rkc_gemv_w4a16 "$c/gemv_graph" 4 16 4096 128256 "lm=$c/lm.cubin:251:512:163840" \
    "ring=$c/lm-ring.cubin:251:512:229376:exact"
done
m=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for v in "lm:lm.cubin:163840" "ring:lm-ring.cubin:229376"; do
  IFS=: read -r name f smem <<< "$v"
  echo "== ncu $name"
  timeout 120 ncu --clock-control none -k regex:rkc_gemv -c 1 --metrics $m \
    env GEMV_KERNEL=rkc_gemv_w4a16 "$c/gemv_graph" 4 16 4096 128256 "x=$c/$f:251:512:$smem" 2>&1 |
    grep -E "^\s+(gpu__|dram__|l1tex__|smsp__|launch__)"
done
