//===- rkc.cpp - the rkc command-line driver ------------------------------===//
//
//   rkc compile SPEC [--dtype f32|bf16|f16] --shape NAME=D0xD1... [--arch sm_90a] [--sms N]
//                    [--dram-gbs N]
//               [--emit rk|tier|cuda|ptx|cubin] [-o FILE] [--print-plan]
//               [--schedule threads=...,vector=...] [--streaming auto|always|never]
//   rkc version
//
// Errors go to stderr as "error: ..." (with file:line:col where the spec has
// a location), exit status 1, and no output file is left behind.
//
//===----------------------------------------------------------------------===//

#include "rkc/Compile.h"
#include "rkc/Occupancy.h"
#include "rkc/OutputFile.h"
#include "rkc/Run.h"
#include "rkc/Tuning.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

#include <cstdio>
#include <string>
#include <vector>

using llvm::StringRef;

namespace {

int usage(llvm::raw_ostream &os, int code) {
  os << "usage: rkc compile SPEC [--dtype f32|bf16|f16] --shape NAME=D0xD1... "
        "[--arch ARCH] [--sms N] [--dram-gbs N]\n"
        "                   [--emit rk|tier|cuda|ptx|cubin] [-o FILE] "
        "[--print-plan]\n"
        "                   [--schedule FIELD=V,...] [--streaming auto|always|never]\n"
        "       rkc run SPEC [--dtype ...] --shape NAME=D0xD1... [--reps N] "
        "[--seed S] [--schedule ...] [--print-plan]\n"
        "       rkc tune SPEC [--dtype ...] (--shape NAME=D0xD1... | --shapes FILE) "
        "[--budget-ms N]\n"
        "                   [--candidates] (also list every schedule the search timed)\n"
        "       rkc tune --report | --export FILE | --import FILE\n"
        "       rkc tune SPEC --print-key [--dtype ...] --shape ... [--sms N] [--dram-gbs N]\n"
        "       rkc tune SPEC [--dtype ...] --shape ... --try 'SCHEDULE;SCHEDULE...'\n"
        "                   (those schedules against the heuristic: no search, no database)\n"
        "       rkc version\n";
  return code;
}

int error(const llvm::Twine &msg) {
  llvm::errs() << msg << "\n";
  return 1;
}

/// Writes `data` to the output file `path` (rkc/OutputFile.h: whole or not
/// at all; devices such as /dev/null written through).
int writeOutput(const std::string &path, StringRef data) {
  if (llvm::Error e = rkc::writeOutputFile(path, data))
    return error("error: " + llvm::toString(std::move(e)));
  return 0;
}

int runCommand(std::vector<std::string> args);

/// The value after option args[i] into `dst` (advancing i); false if none.
bool takeValue(const std::vector<std::string> &args, size_t &i, std::string &dst) {
  // Not another option (`--dtype --shape x=...` would swallow --shape), not empty.
  if (i + 1 >= args.size() || StringRef(args[i + 1]).starts_with("--") || args[i + 1].empty())
    return false;
  dst = args[++i];
  return true;
}

/// Reads a spec file into `req` (text and name for diagnostics).
int readSpec(const std::string &path, rkc::CompileRequest &req) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return error("error: cannot read '" + path + "': " + buf.getError().message());
  req.specText = (*buf)->getBuffer().str();
  req.specName = path;
  return 0;
}
int tuneCommand(std::vector<std::string> args);

/// The planner's decisions, one "plan: ..." line each, on stderr.
void printRemarks(const std::vector<std::string> &remarks) {
  for (const std::string &r : remarks)
    llvm::errs() << "plan: " << StringRef(r).drop_front(r.rfind("plan: ") == 0 ? 6 : 0) << "\n";
}

/// The planner's view of the device (rkc compile, rkc tune --print-key):
/// `--sms N` and `--dram-gbs N`, integers in 1..max.
bool positiveUpTo(StringRef v, int max, int &dst) {
  unsigned n;
  if (v.getAsInteger(10, n) || n < 1 || n > (unsigned)max)
    return false;
  dst = (int)n;
  return true;
}
int smsError() {
  return error("error: --sms needs the device's SM count (1.." + llvm::Twine(rkc::plan::kMaxSms) +
               ")");
}
int dramError() {
  return error("error: --dram-gbs needs the device's DRAM bandwidth in GB/s (1.." +
               llvm::Twine(rkc::plan::kMaxDramGBs) + ")");
}

/// With a CUBIN: what ptxas gave the kernel and how many of its CTAs an SM
/// holds by each limit (rkc/Occupancy.h).
void printOccupancy(const rkc::KernelInfo &k, llvm::ArrayRef<char> cubin) {
  auto r = rkc::cubinResources(cubin, k.name);
  auto t = rkc::plan::lookupTarget(k.arch, 0, 0);
  if (!r || !t) {
    llvm::errs() << "kernel " << k.name << ": resources unknown ("
                 << (r ? "no target " + k.arch : llvm::toString(r.takeError())) << ")\n";
    return;
  }
  rkc::Occupancy o = rkc::occupancy(*t, k.ctaThreads, *r, k.smemBytes);
  llvm::errs() << "kernel " << k.name << ": " << r->registers << " registers, "
               << r->frameBytes << " bytes of local memory a thread, "
               << r->staticSmemBytes << " bytes of static shared memory; " << o.ctasPerSm
               << " CTAs an SM (registers " << o.byRegisters << ", shared memory "
               << o.bySharedMemory << ", threads " << o.byThreads << ", slots " << o.byCtaSlots
               << "): " << o.warpsPerSm << " of " << o.maxWarpsPerSm << " warps\n";
}

int compileCommand(std::vector<std::string> args) {
  rkc::CompileRequest req;
  std::string spec, out, emit = "ptx";
  bool printPlan = false;
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef a = args[i];
    auto value = [&](std::string &dst) {
      if (a.contains('=') && a.starts_with("--")) {
        dst = a.split('=').second.str();
        return true;
      }
      return takeValue(args, i, dst);
    };
    auto flag = [&](StringRef name) { return a == name || a.starts_with((name + "=").str()); };
    std::string v;
    if (flag("--shape")) {
      if (!value(v)) return error("error: --shape needs NAME=D0xD1...");
      req.options.shapes.push_back(v);
    } else if (flag("--dtype")) {
      if (!value(req.options.dtype)) return error("error: --dtype needs a value");
    } else if (flag("--arch")) {
      if (!value(req.options.arch)) return error("error: --arch needs a value");
    } else if (flag("--sms")) {
      if (!value(v) || !positiveUpTo(v, rkc::plan::kMaxSms, req.options.sms))
        return smsError();
    } else if (flag("--dram-gbs")) {
      if (!value(v) || !positiveUpTo(v, rkc::plan::kMaxDramGBs, req.options.dramGBs))
        return dramError();
    } else if (flag("--emit")) {
      if (!value(emit)) return error("error: --emit needs a value");
    } else if (flag("--schedule")) {
      if (!value(req.options.schedule)) return error("error: --schedule needs a value");
    } else if (flag("--streaming")) {
      if (!value(req.options.streaming)) return error("error: --streaming needs a value");
    } else if (a == "-o") {
      if (!takeValue(args, i, out))
        return error("error: -o needs a file name");
    } else if (a == "--print-plan") {
      printPlan = true;
    } else if (a == "-h" || a == "--help") {
      return usage(llvm::outs(), 0);
    } else if (a.starts_with("-")) {
      return error("error: unknown option '" + a + "'");
    } else if (spec.empty()) {
      spec = a.str();
    } else {
      return error("error: more than one spec given ('" + spec + "', '" + a + "')");
    }
  }
  if (spec.empty())
    return usage(llvm::errs(), 1);
  if (req.options.dtype.size() && req.options.dtype != "f32" &&
      req.options.dtype != "bf16" && req.options.dtype != "f16")
    return error("error: unsupported dtype '" + req.options.dtype +
                 "' (expected f32, bf16 or f16)");
  std::optional<rkc::Emit> stage;
  if (emit == "rk") stage = rkc::Emit::Rk;
  else if (emit == "tier") stage = rkc::Emit::Tier;
  else if (emit == "cuda") stage = rkc::Emit::Cuda;
  else if (emit == "ptx") stage = rkc::Emit::Ptx;
  else if (emit == "cubin") stage = rkc::Emit::Cubin;
  else
    return error("error: unknown --emit '" + emit + "' (rk, tier, cuda, ptx, cubin)");
  if (*stage == rkc::Emit::Cubin && out.empty())
    return error("error: --emit cubin writes a binary: give -o FILE");
  req.upTo = *stage;
  if (printPlan && req.upTo == rkc::Emit::Rk)
    req.upTo = rkc::Emit::Tier;

  if (int rc = readSpec(spec, req))
    return rc;
  auto res = rkc::compile(req);
  if (!res)
    return error(llvm::toString(res.takeError()));
  for (const std::string &w : res->warnings)
    llvm::errs() << w << "\n";

  if (printPlan) {
    printRemarks(res->remarks);
    for (const rkc::KernelInfo &k : res->kernels) {
      llvm::errs() << "kernel " << k.name << ": " << k.plan << ", " << k.ctaThreads
                   << " threads per CTA, ";
      if (k.gridCtas)
        llvm::errs() << "grid = " << k.gridCtas << " CTAs"
                     << (k.cluster > 1 ? " in clusters of " + std::to_string(k.cluster) : "")
                     << ", " << k.smemBytes << " bytes of shared memory\n";
      else {
        if (k.split > 1)
          llvm::errs() << "grid = min(M, groups resident at once) x " << k.split
                       << " CTAs (persistent, cooperative), " << k.workspaceBytes
                       << " bytes of workspace per group";
        else
          llvm::errs() << "grid = ceil(M / " << k.rowsPerCta << ") x " << k.cluster << " CTAs";
        // Beside registers and threads, what bounds the CTAs an SM.
        if (k.smemBytes)
          llvm::errs() << ", " << k.smemBytes << " bytes of shared memory";
        llvm::errs() << "\n";
      }
      if (*stage == rkc::Emit::Cubin)
        printOccupancy(k, res->cubin);
    }
  }
  std::string text;
  switch (*stage) {
  case rkc::Emit::Rk: text = res->rkIR; break;
  case rkc::Emit::Tier: text = res->tierIR; break;
  case rkc::Emit::Cuda: text = res->cuda; break;
  case rkc::Emit::Ptx: text = res->ptx; break;
  case rkc::Emit::Cubin: text.assign(res->cubin.begin(), res->cubin.end()); break;
  }
  if (out.empty() || out == "-") {
    llvm::outs() << text;
    return 0;
  }
  return writeOutput(out, text);
}

/// rkc run: random inputs on the GPU, checked against the double-precision
/// reference of the row program, timed with CUDA events (median).
int runCommand(std::vector<std::string> args) {
  rkc::CompileRequest req;
  req.options.arch = "";
  rkc::RunOptions opt;
  std::string spec;
  bool printPlan = false;
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef a = args[i];
    auto next = [&](std::string &dst) { return takeValue(args, i, dst); };
    std::string v;
    if (a == "--shape") {
      if (!next(v)) return error("error: --shape needs NAME=D0xD1...");
      req.options.shapes.push_back(v);
    } else if (a == "--dtype") {
      if (!next(req.options.dtype)) return error("error: --dtype needs a value");
    } else if (a == "--schedule") {
      if (!next(req.options.schedule)) return error("error: --schedule needs a value");
    } else if (a == "--print-plan") {
      printPlan = true;
    } else if (a == "--reps" || a == "--seed") {
      unsigned n;
      if (!next(v) || StringRef(v).getAsInteger(10, n) || n == 0)
        return error("error: " + a + " needs a positive integer");
      if (a == "--reps")
        opt.reps = (int)n;
      else
        opt.seed = n;
    } else if (a.starts_with("-")) {
      return error("error: unknown option '" + a + "'");
    } else if (spec.empty()) {
      spec = a.str();
    } else {
      return error("error: more than one spec given");
    }
  }
  if (spec.empty())
    return usage(llvm::errs(), 1);
  if (int rc = readSpec(spec, req))
    return rc;
  auto rep = rkc::runOnDevice(req, opt);
  if (!rep) {
    // A compile error is located ("file:line:col: error: ..."); others are not.
    std::string msg = llvm::toString(rep.takeError());
    return error(StringRef(msg).contains(": error: ") ? msg : "error: " + msg);
  }
  if (printPlan)
    printRemarks(rep->remarks);
  llvm::outs() << "plan: " << rep->plan << "\n";
  for (size_t i = 0; i < rep->check.relErrors.size(); ++i)
    llvm::outs() << "result #" << i << ": rel. error "
                 << llvm::format("%.3g", rep->check.relErrors[i]) << " (tolerance "
                 << rep->check.tolerance << ", " << rep->check.rowsChecked
                 << " rows checked), non-finite mismatches " << rep->check.nonFiniteMismatch[i]
                 << (rep->check.overflowNaNs[i]
                         ? llvm::formatv(" ({0} NaN where the reference overflows: accepted)",
                                         rep->check.overflowNaNs[i])
                               .str()
                         : std::string())
                 << (rep->check.resultPassed(i) || rep->check.worst[i].empty()
                         ? ""
                         : "; worst at " + rep->check.worst[i])
                 << "\n";
  llvm::outs() << "time: " << llvm::format("%.2f", rep->medianMs * 1e3)
               << " us (median of " << opt.reps << "), "
               << llvm::format("%.1f", rep->bytes / 1e6) << " MB moved, "
               << llvm::format("%.3f", rep->tbps) << " TB/s\n";
  llvm::outs() << (rep->check.passed ? "PASS" : "FAIL: does not match the reference") << "\n";
  return rep->check.passed ? 0 : 1;
}

/// rkc tune: per-shape autotuning into the tuning database.
int tuneCommand(std::vector<std::string> args) {
  rkc::TuningDb &db = rkc::TuningDb::get();
  std::string spec, shapesFile, dtype, arch;
  std::vector<std::string> shapes;
  rkc::TuneOptions opt;
  bool printKey = false;
  bool listCandidates = false; // --candidates: every schedule the search timed
  int sms = 0, dramGBs = 0; // --print-key's device (else the current one)
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef a = args[i];
    auto next = [&](std::string &dst) { return takeValue(args, i, dst); };
    std::string v;
    if (a == "--report") {
      llvm::outs() << llvm::format("%-22s %-6s %-22s %10s %8s %8s  %s\n", "kernel", "dtype",
                                   "shapes", "us", "TB/s", "vs heur", "schedule");
      for (const rkc::TuningEntry &e : db.entries())
        llvm::outs() << llvm::format("%-22s %-6s %-22s %10.2f %8.3f %7.2fx  %s\n",
                                     e.name.c_str(), e.dtype.c_str(), e.shapes.c_str(),
                                     e.ms * 1e3, e.tbps, e.heuristicMs / e.ms,
                                     e.schedule.c_str());
      return 0;
    } else if (a == "--export") {
      if (!next(v)) return error("error: --export needs a file");
      if (llvm::Error e = db.exportTo(v)) return error("error: " + llvm::toString(std::move(e)));
      return 0;
    } else if (a == "--import") {
      if (!next(v)) return error("error: --import needs a file");
      auto n = db.importFrom(v);
      if (!n) return error("error: " + llvm::toString(n.takeError()));
      llvm::outs() << "imported " << *n << " entries\n";
      return 0;
    } else if (a == "--shape") {
      if (!next(v)) return error("error: --shape needs NAME=D0xD1...");
      shapes.push_back(v);
    } else if (a == "--try") {
      if (!next(v)) return error("error: --try needs schedules separated by ';'");
      llvm::SmallVector<StringRef> items;
      StringRef(v).split(items, ';', -1, false);
      for (StringRef i : items)
        opt.trySchedules.push_back(i.trim().str());
    } else if (a == "--print-key") {
      printKey = true;
    } else if (a == "--candidates") {
      listCandidates = true;
    } else if (a == "--shapes") {
      if (!next(shapesFile)) return error("error: --shapes needs a file");
    } else if (a == "--dtype") {
      if (!next(dtype)) return error("error: --dtype needs a value");
    } else if (a == "--arch") {
      if (!next(arch)) return error("error: --arch needs a value");
    } else if (a == "--sms") {
      if (!next(v) || !positiveUpTo(v, rkc::plan::kMaxSms, sms)) return smsError();
    } else if (a == "--dram-gbs") {
      if (!next(v) || !positiveUpTo(v, rkc::plan::kMaxDramGBs, dramGBs)) return dramError();
    } else if (a == "--budget-ms") {
      unsigned n;
      if (!next(v) || StringRef(v).getAsInteger(10, n) || n == 0)
        return error("error: --budget-ms needs a positive integer");
      opt.budgetMs = n;
    } else if (a.starts_with("-")) {
      return error("error: unknown option '" + a + "'");
    } else {
      spec = a.str();
    }
  }
  if (spec.empty())
    return usage(llvm::errs(), 1);
  auto buf = llvm::MemoryBuffer::getFile(spec, /*IsText=*/true);
  if (!buf)
    return error("error: cannot read '" + spec + "': " + buf.getError().message());
  // One shape set per line of --shapes ("x=4096x8192 w=8192"), or --shape.
  std::vector<std::vector<std::string>> jobs;
  if (!shapesFile.empty()) {
    auto sb = llvm::MemoryBuffer::getFile(shapesFile, /*IsText=*/true);
    if (!sb)
      return error("error: cannot read '" + shapesFile + "': " + sb.getError().message());
    llvm::SmallVector<StringRef> lines;
    (*sb)->getBuffer().split(lines, '\n', -1, false);
    for (StringRef l : lines) {
      l = l.trim();
      if (l.empty() || l.starts_with("#"))
        continue;
      llvm::SmallVector<StringRef> parts;
      l.split(parts, ' ', -1, false);
      std::vector<std::string> job;
      for (StringRef p : parts)
        job.push_back(p.str());
      jobs.push_back(job);
    }
  } else {
    jobs.push_back(shapes);
  }
  if (jobs.empty() || llvm::any_of(jobs, [](const auto &j) { return j.empty(); }))
    return error("error: rkc tune needs the shapes to tune: --shape NAME=D0xD1... or --shapes "
                 "FILE (a file with at least one line)");
  if ((sms || dramGBs) && !printKey)
    return error("error: --sms and --dram-gbs describe a device for --print-key; tuning "
                 "plans for the GPU it times on");
  if (printKey) {
    // The database key of the request on this machine (tests, debugging).
    rkc::CompileRequest req;
    req.specText = (*buf)->getBuffer().str();
    req.options.shapes = shapes;
    req.options.dtype = dtype;
    req.options.arch = arch.empty() ? "sm_90a" : arch;
    llvm::outs() << "key " << rkc::tuningKey(req) << "\nop " << rkc::specSignature(req.specText)
                 << "\nmachine " << rkc::machineSignature() << "\ncodegen "
                 << rkc::kCodegenRevision << "\n";
    // What the database answers this request, and what the answer costs
    // (the lookup a compile makes before it compiles; median of 200).
    auto found = db.lookup(req);
    std::vector<double> us;
    for (int i = 0; i < 200; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      (void)db.lookup(req);
      us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                       .count());
    }
    std::sort(us.begin(), us.end());
    llvm::outs() << "lookup " << (found ? *found : std::string("miss")) << "\n"
                 << llvm::format("lookup_us %.2f (median of 200, %zu rows)\n", us[us.size() / 2],
                                 db.entries().size());
    // The heuristic's schedule, which a row tuned now would record
    // (scripts/tuning-stale compares it with the rows').
    req.options.sms = sms;
    req.options.dramGBs = dramGBs;
    auto heuristic = rkc::heuristicSchedule(req);
    if (!heuristic)
      return error("error: " + llvm::toString(heuristic.takeError()));
    llvm::outs() << "heuristic " << *heuristic << "\n";
    return 0;
  }
  // The search table's header, with its first row (not above an error;
  // --try prints its own table).
  bool header = !opt.trySchedules.empty();
  int failures = 0;
  for (const std::vector<std::string> &job : jobs) {
    rkc::CompileRequest req;
    req.specText = (*buf)->getBuffer().str();
    req.specName = spec;
    req.options.shapes = job;
    req.options.dtype = dtype;
    req.options.arch = arch;
    auto rep = rkc::tune(req, opt);
    std::string shapeText;
    for (const std::string &s : job)
      shapeText += (shapeText.empty() ? "" : " ") + s;
    if (!rep) {
      llvm::errs() << "error: " << shapeText << ": " << llvm::toString(rep.takeError()) << "\n";
      ++failures;
      continue;
    }
    // The heuristic, then each schedule timed (tagged `tag`): time, TB/s
    // and speedup over the heuristic, or why it failed.
    auto listTimed = [&](const char *tag) {
      for (size_t i = 0; i <= rep->tried.size(); ++i) {
        const rkc::TuneCandidate &c = i ? rep->tried[i - 1] : rep->heuristic;
        const char *t = i ? tag : "heuristic";
        if (c.ok)
          llvm::outs() << llvm::format("  %-9s %10.2f us %7.3f TB/s %6.3fx  %s\n", t, c.ms * 1e3,
                                       c.tbps, rep->heuristic.ms / c.ms, c.schedule.c_str());
        else
          llvm::outs() << "  " << t << "  " << c.schedule << ": " << c.why << "\n";
      }
    };
    if (!opt.trySchedules.empty()) {
      // The A/B table: the heuristic, then each schedule as given.
      llvm::outs() << shapeText << "\n";
      listTimed("try");
      continue;
    }
    if (!header) {
      llvm::outs() << llvm::format("%-24s %10s %8s %6s %9s %10s %8s  %s\n", "shapes", "us",
                                   "TB/s", "roof", "heur us", "speedup", "tune s", "schedule");
      header = true;
    }
    int pruned = 0;
    for (auto &kv : rep->pruned)
      pruned += kv.second;
    double roof = rep->entry.rooflineTbps;
    llvm::outs() << llvm::format("%-24s %10.2f %8.3f %5.0f%% %9.2f %9.2fx %8.1f  %s\n",
                                 shapeText.c_str(), rep->best.ms * 1e3, rep->best.tbps,
                                 roof > 0 ? 100.0 * rep->best.tbps / roof : 0.0,
                                 rep->heuristic.ms * 1e3, rep->heuristic.ms / rep->best.ms,
                                 rep->totalMs / 1e3, rep->best.schedule.c_str());
    llvm::outs() << "  " << rep->tried.size() << " candidates timed, " << pruned
                 << " pruned";
    for (auto &kv : rep->pruned)
      llvm::outs() << " [" << kv.second << " " << StringRef(kv.first).trim() << "]";
    llvm::outs() << ", " << rep->wrong << " wrong (discarded); set-up "
                 << llvm::format("%.0f", rep->setupMs) << " ms, compile "
                 << llvm::format("%.0f", rep->compileMs) << " ms, timing "
                 << llvm::format("%.0f", rep->timingMs) << " ms (checks "
                 << llvm::format("%.0f", rep->checkMs) << " ms)\n";
    if (listCandidates)
      listTimed("candidate");
  }
  return failures ? 1 : 0;
}

int dispatch(std::vector<std::string> args) {
  if (args.empty())
    return usage(llvm::errs(), 1);
  std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "compile")
    return compileCommand(args);
  if (cmd == "run")
    return runCommand(args);
  if (cmd == "tune")
    return tuneCommand(args);
  if (cmd == "version" || cmd == "--version") {
    llvm::outs() << "rkc " RKC_VERSION "\n";
    auto v = rkc::nvrtcVersion();
    if (v)
      llvm::outs() << "NVRTC " << *v << "\n";
    else
      llvm::outs() << "NVRTC unavailable: " << llvm::toString(v.takeError()) << "\n";
    llvm::outs() << "templates " << rkc::templateHash() << "\n";
    return 0;
  }
  if (cmd == "-h" || cmd == "--help" || cmd == "help")
    return usage(llvm::outs(), 0);
  llvm::errs() << "error: unknown command '" << cmd << "'\n";
  return usage(llvm::errs(), 1);
}

} // namespace

int main(int argc, char **argv) {
  int rc = dispatch(std::vector<std::string>(argv + 1, argv + argc));
  // Output on stdout (`--emit ptx` without -o, tables) that could not be
  // written (a full disk, a closed pipe): an error, not LLVM's fatal one
  // when the stream is destroyed.
  llvm::outs().flush();
  if (llvm::outs().has_error()) {
    std::error_code ec = llvm::outs().error();
    llvm::outs().clear_error();
    llvm::errs() << "error: cannot write to standard output: " << ec.message() << "\n";
    return 1;
  }
  return rc;
}
