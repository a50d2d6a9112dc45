#!/usr/bin/env bash
# Times the read-only floor kernels of gen.sh (make_read_floor.py) against
# the emitted GEMV of the same weights in gemv_graph's decode regime, at
# grids of 1, 2 and 4 CTAs an SM (132 SMs), two rounds (session 38).
# Usage: floor.sh [DIR]   (DIR: gen.sh's output, default cubin/)
set -u
c=${1:-bench/experiments/h200/gemv-trace/cubin}
nvidia-smi -L
for r in 1 2; do
  echo "== round $r"
  for bits in 4 8; do
    set -- $(grep "^w$bits-4096x14336-tuned " "$c/list.txt")
    vs=()
    for tu in 512x8 1024x8 256x8 512x4 512x16; do
      t=${tu%x*}
      for per in 1 2 4; do
        [ $((t * per)) -le 2048 ] || continue
        vs+=("floor-$tu-g$((132 * per))=$c/floor-w$bits-$tu.cubin:$((132 * per)):$t:0")
      done
    done
    GEMV_KERNEL=rkc_gemv_w${bits}a16 "$c/gemv_graph" $bits 1 4096 14336 "$1=$c/$1.cubin:$5:$6:$7" "${vs[@]}"
  done
done
