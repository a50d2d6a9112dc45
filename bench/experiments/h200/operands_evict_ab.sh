#!/usr/bin/env bash
# Session 41's Next (1b), prepared (not yet run): the [N] operands
# (weights, biases) loaded evict-last wherever rule 8 hints the row
# (operands_evict_last.patch on lib/Target/CUDA/EmitCuda.cpp; the emitted
# kernels hint them only from 2 MiB, codegen revision 4). The hint's first
# A/B hinted both (Access<16>::load) and measured LayerNorm bf16 8k / 32k
# 1.05x / 1.04x where the rule without it measured 1.01x / 1.00x. Built as
# .bundle-exp (as stream_evict_ab.sh says), bench.py's sweep at the rule's
# shapes with [N] operands, two interleaved rounds (lib_ab.sh).
# Usage: operands_evict_ab.sh OUT   (repo root; PyTorch on the machine)
exec "$(dirname "$0")/lib_ab.sh" "$1" oev .bundle-exp \
  --ops rms_norm,layer_norm --dtypes bf16,f32 --ns 1k,2k,4k,8k,16k,32k
