#!/usr/bin/env bash
# Times gen.sh's GEMV kernels against variants that launch with their own
# shared memory (session 38): the cp.async rings (make_ring_variant.py,
# 2-4 iterations in flight; LIST ring.txt) or the emitter's acts=global
# (LIST ga.txt), in gemv_graph's decode regime, two rounds; every variant
# must match the emitted kernel bit for bit.
# Usage: ring_ab.sh [DIR] [LIST]   (DIR: gen.sh's output, default cubin/)
set -u
c=${1:-bench/experiments/h200/gemv-trace/cubin}
list=${2:-ring.txt}
nvidia-smi -L
for r in 1 2; do
  echo "== round $r"
  while read -r label bits K N grid block smem; do
    vs=()
    while read -r l v rsmem; do
      [ "$l" = "$label" ] && [ "$rsmem" -le 232448 ] && vs+=("$v=$c/$label-$v.cubin:$grid:$block:$rsmem:exact")
    done < "$c/$list"
    GEMV_KERNEL=rkc_gemv_w${bits}a16 "$c/gemv_graph" $bits 1 $K $N "$label=$c/$label.cubin:$grid:$block:$smem" "${vs[@]}"
  done < "$c/list.txt"
done
