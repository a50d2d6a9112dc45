#!/usr/bin/env bash
# Times gen_pad.sh's kernels (session 39): unpadded against padded staged
# rows in gemv_graph's decode regime (a graph of 48 PDL launches over 48
# weight matrices), two rounds, outputs bit for bit the same.
# Usage: pad_ab.sh DIR   (DIR: gen_pad.sh's output)
set -u
c=$1
nvidia-smi -L
for r in 1 2; do
  echo "== round $r"
  while read -r label bits M K N a b; do
    GEMV_KERNEL=rkc_gemv_w${bits}a16 "$c/gemv_graph" $bits $M $K $N "$label=$c/$label.cubin:$a" \
      "pad=$c/$label-pad.cubin:$b:exact"
  done < "$c/list.txt"
done
