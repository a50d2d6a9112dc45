#!/usr/bin/env bash
# Builds the A/B of the staged activations' padded rows (session 39): each
# tensor-core GEMV below as OLD_RKC emits it (unpadded rows) and as
# NEW_RKC emits it (default build/bin/rkc), planned for the H200 (the heuristic, or the
# schedule given), as CUBINs, plus gemv_graph, into OUTDIR; pad_ab.sh
# times them. The arithmetic is the same, so the outputs must match bit
# for bit.
# Usage: gen_pad.sh OLD_RKC [OUTDIR [NEW_RKC]]   (repo root; CUDA toolkit)
set -eu
d=bench/experiments/h200/gemv-m16
old=$1
out=${2:-$d/cubin-pad}
new=${3:-build/bin/rkc}
bash bench/experiments/h200/build_cubin_tools.sh "$out"
sed 's/bits = 4/bits = 8/g; s/xi4/xi8/g; s/w4a16/w8a16/g; s/packing = k8/packing = k4/g' \
  examples/gemv_w4a16.mlir > "$out/gemv_w8a16.mlir"
: > "$out/list.txt"
field() { echo "$2" | sed -n "s/$1/\\1/p"; }
one() { # rkc label bits M K N [schedule] -> "grid:block:smem"
  local spec=examples/gemv_w4a16.mlir line
  [ "$3" = 8 ] && spec=$out/gemv_w8a16.mlir
  line=$("$1" compile $spec --dtype f16 --shape x=$4x$5 --shape q=$5x$6 --sms 132 --dram-gbs 4814 \
    ${7:+--schedule "$7"} --print-plan --emit cuda -o "$out/$2.cu" 2>&1 | grep '^kernel')
  echo "$2: $line" >&2
  "$out/nvrtc_cubin" "$out/$2.cu" "$out/$2.cubin" sm_90a templates > /dev/null
  echo "$(field '.*grid = \([0-9]*\) CTAs.*' "$line"):$(field '.* \([0-9]*\) threads per CTA.*' "$line"):$(field '.* \([0-9]*\) bytes of shared memory.*' "$line")"
}
gen() { # label bits M K N [schedule]
  local a b
  a=$(one "$old" "$@")
  b=$(one "$new" "$1-pad" "${@:2}")
  echo "$1 $2 $3 $4 $5 $a $b" >> "$out/list.txt"
}
gen w4-m16-4096x128256 4 16 4096 128256
gen w4-m16-4096x14336 4 16 4096 14336
gen w4-m16-14336x4096 4 16 14336 4096
gen w4-m16-4096x4096 4 16 4096 4096
gen w4-m8-4096x128256 4 8 4096 128256
gen w4-m8-4096x14336 4 8 4096 14336
gen w4-m4-4096x14336 4 4 4096 14336
gen w4-m4-14336x4096 4 4 14336 4096
gen w4-m1-4096x14336 4 1 4096 14336 vector=1,threads=128,cluster=1,unroll=8,mma=1,kwarps=4
gen w4-m1-14336x4096 4 1 14336 4096
gen w8-m16-4096x14336 8 16 4096 14336
gen w8-m16-14336x4096 8 16 14336 4096
gen w8-m1-4096x14336 8 1 4096 14336
g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/experiments/gemv_graph.cpp \
  -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/gemv_graph"
