#!/usr/bin/env bash
# ncu (full set, details page) of one launch of gen.sh's kernels and their
# variants (session 38): the first, single launch gemv_graph makes of a
# variant before its graph. Usage: ncu.sh DIR OUT LABEL[:SUFFIX[:SMEM]]...
set -u
c=$1 out=$2
shift 2
for spec in "$@"; do
  IFS=: read -r label suffix rsmem <<< "$spec"
  read -r _ bits K N grid block smem < <(grep "^$label " "$c/list.txt")
  f=$c/$label${suffix:+-$suffix}.cubin
  name=$label${suffix:+-$suffix}
  timeout 120 ncu --clock-control none -k regex:rkc_gemv -c 1 --set full --import-source no -f \
    -o /tmp/ncu-$name env GEMV_KERNEL=rkc_gemv_w${bits}a16 "$c/gemv_graph" $bits 1 $K $N \
    "$name=$f:$grid:$block:${rsmem:-$smem}" > "$out/ncu-$name-run.txt" 2>&1
  ncu -i /tmp/ncu-$name.ncu-rep --page details > "$out/ncu-$name.txt" 2>&1
done
