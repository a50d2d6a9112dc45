// libFuzzer target: spec text + a shape request -> the whole rkc pipeline
// to tier IR and CUDA text (no NVRTC). The last three bytes of the input
// pick the request: dtype, architecture (sm_90a, sm_80, sm_86, sm_89) and
// device (SMs and DRAM bandwidth: an H200, an H100 PCIe or unknown), then
// three dimension sizes D0, D1, D2 from a list of awkward and ordinary
// sizes. The first argument of the first function gets [D0, D1] (rank 2),
// [D1] (rank 1) or the first `rank` of D0, D1, D2; an argument with a
// quantized (#rk.quant) type gets [D1, D2] (the [K, N] of a GEMV whose
// activations are [D0, D1]); each is named by its rk.name, as `rkc compile
// --shape NAME=...` names it. Other arguments follow from the spec's own
// shape rules.
#include "FuzzSupport.h"

#include "rkc/Target/CudaEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

static std::string dims(llvm::ArrayRef<int64_t> d) {
  std::string s;
  for (int64_t v : d)
    s += (s.empty() ? "" : "x") + std::to_string(v);
  return s;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rkc::fuzz::Context c;
  mlir::OwningOpRef<mlir::ModuleOp> module = rkc::fuzz::parse(c, data, size);
  if (!module)
    return 0;
  auto knob = [&](size_t back) -> uint8_t { return size > back ? data[size - 1 - back] : 0; };
  static const char *dtypes[] = {"f32", "bf16", "f16", ""};
  static const int64_t sizes[] = {1, 3, 8, 33, 128, 256, 1000, 4096,
                                  7, 16, 64, 512, 1024, 8192, 65536, 262144};
  int64_t d[3] = {sizes[knob(1) & 15], sizes[knob(1) >> 4], sizes[knob(2) & 15]};
  rkc::PipelineOptions o;
  o.dtype = dtypes[knob(0) & 3];
  // Parts without clusters too: sm_80's 163 KiB and sm_86 / sm_89's 99 KiB
  // of shared memory a CTA (the GEMV's acts = global fallback, row staging).
  static const char *archs[] = {"sm_90a", "sm_80", "sm_86", "sm_89"};
  o.arch = archs[knob(0) >> 6];
  // A device's SMs and memory bandwidth, as the JIT passes them: an H200
  // (132 SMs, 4917 GB/s: fast memory per SM, the planner rules measured
  // there), an H100 PCIe (114, 2039) or unknown (the arch's defaults).
  static const int sms[] = {0, 132, 114, 0};
  static const int dramGBs[] = {0, 4917, 2039, 0};
  o.sms = sms[(knob(0) >> 2) & 3];
  o.dramGBs = dramGBs[(knob(0) >> 2) & 3];
  for (auto func : module->getOps<mlir::func::FuncOp>()) {
    bool first = true;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      // From the function type: a declaration has no entry block.
      auto t = llvm::dyn_cast<mlir::RankedTensorType>(func.getFunctionType().getInput(i));
      auto name = func.getArgAttrOfType<mlir::StringAttr>(i, "rk.name");
      if (!t || !name || t.getRank() < 1 || t.getRank() > 3)
        continue;
      bool quant = t.getEncoding() != nullptr;
      if (!first && !quant)
        continue;
      std::vector<int64_t> shape;
      if (quant && t.getRank() == 2)
        shape = {d[1], d[2]};
      else if (t.getRank() == 1)
        shape = {d[1]};
      else
        shape.assign(d, d + t.getRank());
      o.shapes.push_back(name.getValue().str() + "=" + dims(shape));
      first = false;
    }
    break;
  }
  mlir::PassManager pm(&c.ctx);
  rkc::buildPipeline(pm, o);
  if (mlir::failed(pm.run(*module)))
    return 0;
  std::string cuda;
  std::vector<rkc::KernelInfo> kernels;
  (void)rkc::emitCuda(*module, cuda, kernels);
  return 0;
}
