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

/// got.FIELD == want.FIELD, named FIELD in the failure.
#define EXPECT_FIELD(got, want, field) expectEq((got).field, (want).field, #field)

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
  p.liveFrags = 2.5, p.liveFragsStaged = 1.5, p.liveAtReductions = 1.75, p.rowMathOps = 3, p.rowExpOps = 2;
  p.combineMathOps = 4;
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
  EXPECT_FIELD(b, k, name);
  EXPECT_FIELD(b, k, ctaThreads);
  EXPECT_FIELD(b, k, rowsPerCta);
  EXPECT_FIELD(b, k, cluster);
  EXPECT_FIELD(b, k, split);
  EXPECT_FIELD(b, k, workspaceBytes);
  EXPECT_FIELD(b, k, rows);
  EXPECT_FIELD(b, k, cols);
  EXPECT_FIELD(b, k, vector);
  EXPECT_FIELD(b, k, smemBytes);
  EXPECT_FIELD(b, k, gridCtas);
  EXPECT_FIELD(b, k, arch);
  EXPECT_FIELD(b, k, plan);
  expectEq(b.args.size(), k.args.size(), "args");
  for (size_t i = 0; i < b.args.size() && i < k.args.size(); ++i) {
    EXPECT_FIELD(b.args[i], k.args[i], name);
    EXPECT_FIELD(b.args[i], k.args[i], dtype);
    EXPECT_FIELD(b.args[i], k.args[i], shape);
    EXPECT_FIELD(b.args[i], k.args[i], output);
    EXPECT_FIELD(b.args[i], k.args[i], elemBytes);
    EXPECT_FIELD(b.args[i], k.args[i], alignBytes);
    EXPECT_FIELD(b.args[i], k.args[i], contiguous);
  }
  EXPECT_FIELD(*back, r, cubin);
  EXPECT_FIELD(*back, r, ptx);
  EXPECT_FIELD(*back, r, cuda);
  EXPECT_FIELD(*back, r, rkIR);
  EXPECT_FIELD(*back, r, remarks);
  if (!back->problem) {
    std::fprintf(stderr, "FAIL: the row problem did not read back\n");
    return 1;
  }
  const plan::RowProblem &q = *back->problem;
  EXPECT_FIELD(q, p, rows);
  EXPECT_FIELD(q, p, cols);
  EXPECT_FIELD(q, p, elemBytes);
  EXPECT_FIELD(q, p, minElemBytes);
  EXPECT_FIELD(q, p, liveFrags);
  EXPECT_FIELD(q, p, liveFragsStaged);
  EXPECT_FIELD(q, p, liveAtReductions);
  EXPECT_FIELD(q, p, rowMathOps);
  EXPECT_FIELD(q, p, rowExpOps);
  EXPECT_FIELD(q, p, combineMathOps);
  EXPECT_FIELD(q, p, reductions);
  EXPECT_FIELD(q, p, stateWords);
  EXPECT_FIELD(q, p, inputRowBytes);
  EXPECT_FIELD(q, p, inputElemBytes);
  EXPECT_FIELD(q, p, outputRowBytes);
  EXPECT_FIELD(q, p, maxInputElemBytes);
  EXPECT_FIELD(q, p, rowVectorInputs);
  EXPECT_FIELD(q, p, uniformInputs);
  EXPECT_FIELD(q, p, reductionDepth);

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
  EXPECT_FIELD(kq, kp, op);
  EXPECT_FIELD(kq, kp, rows);
  EXPECT_FIELD(kq, kp, k);
  EXPECT_FIELD(kq, kp, n);
  EXPECT_FIELD(kq, kp, bits);
  EXPECT_FIELD(kq, kp, group);
  EXPECT_FIELD(kq, kp, actBytes);
  EXPECT_FIELD(kq, kp, bf16);
  EXPECT_FIELD(kq, kp, symmetric);

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
