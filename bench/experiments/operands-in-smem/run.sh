#!/usr/bin/env bash
# Builds every variant here (gen.sh makes them) (BUILD=1, any machine with nvcc and the stub libcuda)
# and times it (on the GPU machine). Usage: [BIN=dir] [BUILD=1] run.sh [M...]
cd "$(dirname "$0")"; root=$(cd ../../.. && pwd)
bin=${BIN:-/tmp/operands-in-smem}; mkdir -p $bin
out=${OUT:-/tmp}/operands-in-smem.txt
[ -n "$BUILD" ] || { nvidia-smi -L; cat $root/.bundle/COMMIT 2>/dev/null; } | tee -a $out
for f in ${VARIANTS:-ln_f32_s64 ln_f32_s128 ln_f32_s128_hold rms_f32_s64 rms_f32_s128 rms_f32_s128_hold ln_bf16_s16 ln_bf16_s64 ln_bf16_s64_hold}; do
  src=$f.cu
  kname=$(grep -o 'rkc_[a-z_]*(' $src | head -1 | tr -d '(')
  threads=$(grep -o 'threads=[0-9]*' $src | head -1 | cut -d= -f2)
  split=$(grep -o 'constexpr int C = [0-9]*' $src | head -1 | awk '{print $5}')
  V=$(grep -o 'constexpr int V = [0-9]*' $src | head -1 | awk '{print $5}')
  keep=$(grep -o 'constexpr int KEEP = [0-9]*' $src | head -1 | awk '{print $5}')
  passes=$(grep -o 'constexpr int PASSES = [0-9]*' $src | head -1 | awk '{print $5}')
  wsb=$(grep -o 'rkc_ws + (size_t)(blockIdx.x / C) \* [0-9]*' $src | awk '{print $NF}')
  cluster=0; grep -q __cluster_dims__ $src && { cluster=1; wsb=0; keep=$V; passes=0; }  # smem: the staged row
  n=$(grep -o 'constexpr int N = [0-9]*' $src | head -1 | awk '{print $5}')
  bf=0; size=4; case $f in *bf16*) bf=1; size=2;; esac
  ln=0; case $f in ln_*) ln=1;; esac
  ph=0; grep -q rkc_phase $src && ph=1  # make_phases.py's stamps: dumped by the harness
  nops=0; case $f in *_hold) nops=$((ln ? 2 : 1));; esac
  smem=$(( (keep + nops * passes) * V * threads * size ))
  [ $cluster = 1 ] && smem=$(( V * threads * size ))
  case $f in *_pl|*_pl_*|*_df|*_df_*) smem=$((smem * 2));; esac  # make_pipelined.py, make_deferred.py: two buffers
  case $f in *_pl|*_pl_*|*_df|*_df_*) ;; *) grep -q "rkc::grid_arrive<" $src && smem=$((smem * 2));; esac  # the emitter's deferred waits
  if [ -n "$BUILD" ]; then
  nvcc -cubin -std=c++17 -O3 -arch=sm_90a -I$root/templates -o $bin/$f.cubin $src -Xptxas -v 2>&1 | grep -E "registers|error" | tail -1
  nvcc -std=c++17 -O3 -arch=sm_90a -o $bin/$f harness.cu -L/usr/local/cuda/lib64/stubs -lcuda \
    -DHX_VNAME="\"$f\"" -DHX_KNAME="\"$kname\"" -DHX_THREADS=$threads -DHX_SPLIT=$split -DHX_SMEM=$smem \
    -DHX_WSB=$wsb -DHX_NCOLS=$n -DHX_TBF16=$bf -DHX_IS_LN=$ln -DHX_CLUSTER=$cluster -DHX_PHASES=$ph 2>&1 | grep -E "error"
  continue; fi
  for M in ${@:-128}; do $bin/$f $M $bin/$f.cubin | tee -a $out; done
done
