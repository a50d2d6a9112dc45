#!/usr/bin/env bash
# Times and traces gen.sh's kernels on the GPU (session 38): each emitted
# GEMV against its timeline variant (bit for bit the same output) in
# gemv_graph's decode regime (a graph of 48 PDL launches over 48 weight
# matrices), then dumps the variant's per-CTA timeline into TRACEDIR.
# Usage: run.sh [DIR] [TRACEDIR]   (DIR: gen.sh's output, default cubin/)
set -u
c=${1:-bench/experiments/h200/gemv-trace/cubin}
t=${2:-$c/traces}
mkdir -p "$t"
nvidia-smi -L
while read -r label bits K N grid block smem; do
  echo "-- $label"
  k=rkc_gemv_w${bits}a16
  GEMV_TRACE=$t GEMV_KERNEL=$k "$c/gemv_graph" $bits 1 $K $N \
    "base=$c/$label.cubin:$grid:$block:$smem" "$label=$c/$label-trace.cubin:$grid:$block:$smem:exact"
done < "$c/list.txt"
