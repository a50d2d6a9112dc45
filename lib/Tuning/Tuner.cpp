//===- Tuner.cpp - search schedules around the heuristic ------------------===//
//
// Strategy (docs/tuning.md): the space is the planner's knobs — threads per
// row, cluster size, rows per CTA, launch-bound minimum blocks, vector
// width — with values per thread following from coverage. Candidates that
// break a resource limit are pruned by the planner's own checkPlan (the
// reasons are counted). The rest are ranked by the cost model's preference
// (about 4 vector loads in flight per thread, small clusters), the top ones
// are compiled in parallel and measured, then the search refines locally
// around the best (neighbouring threads / cluster / rows / min_blocks)
// until the budget is spent or nothing improves. Every candidate is checked
// against the reference before its time counts. Column kernels (rk.gemv,
// rk.quantize / rk.dequantize along K) search the column planner's knobs
// instead (ColumnSpace; docs/tuning.md, "Column kernels").
//
//===----------------------------------------------------------------------===//

#include "rkc/Tuning.h"
#include "rkc/Jit.h"
#include "rkc/Run.h"

#include "../Runtime/CudaDriver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>
#include <unordered_map>

using namespace rkc;
using Clock = std::chrono::steady_clock;

namespace {

/// A reason a candidate is invalid, bucketed by its first words (the
/// report counts candidates per bucket).
std::string bucketOf(const std::string &why) {
  return why.substr(0, why.find_first_of("(0123456789"));
}

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Space {
  const plan::RowProblem &p;
  const plan::Target &t;

  /// The full plan for (threads, cluster, rows, minBlocks, vector, staging),
  /// or the reason it is invalid. Staging is registers or async (both hold
  /// the row in registers; async copies it in through shared memory).
  std::pair<std::optional<plan::RowPlan>, std::string>
  make(int64_t threads, int64_t cluster, int64_t rows, int64_t minBlocks, int64_t vector,
       plan::Staging staging = plan::Staging::Registers) const {
    plan::RowPlan pl;
    pl.threads = threads;
    pl.cluster = cluster;
    pl.vector = vector;
    pl.rows = rows;
    pl.minBlocks = minBlocks;
    int64_t nvec = (p.cols + vector - 1) / vector;
    int64_t chunks = (nvec + threads * cluster - 1) / (threads * cluster);
    pl.values = chunks * vector;
    pl.unroll = chunks;
    pl.staging = staging;
    if (chunks > 16)
      return {std::nullopt, "too many values per thread"};
    if (threads * cluster * vector > 2 * std::max<int64_t>(p.cols, vector * 32) && threads > 32)
      return {std::nullopt, "threads idle (row shorter than the layout)"};
    plan::choosePrefetch(pl, p, t); // the planner's rule, for the layout at hand
    plan::chooseEvict(pl, p, t);    // the same (rule 8)
    std::string why = plan::checkPlan(pl, p, t);
    if (!why.empty())
      return {std::nullopt, bucketOf(why)};
    return {pl, ""};
  }

  /// Rows per CTA of the search's layouts: one row per cluster, else CTAs
  /// of at least 128 threads.
  static int64_t rowsFor(int64_t threads, int64_t cluster) {
    return cluster > 1 ? 1 : std::max<int64_t>(1, 128 / threads);
  }

  /// Cost-model preference: lower is better.
  static double score(const plan::RowPlan &pl) {
    double k = (double)pl.values / pl.vector;
    return std::fabs(std::log2(k) - 2.0) + 0.5 * std::log2((double)pl.cluster) +
           (pl.minBlocks ? 0.25 : 0.0);
  }
};

std::string scheduleOf(const plan::RowPlan &pl) { return pl.str(); }

/// The space of column kernels (rk.gemv, rk.quantize / rk.dequantize along
/// K): the planner's knobs cols, warps, cluster, unroll, mma and kwarps.
/// Every candidate goes through the planner as a full override, so its own
/// checks (registers, shared memory, cluster and group limits) prune it.
/// The search walks from the heuristic: each knob halved and doubled, the
/// K split moved between the warps of a CTA and the CTAs of a cluster,
/// the tensor-core plans' activations staged or read from global memory,
/// and the other product form (tensor cores or CUDA cores) as the planner
/// would plan it.
struct ColumnSpace {
  const plan::KSplitProblem &p;
  const plan::Target &t;

  /// `want` as the planner reads its schedule (a full override).
  std::pair<std::optional<plan::KSplitPlan>, std::string>
  make(const plan::KSplitPlan &want) const {
    auto o = plan::parseOverride(want.schedule());
    if (!o)
      return {std::nullopt, bucketOf(llvm::toString(o.takeError()))};
    return planned(*o);
  }
  std::pair<std::optional<plan::KSplitPlan>, std::string>
  planned(const plan::PlanOverride &o) const {
    auto pl = plan::planKSplit(p, t, o, nullptr);
    if (!pl) {
      std::string why = llvm::toString(pl.takeError());
      return {std::nullopt, bucketOf(why.substr(why.find(": ") == std::string::npos
                                                    ? 0
                                                    : why.find(": ") + 2))};
    }
    return {*pl, ""};
  }

  std::vector<plan::KSplitPlan> neighbours(const plan::KSplitPlan &b) const {
    std::vector<plan::KSplitPlan> out;
    auto with = [&](auto edit) {
      plan::KSplitPlan c = b;
      edit(c);
      if (c.cols >= 1 && c.warps >= 1 && c.cluster >= 1 && c.unroll >= 1)
        out.push_back(c);
    };
    for (int64_t f : {2, -2}) {
      auto scale = [f](int64_t v) { return f > 0 ? v * f : v / -f; };
      with([&](plan::KSplitPlan &c) { c.cols = scale(c.cols); });
      with([&](plan::KSplitPlan &c) { c.unroll = scale(c.unroll); });
      with([&](plan::KSplitPlan &c) { c.cluster = scale(c.cluster); });
      with([&](plan::KSplitPlan &c) {
        c.warps = scale(c.warps);
        c.kwarps = c.kwarps ? std::min(c.kwarps, c.warps) : 0;
      });
      if (b.mma)
        with([&](plan::KSplitPlan &c) {
          c.kwarps = scale(c.kWarps());
          if (c.kwarps == c.warps)
            c.kwarps = 0;
        });
    }
    // The same K split, moved between warps and the cluster.
    with([&](plan::KSplitPlan &c) { c.warps /= 2, c.cluster *= 2, c.kwarps = 0; });
    with([&](plan::KSplitPlan &c) { c.warps *= 2, c.cluster /= 2, c.kwarps = 0; });
    // The activations' other source on tensor cores (staged in shared
    // memory or read from global memory with each buffer): which wins
    // depends on the plan (docs/planner.md, column rule 5), e.g. 1.025x
    // for global reads at W4A16 M = 4 14336 x 4096 on the H200, not a
    // rule's case. A plan that does not fit staged falls back to global
    // reads (the same plan again: the search skips repeats).
    if (b.mma)
      with([&](plan::KSplitPlan &c) { c.globalActs = !c.globalActs; });
    return out;
  }

  /// Warps x cluster x unroll (powers of two) at b's columns, product form
  /// and kwarps (where it divides), ordered by distance from b.
  std::vector<plan::KSplitPlan> grid(const plan::KSplitPlan &b) const {
    std::vector<std::pair<double, plan::KSplitPlan>> scored;
    for (int64_t w = 1; w <= 32; w *= 2)
      for (int64_t c = 1; c <= t.maxCluster; c *= 2)
        for (int64_t u = 1; u <= 32; u *= 2) {
          plan::KSplitPlan x = b;
          x.warps = w, x.cluster = c, x.unroll = u;
          x.kwarps = b.kwarps && b.kwarps < w && w % b.kwarps == 0 ? b.kwarps : 0;
          double d = std::fabs(std::log2((double)w / b.warps)) +
                     std::fabs(std::log2((double)c / b.cluster)) +
                     std::fabs(std::log2((double)u / b.unroll));
          scored.push_back({d, x});
        }
    std::stable_sort(scored.begin(), scored.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<plan::KSplitPlan> out;
    for (auto &[d, x] : scored)
      out.push_back(x);
    return out;
  }

  /// The search's first batch: the heuristic's neighbours, the grid's
  /// points within one step of it in each of warps, cluster and unroll, and
  /// the other product form's plan.
  std::vector<plan::KSplitPlan> firstBatch(const plan::KSplitPlan &h) const {
    std::vector<plan::KSplitPlan> out = neighbours(h);
    auto near = [](int64_t a, int64_t b) { return a * 2 >= b && a <= b * 2; };
    for (const plan::KSplitPlan &x : grid(h))
      if (near(x.warps, h.warps) && near(x.cluster, h.cluster) && near(x.unroll, h.unroll))
        out.push_back(x);
    plan::PlanOverride other;
    other.mma = h.mma ? 0 : 1;
    if (auto [pl, why] = planned(other); pl) {
      out.push_back(*pl);
      for (const plan::KSplitPlan &n : neighbours(*pl))
        out.push_back(n);
    }
    return out;
  }
};

/// The staging the search varies: registers or async (of an override: async
/// only when it asks for it).
plan::Staging searchStaging(const plan::PlanOverride &o) {
  return o.staging == (int)plan::Staging::Async ? plan::Staging::Async
                                                : plan::Staging::Registers;
}
plan::Staging otherStaging(plan::Staging s) {
  return s == plan::Staging::Async ? plan::Staging::Registers : plan::Staging::Async;
}

} // namespace

/// A schedule whose rows are swept (stream, smem) or split over the grid
/// tier: outside the search's space.
static bool sweptOrSplit(const plan::PlanOverride &o) {
  return o.staging == (int)plan::Staging::Stream || o.staging == (int)plan::Staging::Smem ||
         o.split > 1;
}

/// The heuristic plan of a compiled column program (the search's origin:
/// its schedule in override syntax); none for a row program.
static llvm::Expected<std::optional<plan::KSplitPlan>>
columnHeuristicOf(const CompileResult &res, const plan::Target &target) {
  if (!res.columnProblem)
    return std::nullopt;
  auto pl = plan::planKSplit(*res.columnProblem, target, plan::PlanOverride{}, nullptr);
  if (!pl)
    return pl.takeError();
  return std::optional<plan::KSplitPlan>(*pl);
}

/// The heuristic's schedule of a compiled request: the column plan's, else
/// the row kernel's.
static llvm::Expected<std::string>
heuristicOf(const CompileResult &res, const std::optional<plan::KSplitPlan> &columnHeuristic) {
  if (columnHeuristic)
    return columnHeuristic->schedule();
  if (res.kernels.empty())
    return llvm::createStringError("the request compiled to no kernel");
  return res.kernels.front().plan;
}

llvm::Expected<std::string> rkc::heuristicSchedule(CompileRequest req) {
  if (llvm::Error e = resolveArch(req, "sm_90a"))
    return std::move(e);
  req.options.schedule = "";
  req.upTo = Emit::Cuda;
  auto res = rkc::compile(req);
  if (!res)
    return res.takeError();
  auto target = plan::lookupTarget(req.options.arch, req.options.sms, req.options.dramGBs);
  if (!target)
    return llvm::createStringError("unsupported arch " + req.options.arch);
  auto column = columnHeuristicOf(*res, *target);
  if (!column)
    return column.takeError();
  return heuristicOf(*res, *column);
}

llvm::Expected<TuneReport> rkc::tune(CompileRequest req, const TuneOptions &opt) {
  auto start = Clock::now();
  if (llvm::Error e = resolveArch(req))
    return std::move(e);
  req.upTo = Emit::Cubin;
  TuneReport rep;
  // The heuristic plan: the baseline, the reference and the search's origin.
  CompileRequest heur = req;
  heur.options.schedule = "";
  auto base = Kernel::get(heur);
  if (!base)
    return base.takeError();
  const CompileResult &bres = (*base)->result();
  if (!bres.problem && !bres.columnProblem)
    return llvm::createStringError("the tuner takes row programs and column programs "
                                   "(rk.gemv, rk.quantize / rk.dequantize along K)");
  auto target = plan::lookupTarget(req.options.arch, req.options.sms, req.options.dramGBs);
  if (!target)
    return llvm::createStringError("unsupported arch " + req.options.arch);
  // The heuristic column plan, as a schedule the search starts from.
  auto column = columnHeuristicOf(bres, *target);
  if (!column)
    return column.takeError();
  std::optional<plan::KSplitPlan> columnHeuristic = *column;
  auto harness = Harness::create((*base)->info(), bres.rkIR, /*seed=*/7);
  if (!harness)
    return harness.takeError();
  Harness &h = **harness;
  rep.setupMs = msSince(start);
  int64_t checkRows = bres.problem ? std::min<int64_t>(bres.problem->rows, 64) : 0;

  auto measure = [&](Kernel &k, TuneCandidate &c) -> llvm::Error {
    auto t0 = Clock::now();
    auto chk = h.check(k, checkRows);
    rep.checkMs += msSince(t0);
    if (!chk)
      return chk.takeError();
    if (!chk->passed) {
      c.ok = false;
      c.why = "wrong result (" + chk->describeFailure() + ")";
      ++rep.wrong;
      rep.timingMs += msSince(t0);
      return llvm::Error::success();
    }
    auto ms = h.timeMs(k, opt.reps);
    if (!ms)
      return ms.takeError();
    c.ms = *ms;
    c.tbps = h.bytes() / (*ms * 1e-3) / 1e12;
    c.ok = true;
    rep.timingMs += msSince(t0);
    return llvm::Error::success();
  };

  auto heuristic = heuristicOf(bres, columnHeuristic);
  if (!heuristic)
    return heuristic.takeError();
  rep.heuristic.schedule = *heuristic;
  if (llvm::Error e = measure(**base, rep.heuristic))
    return std::move(e);
  if (!rep.heuristic.ok)
    return llvm::createStringError("the heuristic schedule fails the reference check: " +
                                   rep.heuristic.why);
  rep.best = rep.heuristic;
  std::set<std::string> seen{rep.heuristic.schedule};

  unsigned width = std::max(1u, std::thread::hardware_concurrency());
  auto compileAll = [&](const std::vector<std::string> &batch) {
    std::vector<std::shared_ptr<Kernel>> kernels(batch.size());
    std::vector<std::string> errors(batch.size());
    std::atomic<size_t> next{0};
    auto t0 = Clock::now();
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < std::min<size_t>(width, batch.size()); ++i)
      pool.emplace_back([&] {
        for (size_t j; (j = next++) < batch.size();) {
          CompileRequest r = req;
          r.options.schedule = batch[j];
          auto k = Kernel::get(r);
          if (k)
            kernels[j] = *k;
          else
            errors[j] = llvm::toString(k.takeError());
        }
      });
    for (std::thread &t : pool)
      t.join();
    rep.compileMs += msSince(t0);
    return std::make_pair(kernels, errors);
  };

  auto progress = [&]() {
    if (opt.progress)
      llvm::errs() << llvm::formatv("\r  tuning: {0} candidates timed, {1} pruned, best "
                                    "{2:f3} TB/s ({3:f1} us)   ",
                                    rep.tried.size(), [&] {
                                      int n = 0;
                                      for (auto &kv : rep.pruned) n += kv.second;
                                      return n;
                                    }(),
                                    rep.best.tbps, rep.best.ms * 1e3);
  };

  // Compiles and times schedules (override text).
  auto runSchedules = [&](const std::vector<std::string> &batch) -> llvm::Error {
    auto [kernels, errors] = compileAll(batch);
    for (size_t i = 0; i < batch.size(); ++i) {
      TuneCandidate c;
      c.schedule = batch[i];
      if (!kernels[i]) {
        c.why = "compile failed: " + errors[i];
      } else if (llvm::Error e = measure(*kernels[i], c)) {
        c.why = llvm::toString(std::move(e));
      }
      if (c.ok && c.ms < rep.best.ms)
        rep.best = c;
      rep.tried.push_back(c);
      progress();
    }
    return llvm::Error::success();
  };

  auto finish = [&]() -> llvm::Expected<TuneReport> {
    if (opt.progress)
      llvm::errs() << "\n";
    rep.totalMs = msSince(start);
    if (!opt.trySchedules.empty())
      return rep; // an A/B: no database row
    // Keep the heuristic unless a candidate beats it beyond noise (1%).
    if (rep.best.ms > rep.heuristic.ms * 0.99)
      rep.best = rep.heuristic;
    TuningEntry &e = rep.entry;
    e.key = tuningKey(req);
    e.op = specSignature(req.specText);
    e.name = (*base)->info().name;
    e.dtype = req.options.dtype;
    for (const std::string &s : req.options.shapes)
      e.shapes += (e.shapes.empty() ? "" : ";") + s;
    e.rows = bres.problem ? bres.problem->rows : bres.columnProblem->rows;
    e.cols = bres.problem ? bres.problem->cols : bres.columnProblem->n;
    e.gpu = cuda::deviceSignature();
    auto nv = rkc::nvrtcVersion();
    e.nvrtc = nv ? *nv : (llvm::consumeError(nv.takeError()), std::string("none"));
    e.rkcVersion = RKC_VERSION;
    e.codegen = kCodegenRevision;
    e.arch = req.options.arch;
    e.schedule = rep.best.schedule;
    e.ms = rep.best.ms;
    e.tbps = rep.best.tbps;
    e.heuristicMs = rep.heuristic.ms;
    e.heuristic = rep.heuristic.schedule;
    e.dramGBs = req.options.dramGBs;
    if (auto roof = Harness::copyRooflineTbps())
      e.rooflineTbps = *roof;
    else
      llvm::consumeError(roof.takeError()); // 0: unknown, the row still counts
    if (llvm::Error err = TuningDb::get().add(e))
      return std::move(err);
    return rep;
  };

  if (columnHeuristic) {
    ColumnSpace space{*bres.columnProblem, *target};
    if (!opt.trySchedules.empty()) {
      // The planner reads each override as `rkc compile --schedule` does.
      if (llvm::Error e = runSchedules(opt.trySchedules))
        return std::move(e);
      return finish();
    }
    auto runPlans = [&](const std::vector<plan::KSplitPlan> &plans) -> llvm::Error {
      std::vector<std::string> batch;
      for (const plan::KSplitPlan &want : plans) {
        auto [pl, why] = space.make(want);
        if (!pl) {
          ++rep.pruned[why];
          continue;
        }
        if (seen.insert(pl->schedule()).second)
          batch.push_back(pl->schedule());
      }
      return runSchedules(batch);
    };
    // The plan of the best schedule so far.
    auto bestPlan = [&]() -> std::optional<plan::KSplitPlan> {
      auto parsed = plan::parseOverride(rep.best.schedule);
      if (!parsed) {
        llvm::consumeError(parsed.takeError());
        return std::nullopt;
      }
      return space.planned(*parsed).first;
    };
    // Local refinement around the best until no gain or no budget.
    auto refine = [&]() -> llvm::Error {
      for (int round = 0; round < 8 && msSince(start) < opt.budgetMs; ++round) {
        auto best = bestPlan();
        if (!best)
          break;
        double before = rep.best.ms;
        if (llvm::Error e = runPlans(space.neighbours(*best)))
          return e;
        if (rep.best.ms >= before * 0.995)
          break;
      }
      return llvm::Error::success();
    };
    if (llvm::Error e = runPlans(space.firstBatch(*columnHeuristic)))
      return std::move(e);
    if (llvm::Error e = refine())
      return std::move(e);
    // The rest of the budget: the grid of warps x cluster x unroll at the
    // best's columns and product form, nearest to the best first (a
    // column plan's optimum can sit two or more steps from the heuristic
    // in several knobs at once), then refinement around a new best.
    if (auto best = bestPlan(); best && msSince(start) < opt.budgetMs) {
      std::vector<plan::KSplitPlan> grid = space.grid(*best);
      double before = rep.best.ms;
      for (size_t i = 0; i < grid.size() && msSince(start) < opt.budgetMs; i += 2 * width) {
        std::vector<plan::KSplitPlan> batch(grid.begin() + i,
                                            grid.begin() + std::min(grid.size(), i + 2 * width));
        if (llvm::Error e = runPlans(batch))
          return std::move(e);
      }
      if (rep.best.ms < before * 0.995)
        if (llvm::Error e = refine())
          return std::move(e);
    }
    // The minimum of ~100-200 timings favours a lucky one: the best and
    // the heuristic are timed once more, side by side, and finish() keeps
    // the best only if it is still ahead by more than 1%.
    if (rep.best.schedule != rep.heuristic.schedule) {
      CompileRequest r = req;
      r.options.schedule = rep.best.schedule;
      auto k = Kernel::get(r);
      if (!k)
        return k.takeError();
      for (auto [kernel, cand] : {std::make_pair(k->get(), &rep.best),
                                  std::make_pair(base->get(), &rep.heuristic)}) {
        TuneCandidate again = *cand;
        if (llvm::Error e = measure(*kernel, again))
          return std::move(e);
        if (again.ok)
          cand->ms = again.ms, cand->tbps = again.tbps;
      }
    }
    return finish();
  }

  // The row space.
  const plan::RowProblem &p = *bres.problem;
  Space space{p, *target};
  std::vector<plan::RowPlan> cands;
  int64_t w0 = plan::pickVector(p.cols, p.minElemBytes);
  auto consider = [&](int64_t threads, int64_t cluster, int64_t rows, int64_t minBlocks,
                      int64_t vector, std::vector<plan::RowPlan> &out,
                      plan::Staging staging = plan::Staging::Registers) {
    auto [pl, why] = space.make(threads, cluster, rows, minBlocks, vector, staging);
    if (!pl) {
      ++rep.pruned[why];
      return;
    }
    if (seen.insert(scheduleOf(*pl)).second)
      out.push_back(*pl);
  };
  // The 16-byte vector, half of it, and the widest that divides N (rows
  // that start aligned; the others are shifted, templates/rkc/vec.cuh).
  std::vector<int64_t> vectors{w0};
  for (int64_t v : {std::max<int64_t>(w0 / 2, 1), plan::dividingVector(p.cols, w0)})
    if (!llvm::is_contained(vectors, v))
      vectors.push_back(v);
  for (int64_t vector : vectors)
    for (int64_t threads = 1; threads <= 1024; threads *= 2)
      for (int64_t cluster = 1; cluster <= target->maxCluster; cluster *= 2)
        for (int64_t minBlocks : {0, 2}) {
          int64_t rows = Space::rowsFor(threads, cluster);
          consider(threads, cluster, rows, minBlocks, vector, cands);
          if (cluster == 1 && threads < 512)
            consider(threads, cluster, rows * 2, minBlocks, vector, cands);
        }
  std::stable_sort(cands.begin(), cands.end(), [](const plan::RowPlan &a, const plan::RowPlan &b) {
    return Space::score(a) < Space::score(b);
  });

  auto runBatch = [&](const std::vector<plan::RowPlan> &batch) -> llvm::Error {
    std::vector<std::string> texts;
    for (const plan::RowPlan &pl : batch)
      texts.push_back(scheduleOf(pl));
    return runSchedules(texts);
  };

  if (!opt.trySchedules.empty()) {
    // An A/B of given schedules: measured as the search's candidates are,
    // each reported as the full schedule it resolved to. A try that names
    // no staging takes the heuristic's: where the heuristic sweeps or
    // splits its rows, the try varies that plan (e.g. `min_blocks=0`);
    // where it stages asynchronously, the try's layout is staged so too.
    // A try varies the heuristic: the fields it leaves unset are the
    // heuristic's. One that moves the layout (threads or cluster) takes the
    // search's rows and no min_blocks for it: the heuristic's belong to its
    // own layout (a min_blocks of 3 over 1024 threads is no launch bound).
    plan::PlanOverride heur;
    if (auto h = plan::parseOverride(rep.heuristic.schedule))
      heur = *h;
    else
      llvm::consumeError(h.takeError());
    int heuristicStaging = heur.staging;
    bool sweptHeuristic = sweptOrSplit(heur);
    auto reject = [&](const std::string &text, const std::string &why) {
      TuneCandidate c;
      c.schedule = text;
      c.why = "rejected: " + why;
      rep.tried.push_back(c);
    };
    std::vector<std::string> batch;
    for (const std::string &text : opt.trySchedules) {
      auto o = plan::parseOverride(text);
      if (!o)
        return o.takeError();
      if (sweptOrSplit(*o) || (sweptHeuristic && o->staging < 0) || o->keep > 0) {
        // Swept rows and split rows (the grid tier) are outside the
        // search's space: the override as the planner reads it (unset
        // fields from its rules), as `rkc compile --schedule` does. So is
        // a try that keeps passes (`keep`, streamed rows only: over a
        // registers heuristic the planner says why it cannot; it was timed
        // as the heuristic without a word).
        llvm::Expected<plan::RowPlan> pl = plan::planRow(p, *target, *o, nullptr);
        if (!pl)
          reject(text, llvm::toString(pl.takeError()));
        else
          batch.push_back(scheduleOf(*pl));
        continue;
      }
      if (o->staging < 0 && heuristicStaging == (int)plan::Staging::Async)
        o->staging = heuristicStaging;
      auto orElse = [](int64_t v, int64_t heuristic, int64_t fallback) {
        return v > 0 ? v : heuristic > 0 ? heuristic : fallback;
      };
      bool heuristicLayout = o->threads <= 0 && o->cluster <= 0;
      int64_t threads = orElse(o->threads, heur.threads, 256);
      int64_t cluster = orElse(o->cluster, heur.cluster, 1);
      int64_t rows = orElse(o->rows, heuristicLayout ? heur.rows : -1,
                            Space::rowsFor(threads, cluster));
      int64_t minBlocks = o->minBlocks >= 0 ? o->minBlocks
                          : heuristicLayout ? std::max<int64_t>(heur.minBlocks, 0)
                                            : 0;
      auto [pl, why] = space.make(threads, cluster, rows, minBlocks,
                                  orElse(o->vector, heur.vector, w0), searchStaging(*o));
      if (!pl) {
        reject(text, why);
        continue;
      }
      // The fields the search's layouts take from rules (values and unroll
      // follow from its threads, prefetch from the planner's rule 7, evict
      // from rule 8) unless the try names them; named ones used to be
      // dropped without a word (`unroll=1` timed as the heuristic's
      // unroll). The resolved layout with them, as the planner reads a full
      // override, which also checks them.
      if (o->values > 0 || o->unroll > 0 || (o->prefetch >= 0 && o->prefetch != pl->prefetch) ||
          (o->evict >= 0 && o->evict != pl->evictLast)) {
        auto full = plan::parseOverride(scheduleOf(*pl));
        if (!full)
          return full.takeError();
        if (o->values > 0) {
          full->values = o->values;
          full->unroll = -1; // the planner's for these values, unless named
        }
        if (o->unroll > 0)
          full->unroll = o->unroll;
        if (o->prefetch >= 0)
          full->prefetch = o->prefetch;
        if (o->evict >= 0)
          full->evict = o->evict;
        llvm::Expected<plan::RowPlan> named = plan::planRow(p, *target, *full, nullptr);
        if (!named) {
          reject(text, llvm::toString(named.takeError()));
          continue;
        }
        pl = *named;
      }
      batch.push_back(scheduleOf(*pl));
    }
    if (llvm::Error e = runSchedules(batch))
      return std::move(e);
    return finish();
  }

  // Phase 1: the cost model's favourites, and the asynchronously staged
  // form of the first four of them (the same layout through cp.async).
  size_t first = std::min<size_t>(cands.size(), std::max<size_t>(width, 8));
  std::vector<plan::RowPlan> batch(cands.begin(), cands.begin() + first);
  for (size_t i = 0; i < std::min<size_t>(first, 4); ++i) {
    const plan::RowPlan &c = cands[i];
    consider(c.threads, c.cluster, c.rows, c.minBlocks, c.vector, batch,
             otherStaging(c.staging));
  }
  // A streamed heuristic (outside the space above): its kept passes trade
  // shared memory against CTAs per SM and L1 (LayerNorm measured best with
  // one pass fewer than the other ops, docs/planner.md rule 5): one pass
  // fewer and one more, the rest of the plan the planner's.
  // And its CTAs per row the other way: a cluster for a split (the grid
  // tier), a split for a cluster; a split halved and doubled.
  if (auto h = plan::parseOverride(rep.heuristic.schedule);
      h && h->staging == (int)plan::Staging::Stream) {
    int64_t keep = std::max<int64_t>(h->keep, 0);
    std::vector<plan::PlanOverride> variants;
    for (int64_t k : {keep - 1, keep + 1})
      if (k >= 0) {
        variants.push_back(*h);
        variants.back().keep = k;
      }
    if (h->split > 1) {
      // A split's CTAs per row halved and doubled (the kept passes the
      // planner's for each), and the cluster instead.
      for (int64_t s2 : {h->split / 2, h->split * 2})
        if (s2 >= 2) {
          variants.push_back(*h);
          variants.back().split = s2;
          variants.back().keep = -1;
        }
      variants.push_back(*h);
      variants.back().cluster = std::min<int64_t>(h->split, target->maxCluster);
      variants.back().split = -1;
    } else if (h->cluster > 1) {
      variants.push_back(*h);
      variants.back().split = h->cluster;
      variants.back().cluster = -1;
    }
    for (const plan::PlanOverride &o : variants) {
      auto pl = plan::planRow(p, *target, o, nullptr);
      if (!pl) {
        llvm::consumeError(pl.takeError());
        ++rep.pruned["streamed variants the planner refuses (kept passes, split)"];
        continue;
      }
      if (seen.insert(scheduleOf(*pl)).second)
        batch.push_back(*pl);
    }
  }
  if (llvm::Error e = runBatch(batch))
    return std::move(e);
  // Phase 2: local refinement around the best until no gain or no budget.
  for (int round = 0; round < 6 && msSince(start) < opt.budgetMs; ++round) {
    auto parsed = plan::parseOverride(rep.best.schedule);
    if (!parsed)
      break;
    std::vector<plan::RowPlan> next;
    int64_t T = parsed->threads, C = parsed->cluster, R = parsed->rows,
            B = parsed->minBlocks, W = parsed->vector;
    plan::Staging S = searchStaging(*parsed);
    for (int64_t t2 : {T / 2, T * 2})
      if (t2 >= 1)
        consider(t2, C, Space::rowsFor(t2, C), B, W, next, S);
    for (int64_t c2 : {C / 2, C * 2})
      if (c2 >= 1)
        consider(T, c2, c2 > 1 ? 1 : R, B, W, next, S);
    for (int64_t r2 : {R / 2, R * 2})
      if (r2 >= 1 && C == 1)
        consider(T, C, r2, B, W, next, S);
    for (int64_t b2 : {int64_t(0), int64_t(1), int64_t(2), int64_t(4)})
      consider(T, C, R, b2, W, next, S);
    consider(T, C, R, B, W, next, otherStaging(S));
    if (next.empty())
      break;
    double before = rep.best.ms;
    if (llvm::Error e = runBatch(next))
      return std::move(e);
    if (rep.best.ms >= before * 0.995)
      break;
  }
  // Phase 3: the best with its rows' L2 hint the other way (evict = last
  // or normal; the layouts above take rule 8's): the rule is measured on
  // one GPU and declines clusters, where the hint won at some shapes.
  if (auto best = plan::parseOverride(rep.best.schedule); best && best->evict >= 0) {
    best->evict = 1 - best->evict;
    auto pl = plan::planRow(p, *target, *best, nullptr);
    if (!pl) {
      llvm::consumeError(pl.takeError());
      ++rep.pruned["the other L2 hint (evict) the planner refuses"];
    } else if (seen.insert(scheduleOf(*pl)).second) {
      std::vector<plan::RowPlan> other{*pl};
      if (llvm::Error e = runBatch(other))
        return std::move(e);
    }
  }
  return finish();
}

static llvm::Expected<std::shared_ptr<Kernel>> getTunedSlow(CompileRequest req);

llvm::Expected<std::shared_ptr<Kernel>> rkc::getTuned(CompileRequest req) {
  // The hit path: one hash-map lookup on the request as given and the
  // current device's SM count (plans are per SM count; a memoised driver
  // query, no hashing of keys, no database), a few microseconds.
  std::string fast = req.specText;
  cuda::CurrentDevice dev;
  if (!req.options.sms || !req.options.dramGBs)
    dev = cuda::currentDevice();
  fast += '\0' + std::to_string(req.options.sms ? req.options.sms : dev.sms);
  fast += '\0' + std::to_string(req.options.dramGBs ? req.options.dramGBs : dev.dramGBs);
  for (const std::string *s : {&req.options.dtype, &req.options.arch, &req.options.schedule,
                               &req.options.streaming})
    fast += '\0' + *s;
  for (const std::string &s : req.options.shapes)
    fast += '\0' + s;
  static std::mutex memoMu;
  static std::unordered_map<std::string, std::shared_ptr<Kernel>> memo;
  {
    std::lock_guard<std::mutex> lock(memoMu);
    auto it = memo.find(fast);
    if (it != memo.end())
      return it->second;
  }
  auto k = getTunedSlow(std::move(req));
  if (k) {
    std::lock_guard<std::mutex> lock(memoMu);
    if (memo.size() >= kMaxCachedKernels) // bounded as Kernel::get's (rkc/Jit.h)
      memo.clear();
    memo.emplace(std::move(fast), *k);
  }
  return k;
}

static llvm::Expected<std::shared_ptr<Kernel>> getTunedSlow(CompileRequest req) {
  if (llvm::Error e = resolveArch(req, "sm_90a"))
    return std::move(e);
  if (req.options.schedule.empty()) {
    if (auto s = TuningDb::get().lookup(req)) {
      // A database schedule that does not fit this request (a shape bucket
      // too far, a changed planner) falls back to the heuristic.
      CompileRequest tuned = req;
      tuned.options.schedule = *s;
      auto k = Kernel::get(tuned);
      if (k)
        return k;
      llvm::consumeError(k.takeError());
    } else if (const char *t = std::getenv("RKC_TUNE"); t && *t == '1') {
      TuneOptions opt;
      opt.progress = false;
      auto rep = tune(req, opt);
      if (rep)
        req.options.schedule = rep->best.schedule;
      else
        llvm::errs() << "rkc: warning: tuning failed, using the heuristic: "
                     << llvm::toString(rep.takeError()) << "\n";
    }
  }
  return Kernel::get(req);
}
