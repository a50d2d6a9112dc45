"""Makes the 'phases' variant of a generated split-tier (grid) row kernel:
thread 0 of every CTA stamps %globaltimer (ns, one clock for the whole GPU)
at four points of each row of its persistent loop -- the row's start, before
grid_reduce (its sweep and fold done), after grid_reduce (the group's
barrier passed) and the row's end (epilogue stored) -- into the module global
rkc_phase[CTA][row < 64][4], which the harness (built with -DHX_PHASES=1)
dumps after its last launch. With K > 1 and NS > 0 the groups also start
staggered: group g waits (g % K) * NS / K ns before its first row, so that
their barrier waits stop coinciding (a test of whether the groups' phases
lock: every group loads, waits and stores at the same time).
Usage: make_phases.py IN.cu OUT.cu [K NS]"""
import re
import sys

src, out = open(sys.argv[1]).read(), sys.argv[2]
K = int(sys.argv[3]) if len(sys.argv) > 3 else 1
NS = int(sys.argv[4]) if len(sys.argv) > 4 else 0
helpers = ("__device__ unsigned long long rkc_phase[1024 * 64 * 4];\n"
           "static __device__ __forceinline__ unsigned long long ph_now() {\n"
           "  unsigned long long t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t) :: \"memory\");\n"
           "  return t;\n}\n")
kernel = src.index('extern "C" __global__')
src = src[:kernel] + helpers + src[kernel:]
launch = "  rkc::grid_launch_dependents();\n"
assert launch in src
stagger = "  int ph_i = 0;\n"
if K > 1 and NS > 0:
    stagger += ("  { const unsigned long long d = (unsigned long long)((blockIdx.x / C) %% %d) * %dull / %d;\n"
                "    if (d) { const unsigned long long t0 = ph_now(); while (ph_now() - t0 < d) __nanosleep(200); } }\n"
                % (K, NS, K))
src = src.replace(launch, launch + stagger, 1)
loop = re.search(r"       rkc_group \+= gridDim\.x / C\) \{\n", src)
assert loop, "not a split-tier kernel"
src = src[:loop.end()] + "  const unsigned long long ph0 = ph_now();\n" + src[loop.end():]
# The first grid_reduce of the row: the barrier after the first sweep.
gr = re.search(r"\n(  const \w+ r\d+ = (?:rkc::grid_reduce|rkc::grid_wait|pl::wait)<[^\n]*\n)", src)
assert gr
src = (src[:gr.start(1)] + "  const unsigned long long ph1 = ph_now();\n" + gr.group(1) +
       "  const unsigned long long ph2 = ph_now();\n" + src[gr.end(1):])
end = re.search(r"  __syncthreads\(\);\n(  (?:pl_buf|rkc_kbuf) \^= 1;\n)?  \}\n  (rkc::grid_finish|pl::finish)", src)
assert end
src = src[:end.start()] + ("  __syncthreads();\n" + (end.group(1) or "") +
                  "  if (threadIdx.x == 0 && ph_i < 64) {\n"
                  "    unsigned long long *p = rkc_phase + ((size_t)blockIdx.x * 64 + ph_i) * 4;\n"
                  "    p[0] = ph0; p[1] = ph1; p[2] = ph2; p[3] = ph_now();\n  }\n  ++ph_i;\n"
                  "  }\n  " + end.group(2)) + src[end.end():]
open(out, "w").write(src)
