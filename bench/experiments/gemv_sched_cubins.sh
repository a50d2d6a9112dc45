#!/usr/bin/env bash
# Experiment tool (not product code): CUBINs of the symmetric group-128 f16
# GEMV for a list of schedules at one shape (the heuristic first), and a
# script that times them with gemv_graph (decode regime: graph of 48 GEMVs
# over distinct weights, PDL; each variant's largest difference from the
# heuristic's output is printed).
#   bash bench/experiments/gemv_sched_cubins.sh RKC OUTDIR BITS M K N 'S1;S2;...'
# Appends to OUTDIR/run.sh (created if missing); on the GPU machine, with
# gemv_graph built in OUTDIR: bash OUTDIR/run.sh
set -euo pipefail
rkc=${1:?RKC}; out=${2:?OUTDIR}; bits=${3:?BITS}; m=${4:?M}; k=${5:?K}; n=${6:?N}; scheds=${7:?SCHEDULES}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
[ -f "$out/run.sh" ] || { echo '#!/bin/bash'; echo 'cd "$(dirname "$0")"'; } > "$out/run.sh"
spec=$out/w$bits.mlir
PYTHONPATH=$root/python python3 -c "import rkc._spec as s; print(s.quant_spec_text('gemv', $bits, 128, True, 'f16', 0, False))" > "$spec"
args=(--dtype f16 --shape x=${m}x$k --shape q=${k}x$n --shape scales=$((k / 128))x$n)
tag=w${bits}_m${m}_${k}x${n}
line=""; i=0; name=""
IFS=';' read -ra list <<< ";$scheds"
for s in "${list[@]}"; do
  sa=(); [ -n "$s" ] && sa=(--schedule "$s")
  if ! p=$(RKC_DISABLE_TUNING_DB=1 "$rkc" compile "$spec" "${args[@]}" "${sa[@]}" --print-plan --emit cubin -o "$out/${tag}_$i.cubin" 2>&1); then
    echo "skip $tag '$s': $(tail -1 <<< "$p")" >&2; continue
  fi
  kl=$(grep '^kernel' <<< "$p")
  name=$(sed -E 's/^kernel ([a-z0-9_]+):.*/\1/' <<< "$kl")
  launch=$(sed -E 's/.* ([0-9]+) threads per CTA, grid = ([0-9]+) CTAs.*, ([0-9]+) bytes of shared memory.*/\2:\1:\3/' <<< "$kl")
  echo "echo '$tag v$i: ${kl#*: }'" >> "$out/run.sh"
  line+=" v$i=${tag}_$i.cubin:$launch"
  i=$((i + 1))
done
echo "GEMV_KERNEL=$name ./gemv_graph $bits $m $k $n$line" >> "$out/run.sh"
chmod +x "$out/run.sh"
