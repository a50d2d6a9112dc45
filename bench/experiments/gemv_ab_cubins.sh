#!/usr/bin/env bash
# Experiment tool (not product code): CUBINs of the symmetric group-128 f16
# GEMV from two rkc binaries (A, B) for the same shapes, and a script that
# times each pair with gemv_graph (decode regime: graph of 48 GEMVs over
# distinct weights, PDL; B must match A bit for bit, `exact`).
#   bash bench/experiments/gemv_ab_cubins.sh RKC_A RKC_B OUTDIR [DB]   (DB: on|off, default on)
# Shapes: AB_BITS (4 8), AB_MS (1 2 4 8 16), AB_KN ("4096x4096 ..."). Then,
# on the GPU machine, with gemv_graph built (bench/experiments/gemv_graph.cpp)
# in OUTDIR: bash OUTDIR/run.sh
set -euo pipefail
a=${1:?RKC_A}; b=${2:?RKC_B}; out=${3:?OUTDIR}; db=${4:-on}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
env=(); [ "$db" = off ] && env=(RKC_DISABLE_TUNING_DB=1)
launch() { # grid:block:smem of a --print-plan kernel line
  sed -E 's/.* ([0-9]+) threads per CTA, grid = ([0-9]+) CTAs.*, ([0-9]+) bytes of shared memory.*/\2:\1:\3/' <<< "$1"
}
echo '#!/bin/bash' > "$out/run.sh"
echo 'cd "$(dirname "$0")"' >> "$out/run.sh"
for bits in ${AB_BITS:-4 8}; do
  spec=$out/w$bits.mlir
  PYTHONPATH=$root/python python3 -c "import rkc._spec as s; print(s.quant_spec_text('gemv', $bits, 128, True, 'f16', 0, False))" > "$spec"
  for kn in ${AB_KN:-4096x4096 4096x14336 14336x4096 11008x4096 8192x8192 16384x2048}; do
    k=${kn%x*}; n=${kn#*x}
    for m in ${AB_MS:-1 2 4 8 16}; do
      tag=w${bits}_m${m}_${k}x${n}
      args=(--dtype f16 --shape x=${m}x$k --shape q=${k}x$n --shape scales=$((k / 128))x$n)
      la=$(env "${env[@]}" "$a" compile "$spec" "${args[@]}" --print-plan --emit cubin -o "$out/${tag}_a.cubin" 2>&1 | grep '^kernel')
      lb=$(env "${env[@]}" "$b" compile "$spec" "${args[@]}" --print-plan --emit cubin -o "$out/${tag}_b.cubin" 2>&1 | grep '^kernel')
      [ "${la#*:}" = "${lb#*:}" ] || echo "plans differ at $tag: $la | $lb" >&2
      name=$(sed -E 's/^kernel ([a-z0-9_]+):.*/\1/' <<< "$lb")
      echo "echo '$tag: ${lb#*: }'" >> "$out/run.sh"
      echo "GEMV_KERNEL=$name ./gemv_graph $bits $m $k $n A=${tag}_a.cubin:$(launch "$la") B=${tag}_b.cubin:$(launch "$lb"):exact | tail -2" >> "$out/run.sh"
    done
  done
done
chmod +x "$out/run.sh"
