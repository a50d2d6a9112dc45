"""Reading bench/results/*.jsonl and turning it into tables, plots and
docs/performance.md. No torch, no GPU: `python3 bench/bench.py --report X.jsonl`
runs this on any machine (matplotlib is needed for the plots only).

Record kinds (one JSON object per line, see bench/README.md):
  kind "roofline"   the 1 GiB fp32 copy of the run (what "start" / "end")
  kind "throughput" one (op, impl, dtype, M, N, mode) measurement
  kind "latency"    compile / cache-hit / first-call / launch-overhead figures
"""

import json
import os
import sys

OPS = ("rms_norm", "layer_norm", "softmax", "log_softmax", "cross_entropy")
OP_TITLE = {"rms_norm": "RMSNorm", "layer_norm": "LayerNorm", "softmax": "Softmax",
            "log_softmax": "Log-softmax", "cross_entropy": "Cross-entropy"}
DTYPE_ORDER = ("bf16", "f16", "f32")
# In-process cache hits, in table order. Runs before 2026-11-25 recorded
# rkc.Kernel(same request) as cache_hit_lib; later runs record it as
# cache_hit_kernel_obj and the C API's own hit as cache_hit_lib.
HIT_ORDER = ("cache_hit_py", "cache_hit_lib", "cache_hit_kernel_obj")
HIT_LABEL = {"cache_hit_py": "Python: `rkc.precompile` (the lookup every op call does)",
             "cache_hit_lib": "librkc: `rkcKernelCompile` of the same request + `rkcKernelDestroy` (two ctypes calls)",
             "cache_hit_kernel_obj": "Python: `rkc.Kernel(same request)` (the C hit, then the kernel's arguments and plan)"}


def _hits(by):
    """The in-process cache-hit records of `by` (records by kind) and
    hit_kinds over them."""
    hits = by.get("cache_hit_py", []) + by.get("cache_hit_lib", []) + by.get("cache_hit_kernel_obj", [])
    return hits, hit_kinds(hits)


def hit_kinds(records):
    """hit_what for these in-process cache-hit records: a cache_hit_lib
    record of a run that has no cache_hit_kernel_obj records (an older run)
    timed the Python Kernel object."""
    new_runs = set(r.get("run_id") for r in records if r["what"] == "cache_hit_kernel_obj")

    def what(r):
        if (r["what"] == "cache_hit_lib" and r.get("path") != "rkcKernelCompile"
                and r.get("run_id") not in new_runs):
            return "cache_hit_kernel_obj"
        return r["what"]
    return what
# Contenders in table / plot order. "rkc-tuned" appears only once rkc has a
# tuning database (see bench.py: rkc_tuned_ops).
IMPL_ORDER = ("rkc", "rkc-tuned", "torch", "torch.compile", "copy")
IMPL_TITLE = {"rkc": "rkc", "rkc-tuned": "rkc (tuned)", "torch": "torch eager",
              "torch.compile": "torch.compile", "copy": "copy (same bytes)"}
SWEEP_TOTAL = 1 << 27


# --- loading ---------------------------------------------------------------

def load(paths):
    """All records of the given jsonl files, in file order."""
    recs = []
    for p in paths:
        with open(p) as f:
            for i, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except ValueError as e:
                    sys.stderr.write("%s:%d: skipped a line that is not JSON (%s)\n" % (p, i, e))
                    continue
                if isinstance(r, dict):
                    recs.append(r)
    return recs


def _key(r):
    return (r.get("kind"), r.get("what"), r.get("part"), r.get("op"), r.get("impl"),
            r.get("dtype"), r.get("M"), r.get("N"), r.get("mode"))


def dedupe(recs):
    """The last record of each (kind, what, part, op, impl, dtype, M, N, mode):
    a re-run of a shape replaces the older figure."""
    last = {}
    for r in recs:
        last[_key(r)] = r
    return list(last.values())


def pick_device(recs, device=None):
    """Records of one device (the most frequent unless `device` is given):
    figures of different machines are never put in one table."""
    counts = {}
    for r in recs:
        d = r.get("device", "?")
        counts[d] = counts.get(d, 0) + 1
    if not counts:
        return [], None
    if device is None:
        device = max(counts, key=lambda d: counts[d])
    others = sorted(d for d in counts if d != device)
    if others:
        sys.stderr.write("report: using the records of %r; left out those of %s\n"
                         % (device, ", ".join(repr(d) for d in others)))
    return [r for r in recs if r.get("device", "?") == device], device


# --- selection helpers -----------------------------------------------------

def _ok(r):
    return r is not None and not r.get("error") and r.get("ms") is not None


def sweep_index(recs):
    """{(op, dtype, impl): {N: record}} of the single-launch M*N = 2^27 sweep."""
    idx = {}
    for r in recs:
        if r.get("kind") != "throughput" or r.get("part") != "sweep" or r.get("mode") != "single":
            continue
        idx.setdefault((r["op"], r["dtype"], r["impl"]), {})[r["N"]] = r
    return idx


def rooflines(recs):
    return [r["tbps"] for r in recs if r.get("kind") == "roofline" and _ok(r) and r.get("tbps")]


def _sorted_dtypes(ds):
    return sorted(ds, key=lambda d: (DTYPE_ORDER.index(d) if d in DTYPE_ORDER else 99, d))


def _sorted_impls(ims):
    return sorted(ims, key=lambda i: (IMPL_ORDER.index(i) if i in IMPL_ORDER else 99, i))


def _sorted_ops(ops):
    return sorted(ops, key=lambda o: (OPS.index(o) if o in OPS else 99, o))


def fmt_n(n):
    if n >= (1 << 20) and n % (1 << 20) == 0:
        return "%dM" % (n >> 20)
    if n >= 1024 and n % 1024 == 0:
        return "%dk" % (n >> 10)
    return str(n)


def _cell_tbps(r):
    if r is None:
        return "–"
    if r.get("error"):
        return "mismatch" if str(r["error"]).startswith("mismatch") else "error"
    return "%.2f" % r["tbps"]


def _short_error(e, n=160):
    e = " ".join(str(e).split())
    return e if len(e) <= n else e[:n - 1] + "…"


def speedup(rkc_rec, other):
    """Time ratio other / rkc (> 1: rkc is faster); None when either failed."""
    if not (_ok(rkc_rec) and _ok(other)) or not rkc_rec["ms"]:
        return None
    return other["ms"] / rkc_rec["ms"]


# --- compact text table (end of a run; the lead sees the last 12k chars) ---

def _cell_short(r, what="tbps"):
    if r is None:
        return "-"
    if r.get("error"):
        return "MISM" if str(r["error"]).startswith("mismatch") else "ERR"
    if what == "frac":
        return ("%.2f" % r["frac_roofline"]) if r.get("frac_roofline") else "-"
    if what == "us":
        return "%.1f" % (r["ms"] * 1e3)
    return "%.2f" % r["tbps"]


def _mismatch_value(e):
    parts = str(e).split()
    try:
        return "%.2g" % float(parts[1])
    except (IndexError, ValueError):
        return "see single"


def compact_table(recs):
    """A short text summary: one block of rows per (op, dtype) with N as
    columns, the small-batch table, latency lines, failures grouped."""
    lines = []
    rf = rooflines(recs)
    if rf:
        lines.append("copy roofline (1 GiB fp32, read+write): %s TB/s"
                     % " / ".join("%.2f" % v for v in rf))
    idx = sweep_index(recs)
    combos = sorted(set((o, d) for (o, d, _i) in idx),
                    key=lambda od: (OPS.index(od[0]) if od[0] in OPS else 99,
                                    DTYPE_ORDER.index(od[1]) if od[1] in DTYPE_ORDER else 99))
    if combos:
        lines.append("sweep M*N=2^27, TB/s (frac = rkc / copy roofline; cmp/rkc = torch.compile "
                     "time / rkc time; MISM = rkc output mismatch, not timed; ERR = failed)")
    for op, dt in combos:
        Ns = sorted(set(n for (o, d, _i), byn in idx.items() if o == op and d == dt for n in byn))
        lines.append("%-18s %s" % ("%s %s" % (op, dt), " ".join("%5s" % fmt_n(n) for n in Ns)))
        impls = _sorted_impls(set(i for (o, d, i) in idx if o == op and d == dt))

        def row(label, cells):
            lines.append("  %-16s %s" % (label, " ".join("%5s" % c[:5] for c in cells)))
        for impl in impls:
            byn = idx[(op, dt, impl)]
            row(impl, [_cell_short(byn.get(n)) for n in Ns])
            if impl in ("rkc", "rkc-tuned"):
                row("  frac", [_cell_short(byn.get(n), "frac") if not (byn.get(n) or {}).get("error")
                               else "" for n in Ns])
        if "rkc" in impls and "torch.compile" in impls:
            cells = []
            for n in Ns:
                sp = speedup(idx[(op, dt, "rkc")].get(n), idx[(op, dt, "torch.compile")].get(n))
                cells.append(("%.2f" % sp) if sp else "-")
            row("cmp/rkc", cells)
    small = small_rows(recs)
    if small:
        lines.append("small batch bf16, us per launch: single do_bench launch | CUDA graph of 48 "
                     "(per launch)")
        lines.append("%-13s %4s %4s | %6s %6s %6s %6s | %6s %6s %6s %6s"
                     % ("op", "M", "N", "rkc", "eager", "compl", "copy", "rkc", "eager", "compl", "copy"))
        for (op, M, N), cells in small:
            c = lambda impl, mode: _cell_short(cells.get((impl, mode)), "us")
            lines.append("%-13s %4d %4s | %6s %6s %6s %6s | %6s %6s %6s %6s"
                         % (op, M, fmt_n(N), c("rkc", "single"), c("torch", "single"),
                            c("torch.compile", "single"), c("copy", "single"), c("rkc", "graph"),
                            c("torch", "graph"), c("torch.compile", "graph"), c("copy", "graph")))
    lat = [r for r in recs if r.get("kind") == "latency"]
    if lat:
        lines.append("latency:")
        for line in latency_summary(lat, errors=False):
            lines.append("  " + line)
    errs = [r for r in recs if r.get("error")]
    if errs:
        groups = {}
        for r in errs:
            msg = _short_error(r["error"], 150)
            if msg.startswith("mismatch "):
                msg = "mismatch"
            groups.setdefault((r.get("impl"), msg), []).append(r)
        lines.append("%d failed measurement(s), by contender and message:" % len(errs))
        for (impl, msg), rs in sorted(groups.items(), key=lambda kv: -len(kv[1]))[:14]:
            where = ", ".join("%s %s %s%s" % (
                r.get("op"), r.get("dtype"),
                ("M=%s " % r["M"]) if r.get("part") == "small" else "",
                fmt_n(r["N"]) if isinstance(r.get("N"), int) else r.get("N"))
                + (" %s" % r["mode"] if r.get("mode") == "graph" else "")
                + (" (%s)" % r["what"] if r.get("kind") == "latency" else "")
                + (" [%s]" % _mismatch_value(r["error"]) if msg == "mismatch" else "")
                for r in rs[:6])
            lines.append("  %s x%d: %s -- %s%s" % (impl, len(rs), msg, where,
                                                   " ..." if len(rs) > 6 else ""))
        if len(groups) > 14:
            lines.append("  ... %d more kinds of failure (see the jsonl)" % (len(groups) - 14))
    return "\n".join(lines)


def small_rows(recs):
    """[((op, M, N), {(impl, mode): record})] of the small-batch part; the
    size-matched copy (op "copy") is shown on every op's row."""
    rows = {}
    copies = {}
    for r in recs:
        if r.get("kind") != "throughput" or r.get("part") != "small":
            continue
        if r.get("op") == "copy":
            copies[(r["M"], r["N"], r.get("mode"))] = r
            continue
        rows.setdefault((r["op"], r["M"], r["N"]), {})[(r["impl"], r.get("mode"))] = r
    for (op, M, N), cells in rows.items():
        for mode in ("single", "graph"):
            c = copies.get((M, N, mode))
            if c is not None:
                cells[("copy", mode)] = c
    return sorted(rows.items(), key=lambda kv: (OPS.index(kv[0][0]) if kv[0][0] in OPS else 99,
                                                kv[0][2], kv[0][1]))


def _median(v):
    v = sorted(v)
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def latency_summary(lat, errors=True):
    """One line per kind of latency figure (used by the compact table)."""
    out = []
    by = {}
    for r in lat:
        by.setdefault(r.get("what"), []).append(r)
    cold = [r for r in by.get("cold_compile", []) if _ok(r)]
    if cold:
        ms = [r["ms"] for r in cold]
        out.append("rkc cold compile (no cache): median %.0f ms, max %.0f ms over %d kernels"
                   % (_median(ms), max(ms), len(ms)))
    load = [r for r in by.get("first_launch", []) if _ok(r)]
    if load:
        out.append("rkc first launch after compile (module load): median %.1f ms"
                   % _median([r["ms"] for r in load]))
    disk = [r for r in by.get("disk_hit", []) if _ok(r)]
    if disk:
        ms = [r["ms"] for r in disk]
        out.append("rkc disk-cache hit (fresh process, kernel on disk): median %.2f ms, max %.2f ms"
                   % (_median(ms), max(ms)))
    for impl in ("rkc", "torch.compile"):
        fc = [r for r in by.get("first_call", []) if r.get("impl") == impl and _ok(r)]
        if fc:
            ms = [r["ms"] for r in fc]
            out.append("%s first call at a new shape: median %.0f ms, max %.0f ms (%d shapes)"
                       % (impl, _median(ms), max(ms), len(ms)))
    hits, hit_what = _hits(by)
    for what, label in (("cache_hit_py", "rkc Python cache hit (rkc.precompile)"),
                        ("cache_hit_lib", "librkc cache hit (rkcKernelCompile, same request)"),
                        ("cache_hit_kernel_obj", "rkc.Kernel object for a cached request")):
        h = [r for r in hits if hit_what(r) == what and _ok(r)]
        if h:
            out.append("%s: %.2f us" % (label, _median([r["us"] for r in h])))
    lo = [r for r in by.get("launch_overhead", []) if _ok(r)]
    if lo:
        out.append("host time per launch, 10k back-to-back (softmax M=1 N=256 bf16): " + ", ".join(
            "%s %.1f us" % (r["impl"], r["us"]) for r in sorted(lo, key=lambda r: _impl_rank(r["impl"]))))
    for r in lat:
        if errors and r.get("error"):
            out.append("%s %s %s N=%s failed: %s" % (r.get("what"), r.get("impl"), r.get("op"),
                                                      r.get("N"), _short_error(r["error"], 90)))
    return out


def _impl_rank(i):
    order = ("rkc", "rkc-raw", "rkc-tuned", "torch", "torch.compile")
    return order.index(i) if i in order else 99


# --- plots -----------------------------------------------------------------

_COLORS = {"rkc": "#d62728", "rkc-tuned": "#9467bd", "torch": "#1f77b4",
           "torch.compile": "#2ca02c"}
_STYLES = {"bf16": ("-", "o"), "f32": ("--", "s"), "f16": (":", "^")}


def make_plots(recs, out_dir, stem, device=None):
    """One PNG per op: TB/s vs N (log2 x), one line per contender and dtype,
    the copy roofline dashed. Returns {op: path}; {} without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # pragma: no cover - depends on the machine
        sys.stderr.write("report: no plots (matplotlib: %s)\n" % e)
        return {}
    idx = sweep_index(recs)
    rf = rooflines(recs)
    roof = sum(rf) / len(rf) if rf else None
    paths = {}
    os.makedirs(out_dir, exist_ok=True)
    for op in _sorted_ops(set(o for (o, _d, _i) in idx)):
        fig, ax = plt.subplots(figsize=(8.5, 5.2))
        allN = sorted(set(n for (o, _d, _i), byn in idx.items() if o == op for n in byn))
        top = max([roof or 0] + [r["tbps"] for (o, _d, _i), byn in idx.items() if o == op
                                 for r in byn.values() if _ok(r)])
        failed_any = False
        for dt in _sorted_dtypes(set(d for (o, d, _i) in idx if o == op)):
            for impl in _sorted_impls(set(i for (o, d, i) in idx if o == op and d == dt)):
                byn = idx[(op, dt, impl)]
                # A failed or missing N breaks the line (NaN) instead of joining across it.
                ys = [byn[n]["tbps"] if _ok(byn.get(n)) else float("nan") for n in allN]
                if all(y != y for y in ys):
                    continue
                ls, mk = _STYLES.get(dt, ("-.", "x"))
                color = _COLORS.get(impl, "#7f7f7f")
                ax.plot(allN, ys, linestyle=ls, marker=mk, markersize=4, color=color,
                        linewidth=1.6, label="%s %s" % (IMPL_TITLE.get(impl, impl), dt))
                bad = [n for n in allN if byn.get(n) is not None and byn[n].get("error")]
                if bad:
                    failed_any = True
                    ax.plot(bad, [0.03 * (top or 1)] * len(bad), linestyle="none", marker="x",
                            markersize=7, color=color)
        if failed_any:
            ax.plot([], [], linestyle="none", marker="x", color="#444444",
                    label="failed / mismatch (colour of the contender)")
        if roof:
            ax.axhline(roof, color="black", linestyle=(0, (5, 4)), linewidth=1.2,
                       label="copy roofline %.2f TB/s" % roof)
        ax.set_xscale("log", base=2)
        if allN:
            ax.set_xticks(allN)
            ax.set_xticklabels([fmt_n(n) for n in allN], fontsize=8)
        ax.set_xlabel("N (row length), M*N = 2^27")
        ax.set_ylabel("TB/s (model bytes / median time)")
        ax.set_ylim(0, top * 1.12 if top else 1)
        if any(r.get("dry_run") for r in recs):
            ax.text(0.5, 0.5, "DRY RUN\nFAKE TIMINGS", transform=ax.transAxes, fontsize=40,
                    color="#cc0000", alpha=0.18, ha="center", va="center", rotation=20)
        ax.grid(True, which="major", alpha=0.3)
        title = "%s forward" % OP_TITLE.get(op, op)
        if device:
            title += " — %s" % device
        ax.set_title(title, fontsize=11)
        ax.legend(fontsize=7, ncol=2, loc="lower left")
        fig.tight_layout()
        p = os.path.join(out_dir, "%s-%s.png" % (stem, op))
        fig.savefig(p, dpi=130)
        plt.close(fig)
        paths[op] = p
    return paths


# --- markdown --------------------------------------------------------------

BYTES_NOTE = """\
Model bytes (each input read once, each output written once; BENCH.md):

| op | bytes |
|---|---|
| RMSNorm | read x [M, N] + weight [N], write y [M, N] |
| LayerNorm | read x + weight [N] + bias [N], write y |
| softmax, log-softmax | read x, write y |
| cross-entropy, rkc | read logits + int64 targets (8 B/row), write loss and lse (f32, 8 B/row together: rkc writes both) |
| cross-entropy, torch / torch.compile | read logits + int64 targets, write loss (one element of the logits' dtype per row) |
| copy roofline | 1 GiB fp32 `b.copy_(a)`: 1 GiB read + 1 GiB written |

Because the byte counts of cross-entropy differ slightly between rkc and
torch, the "rkc / compile" column is a ratio of times (torch.compile time /
rkc time, > 1: rkc is faster), not of TB/s."""


def _fmt_meta(vals):
    vals = sorted(set(str(v) for v in vals if v not in (None, "")))
    return ", ".join(vals) if vals else "?"


def markdown(recs, device, plot_paths, docs_path, sources):
    out = []
    dry = any(r.get("dry_run") for r in recs)
    out.append("# rkc performance")
    out.append("")
    out.append("<!-- Generated by bench/bench.py (from %s); do not edit by hand: re-run\n"
               "     `python3 bench/bench.py --report FILE.jsonl` instead. -->"
               % ", ".join(os.path.relpath(s, os.path.dirname(os.path.abspath(docs_path)))
                           if os.path.isabs(s) or os.path.exists(s) else s for s in sources))
    out.append("")
    if dry:
        out.append("> **DRY RUN — FAKE TIMINGS.** These numbers were made up by "
                   "`bench.py --dry-run` to test the script; they measure nothing.")
        out.append("")
    rf = rooflines(recs)
    out.append("- Device: %s" % device)
    out.append("- Date: %s; rkc commit: %s (librkc built from %s)" % (
        _fmt_meta(r.get("date") for r in recs), _fmt_meta(r.get("commit") for r in recs),
        _fmt_meta(r.get("lib_commit") for r in recs)))
    out.append("- PyTorch %s, Triton %s, CUDA %s" % (
        _fmt_meta(r.get("torch") for r in recs), _fmt_meta(r.get("triton") for r in recs),
        _fmt_meta(r.get("cuda") for r in recs)))
    if rf:
        out.append("- Copy roofline (1 GiB fp32 `b.copy_(a)`, bytes read + written, same runs): "
                   "%s TB/s" % ("%.2f" % rf[0] if len(set(round(v, 2) for v in rf)) == 1
                                else "%.2f–%.2f" % (min(rf), max(rf))))
    out.append("- Timing: `triton.testing.do_bench(fn, warmup=25, rep=100, return_mode=\"median\")` "
               "(L2 flushed between repetitions), every contender in one process on the same "
               "tensors; rules in BENCH.md, method in [bench/README.md](%s)."
               % os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "README.md"),
                                 os.path.dirname(os.path.abspath(docs_path))))
    out.append("- rkc uses its heuristic plan (`RKC_DISABLE_TUNING_DB=1`; a tuned plan would be "
               "reported as \"rkc (tuned)\"); every rkc output is "
               "checked against torch eager before it is timed (relative L2 error ≤ 1e-2 for "
               "bf16/f16, ≤ 1e-4 for f32), a mismatch is reported instead of a speed.")
    out.append("- torch.compile: default mode, `dynamic=False`, one compiled function per (op, "
               "dtype) recompiled per shape; compile time is excluded from the timings and "
               "reported below.")
    out.append("")
    out.append(BYTES_NOTE)
    out.append("")

    idx = sweep_index(recs)
    docs_dir = os.path.dirname(os.path.abspath(docs_path))
    notes_all = []
    for op in _sorted_ops(set(o for (o, _d, _i) in idx)):
        out.append("## %s (forward), M·N = 2^27" % OP_TITLE.get(op, op))
        out.append("")
        if op in plot_paths:
            out.append("![%s TB/s vs N](%s)" % (OP_TITLE.get(op, op),
                                                os.path.relpath(plot_paths[op], docs_dir)))
            out.append("")
        for dt in _sorted_dtypes(set(d for (o, d, _i) in idx if o == op)):
            impls = set(i for (o, d, i) in idx if o == op and d == dt)
            tuned = "rkc-tuned" in impls
            out.append("### %s %s" % (OP_TITLE.get(op, op), dt))
            out.append("")
            head = ["N", "M", "rkc TB/s", "rkc / roofline"]
            if tuned:
                head += ["rkc tuned TB/s", "tuned / roofline"]
            head += ["torch eager TB/s", "torch.compile TB/s", "rkc / compile (time)"]
            out.append("| " + " | ".join(head) + " |")
            out.append("|" + "---|" * len(head))
            Ns = sorted(set(n for (o, d, _i), byn in idx.items() if o == op and d == dt for n in byn))
            for n in Ns:
                g = lambda impl: idx.get((op, dt, impl), {}).get(n)
                rk = g("rkc")
                M = next((r["M"] for r in (rk, g("torch"), g("torch.compile"), g("rkc-tuned"))
                          if r is not None), "")
                row = [fmt_n(n), str(M), _cell_tbps(rk),
                       ("%.2f" % rk["frac_roofline"]) if _ok(rk) and rk.get("frac_roofline") else "–"]
                if tuned:
                    t = g("rkc-tuned")
                    row += [_cell_tbps(t),
                            ("%.2f" % t["frac_roofline"]) if _ok(t) and t.get("frac_roofline") else "–"]
                sp = speedup(rk, g("torch.compile"))
                row += [_cell_tbps(g("torch")), _cell_tbps(g("torch.compile")),
                        ("%.2f×" % sp) if sp else "–"]
                out.append("| " + " | ".join(row) + " |")
                for impl in ("rkc", "rkc-tuned", "torch", "torch.compile"):
                    r = g(impl)
                    if r is not None and r.get("error"):
                        notes_all.append("%s %s N=%s, %s: %s" % (OP_TITLE.get(op, op), dt, fmt_n(n),
                                                                 IMPL_TITLE.get(impl, impl),
                                                                 _short_error(r["error"])))
            out.append("")

    small = small_rows(recs)
    if small:
        out.append("## Small batch (bf16), µs per launch")
        out.append("")
        out.append("\"single\": one launch timed by do_bench (carries ~4 µs of fixed launch "
                   "overhead); \"graph\": a CUDA graph replaying 48 launches over 48 distinct "
                   "buffers (data from HBM), time per launch. \"copy\" is `y.copy_(x)` of the "
                   "same [M, N] bf16 tensor, for reference. A single launch after do_bench's "
                   "L2 flush (a 256 MiB `zero_()`, ~83 µs on the H200) shows the host's time "
                   "whenever a contender's Python path is longer than the flush: "
                   "torch.compile's is 30-180 µs a call (\"host time per launch\" below), so "
                   "its single-launch cells of tens of µs are host time, not kernel time "
                   "(docs/performance-notes.md, session 40 item 3); the graph columns carry no "
                   "host time.")
        out.append("")
        head = ["op", "M", "N", "rkc", "torch eager", "torch.compile", "copy",
                "rkc graph", "torch eager graph", "torch.compile graph", "copy graph",
                "rkc graph TB/s (frac)"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---|" * len(head))
        for (op, M, N), cells in small:
            def us(impl, mode):
                r = cells.get((impl, mode))
                if r is None:
                    return "–"
                if r.get("error"):
                    notes_all.append("%s M=%d N=%s %s (%s): %s" % (
                        OP_TITLE.get(op, op), M, fmt_n(N), IMPL_TITLE.get(impl, impl), mode,
                        _short_error(r["error"])))
                    return "mismatch" if str(r["error"]).startswith("mismatch") else "error"
                return "%.2f" % (r["ms"] * 1e3)
            rg = cells.get(("rkc", "graph"))
            tb = ("%.2f (%.2f)" % (rg["tbps"], rg["frac_roofline"])) if _ok(rg) and rg.get("frac_roofline") else "–"
            out.append("| " + " | ".join([OP_TITLE.get(op, op), str(M), fmt_n(N),
                                          us("rkc", "single"), us("torch", "single"),
                                          us("torch.compile", "single"), us("copy", "single"),
                                          us("rkc", "graph"), us("torch", "graph"),
                                          us("torch.compile", "graph"), us("copy", "graph"), tb]) + " |")
        out.append("")

    lat = [r for r in recs if r.get("kind") == "latency"]
    if lat:
        out.extend(_latency_md(lat, notes_all))

    if notes_all:
        out.append("## Failed measurements")
        out.append("")
        seen = set()
        for n in notes_all:
            if n not in seen:
                seen.add(n)
                out.append("- " + n)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _latency_md(lat, notes_all):
    out = ["## Compile and launch latency", ""]
    by = {}
    for r in lat:
        by.setdefault(r.get("what"), []).append(r)
    cold = by.get("cold_compile", [])
    if cold:
        loads = {(r["op"], r["dtype"], r["M"], r["N"]): r for r in by.get("first_launch", [])}
        out.append("Cold compile of one rkc kernel (no cache: the spec text carries a unique "
                   "comment so neither the Python nor librkc's in-process cache can answer; "
                   "spec → MLIR passes → CUDA C++ → NVRTC → CUBIN), then its first launch "
                   "(module load + launch, synchronised):")
        out.append("")
        out.append("| op | dtype | M | N | compile ms | first launch ms | plan |")
        out.append("|---|---|---|---|---|---|---|")
        for r in sorted(cold, key=lambda r: (OPS.index(r["op"]) if r["op"] in OPS else 99, r["N"])):
            ld = loads.get((r["op"], r["dtype"], r["M"], r["N"]))
            if r.get("error"):
                notes_all.append("cold compile %s %s N=%s: %s" % (r["op"], r["dtype"], fmt_n(r["N"]),
                                                                 _short_error(r["error"])))
            out.append("| %s | %s | %d | %s | %s | %s | %s |" % (
                OP_TITLE.get(r["op"], r["op"]), r["dtype"], r["M"], fmt_n(r["N"]),
                "%.0f" % r["ms"] if _ok(r) else "error",
                ("%.1f" % ld["ms"]) if _ok(ld) else "–", "`%s`" % r["plan"] if r.get("plan") else ""))
        out.append("")
    fc = by.get("first_call", [])
    if fc:
        out.append("First call at a shape not seen before in the process (synchronised; rkc: "
                   "compile + load + launch; torch.compile: Dynamo trace + Inductor + Triton "
                   "compile + autotuning, on-disk caches as the machine had them):")
        out.append("")
        out.append("| impl | shapes | median ms | max ms |")
        out.append("|---|---|---|---|")
        for impl in ("rkc", "rkc-tuned", "torch.compile"):
            ms = [r["ms"] for r in fc if r.get("impl") == impl and _ok(r)]
            if ms:
                out.append("| %s | %d | %.0f | %.0f |" % (IMPL_TITLE.get(impl, impl), len(ms),
                                                          _median(ms), max(ms)))
        out.append("")
    disk = by.get("disk_hit", [])
    if disk:
        out.append("Disk-cache hit: a fresh process with the same cache directory asks for a "
                   "kernel compiled by another (after one request of another shape, which pays "
                   "librkc's and CUDA's one-time set-up): `rkc.Kernel(...)` reads and loads the "
                   "CUBIN, no compile:")
        out.append("")
        out.append("| op | dtype | M | N | ms |")
        out.append("|---|---|---|---|---|")
        for r in sorted(disk, key=lambda r: (OPS.index(r["op"]) if r["op"] in OPS else 99, r["N"])):
            if r.get("error"):
                notes_all.append("disk hit %s %s N=%s: %s" % (r["op"], r["dtype"], fmt_n(r["N"]),
                                                             _short_error(r["error"])))
            out.append("| %s | %s | %d | %s | %s |" % (
                OP_TITLE.get(r["op"], r["op"]), r["dtype"], r["M"], fmt_n(r["N"]),
                "%.2f" % r["ms"] if _ok(r) else "error"))
        out.append("")
    hits, hit_what = _hits(by)
    if hits:
        out.append("In-process cache hit (the kernel is already compiled):")
        out.append("")
        out.append("| path | op | N | µs per call |")
        out.append("|---|---|---|---|")
        for r in sorted(hits, key=lambda r: (HIT_ORDER.index(hit_what(r)), OPS.index(r["op"]) if r["op"] in OPS else 99, r["N"])):
            label = HIT_LABEL[hit_what(r)]
            out.append("| %s | %s | %s | %s |" % (label, r["op"], fmt_n(r["N"]),
                                                 "%.2f" % r["us"] if _ok(r) else "error"))
        out.append("")
    lo = by.get("launch_overhead", [])
    if lo:
        r0 = lo[0]
        out.append("Host time per launch: %d back-to-back calls of a tiny kernel (%s M=%d N=%d %s), "
                   "wall time to the final synchronisation / calls (median of 3):"
                   % (r0.get("n", 10000), r0["op"], r0["M"], r0["N"], r0["dtype"]))
        out.append("")
        out.append("| contender | µs per launch |")
        out.append("|---|---|")
        labels = {"rkc": "rkc.softmax (allocates y, checks, launches)",
                  "rkc-raw": "rkc.Kernel.launch (preallocated y: the binding's floor)",
                  "torch": "torch.softmax (eager)", "torch.compile": "torch.compile(softmax)"}
        for r in sorted(lo, key=lambda r: _impl_rank(r["impl"])):
            if r.get("error"):
                notes_all.append("launch overhead %s: %s" % (r["impl"], _short_error(r["error"])))
            out.append("| %s | %s |" % (labels.get(r["impl"], r["impl"]),
                                        "%.2f" % r["us"] if _ok(r) else "error"))
        out.append("")
    return out


# --- entry -----------------------------------------------------------------

def generate(paths, docs_path, plots_dir=None, device=None, quiet=False):
    """Reads the jsonl files, writes the plots and docs_path; returns the
    compact text table."""
    recs = load(paths)
    recs, device = pick_device(recs, device)
    recs = dedupe(recs)
    if not recs:
        raise SystemExit("report: no records in %s" % ", ".join(paths))
    if plots_dir is None:
        plots_dir = os.path.dirname(os.path.abspath(paths[0]))
    stem = os.path.splitext(os.path.basename(paths[0]))[0]
    plot_paths = make_plots(recs, plots_dir, stem, device)
    if not plot_paths:
        # No matplotlib here: link the PNGs of the GPU run if they were copied beside the jsonl.
        for op in OPS:
            p = os.path.join(plots_dir, "%s-%s.png" % (stem, op))
            if os.path.exists(p):
                plot_paths[op] = p
    text = markdown(recs, device, plot_paths, docs_path, paths)
    d = os.path.dirname(os.path.abspath(docs_path))
    os.makedirs(d, exist_ok=True)
    with open(docs_path, "w") as f:
        f.write(text)
    if not quiet:
        print("report: wrote %s%s" % (docs_path, "".join(
            "\nreport: wrote %s" % p for p in plot_paths.values())))
    return compact_table(recs)
