#!/usr/bin/env bash
# Builds what run.sh, ab.sh and floor.sh time and traces (session 38): emitted tensor-core GEMV
# kernels (rkc compile, planned for the H200; the tuned rows' schedules and
# the heuristic's), their timeline variants (make_trace_variant.py) and
# L2-prefetch variants (make_prefetch_variant.py), block-recycling variants
# (make_recycle_variant.py), both buffers loaded together (make_pair_variant.py),
# the emitter's acts=global, a cp.async ring of weights (make_ring_variant.py), 3 or 4 register buffers (make_buffers_variant.py) and the read-only floor (make_read_floor.py), as
# CUBINs built with NVRTC as librkc builds them, plus run.sh's launch list,
# into OUTDIR (default: this directory's cubin/, git-ignored).
# Usage: gen.sh [OUTDIR]   (repo root, rkc in build/bin; CUDA toolkit)
set -eu
d=bench/experiments/h200/gemv-trace
out=${1:-$d/cubin}
bash bench/experiments/h200/build_cubin_tools.sh "$out"
: > "$out/list.txt"
: > "$out/ring.txt"
: > "$out/ga.txt"
gen() { # label bits K N schedule
  local spec=examples/gemv_w4a16.mlir
  [ "$2" = 8 ] && spec=$out/gemv_w8a16.mlir
  local line
  line=$(build/bin/rkc compile $spec --dtype f16 --shape x=1x$3 --shape q=$3x$4 --sms 132 \
    --dram-gbs 4814 --schedule "$5" --print-plan --emit cuda -o "$out/$1.cu" 2>&1 | grep '^kernel')
  echo "$1: $line"
  local grid block smem
  grid=$(echo "$line" | sed -n 's/.*grid = \([0-9]*\) CTAs.*/\1/p')
  block=$(echo "$line" | sed -n 's/.* \([0-9]*\) threads per CTA.*/\1/p')
  smem=$(echo "$line" | sed -n 's/.* \([0-9]*\) bytes of shared memory.*/\1/p')
  local regs
  regs=$("$out/nvrtc_cubin" "$out/$1.cu" "$out/$1.cubin" sm_90a templates 2>&1 | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p')
  # the emitted kernel's CTAs an SM by registers (allocated 8 a thread at a time)
  python3 $d/make_trace_variant.py "$out/$1.cu" "$out/$1-trace.cu" \
    $((65536 / ((regs + 7) / 8 * 8 * block)))
  echo "$1 $2 $3 $4 $grid $block $smem" >> "$out/list.txt"
  # the same bytes in flight in 4 buffers of half the unroll; 3 buffers of it
  local u half
  u=$(echo "$5" | sed -n 's/.*unroll=\([0-9]*\).*/\1/p')
  half=$(echo "$5" | sed "s/unroll=$u/unroll=$((u / 2))/")
  build/bin/rkc compile $spec --dtype f16 --shape x=1x$3 --shape q=$3x$4 --sms 132 \
    --dram-gbs 4814 --schedule "$half" --print-plan --emit cuda -o "$out/$1-half.cu" 2>&1 |
    grep '^kernel' | sed "s/^/$1 (unroll $((u / 2))): /"
  python3 $d/make_buffers_variant.py "$out/$1-half.cu" "$out/$1-b4.cu" 4
  python3 $d/make_buffers_variant.py "$out/$1.cu" "$out/$1-b3.cu" 3
  for st in 2 3 4; do # the cp.async ring: its launch needs more shared memory
    echo "$1 ring$st $(python3 $d/make_ring_variant.py "$out/$1.cu" "$out/$1-ring$st.cu" $st $smem)" >> "$out/ring.txt"
  done
  # the emitter's acts=global (session 38): activations read where used
  local ga
  ga=$(build/bin/rkc compile $spec --dtype f16 --shape x=1x$3 --shape q=$3x$4 --sms 132 \
    --dram-gbs 4814 --schedule "$5,acts=global" --print-plan --emit cuda -o "$out/$1-ga.cu" 2>&1 |
    grep '^kernel' | sed -n 's/.* \([0-9]*\) bytes of shared memory.*/\1/p')
  echo "$1 ga $ga" >> "$out/ga.txt"
  python3 $d/make_pair_variant.py "$out/$1.cu" "$out/$1-pair.cu"
  python3 $d/make_recycle_variant.py "$out/$1.cu" "$out/$1-rc.cu"
  python3 $d/make_trace_variant.py "$out/$1-rc.cu" "$out/$1-rc-trace.cu" \
    $((65536 / ((regs + 7) / 8 * 8 * block)))
  for v in "1 normal" "1 last" "all normal" "all last"; do
    set -- "$1" $v
    python3 $d/make_prefetch_variant.py "$out/$1.cu" "$out/$1-pf-$2-$3.cu" $2 $3
  done
}
sed 's/bits = 4/bits = 8/g; s/xi4/xi8/g; s/w4a16/w8a16/g; s/packing = k8/packing = k4/g' examples/gemv_w4a16.mlir > "$out/gemv_w8a16.mlir"
gen w4-4096x14336-tuned 4 4096 14336 vector=1,threads=128,cluster=1,unroll=8,mma=1,kwarps=4
gen w4-4096x14336-heur 4 4096 14336 vector=1,threads=256,cluster=1,unroll=8,mma=1,kwarps=4
gen w4-14336x4096-tuned 4 14336 4096 vector=1,threads=512,cluster=1,unroll=4,mma=1,kwarps=16
gen w4-4096x128256-heur 4 4096 128256 vector=1,threads=256,cluster=1,unroll=2,mma=1,kwarps=1
gen w8-4096x14336-tuned 8 4096 14336 vector=1,threads=128,cluster=1,unroll=8,mma=1,kwarps=4
# the floor: kernels that only stream the weights (make_read_floor.py)
for v in "512 8" "1024 8" "256 8" "512 4" "512 16"; do
  set -- $v
  for shape in "4 4096 14336" "8 4096 14336"; do
    set -- $1 $2 $shape
    python3 $d/make_read_floor.py "$out/floor-w$3-$1x$2.cu" $3 $4 $5 $1 $2
  done
done
for f in "$out"/*.cu; do
  echo "$(basename $f): $("$out/nvrtc_cubin" "$f" "${f%.cu}.cubin" sm_90a templates 2>&1 | grep -o 'Used [0-9]* registers.*')"
done
g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/experiments/gemv_graph.cpp \
  -L/usr/local/cuda/lib64/stubs -lcuda -o "$out/gemv_graph"
