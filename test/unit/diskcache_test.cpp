//===- diskcache_test.cpp - the disk cache's entries round-trip ------------===//
//
// A compile result serialised into a cache entry and read back has every
// field it had: the kernel description, the blobs, and what the planner
// saw (the tuner plans its candidates from the problem of a cached
// baseline, so a field left out of the entry would plan differently after
// a cache hit than after a compile). A corrupted entry is refused.
//
//===----------------------------------------------------------------------===//

#include "DiskCache.h"

#include <cstdio>
#include <string>

using namespace rkc;

static int failures = 0;

template <class T> static void expectEq(const T &got, const T &want, const char *what) {
  if (!(got == want)) {
    std::fprintf(stderr, "FAIL %s\n", what);
    ++failures;
  }
}

int main() {
  CompileResult r;
  KernelInfo k;
  k.name = "rkc_test";
  k.ctaThreads = 512, k.rowsPerCta = 2, k.cluster = 4, k.split = 8, k.workspaceBytes = 1664;
  k.rows = 77, k.cols = 32768, k.vector = 8, k.smemBytes = 65536, k.gridCtas = 3;
  k.arch = "sm_90a";
  k.plan = "threads=512,values=64";
  KernelArg a;
  a.name = "x", a.dtype = "bf16", a.shape = {77, 32768}, a.elemBytes = 2, a.alignBytes = 16;
  a.contiguous = true;
  KernelArg o = a;
  o.name = "out0", o.output = true, o.contiguous = false;
  k.args = {a, o};
  r.kernels.push_back(k);
  r.cubin = {'\x7f', 'E', 'L', 'F', '\0', '\n', 'x'};
  r.ptx = ".version 9.0\n";
  r.cuda = "// cuda\n";
  r.rkIR = "func.func @f()\n";
  r.remarks = {"plan: one", "plan: two"};
  // Every field away from its default.
  plan::RowProblem p;
  p.rows = 77, p.cols = 32768, p.elemBytes = 2, p.minElemBytes = 1;
  p.liveFrags = 2.5, p.liveFragsStaged = 1.5, p.liveAtReductions = 1.75, p.rowMathOps = 3;
  p.reductions = 2, p.stateWords = 3, p.inputRowBytes = 6, p.inputElemBytes = 2;
  p.outputRowBytes = 4, p.maxInputElemBytes = 4, p.rowVectorInputs = 2;
  p.uniformInputs = false, p.reductionDepth = 2;
  r.problem = p;

  std::string bytes = diskcache::serialize("key1", r);
  auto back = diskcache::deserialize("key1", bytes);
  if (!back) {
    std::fprintf(stderr, "FAIL: the entry did not read back\n");
    return 1;
  }
  const KernelInfo &b = back->kernels.front();
  expectEq(b.name, k.name, "name");
  expectEq(b.ctaThreads, k.ctaThreads, "ctaThreads");
  expectEq(b.rowsPerCta, k.rowsPerCta, "rowsPerCta");
  expectEq(b.cluster, k.cluster, "cluster");
  expectEq(b.split, k.split, "split");
  expectEq(b.workspaceBytes, k.workspaceBytes, "workspaceBytes");
  expectEq(b.rows, k.rows, "rows");
  expectEq(b.cols, k.cols, "cols");
  expectEq(b.vector, k.vector, "vector");
  expectEq(b.smemBytes, k.smemBytes, "smemBytes");
  expectEq(b.gridCtas, k.gridCtas, "gridCtas");
  expectEq(b.arch, k.arch, "arch");
  expectEq(b.plan, k.plan, "plan");
  expectEq(b.args.size(), k.args.size(), "args");
  for (size_t i = 0; i < b.args.size() && i < k.args.size(); ++i) {
    expectEq(b.args[i].name, k.args[i].name, "arg name");
    expectEq(b.args[i].dtype, k.args[i].dtype, "arg dtype");
    expectEq(b.args[i].shape, k.args[i].shape, "arg shape");
    expectEq(b.args[i].output, k.args[i].output, "arg output");
    expectEq(b.args[i].elemBytes, k.args[i].elemBytes, "arg elemBytes");
    expectEq(b.args[i].alignBytes, k.args[i].alignBytes, "arg alignBytes");
    expectEq(b.args[i].contiguous, k.args[i].contiguous, "arg contiguous");
  }
  expectEq(back->cubin, r.cubin, "cubin");
  expectEq(back->ptx, r.ptx, "ptx");
  expectEq(back->cuda, r.cuda, "cuda");
  expectEq(back->rkIR, r.rkIR, "rk IR");
  expectEq(back->remarks, r.remarks, "remarks");
  if (!back->problem) {
    std::fprintf(stderr, "FAIL: the row problem did not read back\n");
    return 1;
  }
  const plan::RowProblem &q = *back->problem;
  expectEq(q.rows, p.rows, "problem rows");
  expectEq(q.cols, p.cols, "problem cols");
  expectEq(q.elemBytes, p.elemBytes, "problem elemBytes");
  expectEq(q.minElemBytes, p.minElemBytes, "problem minElemBytes");
  expectEq(q.liveFrags, p.liveFrags, "problem liveFrags");
  expectEq(q.liveFragsStaged, p.liveFragsStaged, "problem liveFragsStaged");
  expectEq(q.liveAtReductions, p.liveAtReductions, "problem liveAtReductions");
  expectEq(q.rowMathOps, p.rowMathOps, "problem rowMathOps");
  expectEq(q.reductions, p.reductions, "problem reductions");
  expectEq(q.stateWords, p.stateWords, "problem stateWords");
  expectEq(q.inputRowBytes, p.inputRowBytes, "problem inputRowBytes");
  expectEq(q.inputElemBytes, p.inputElemBytes, "problem inputElemBytes");
  expectEq(q.outputRowBytes, p.outputRowBytes, "problem outputRowBytes");
  expectEq(q.maxInputElemBytes, p.maxInputElemBytes, "problem maxInputElemBytes");
  expectEq(q.rowVectorInputs, p.rowVectorInputs, "problem rowVectorInputs");
  expectEq(q.uniformInputs, p.uniformInputs, "problem uniformInputs");
  expectEq(q.reductionDepth, p.reductionDepth, "problem reductionDepth");

  // A column kernel's problem.
  CompileResult c = r;
  c.problem.reset();
  plan::KSplitProblem kp;
  kp.op = plan::ColumnOp::Quantize, kp.rows = 16, kp.k = 14336, kp.n = 4096, kp.bits = 8;
  kp.group = 64, kp.actBytes = 4, kp.bf16 = true, kp.symmetric = false;
  c.columnProblem = kp;
  auto cback = diskcache::deserialize("key1", diskcache::serialize("key1", c));
  if (!cback || !cback->columnProblem || cback->problem) {
    std::fprintf(stderr, "FAIL: the column problem did not read back\n");
    return 1;
  }
  const plan::KSplitProblem &kq = *cback->columnProblem;
  expectEq(kq.op, kp.op, "column op");
  expectEq(kq.rows, kp.rows, "column rows");
  expectEq(kq.k, kp.k, "column k");
  expectEq(kq.n, kp.n, "column n");
  expectEq(kq.bits, kp.bits, "column bits");
  expectEq(kq.group, kp.group, "column group");
  expectEq(kq.actBytes, kp.actBytes, "column actBytes");
  expectEq(kq.bf16, kp.bf16, "column bf16");
  expectEq(kq.symmetric, kp.symmetric, "column symmetric");

  // Another key, or a flipped byte of the payload: refused.
  if (diskcache::deserialize("key2", bytes))
    std::fprintf(stderr, "FAIL: an entry read back under another key\n"), ++failures;
  std::string bad = bytes;
  bad[bad.size() - 3] ^= 1;
  if (diskcache::deserialize("key1", bad))
    std::fprintf(stderr, "FAIL: a corrupted entry read back\n"), ++failures;

  if (failures)
    return 1;
  std::puts("diskcache_test: all passed");
  return 0;
}
