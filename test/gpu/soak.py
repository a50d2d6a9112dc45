"""Soak run (issue #7): random ops, shapes and dtypes through the Python
binding for a fixed time, every result checked against a float64 PyTorch
reference, with host and device memory sampled throughout.

  python3 test/gpu/soak.py --seconds 600 --out DIR

The shape space is finite (N and M from fixed lists, plus the quantized ops
at a few shapes) and every kernel of it is compiled before the clock
starts, so after warm-up the in-process kernel caches cannot grow: any
growth of host RSS or of device memory outside PyTorch's allocator during
the timed part is a leak. Inputs are fresh random tensors per iteration,
with padded row strides, misaligned starts, huge values and -inf rows
mixed in. Writes DIR/soak-samples.jsonl (one memory sample every
--sample-s seconds) and DIR/soak-summary.json; prints one line per sample.
Exit status 0 only with 0 mismatches, 0 errors and no memory growth beyond
the stated slack.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import rkc  # noqa: E402
import custom_specs  # noqa: E402
import quant_reference as qref  # noqa: E402

DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
NS = [1, 7, 33, 255, 256, 1000, 1024, 3000, 4096, 8191, 16384, 50257, 65536, 262144]
MS = [1, 3, 128, 1000]
MAX_ELEMS = 1 << 25
ROW_OPS = ["rms_norm", "rms_norm_residual", "layer_norm", "layer_norm_nobias", "softmax",
           "log_softmax", "cross_entropy", "l2_normalize", "row_logsumexp"]
# (bits, group, symmetric, M, K, N, bias)
GEMVS = [(4, 128, True, 1, 4096, 4096, False), (4, 32, False, 3, 1024, 1000, True),
         (8, 128, True, 1, 2048, 3000, False), (4, 64, True, 16, 512, 72, True),
         (4, 0, True, 4, 256, 4097, False)]
# Custom specs, compiled once (their callables cache kernels per shape).
CUSTOM = {"l2_normalize": rkc.compile(custom_specs.L2_NORMALIZE),
          "row_logsumexp": rkc.compile(custom_specs.ROW_LOGSUMEXP)}
# Slack on growth between the end of warm-up and the end of the run.
HOST_SLACK_MB = 64
DEVICE_SLACK_MB = 32


def dtypes_of(op):
    return ["f32", "bf16", "f16"] if op in ("softmax", "log_softmax") else ["f32", "bf16"]


def shapes():
    return [(m, n) for m in MS for n in NS if m * n <= MAX_ELEMS]


def rel_err(out, ref):
    o, r = out.double(), ref.double()
    fin = torch.isfinite(r)
    if not torch.equal(torch.isnan(o), torch.isnan(r)):
        return float("inf")
    if not torch.equal(o[~fin & ~torch.isnan(r)], r[~fin & ~torch.isnan(r)]):
        return float("inf")
    o, r = o[fin], r[fin]
    if r.numel() == 0:
        return 0.0
    return float((o - r).norm() / r.norm().clamp_min(1e-30))


def rel_err_scaled(out, ref, scale):
    """max |out - ref| / max(|ref|, scale): for a result that is a difference
    of larger terms (a cross-entropy loss is lse - x[target], both of the
    size of the logits), whose float32 rounding is relative to the terms,
    not to the (possibly tiny) difference."""
    o, r = out.double(), ref.double()
    if not torch.equal(torch.isnan(o), torch.isnan(r)):
        return float("inf")
    fin = ~torch.isnan(r)
    den = torch.maximum(r.abs(), torch.as_tensor(scale, dtype=torch.float64, device=r.device))
    return float(((o - r).abs()[fin] / den.expand_as(r)[fin].clamp_min(1e-30)).max()) if bool(fin.any()) else 0.0


def tol(dt):
    return 1e-5 if dt == "f32" else 8e-3


def make_rows(rng, g, M, N, dt, op, layout=None):
    """x [M, N] of dtype dt: a view with a padded row stride and sometimes a
    start one element past an aligned one (layout = (off, pad) fixes both);
    huge values / -inf rows for the softmax family."""
    if layout is None:
        layout = (1 if rng.random() < 0.15 else 0, rng.choice([0, 0, 8, 3]))
    off, pad = layout
    big = torch.randn((M, N + pad + off), generator=g, device="cuda") * rng.choice([1.0, 1.0, 30.0])
    if op in ("softmax", "log_softmax", "row_logsumexp") and rng.random() < 0.2:
        big[rng.randrange(M)] = float("-inf")
        if N > 1:
            big[rng.randrange(M), rng.randrange(N)] = 3e4 if dt != "f16" else 6e4
    return big.to(DT[dt])[:, off:off + N]


def error_of(res):
    """The error of one (out, ref[, scale]) result of check_row."""
    return rel_err(res[0], res[1]) if len(res) == 2 else rel_err_scaled(*res)


def check_row(op, dt, M, N, rng, g, layout=None):
    x = make_rows(rng, g, M, N, dt, op, layout)
    w = torch.randn((N,), generator=g, device="cuda").to(DT[dt])
    b = torch.randn((N,), generator=g, device="cuda").to(DT[dt])
    xd = x.double()
    if op == "rms_norm":
        y = rkc.rms_norm(x, w)
        ref = xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-6) * w.double()
        return [(y, ref)]
    if op == "rms_norm_residual":
        r = torch.randn((M, N), generator=g, device="cuda").to(DT[dt])
        y, h = rkc.rms_norm(x, w, residual=r)
        hd = xd + r.double()
        ref = hd * torch.rsqrt(hd.pow(2).mean(-1, keepdim=True) + 1e-6) * w.double()
        return [(y, ref), (h, hd)]
    if op == "layer_norm":
        return [(rkc.layer_norm(x, w, b), F.layer_norm(xd, (N,), w.double(), b.double()))]
    if op == "layer_norm_nobias":
        return [(rkc.layer_norm(x, w), F.layer_norm(xd, (N,), w.double()))]
    if op == "softmax":
        return [(rkc.softmax(x), torch.softmax(xd, -1))]
    if op == "log_softmax":
        return [(rkc.log_softmax(x), torch.log_softmax(xd, -1))]
    if op == "cross_entropy":
        t = torch.randint(0, N, (M,), generator=g, device="cuda")
        if rng.random() < 0.3:
            t[rng.randrange(M)] = -100
        red = rng.choice(["none", "mean", "sum"])
        if red == "mean" and bool((t == -100).all()):
            red = "sum"
        loss = rkc.cross_entropy(x, t, reduction=red)
        # The scale of the terms: per row max |x| (a sum or mean of rows
        # adds them up like the losses).
        row = xd.abs().amax(-1)
        keep = (t != -100).double()
        scale = {"none": row, "sum": (row * keep).sum(),
                 "mean": (row * keep).sum() / keep.sum().clamp_min(1)}[red]
        return [(loss, F.cross_entropy(xd, t, reduction=red), scale)]
    if op == "l2_normalize":
        return [(CUSTOM["l2_normalize"](x), F.normalize(xd, dim=-1))]
    if op == "row_logsumexp":
        return [(CUSTOM["row_logsumexp"](x), torch.logsumexp(xd, -1))]
    raise ValueError(op)


def check_gemv(case, rng, g):
    bits, G, sym, M, K, N, bias = case
    w = torch.randn((K, N), generator=g, device="cuda", dtype=torch.float16)
    q = rkc.quantize(w, bits=bits, group_size=G or K, symmetric=sym)
    wd = rkc.dequantize(q, dtype=torch.float32)
    # Bit for bit the reference quantizer (docs/quantization.md).
    rq, rs, rz = qref.quantize(w, bits, G, sym, torch.float16)
    if not (torch.equal(q.scales, rs) and torch.equal(q.packed, qref.pack(rq, bits))
            and (rz is None or torch.equal(q.zeros, rz))):
        return "quantize differs from the reference quantizer"
    if not torch.equal(wd, qref.dequantize_f32(rq, rs, rz, G)):
        return "dequantize differs from the reference"
    x = torch.randn((M, K), generator=g, device="cuda", dtype=torch.float16)
    bb = torch.randn((N,), generator=g, device="cuda", dtype=torch.float16) if bias else None
    y = rkc.gemv(x, q, bias=bb)
    ref = qref.gemv(x, wd, bb)
    err = float((y.double() - ref).abs().max() / ref.abs().max().clamp_min(1e-30))
    return None if err <= 2e-3 else "gemv rel. error %.2e" % err


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def process_device_mb():
    """This process's device memory as the driver counts it (nvidia-smi per
    process, so other processes on the GPU do not count); None if unknown."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True,
                             timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[0] == str(os.getpid()):
            return float(parts[1])
    return None


def sample(t0, it):
    used = process_device_mb()
    if used is None:  # e.g. in a container without per-process accounting
        free, total = torch.cuda.mem_get_info()
        used = (total - free) / 2 ** 20
    return {"t": round(time.time() - t0, 1), "iters": it, "host_rss_mb": round(rss_mb(), 1),
            "device_used_mb": round(used, 1),
            "torch_reserved_mb": round(torch.cuda.memory_reserved() / 2 ** 20, 1),
            "torch_allocated_mb": round(torch.cuda.memory_allocated() / 2 ** 20, 1),
            "python_kernels": len(rkc.ops._kernels)}


def precompile_all():
    jobs = []
    for op in ROW_OPS[:7]:
        name = {"rms_norm_residual": "rms_norm", "layer_norm_nobias": "layer_norm"}.get(op, op)
        params = {"rms_norm_residual": {"residual": True},
                  "layer_norm_nobias": {"bias": False}}.get(op, {})
        for dt in dtypes_of(op):
            for s in shapes():
                jobs.append((name, s, DT[dt], params))

    def one(j):
        try:
            rkc.precompile(j[0], j[1], j[2], **j[3])
            return None
        except Exception as e:  # noqa: BLE001 - reported, counted
            return "%s %s %s: %s" % (j[0], j[1], j[2], str(e).splitlines()[0])

    with ThreadPoolExecutor(min(16, os.cpu_count() or 1)) as ex:
        errs = [e for e in ex.map(one, jobs) if e]
    return len(jobs), errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--sample-s", type=float, default=30)
    ap.add_argument("--warmup-s", type=float, default=30,
                    help="timed seconds before the memory baseline is taken")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=".")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    g = torch.Generator(device="cuda").manual_seed(a.seed)
    c0 = time.time()
    njobs, perrs = precompile_all()
    print("precompiled %d row kernels in %.1f s (%d errors)" % (njobs, time.time() - c0, len(perrs)),
          flush=True)
    for e in perrs[:10]:
        print("  precompile error: " + e, flush=True)
    # Warm-up: every (op, dtype, shape) once per alignment class (aligned,
    # odd row stride, misaligned start), checked like the timed part, so
    # that every kernel the timed part can ask for exists before it starts.
    c0 = time.time()
    warm_bad = []
    for op in ROW_OPS:
        for dt in dtypes_of(op):
            for m, n in shapes():
                for layout in ((0, 0), (0, 3), (1, 0)):
                    for res in check_row(op, dt, m, n, rng, g, layout):
                        e = error_of(res)
                        if not e <= tol(dt if op != "row_logsumexp" else "f32"):
                            warm_bad.append("%s %s M=%d N=%d %s: rel. error %.3e"
                                            % (op, dt, m, n, layout, e))
    for c in GEMVS:
        bad = check_gemv(c, rng, g)
        if bad:
            warm_bad.append("gemv %s: %s" % (c, bad))
    torch.cuda.synchronize()
    print("warm-up pass over every kernel: %.1f s, %d mismatches" % (time.time() - c0, len(warm_bad)),
          flush=True)
    for b in warm_bad[:10]:
        print("  " + b, flush=True)

    samples_path = os.path.join(a.out, "soak-samples.jsonl")
    sf = open(samples_path, "w")
    counts, mismatches, errors = {}, [], []
    t0 = time.time()
    next_sample, baseline, it = 0.0, None, 0
    while True:
        now = time.time() - t0
        if now >= next_sample:
            torch.cuda.synchronize()
            s = sample(t0, it)
            sf.write(json.dumps(s) + "\n")
            sf.flush()
            print("soak %6.1f s: %d checks, %d mismatches, %d errors, host %.0f MB, device %.0f MB "
                  "(torch reserved %.0f, allocated %.0f), kernels %d"
                  % (s["t"], it, len(mismatches), len(errors), s["host_rss_mb"],
                     s["device_used_mb"], s["torch_reserved_mb"], s["torch_allocated_mb"],
                     s["python_kernels"]), flush=True)
            if baseline is None and now >= a.warmup_s:
                baseline = s
            next_sample += a.sample_s
        if now >= a.seconds:
            break
        it += 1
        if rng.random() < 0.1:
            case = rng.choice(GEMVS)
            key = "gemv w%d g%d %s M=%d K=%d N=%d%s" % (
                case[0], case[1], "sym" if case[2] else "asym", case[3], case[4], case[5],
                " bias" if case[6] else "")
            counts["gemv"] = counts.get("gemv", 0) + 1
            try:
                bad = check_gemv(case, rng, g)
                if bad:
                    mismatches.append(key + ": " + bad)
            except Exception as e:  # noqa: BLE001
                errors.append(key + ": " + str(e).splitlines()[0])
            continue
        op = rng.choice(ROW_OPS)
        dt = rng.choice(dtypes_of(op))
        M, N = rng.choice(shapes())
        key = "%s %s M=%d N=%d" % (op, dt, M, N)
        counts[op] = counts.get(op, 0) + 1
        try:
            for res in check_row(op, dt, M, N, rng, g):
                e = error_of(res)
                if not e <= tol(dt if op != "row_logsumexp" else "f32"):
                    o, r = res[0].double().flatten(), res[1].double().flatten()
                    i = int((o - r).abs().nan_to_num(float("inf")).argmax())
                    mismatches.append("%s: error %.3e (at %d: %r vs reference %r)"
                                      % (key, e, i, float(o[i]), float(r[i])))
        except Exception as e:  # noqa: BLE001
            errors.append(key + ": " + (str(e).splitlines()[0] if str(e) else type(e).__name__))
            if len(errors) <= 3:
                traceback.print_exc()
    sf.close()
    end = sample(t0, it)
    base = baseline or end
    host_growth = end["host_rss_mb"] - base["host_rss_mb"]
    # Device memory outside PyTorch's caching allocator (modules, librkc).
    other = lambda s: s["device_used_mb"] - s["torch_reserved_mb"]  # noqa: E731
    dev_growth = other(end) - other(base)
    ok = (not mismatches and not errors and not perrs and not warm_bad
          and host_growth <= HOST_SLACK_MB and dev_growth <= DEVICE_SLACK_MB)
    summary = {"seconds": round(time.time() - t0, 1), "checks": it, "per_op": counts,
               "mismatches": len(mismatches), "errors": len(errors),
               "first_mismatches": mismatches[:20], "first_errors": errors[:20],
               "precompiled": njobs, "precompile_errors": perrs[:20],
               "warmup_mismatches": warm_bad[:20],
               "baseline": base, "end": end, "host_growth_mb": round(host_growth, 1),
               "device_growth_outside_torch_mb": round(dev_growth, 1),
               "slack_mb": {"host": HOST_SLACK_MB, "device": DEVICE_SLACK_MB},
               "device": torch.cuda.get_device_name(), "commit": os.environ.get("RKC_COMMIT"),
               "date": time.strftime("%Y-%m-%d"), "pass": ok}
    with open(os.path.join(a.out, "soak-summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps({k: summary[k] for k in ("seconds", "checks", "mismatches", "errors",
                                               "host_growth_mb", "device_growth_outside_torch_mb",
                                               "pass")}), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
