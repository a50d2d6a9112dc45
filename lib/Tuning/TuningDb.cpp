//===- TuningDb.cpp - the JSON-lines tuning database ----------------------===//
//
// Why JSON lines: one self-describing row per tuned shape, appended with a
// single write under an advisory lock (several processes may tune at
// once), readable and diffable, exportable to a fleet as a plain file, and
// a torn or foreign row costs only that row. SQLite would add a dependency
// for no query we need.
//
//===----------------------------------------------------------------------===//

#include "rkc/Tuning.h"
#include "rkc/Jit.h"
#include "rkc/OutputFile.h"
#include "rkc/Plan/RowPlan.h"
#include "rkc/Plan/Target.h"

#include "../Runtime/CudaDriver.h"
#include "../Runtime/DiskCache.h"
#include "../Runtime/Nvrtc.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace rkc::detail {
extern const char kDefaultTuningDb[];
}

using namespace rkc;

static constexpr int kFormat = 1;

std::string rkc::machineSignature() {
  auto nv = nvrtc::version();
  std::string v = nv ? *nv : (llvm::consumeError(nv.takeError()), std::string("none"));
  return cuda::deviceSignature() + "|nvrtc " + v + "|rkc " RKC_VERSION;
}

static std::string hashOf(llvm::StringRef s) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(s)), true).substr(0, 32);
}

static std::string shapesOf(const CompileRequest &r) {
  std::string s;
  for (const std::string &x : r.options.shapes)
    s += (s.empty() ? "" : ";") + x;
  return s;
}

std::string rkc::tuningKey(const CompileRequest &r) {
  return hashOf(specSignature(r.specText) + "\n" + shapesOf(r) + "\n" + r.options.dtype + "\n" +
                r.options.arch + "\n" + r.options.streaming + "\n" + machineSignature());
}

std::optional<TuningEntry> TuningDb::parseLine(llvm::StringRef line) {
  auto v = llvm::json::parse(line);
  if (!v) {
    llvm::consumeError(v.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *o = v->getAsObject();
  if (!o || o->getInteger("format") != kFormat)
    return std::nullopt;
  TuningEntry e;
  auto str = [&](const char *k, std::string &dst) {
    auto s = o->getString(k);
    if (!s)
      return false;
    dst = s->str();
    return true;
  };
  auto num = [&](const char *k, double &dst) {
    auto n = o->getNumber(k);
    if (!n)
      return false;
    dst = *n;
    return true;
  };
  double rows = 0, cols = 0;
  if (!str("key", e.key) || !str("op", e.op) || !str("name", e.name) ||
      !str("dtype", e.dtype) || !str("shapes", e.shapes) || !str("gpu", e.gpu) ||
      !str("nvrtc", e.nvrtc) || !str("rkc", e.rkcVersion) || !str("arch", e.arch) ||
      !str("schedule", e.schedule) || !num("ms", e.ms) || !num("tbps", e.tbps) ||
      !num("heuristic_ms", e.heuristicMs) || !num("M", rows) || !num("N", cols))
    return std::nullopt;
  num("roofline_tbps", e.rooflineTbps);
  if (auto c = o->getInteger("codegen"))
    e.codegen = (int)*c;
  str("heuristic", e.heuristic);
  if (auto g = o->getInteger("dram_gbs"))
    e.dramGBs = (int)*g;
  // Content, not only shape: a row whose numbers or schedule could not come
  // from `rkc tune` (an edited or corrupted file) is malformed. M and N are
  // positive whole numbers below 2^53 (exact in a JSON double), times
  // positive and finite, the dtype one of the three, the schedule one the
  // planner parses.
  auto count = [](double v) { return v >= 1 && v < 9007199254740992.0 && v == std::floor(v); };
  auto time = [](double v) { return v > 0 && std::isfinite(v); };
  if (!count(rows) || !count(cols) || !time(e.ms) || !time(e.heuristicMs) ||
      !(e.tbps >= 0 && std::isfinite(e.tbps)) ||
      (e.dtype != "f32" && e.dtype != "bf16" && e.dtype != "f16") ||
      !llvm::StringRef(e.arch).starts_with("sm_") || e.key.empty())
    return std::nullopt;
  if (auto sched = plan::parseOverride(e.schedule); !sched) {
    llvm::consumeError(sched.takeError());
    return std::nullopt;
  }
  e.rows = (int64_t)rows;
  e.cols = (int64_t)cols;
  return e;
}

std::string TuningDb::formatLine(const TuningEntry &e) {
  llvm::json::Object o{{"format", kFormat},  {"key", e.key},
                       {"op", e.op},         {"name", e.name},
                       {"dtype", e.dtype},   {"shapes", e.shapes},
                       {"M", e.rows},        {"N", e.cols},
                       {"gpu", e.gpu},       {"nvrtc", e.nvrtc},
                       {"rkc", e.rkcVersion}, {"arch", e.arch},
                       {"schedule", e.schedule}, {"ms", e.ms},
                       {"tbps", e.tbps},     {"heuristic_ms", e.heuristicMs},
                       {"roofline_tbps", e.rooflineTbps},
                       {"codegen", e.codegen}};
  if (!e.heuristic.empty())
    o["heuristic"] = e.heuristic;
  if (e.dramGBs > 0)
    o["dram_gbs"] = e.dramGBs;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(std::move(o));
  return s;
}

static std::optional<std::string> userDbPath() {
  auto dir = diskcache::directory(); // .../kernels
  if (!dir)
    return std::nullopt;
  return dir->substr(0, dir->rfind('/')) + "/tuning.jsonl";
}

/// Appends the usable rows of `text` to `out`, warning about the others;
/// returns how many were malformed.
static int parseInto(llvm::StringRef text, llvm::StringRef origin,
                     std::vector<TuningEntry> &out) {
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n', -1, false);
  int bad = 0, foreign = 0, stale = 0;
  for (llvm::StringRef l : lines) {
    if (l.trim().empty())
      continue;
    auto e = TuningDb::parseLine(l);
    if (!e)
      ++bad;
    else if (e->rkcVersion != RKC_VERSION)
      ++foreign;
    else if (e->codegen != kCodegenRevision)
      ++stale;
    else
      out.push_back(*e);
  }
  if (bad || foreign)
    llvm::errs() << "rkc: warning: tuning database " << origin << ": ignored " << bad
                 << " malformed and " << foreign << " foreign-version rows\n";
  if (stale)
    llvm::errs() << "rkc: warning: tuning database " << origin << ": ignored " << stale
                 << " rows timed with other generated code (codegen revision != "
                 << kCodegenRevision << "); re-tune those shapes with `rkc tune`\n";
  return bad;
}

void TuningDb::reload() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
  if (const char *off = std::getenv("RKC_DISABLE_TUNING_DB"); off && *off && *off != '0')
    return;
  parseInto(detail::kDefaultTuningDb, "(built in)", entries_);
  if (auto path = userDbPath())
    if (auto buf = llvm::MemoryBuffer::getFile(*path, /*IsText=*/true))
      parseInto((*buf)->getBuffer(), *path, entries_);
}

TuningDb &TuningDb::get() {
  static TuningDb db;
  return db;
}

std::vector<TuningEntry> TuningDb::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_;
}

/// Whether a row kernel tuned as `e` keeps its grid regime at `m` rows: the
/// tuned rows' schedules choose how a row spreads over CTAs (rows per CTA,
/// cluster, split) for the tuned row count (M x N = 2^27: hundreds to
/// hundreds of thousands of rows), and carried to a few rows of a nearby N
/// they would leave most SMs idle (a streamed cross-entropy row of 262144
/// tuned with one CTA per row, at 8 rows: 8 CTAs where the planner splits
/// each row over 64). So a nearby row carries over only where its schedule
/// gives the request as many CTAs as it gave the tuned rows, counted up to
/// two per SM (more is the same regime); otherwise the planner decides.
static bool sameGridRegime(const TuningEntry &e, int64_t m, int64_t sms) {
  int64_t rows = 1, perRow = 1;
  if (auto o = plan::parseOverride(e.schedule)) {
    rows = std::max<int64_t>(o->rows, 1);
    perRow = std::max<int64_t>({o->cluster, o->split, 1});
  } else {
    llvm::consumeError(o.takeError());
  }
  int64_t cap = 2 * sms;
  auto fill = [&](int64_t mm) { // min(ceil(mm / rows) x perRow, cap), no overflow
    int64_t groups = std::max<int64_t>(mm, 1) / rows + (mm % rows != 0);
    return groups >= cap || perRow >= cap ? cap : std::min(groups * perRow, cap);
  };
  return m > 0 && fill(m) >= fill(e.rows);
}

std::optional<std::string> TuningDb::lookup(const CompileRequest &r) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.empty())
    return std::nullopt;
  std::string key = tuningKey(r);
  std::string op = specSignature(r.specText);
  std::string gpu = cuda::deviceSignature();
  const TuningEntry *exact = nullptr, *near = nullptr;
  double bestDist = 1e30;
  int64_t m = 0, n = 0; // the request's rows and row length
  for (const std::string &s : r.options.shapes) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(s).split('=').second.split(parts, 'x');
    if (parts.size() == 2 && (parts.front().getAsInteger(10, m) || parts.back().getAsInteger(10, n)))
      m = n = 0;
  }
  auto target = plan::lookupTarget(r.options.arch, r.options.sms, r.options.dramGBs);
  int64_t sms = target ? target->planSms() : 132;
  // Later rows win (the user's over the built-in ones, newer over older).
  for (const TuningEntry &e : entries_) {
    if (e.key == key)
      exact = &e;
    if (e.op != op || e.dtype != r.options.dtype || e.gpu != gpu || e.arch != r.options.arch)
      continue;
    // Column kernels (their schedules name mma, KSplitPlan::schedule) match
    // exactly only: their best plan turns on K, N and M together.
    if (llvm::StringRef(e.schedule).contains("mma="))
      continue;
    // Nearest row length: the shape bucket, of rows that fill the GPU as
    // the tuned ones did.
    if (n <= 0 || !sameGridRegime(e, m, sms))
      continue;
    double dist = std::fabs(std::log2((double)n) - std::log2((double)e.cols));
    if (dist <= bestDist) {
      bestDist = dist;
      near = &e;
    }
  }
  if (exact)
    return exact->schedule;
  if (near && bestDist <= 1.0) { // within a factor of two of a tuned N
    // The layout choices carry over; values, unroll and the kept passes
    // of a streamed row follow from the new row length, so the planner
    // recomputes them (a keep beyond the new row's passes would not plan).
    // The vector width carries over too: where it does not divide the new
    // N the rows are shifted (read from the aligned address before each
    // row, templates/rkc/vec.cuh) and keep their 16-byte accesses, so a
    // streamed row stays fast there.
    llvm::SmallVector<llvm::StringRef> fields;
    llvm::StringRef(near->schedule).split(fields, ',', -1, false);
    std::string s;
    for (llvm::StringRef f : fields) {
      if (f.starts_with("values=") || f.starts_with("unroll=") || f.starts_with("keep="))
        continue;
      s += (s.empty() ? "" : ",") + f.str();
    }
    return s;
  }
  return std::nullopt;
}

llvm::Error TuningDb::add(const TuningEntry &e) {
  auto path = userDbPath();
  if (!path)
    return llvm::createStringError("no writable cache directory for the tuning database");
  std::string line = formatLine(e) + "\n";
  int fd = ::open(path->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0)
    return llvm::createStringError("cannot open " + *path);
  ::flock(fd, LOCK_EX);
  ssize_t n = ::write(fd, line.data(), line.size());
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (n != (ssize_t)line.size())
    return llvm::createStringError("short write to " + *path);
  std::lock_guard<std::mutex> lock(mu_);
  entries_.push_back(e);
  return llvm::Error::success();
}

llvm::Error TuningDb::exportTo(const std::string &path) const {
  std::string text;
  for (const TuningEntry &e : entries())
    text += formatLine(e) + "\n";
  return writeOutputFile(path, text);
}

llvm::Expected<int> TuningDb::importFrom(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return llvm::createStringError("cannot read " + path + ": " + buf.getError().message());
  std::vector<TuningEntry> rows;
  if (parseInto((*buf)->getBuffer(), path, rows) > 0 && rows.empty())
    return llvm::createStringError("no row of " + path + " can be imported: every row is "
                                   "malformed or of another rkc version or codegen revision");
  for (const TuningEntry &e : rows)
    if (llvm::Error err = add(e))
      return std::move(err);
  return (int)rows.size();
}
