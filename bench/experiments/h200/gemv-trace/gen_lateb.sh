#!/usr/bin/env bash
# Session 40: gen.sh's four M = 1 GEMV kernels and make_lateb_variant.py's
# two variants of each (-lateb-issue, -lateb-after), CUBINs by NVRTC as
# librkc builds them, list.txt for ab.sh, gemv_graph.
# Usage: gen_lateb.sh [OUTDIR]   (repo root, rkc in build/bin; CUDA toolkit)
#   then on the GPU: ab.sh OUTDIR lateb-issue lateb-after
set -eu
d=bench/experiments/h200/gemv-trace
out=${1:-$d/cubin-lateb}
bash bench/experiments/h200/build_cubin_tools.sh "$out"
: > "$out/list.txt"
sed 's/bits = 4/bits = 8/g; s/xi4/xi8/g; s/w4a16/w8a16/g; s/packing = k8/packing = k4/g' \
  examples/gemv_w4a16.mlir > "$out/gemv_w8a16.mlir"
gen() { # label bits K N schedule
  local spec=examples/gemv_w4a16.mlir line grid block smem
  [ "$2" = 8 ] && spec=$out/gemv_w8a16.mlir
  line=$(build/bin/rkc compile $spec --dtype f16 --shape x=1x$3 --shape q=$3x$4 --sms 132 \
    --dram-gbs 4814 --schedule "$5" --print-plan --emit cuda -o "$out/$1.cu" 2>&1 | grep '^kernel')
  echo "$1: $line"
  grid=$(echo "$line" | sed -n 's/.*grid = \([0-9]*\) CTAs.*/\1/p')
  block=$(echo "$line" | sed -n 's/.* \([0-9]*\) threads per CTA.*/\1/p')
  smem=$(echo "$line" | sed -n 's/.* \([0-9]*\) bytes of shared memory.*/\1/p')
  echo "$1 $2 $3 $4 $grid $block $smem" >> "$out/list.txt"
  for m in issue after; do
    python3 $d/make_lateb_variant.py "$out/$1.cu" "$out/$1-lateb-$m.cu" $m
  done
}
gen w4-4096x14336-tuned 4 4096 14336 vector=1,threads=128,cluster=1,unroll=8,mma=1,kwarps=4
gen w4-14336x4096-tuned 4 14336 4096 vector=1,threads=512,cluster=1,unroll=4,mma=1,kwarps=16
gen w4-4096x128256-heur 4 4096 128256 vector=1,threads=256,cluster=1,unroll=2,mma=1,kwarps=1
gen w8-4096x14336-tuned 8 4096 14336 vector=1,threads=128,cluster=1,unroll=8,mma=1,kwarps=4
for f in "$out"/*.cu; do
  echo "$(basename $f): $("$out/nvrtc_cubin" "$f" "${f%.cu}.cubin" sm_90a templates 2>&1 | grep -o 'Used [0-9]* registers.*')"
done
g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/experiments/gemv_graph.cpp \
  -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/gemv_graph"
