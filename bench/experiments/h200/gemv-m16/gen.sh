#!/usr/bin/env bash
# Builds what run.sh times (session 39): the emitted M = 16 tensor-core
# GEMVs of issue #8's shapes as planned for the H200 (the heuristic, which
# the H200's tuned rows kept), schedule variants (cols=2), and the ceilings
# of make_ceiling_variant.py, as CUBINs built with NVRTC as librkc builds
# them, plus gemv_graph, into OUTDIR (default: cubin/, git-ignored).
# Usage: gen.sh [OUTDIR]   (repo root, rkc in build/bin; CUDA toolkit)
set -eu
d=bench/experiments/h200/gemv-m16
out=${1:-$d/cubin}
bash bench/experiments/h200/build_cubin_tools.sh "$out"
: > "$out/list.txt"
gen() { # label M K N [schedule]
  local line grid block smem
  line=$(build/bin/rkc compile examples/gemv_w4a16.mlir --dtype f16 --shape x=$2x$3 --shape q=$3x$4 \
    --sms 132 --dram-gbs 4814 ${5:+--schedule "$5"} --print-plan --emit cuda -o "$out/$1.cu" 2>&1 | grep '^kernel')
  echo "$1: $line"
  grid=$(echo "$line" | sed -n 's/.*grid = \([0-9]*\) CTAs.*/\1/p')
  block=$(echo "$line" | sed -n 's/.* \([0-9]*\) threads per CTA.*/\1/p')
  smem=$(echo "$line" | sed -n 's/.* \([0-9]*\) bytes of shared memory.*/\1/p')
  echo "$1 $2 $3 $4 $grid $block $smem" >> "$out/list.txt"
}
for shape in "lm 16 4096 128256" "up 16 4096 14336" "down 16 14336 4096" "lm8 8 4096 128256"; do
  set -- $shape
  gen $1 $2 $3 $4
  [ $2 -gt 8 ] || continue
  for kind in noperm halfmma nodeq; do
    python3 $d/make_ceiling_variant.py "$out/$1.cu" "$out/$1-$kind.cu" $kind
  done
done
# schedule variants (tried against the heuristic's plan; not bit-exact:
# another split of K sums in another order)
sched() { # base label schedule
  local line
  line=$(build/bin/rkc compile examples/gemv_w4a16.mlir --dtype f16 --shape x=$2x$3 --shape q=$3x$4 \
    --sms 132 --dram-gbs 4814 --schedule "$6" --print-plan --emit cuda -o "$out/$1-$5.cu" 2>&1 | grep '^kernel')
  echo "$1-$5: $line"
  echo "$1 $5 $(echo "$line" | sed -n 's/.*grid = \([0-9]*\) CTAs.*/\1/p') $(echo "$line" |
    sed -n 's/.* \([0-9]*\) threads per CTA.*/\1/p') $(echo "$line" | sed -n 's/.* \([0-9]*\) bytes of shared memory.*/\1/p')" >> "$out/sched.txt"
}
: > "$out/sched.txt"
sched lm 16 4096 128256 c2u4 vector=2,threads=512,cluster=1,unroll=4,mma=1,kwarps=1
sched lm 16 4096 128256 c2u2 vector=2,threads=512,cluster=1,unroll=2,mma=1,kwarps=1
sched lm 16 4096 128256 w32u2 vector=1,threads=1024,cluster=1,unroll=2,mma=1,kwarps=1
sched lm 16 4096 128256 u8 vector=1,threads=512,cluster=1,unroll=8,mma=1,kwarps=1
sched up 16 4096 14336 c2 vector=2,threads=256,cluster=2,unroll=4,mma=1,kwarps=2
sched down 16 14336 4096 c2 vector=2,threads=512,cluster=2,unroll=4,mma=1,kwarps=8
for f in "$out"/*.cu; do
  echo "$(basename $f): $("$out/nvrtc_cubin" "$f" "${f%.cu}.cubin" sm_90a templates 2>&1 | grep -o 'Used [0-9]* registers.*')"
done
g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/experiments/gemv_graph.cpp \
  -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/gemv_graph"
