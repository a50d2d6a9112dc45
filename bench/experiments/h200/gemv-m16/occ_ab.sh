#!/usr/bin/env bash
# Times gen_occ.sh's kernels (session 39) in gemv_graph's decode regime (a
# graph of 48 PDL launches over 48 weight matrices), each shape's variants
# against its heuristic plan, two rounds (other K splits: the differences
# are printed, not checked bit for bit).
# Usage: occ_ab.sh DIR   (DIR: gen_occ.sh's output)
set -u
c=$1
nvidia-smi -L
for r in 1 2; do
  echo "== round $r"
  for label in $(cut -d' ' -f1 "$c/occ.txt" | uniq); do
    vs=()
    while read -r l bits M K N name launch; do
      [ "$l" = "$label" ] && vs+=("$name=$c/$l-$name.cubin:$launch")
    done < "$c/occ.txt"
    read -r _ bits M K N _ _ < <(grep "^$label " "$c/occ.txt" | head -1)
    GEMV_KERNEL=rkc_gemv_w${bits}a16 "$c/gemv_graph" $bits $M $K $N "${vs[@]}"
  done
done
