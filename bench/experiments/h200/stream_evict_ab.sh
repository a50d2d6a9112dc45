#!/usr/bin/env bash
# Session 41's Next (2), prepared (not yet run): Triton's two-sweep L2
# policy on rkc's streamed rows (N = 1M: staging stream, split or
# cluster), whose first sweep loads plainly and whose last loads
# evict-first. stream_first_sweep_evict.patch (lib/Target/CUDA/EmitCuda.cpp:
# the first of several streamed sweeps through rkc::load_frag_keep)
# built as .bundle-exp; bench.py's sweep at N = 1M, every op, bf16 / f32,
# two interleaved rounds (lib_ab.sh). Session 11 measured the same on
# the H100 at +5 % f32 softmax, -2 % LayerNorm f32. Build the experiment
# library with: git apply bench/experiments/h200/stream_first_sweep_evict.patch,
# RKC_BUILD_DIR=build-static scripts/build -DRKC_STATIC=ON
# -DRKC_ENABLE_TESTS=OFF, copy build-static/lib/librkc.so to
# .bundle-exp/lib (stripped), git checkout the file, scripts/bundle.
# Usage: stream_evict_ab.sh OUT   (repo root; PyTorch on the machine)
exec "$(dirname "$0")/lib_ab.sh" "$1" sev .bundle-exp \
  --ops rms_norm,layer_norm,softmax,log_softmax,cross_entropy --dtypes bf16,f32 --ns 1M
