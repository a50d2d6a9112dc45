#!/usr/bin/env bash
# Times gen.sh's M = 16 GEMVs (session 39) in gemv_graph's decode regime (a
# graph of 48 PDL launches over 48 weight matrices), two rounds: each
# emitted kernel against its ceilings (wrong results by construction: their
# differences are printed, not checked) and its schedule variants; then ncu
# (full set) of one launch of the lm and up kernels into OUT.
# Usage: run.sh DIR OUT   (DIR: gen.sh's output)
set -u
c=$1 out=$2
mkdir -p "$out"
nvidia-smi -L
for r in 1 2; do
  echo "== round $r"
  while read -r label M K N grid block smem; do
    l=$grid:$block:$smem
    vs=()
    for v in noperm halfmma nodeq; do
      [ -f "$c/$label-$v.cubin" ] && vs+=("$v=$c/$label-$v.cubin:$l")
    done
    while read -r base name g b s; do
      [ "$base" = "$label" ] && vs+=("$name=$c/$label-$name.cubin:$g:$b:$s")
    done < "$c/sched.txt"
    GEMV_KERNEL=rkc_gemv_w4a16 "$c/gemv_graph" 4 $M $K $N "$label=$c/$label.cubin:$l" "${vs[@]}"
  done < "$c/list.txt"
done
for label in lm up; do
  read -r _ M K N grid block smem < <(grep "^$label " "$c/list.txt")
  timeout 150 ncu --clock-control none -k regex:rkc_gemv -c 1 --set full --import-source no -f \
    -o /tmp/ncu-$label env GEMV_KERNEL=rkc_gemv_w4a16 "$c/gemv_graph" 4 $M $K $N \
    "$label=$c/$label.cubin:$grid:$block:$smem" > "$out/ncu-$label-run.txt" 2>&1
  ncu -i /tmp/ncu-$label.ncu-rep --page details > "$out/ncu-$label.txt" 2>&1
done
