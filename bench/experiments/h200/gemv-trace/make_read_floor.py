#!/usr/bin/env python3
"""Experiment tool (session 38, not product code): the floor of a GEMV's
time in gemv_graph's decode regime. A kernel with the rk.gemv ABI that only
streams the packed weights (16-byte loads, UNROLL in flight a thread, the
first batch issued before the PDL wait, as the GEMV does) and folds them
into a word that decides nothing: what reading that many bytes costs a
launch, with no arithmetic, activations or scales.

Usage: make_read_floor.py OUT.cu BITS K N THREADS UNROLL
"""
import sys

out, bits, K, N, threads, unroll = sys.argv[1], *map(int, sys.argv[2:])
chunks = K * N * bits // 8 // 16
name = f"rkc_gemv_w{bits}a16"
open(out, "w").write(f'''#include "rkc/rkc.cuh"

extern "C" __global__ void __launch_bounds__({threads})
{name}(const rkc::f16 *__restrict__ a0, const rkc::u32 *__restrict__ a1,
       const rkc::f16 *__restrict__ a2, rkc::f16 *__restrict__ a3, const long long s0,
       const long long s1, const long long s2, const long long s3, const long long M) {{
  constexpr long long CHUNKS = {chunks}LL; // 16-byte chunks of packed weights
  constexpr int U = {unroll};
  const uint4 *p = reinterpret_cast<const uint4 *>(a1);
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  uint4 v[U];
  #pragma unroll
  for (int u = 0; u < U; ++u) {{
    const long long j = i + u * stride;
    v[u] = j < CHUNKS ? p[j] : make_uint4(0u, 0u, 0u, 0u);
  }}
  rkc::grid_dependency_wait();
  rkc::grid_launch_dependents();
  unsigned acc = 0;
  for (long long b = i; b < CHUNKS; b += U * stride) {{
    #pragma unroll
    for (int u = 0; u < U; ++u) {{
      acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
      const long long j = b + (U + u) * stride;
      v[u] = j < CHUNKS ? p[j] : make_uint4(0u, 0u, 0u, 0u);
    }}
  }}
  if (acc == 0x9e3779b9u) a3[0] = rkc::from_f32<rkc::f16>(1.0f);
}}
''')
