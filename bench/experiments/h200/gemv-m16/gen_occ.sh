#!/usr/bin/env bash
# Builds the occupancy A/B of the M = 16 GEMVs (session 39): the heuristic
# plan of each shape against schedules whose CTAs are smaller, K split over
# a larger cluster (less staged activations a CTA), optionally with
# __launch_bounds__(THREADS, MB) so ptxas fits MB CTAs an SM in registers;
# CUBINs and occ.txt (label bits M K N variant grid:block:smem) into OUTDIR.
# Usage: gen_occ.sh [OUTDIR]   (repo root, rkc in build/bin; CUDA toolkit)
set -eu
d=bench/experiments/h200/gemv-m16
out=${1:-$d/cubin-occ}
bash bench/experiments/h200/build_cubin_tools.sh "$out"
: > "$out/occ.txt"
one() { # label M K N name schedule|"" mb|0
  local f=$out/$1-$5 line th
  line=$(build/bin/rkc compile examples/gemv_w4a16.mlir --dtype f16 --shape x=$2x$3 --shape q=$3x$4 \
    --sms 132 --dram-gbs 4814 ${6:+--schedule "$6"} --print-plan --emit cuda -o "$f.cu" 2>&1 | grep '^kernel')
  th=$(echo "$line" | sed -n 's/.* \([0-9]*\) threads per CTA.*/\1/p')
  [ "$7" = 0 ] || sed -i "s/__launch_bounds__($th)/__launch_bounds__($th, $7)/" "$f.cu"
  echo "$1-$5 (mb $7): $line; $("$out/nvrtc_cubin" "$f.cu" "$f.cubin" sm_90a templates 2>&1 |
    grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | tr '\n' ' ')"
  echo "$1 4 $2 $3 $4 $5 $(echo "$line" | sed -n 's/.*grid = \([0-9]*\) CTAs.*/\1/p'):$th:$(echo "$line" |
    sed -n 's/.* \([0-9]*\) bytes of shared memory.*/\1/p')" >> "$out/occ.txt"
}
S=vector=1,mma=1
one lm 16 4096 128256 heur "" 0
one lm 16 4096 128256 t256c4u2 $S,threads=256,cluster=4,unroll=2,kwarps=1 0
one lm 16 4096 128256 t256c4u2mb3 $S,threads=256,cluster=4,unroll=2,kwarps=1 3
one lm 16 4096 128256 t256c4u4mb3 $S,threads=256,cluster=4,unroll=4,kwarps=1 3
one lm 16 4096 128256 t512c4u2mb2 $S,threads=512,cluster=4,unroll=2,kwarps=1 2
one up 16 4096 14336 heur "" 0
one up 16 4096 14336 t256c4u2mb3 $S,threads=256,cluster=4,unroll=2,kwarps=2 3
one up 16 4096 14336 t256c4u4mb3 $S,threads=256,cluster=4,unroll=4,kwarps=2 3
one up 16 4096 14336 t128c4u2mb6 $S,threads=128,cluster=4,unroll=2,kwarps=1 6
one down 16 14336 4096 heur "" 0
one down 16 14336 4096 t256c16u2mb3 $S,threads=256,cluster=16,unroll=2,kwarps=2 3
one down 16 14336 4096 t256c8u2mb3 $S,threads=256,cluster=8,unroll=2,kwarps=4 3
one down 16 14336 4096 t512c4u2mb2 $S,threads=512,cluster=4,unroll=2,kwarps=8 2
g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/experiments/gemv_graph.cpp \
  -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/gemv_graph"
