#!/usr/bin/env python3
"""Experiment tool (session 38, not product code): a timeline variant of an
emitted tensor-core GEMV kernel (rk.gemv, mma = 1). Thread 0 of each CTA
reads %globaltimer at entry, after the PDL wait, when its first block of
weights has arrived (a read that depends on the block's last loaded word),
after the K loop (depending on the accumulators) and at the end, and writes
one 64-byte record (weight pointer, CTA, SM, the five times) to the
`rkc_trace` ring; gemv_graph (GEMV_TRACE=DIR) dumps it. The arithmetic is
untouched: the output must match the emitted kernel's bit for bit.

With MIN_BLOCKS, the variant's launch bound asks that many CTAs an SM, so
that the timer's registers do not cost the emitted kernel's occupancy.

Usage: make_trace_variant.py IN.cu OUT.cu [MIN_BLOCKS]
"""
import re
import sys

from emitted_edit import replace_once

src = open(sys.argv[1]).read()


def sub(old, new):
    global src
    src = replace_once(src, old, new, "make_trace_variant")


sub('#include "rkc/rkc.cuh"\n', '''#include "rkc/rkc.cuh"

__device__ unsigned long long rkc_trace[65536 * 8];
__device__ unsigned int rkc_trace_n;
__device__ __forceinline__ unsigned long long rkc_gt() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ unsigned long long rkc_gt_after(unsigned v) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : "r"(v) : "memory");
  return t;
}
''')
sub('  const int tid = threadIdx.x;\n',
    '  const int tid = threadIdx.x;\n'
    '  const unsigned long long rkc_t0 = rkc_gt();\n'
    '  unsigned long long rkc_t1 = 0, rkc_t2 = 0;\n')
sub('  rkc::grid_dependency_wait(); // PDL: the previous kernel is done\n',
    '  rkc::grid_dependency_wait(); // PDL: the previous kernel is done\n'
    '  rkc_t1 = rkc_gt();\n')
sub('  for (int it = it_begin; it < it_end; it += 2) {\n',
    '  for (int it = it_begin; it < it_end; it += 2) {\n'
    '    if (it == it_begin) rkc_t2 = rkc_gt_after(ba.w[U - 1][COLS - 1][3]);\n')
sub('  float f1[V];\n',
    '  const unsigned long long rkc_t3 = rkc_gt_after(__float_as_uint(f0[0]));\n'
    '  float f1[V];\n')
if len(sys.argv) > 3 and int(sys.argv[3]) > 1:
    src, n = re.subn(r'__launch_bounds__\((\d+)\)', r'__launch_bounds__(\1, %d)' % int(sys.argv[3]), src)
    if n != 1:
        sys.exit("make_trace_variant: expected one __launch_bounds__(THREADS)")
end = src.rstrip().rfind('}')
src = src[:end] + '''  if (tid == 0) {
    const unsigned long long rkc_t4 = rkc_gt();
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    const unsigned i = atomicAdd(&rkc_trace_n, 1u) % 65536u;
    unsigned long long *r = rkc_trace + 8ull * i;
    r[0] = (unsigned long long)a1;
    r[1] = blockIdx.x | ((unsigned long long)smid << 32);
    r[2] = rkc_t0; r[3] = rkc_t1; r[4] = rkc_t2; r[5] = rkc_t3; r[6] = rkc_t4; r[7] = 0;
  }
}
'''
open(sys.argv[2], 'w').write(src)
