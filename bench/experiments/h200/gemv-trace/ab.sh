#!/usr/bin/env bash
# Times gen.sh's GEMV kernels against their variants (session 38) in
# gemv_graph's decode regime, two rounds; every variant must match the
# emitted kernel bit for bit. SUFFIX: a variant's file suffix (pf-1-normal,
# pf-1-last, pf-all-normal, pf-all-last, rc, rc-trace, trace).
# Usage: ab.sh DIR SUFFIX...   (DIR: gen.sh's output)
set -u
c=$1
shift
nvidia-smi -L
for r in 1 2; do
  echo "== round $r"
  while read -r label bits K N grid block smem; do
    l=$grid:$block:$smem
    vs=()
    for v in "$@"; do vs+=("$v=$c/$label-$v.cubin:$l:exact"); done
    GEMV_KERNEL=rkc_gemv_w${bits}a16 "$c/gemv_graph" $bits 1 $K $N "$label=$c/$label.cubin:$l" "${vs[@]}"
  done < "$c/list.txt"
done
