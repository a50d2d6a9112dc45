#!/usr/bin/env bash
# ncu of one launch each of gen_pad.sh's unpadded and padded kernels
# (session 39): shared-memory wavefronts and conflicts, the L1's
# throughput, the shared-memory configuration and occupancy.
# Usage: ncu_pad.sh OUT DIR:SUFFIX... LABEL...   (DIR: a gen_pad.sh output;
# SUFFIX: the variant's file suffix, "" for the unpadded kernel)
set -u
out=$1
shift
dirs=() labels=()
for a in "$@"; do case $a in *:*) dirs+=("$a") ;; *) labels+=("$a") ;; esac; done
m=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__warps_active.avg.per_cycle_active,launch__shared_mem_config_size,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed
for label in "${labels[@]}"; do
  for ds in "${dirs[@]}"; do
    c=${ds%%:*} suf=${ds#*:}
    read -r _ bits M K N a b < <(grep "^$label " "$c/list.txt")
    l=$a
    [ -n "$suf" ] && l=$b
    echo "== $label$suf ($c) $l"
    timeout 120 ncu --clock-control none -k regex:rkc_gemv -c 1 --metrics $m \
      env GEMV_KERNEL=rkc_gemv_w${bits}a16 "$c/gemv_graph" $bits $M $K $N "x=$c/$label$suf.cubin:$l" 2>&1 |
      grep -E "^\s+(l1tex|smsp|sm__|gpu__|launch__|dram__)"
  done
done > "$out"
