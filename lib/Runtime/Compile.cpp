//===- Compile.cpp - one compile request from spec text to CUBIN ----------===//

#include "rkc/Compile.h"

#include "Nvrtc.h"
#include "rkc/Plan/ColumnAnalysis.h"
#include "rkc/Plan/RowAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

namespace rkc::detail {
extern const char kTemplateHash[];
}

const char *rkc::templateHash() { return detail::kTemplateHash; }

llvm::Expected<std::string> rkc::nvrtcVersion() { return nvrtc::version(); }

namespace {

/// Collects errors as "file:line:col: error: msg" text, warnings as such
/// lines and remarks as plain lines, instead of printing them.
class Diagnostics {
public:
  Diagnostics(mlir::MLIRContext &ctx, llvm::SourceMgr &mgr)
      : os(errors), handler(mgr, &ctx, os) {
    ctx.printOpOnDiagnostic(false);
    id = ctx.getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Remark) {
        remarks.push_back(d.str());
        return mlir::success();
      }
      if (d.getSeverity() == mlir::DiagnosticSeverity::Warning) {
        std::string where;
        if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
          where = (loc.getFilename().str() + ":" + std::to_string(loc.getLine()) + ":" +
                   std::to_string(loc.getColumn()) + ": ");
        warnings.push_back(where + "warning: " + d.str());
        return mlir::success();
      }
      return mlir::failure(); // to the source manager handler
    });
  }

  std::string errors;
  std::vector<std::string> remarks;
  std::vector<std::string> warnings; ///< "file:line:col: warning: msg"

private:
  llvm::raw_string_ostream os;
  mlir::SourceMgrDiagnosticHandler handler;
  mlir::DiagnosticEngine::HandlerID id;
};

/// Brackets ((, [, {, <) a spec may nest. MLIR's parser recurses once per
/// level, so a spec of a few tens of KiB nested 15,000 deep overflowed the
/// stack; real specs nest fewer than 20.
constexpr int kMaxSpecNesting = 256;

/// Where `text` first nests deeper than kMaxSpecNesting brackets (an offset
/// into it), or npos. Strings and `//` comments are skipped, `->` is not a
/// bracket.
size_t tooDeeplyNested(llvm::StringRef text) {
  int depth = 0;
  for (size_t i = 0, n = text.size(); i < n; ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxSpecNesting)
        return i;
    } else if (c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || text[i - 1] != '-'))) {
      depth = std::max(depth - 1, 0);
    }
  }
  return llvm::StringRef::npos;
}

} // namespace

std::string rkc::specSignature(llvm::StringRef specText) {
  static std::mutex mu;
  static llvm::StringMap<std::string> memo;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = memo.find(specText);
    if (it != memo.end())
      return it->second;
  }
  std::string canonical = specText.str();
  if (tooDeeplyNested(specText) == llvm::StringRef::npos) { // else compile() says why
    mlir::DialectRegistry registry;
    registerSpecDialects(registry); // user text: see registerSpecDialects
    mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
    ctx.loadAllAvailableDialects();
    mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) { return mlir::success(); });
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(specText, mlir::ParserConfig(&ctx));
    if (module) {
      canonical.clear();
      llvm::raw_string_ostream os(canonical);
      module->print(os, mlir::OpPrintingFlags().enableDebugInfo(false));
    }
  }
  std::string h =
      llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(canonical)), true).substr(0, 32);
  std::lock_guard<std::mutex> lock(mu);
  // Bounded (keyed by whole spec texts, failed compiles' included): a
  // process that compiles ever new specs keeps at most ~kMemoBytes of them.
  static size_t bytes = 0;
  constexpr size_t kMemoBytes = 16 << 20;
  if (bytes + specText.size() > kMemoBytes) {
    memo.clear();
    bytes = 0;
  }
  if (memo.try_emplace(specText, h).second)
    bytes += specText.size();
  return h;
}

llvm::Expected<rkc::CompileResult> rkc::compile(const CompileRequest &req) {
  mlir::DialectRegistry registry;
  registerSpecDialects(registry); // user text: see registerSpecDialects
  mlir::MLIRContext ctx(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  llvm::SourceMgr mgr;
  mgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(req.specText, req.specName), llvm::SMLoc());
  Diagnostics diags(ctx, mgr);
  auto fail = [&](llvm::StringRef fallback) {
    std::string msg = diags.errors.empty() ? fallback.str() : diags.errors;
    while (!msg.empty() && msg.back() == '\n')
      msg.pop_back();
    return llvm::createStringError(msg);
  };

  if (req.specText.find_first_not_of(" \t\r\n") == std::string::npos)
    return llvm::createStringError(req.specName + ":1:1: error: the spec is empty");
  if (size_t at = tooDeeplyNested(req.specText); at != llvm::StringRef::npos) {
    llvm::StringRef before = llvm::StringRef(req.specText).take_front(at);
    size_t line = before.count('\n') + 1;
    size_t col = at - (before.rfind('\n') == llvm::StringRef::npos ? -1 : before.rfind('\n'));
    return llvm::createStringError(req.specName + ":" + std::to_string(line) + ":" +
                                   std::to_string(col) + ": error: the spec nests more than " +
                                   std::to_string(kMaxSpecNesting) + " brackets deep");
  }
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(mgr, mlir::ParserConfig(&ctx));
  if (!module)
    return fail(req.specName + ": error: cannot parse the spec");
  // One kernel a spec: a second function would be dropped without a word.
  int funcs = 0;
  for (auto func : module->getOps<mlir::func::FuncOp>())
    if (!func.isExternal() && ++funcs == 2) {
      func.emitError("a spec holds one function (one kernel); this is a second: give it "
                     "its own spec");
      return fail(req.specName + ": error: more than one function");
    }

  CompileResult res;
  // Every successful return carries the warnings (a --dtype the spec ignores).
  auto done = [&]() -> CompileResult {
    res.warnings = diags.warnings;
    return std::move(res);
  };
  auto print = [&](std::string &out) {
    llvm::raw_string_ostream os(out);
    module->print(os);
  };
  {
    mlir::PassManager pm(&ctx);
    buildPipeline(pm, req.options, Stage::Rk);
    if (mlir::failed(pm.run(*module)))
      return fail("the pipeline failed");
    print(res.rkIR);
    for (auto func : module->getOps<mlir::func::FuncOp>()) {
      if (isColumnProgram(func)) {
        // Planned by KSplitPlan; a spec it cannot take fails below with
        // the diagnostic (not reported twice).
        mlir::ScopedDiagnosticHandler quiet(&ctx, [](mlir::Diagnostic &) {
          return mlir::success();
        });
        auto p = analyzeColumnProgram(func);
        if (mlir::succeeded(p))
          res.columnProblem = *p;
        break;
      }
      auto p = analyzeRowProgram(func);
      if (mlir::succeeded(p))
        res.problem = *p;
      break;
    }
  }
  if (req.upTo == Emit::Rk)
    return done();
  {
    // The rest of the pipeline, from the row program to tier.
    mlir::PassManager pm(&ctx);
    PipelineOptions o = req.options;
    buildPipeline(pm, o, Stage::Tier, /*from=*/Stage::Rk);
    if (mlir::failed(pm.run(*module)))
      return fail("the pipeline failed");
    print(res.tierIR);
  }
  res.remarks = diags.remarks;
  if (req.upTo == Emit::Tier)
    return done();
  if (mlir::failed(emitCuda(*module, res.cuda, res.kernels)))
    return fail("CUDA emission failed");
  if (req.upTo == Emit::Cuda)
    return done();
  std::string arch = res.kernels.empty() ? req.options.arch : res.kernels[0].arch;
  auto out = nvrtc::compile(res.cuda, arch, req.upTo == Emit::Cubin);
  if (!out) {
    std::string msg = req.specName + ": error: " + llvm::toString(out.takeError());
    return llvm::createStringError(msg);
  }
  res.ptx = std::move(out->ptx);
  res.cubin = std::move(out->cubin);
  res.nvrtcLog = std::move(out->log);
  return done();
}
