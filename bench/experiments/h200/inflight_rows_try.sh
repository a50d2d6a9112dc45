#!/usr/bin/env bash
# Session 40: the mid-length rows where torch.compile leads on the H200
# (RMSNorm f32 2k-8k, LayerNorm f32 4k, RMSNorm bf16 8k) with fewer loads
# in flight: the heuristic's layout at unroll 1 / 2 (vector loads in flight
# per thread; the heuristic's 4) and 1024-thread CTAs of one or two
# vectors a thread. Inductor's kernel keeps ~32 KiB an SM in flight (512
# threads x one 16-byte load, 4 CTAs), rkc's heuristic up to 96 KiB.
# Usage: inflight_rows_try.sh   (repo root; rkc and librkc from .bundle)
set -u
. bench/experiments/h200/try_lib.sh
export RKC_CACHE_DIR=/tmp/rkc-inflight-try
nvidia-smi -L
try_rows rms_norm f32 2048 "unroll=1;unroll=2;threads=512,values=4"
try_rows rms_norm f32 4096 "unroll=1;unroll=2;threads=1024,values=4;threads=512,values=8,unroll=1"
try_rows rms_norm f32 8192 "unroll=1;unroll=2;threads=1024,values=8;threads=1024,values=8,unroll=1"
try_rows layer_norm f32 4096 "unroll=1;unroll=2;threads=1024,values=4"
try_rows rms_norm bf16 8192 "unroll=1;unroll=2;threads=1024,values=8;threads=512,values=16,unroll=1"
