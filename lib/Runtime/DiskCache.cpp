//===- DiskCache.cpp - the on-disk CUBIN cache ----------------------------===//

#include "DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <mutex>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace rkc;

static constexpr const char *kMagic = "RKC-KERNEL-CACHE 7 " RKC_VERSION;

static void warnOnce(const std::string &msg) {
  static std::mutex mu;
  static std::vector<std::string> seen;
  std::lock_guard<std::mutex> lock(mu);
  for (const std::string &s : seen)
    if (s == msg)
      return;
  seen.push_back(msg);
  llvm::errs() << "rkc: warning: " << msg << "\n";
}

static std::string sha256(llvm::StringRef data) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(data)), true);
}

std::optional<std::string> diskcache::directory() {
  if (const char *off = std::getenv("RKC_DISABLE_DISK_CACHE"); off && *off && *off != '0')
    return std::nullopt;
  std::string dir;
  if (const char *env = std::getenv("RKC_CACHE_DIR")) {
    if (!*env)
      return std::nullopt;
    dir = env;
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    dir = std::string(home) + "/.cache/rkc";
  } else {
    return std::nullopt;
  }
  std::string kernels = dir + "/kernels";
  if (std::error_code ec = llvm::sys::fs::create_directories(
          kernels, /*IgnoreExisting=*/true, llvm::sys::fs::perms::owner_all)) {
    warnOnce("cannot create the kernel cache '" + kernels + "' (" + ec.message() +
             "); compiling without a disk cache");
    return std::nullopt;
  }
  for (const std::string &d : {dir, kernels}) {
    struct stat st;
    if (::stat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      warnOnce("the kernel cache '" + d + "' is not a directory; not using it");
      return std::nullopt;
    }
    if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
      warnOnce("the kernel cache '" + d +
               "' is owned by another user or writable by others; not trusting it");
      return std::nullopt;
    }
  }
  if (::access(kernels.c_str(), W_OK) != 0) {
    warnOnce("the kernel cache '" + kernels + "' is not writable; compiling without a disk cache");
    return std::nullopt;
  }
  return kernels;
}

static void putBlob(std::string &out, llvm::StringRef tag, llvm::StringRef data) {
  out += tag.str() + " " + std::to_string(data.size()) + "\n";
  out += data.str();
  out += "\n";
}

std::string diskcache::serialize(const std::string &key, const CompileResult &r) {
  std::string payload;
  const KernelInfo &k = r.kernels.front();
  std::ostringstream info;
  info << k.name << "\n" << k.ctaThreads << " " << k.rowsPerCta << " " << k.cluster
       << " " << k.rows << " " << k.cols << " " << k.vector << " " << k.smemBytes << " "
       << k.gridCtas << " " << k.split << " " << k.workspaceBytes << "\n"
       << k.arch << "\n" << k.plan << "\n" << k.args.size() << "\n";
  for (const KernelArg &a : k.args) {
    info << a.name << " " << a.dtype << " " << (a.output ? 1 : 0) << " " << a.elemBytes
         << " " << a.alignBytes << " " << (a.contiguous ? 1 : 0) << " " << a.shape.size();
    for (int64_t d : a.shape)
      info << " " << d;
    info << "\n";
  }
  putBlob(payload, "info", info.str());
  putBlob(payload, "cubin", llvm::StringRef(r.cubin.data(), r.cubin.size()));
  putBlob(payload, "ptx", r.ptx);
  putBlob(payload, "cuda", r.cuda);
  putBlob(payload, "rk", r.rkIR);
  std::string remarks;
  for (const std::string &s : r.remarks)
    remarks += s + "\n";
  putBlob(payload, "remarks", remarks);
  // What the planner saw (row kernels): the tuner searches from it.
  std::ostringstream problem;
  problem.precision(17);
  if (const auto &p = r.problem)
    problem << p->rows << " " << p->cols << " " << p->elemBytes << " " << p->minElemBytes << " "
            << p->liveFrags << " " << p->liveFragsStaged << " " << p->reductions << " "
            << p->stateWords << " " << p->inputRowBytes << " " << p->inputElemBytes << " "
            << p->outputRowBytes << " " << p->rowVectorInputs << " " << (p->uniformInputs ? 1 : 0)
            << " " << p->liveAtReductions << " " << p->rowMathOps << " "
            << p->maxInputElemBytes << " " << p->reductionDepth << " " << p->rowExpOps << " "
            << p->combineMathOps;
  putBlob(payload, "problem", problem.str());
  // ... and column kernels.
  std::ostringstream column;
  if (const auto &c = r.columnProblem)
    column << (int)c->op << " " << c->rows << " " << c->k << " " << c->n << " " << c->bits << " "
           << c->group << " " << c->actBytes << " " << (c->bf16 ? 1 : 0) << " "
           << (c->symmetric ? 1 : 0);
  putBlob(payload, "column", column.str());
  return std::string(kMagic) + "\n" + key + "\n" + sha256(payload) + "\n" + payload;
}

std::optional<CompileResult> diskcache::deserialize(const std::string &key,
                                                    const std::string &bytes) {
  llvm::StringRef s(bytes);
  auto line = [&]() {
    auto [l, rest] = s.split('\n');
    s = rest;
    return l;
  };
  if (line() != kMagic || line() != key)
    return std::nullopt;
  llvm::StringRef digest = line();
  if (sha256(s) != digest)
    return std::nullopt;
  auto blob = [&](llvm::StringRef tag) -> std::optional<std::string> {
    auto [head, rest] = s.split('\n');
    auto [t, size] = head.split(' ');
    size_t n;
    if (t != tag || size.getAsInteger(10, n) || rest.size() < n + 1)
      return std::nullopt;
    std::string data = rest.substr(0, n).str();
    s = rest.drop_front(n + 1);
    return data;
  };
  auto info = blob("info"), cubin = blob("cubin"), ptx = blob("ptx"),
       cuda = blob("cuda"), rk = blob("rk"), remarks = blob("remarks"),
       problem = blob("problem"), column = blob("column");
  if (!info || !cubin || !ptx || !cuda || !rk || !remarks || !problem || !column ||
      cubin->empty())
    return std::nullopt;
  CompileResult r;
  KernelInfo k;
  std::istringstream in(*info);
  size_t nargs = 0;
  std::getline(in, k.name);
  in >> k.ctaThreads >> k.rowsPerCta >> k.cluster >> k.rows >> k.cols >> k.vector >>
      k.smemBytes >> k.gridCtas >> k.split >> k.workspaceBytes;
  in.ignore(1, '\n');
  std::getline(in, k.arch);
  std::getline(in, k.plan);
  in >> nargs;
  if (!in || nargs > 256)
    return std::nullopt;
  for (size_t i = 0; i < nargs; ++i) {
    KernelArg a;
    int out = 0, contiguous = 0;
    size_t rank = 0;
    in >> a.name >> a.dtype >> out >> a.elemBytes >> a.alignBytes >> contiguous >> rank;
    a.contiguous = contiguous != 0;
    if (!in || rank > 8)
      return std::nullopt;
    a.output = out != 0;
    a.shape.resize(rank);
    for (int64_t &d : a.shape)
      in >> d;
    k.args.push_back(a);
  }
  if (!in)
    return std::nullopt;
  r.kernels.push_back(k);
  r.cubin.assign(cubin->begin(), cubin->end());
  r.ptx = *ptx;
  r.cuda = *cuda;
  r.rkIR = *rk;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(*remarks).split(lines, '\n', -1, false);
  for (llvm::StringRef l : lines)
    r.remarks.push_back(l.str());
  if (!problem->empty()) {
    plan::RowProblem p;
    int uniform = 0;
    std::istringstream pin(*problem);
    pin >> p.rows >> p.cols >> p.elemBytes >> p.minElemBytes >> p.liveFrags >>
        p.liveFragsStaged >> p.reductions >> p.stateWords >> p.inputRowBytes >>
        p.inputElemBytes >> p.outputRowBytes >> p.rowVectorInputs >> uniform >>
        p.liveAtReductions >> p.rowMathOps >> p.maxInputElemBytes >> p.reductionDepth >>
        p.rowExpOps >> p.combineMathOps;
    if (!pin)
      return std::nullopt;
    p.uniformInputs = uniform != 0;
    r.problem = p;
  }
  if (!column->empty()) {
    plan::KSplitProblem c;
    int op = 0, bf16 = 0, symmetric = 0;
    std::istringstream cin(*column);
    cin >> op >> c.rows >> c.k >> c.n >> c.bits >> c.group >> c.actBytes >> bf16 >> symmetric;
    if (!cin || op < 0 || op > (int)plan::ColumnOp::Quantize)
      return std::nullopt;
    c.op = (plan::ColumnOp)op;
    c.bf16 = bf16 != 0;
    c.symmetric = symmetric != 0;
    r.columnProblem = c;
  }
  return r;
}

std::optional<CompileResult> diskcache::load(const std::string &key) {
  auto dir = directory();
  if (!dir)
    return std::nullopt;
  std::string path = *dir + "/" + key + ".rkc";
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return std::nullopt;
  auto r = deserialize(key, (*buf)->getBuffer().str());
  if (!r)
    warnOnce("ignoring the corrupt or foreign kernel cache entry '" + path + "'");
  return r;
}

void diskcache::store(const std::string &key, const CompileResult &r) {
  auto dir = directory();
  if (!dir || r.kernels.empty() || r.cubin.empty())
    return;
  std::string path = *dir + "/" + key + ".rkc";
  llvm::SmallString<256> tmp;
  int fd;
  if (llvm::sys::fs::createUniqueFile(*dir + "/." + key + ".%%%%%%%%.tmp", fd, tmp,
                                      llvm::sys::fs::OF_None, 0600)) {
    warnOnce("cannot write to the kernel cache '" + *dir + "'");
    return;
  }
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << serialize(key, r);
    os.flush();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      warnOnce("cannot write to the kernel cache '" + *dir + "' (disk full?)");
      return;
    }
  }
  if (llvm::sys::fs::rename(tmp, path))
    llvm::sys::fs::remove(tmp);
}
