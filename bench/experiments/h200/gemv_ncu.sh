#!/usr/bin/env bash
# One quantized GEMV under ncu (the second launch of rkc.gemv, heuristic or
# tuned plan as users get it): the details page with the warp-state,
# scheduler and instruction sections, and the SASS source page with the
# per-instruction stall samples, into OUT/ncu-gemv-w<BITS>-<K>x<N>[-sass].txt.
# Usage: gemv_ncu.sh OUT BITS K N [M]   (in the repo root, bundle in .bundle)
set -u
out=$1 bits=$2 K=$3 N=$4 M=${5:-1}
export PATH=$PWD/.bundle/bin:$PATH RKC_LIBRARY=$PWD/.bundle/lib/librkc.so PYTHONPATH=$PWD/python
rep=/tmp/ncu-gemv-w$bits-${K}x$N
timeout 150 ncu --clock-control none -k regex:rkc_gemv -c 1 --launch-skip 1 --set full \
  --import-source no -f -o "$rep" python3 bench/experiments/gemv_once.py $bits $K $N $M > /dev/null 2>&1
name=$out/ncu-gemv-w$bits-${K}x$N-m$M
ncu -i "$rep.ncu-rep" --page details > "$name.txt" 2>&1
# Per-instruction: SASS, executed instructions and the stall samples.
ncu -i "$rep.ncu-rep" --page source --print-source sass --csv > "$name-sass.csv" 2>&1
