"""rkc row ops on the GPU against float64 PyTorch references.

Every output is poisoned (NaN) before the launch and must be fully written;
errors are ||out - ref|| / ||ref|| over the finite reference entries, with
NaN and infinity positions matching exactly. Kernels of the parametrized
cases are compiled up front, in parallel (RKC_TEST_COMPILE_THREADS).
"""

import time
import zlib

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

import rkc  # noqa: E402
import custom_specs  # noqa: E402
from conftest import gpu_unavailable, precompile_selected  # noqa: E402

DEV = "cuda"
DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
TOL = {"f32": 1e-5, "bf16": 8e-3, "f16": 8e-3}

NS = [1, 7, 31, 32, 33, 255, 256, 1000, 1024, 3000, 4096, 8191, 16384, 50257, 65536,
      131072, 151936, 262144]
MS = [1, 3, 128, 4097]
# (N, M): every N once and every M several times; M = 4097 only with
# N <= 4096, M <= 3 for N >= 65536. Two assignments, so that each N meets two
# different M across dtypes.
PAIRS_A = [(1, 4097), (7, 3), (31, 128), (32, 1), (33, 4097), (255, 3), (256, 128),
           (1000, 4097), (1024, 1), (3000, 128), (4096, 4097), (8191, 3), (16384, 128),
           (50257, 3), (65536, 1), (131072, 3), (151936, 1), (262144, 3)]
PAIRS_B = [(1, 3), (7, 4097), (31, 1), (32, 128), (33, 3), (255, 4097), (256, 1),
           (1000, 128), (1024, 4097), (3000, 3), (4096, 128), (8191, 1), (16384, 3),
           (50257, 128), (65536, 3), (131072, 1), (151936, 3), (262144, 1)]
for _p in (PAIRS_A, PAIRS_B):
    assert sorted(n for n, _ in _p) == NS
    assert sorted(set(m for _, m in _p)) == MS
    assert all(m <= 3 for n, m in _p if n >= 65536)
    assert all(n <= 4096 for n, m in _p if m == 4097)
PAIRS = {"f32": PAIRS_A, "bf16": PAIRS_B, "f16": PAIRS_A}


class Case(object):
    """One parametrized case; `kernels` lists what rkc.precompile warms."""

    def __init__(self, op, dtype, M, N, **params):
        self.op, self.dtype, self.M, self.N, self.params = op, dtype, M, N, params

    def __str__(self):
        extra = "".join("-%s" % (k if v is True else "%s=%s" % (k, v))
                        for k, v in sorted(self.params.items()) if v is not False)
        return "%s-%s-M%d-N%d%s" % (self.op, self.dtype, self.M, self.N, extra)

    __repr__ = __str__

    def kernels(self):
        p = {k: v for k, v in self.params.items() if k in ("residual", "bias", "eps", "ignore_index")}
        op = "log_softmax" if self.op == "log_softmax" else self.op
        return [(op, (self.M, self.N), self.dtype, tuple(sorted(p.items())))]


def cases(op, dtypes, **params):
    return [Case(op, dt, M, N, **params) for dt in dtypes for N, M in PAIRS[dt]]


# --- fixtures ----------------------------------------------------------------

@pytest.fixture(scope="session", autouse=True)
def _precompile(request):
    """Compiles the kernels of every selected case, on several threads."""
    if gpu_unavailable():
        return
    request.config._rkc_precompile = precompile_selected(
        request, Case, lambda op, shape, dt, params: rkc.precompile(op, shape, DT[dt], **dict(params)))


@pytest.fixture(autouse=True)
def poison(monkeypatch):
    """Outputs start as NaN (floats) or -7777 (ints)."""
    def empty(shape, dtype, device):
        t = torch.empty(shape, dtype=dtype, device=device)
        t.fill_(float("nan") if dtype.is_floating_point else -7777)
        return t
    monkeypatch.setattr(rkc.ops, "_empty", empty)


@pytest.fixture
def gen(request):
    g = torch.Generator(device=DEV)
    g.manual_seed(zlib.crc32(request.node.nodeid.encode()))
    return g


def randn(shape, dtype, gen, scale=1.0, shift=0.0):
    t = torch.randn(shape, generator=gen, device=DEV, dtype=torch.float32)
    return (t * scale + shift).to(DT[dtype] if isinstance(dtype, str) else dtype)


def check(out, ref, dtype, what="out"):
    """out (any dtype) against a float64 reference."""
    tol = TOL[dtype] if isinstance(dtype, str) else dtype
    assert tuple(out.shape) == tuple(ref.shape), (what, out.shape, ref.shape)
    o = out.double()
    r = ref.double()
    nan_r, nan_o = torch.isnan(r), torch.isnan(o)
    bad = nan_o & ~nan_r
    if bad.any():
        first = bad.nonzero()[0].tolist()
        pytest.fail("%s: %d NaN outputs where the reference is finite (first at %s): "
                    "unwritten or wrong" % (what, int(bad.sum()), first))
    miss = nan_r & ~nan_o
    if miss.any():
        first = miss.nonzero()[0].tolist()
        pytest.fail("%s: %d outputs are not NaN where the reference is (first at %s: %r)"
                    % (what, int(miss.sum()), first, o[tuple(first)].item()))
    rc = r.to(out.dtype).double() if out.dtype.is_floating_point else r
    inf_r = torch.isinf(rc)
    if inf_r.any():
        wrong = inf_r & (o != rc)
        if wrong.any():
            first = wrong.nonzero()[0].tolist()
            pytest.fail("%s: %d infinite reference entries differ (first at %s: %r vs %r)"
                        % (what, int(wrong.sum()), first, o[tuple(first)].item(),
                           rc[tuple(first)].item()))
    fin = ~nan_r & ~inf_r
    of, rf = o[fin], r[fin]
    if torch.isinf(of).any():
        pytest.fail("%s: %d infinite outputs where the reference is finite"
                    % (what, int(torch.isinf(of).sum())))
    d = (of - rf).norm().item()
    n = rf.norm().item()
    err = d / n if n > 0 else d
    assert err <= tol, "%s: relative error %.3e > %.0e" % (what, err, tol)


def check_scalar(out, ref, tol, what):
    o, r = float(out), float(ref)
    if r != r:
        assert o != o, "%s: %r, expected NaN" % (what, o)
        return
    assert abs(o - r) <= tol * max(abs(r), 1e-30) or o == r, "%s: %r vs %r" % (what, o, r)


def ref_rms_norm(x, w, eps, residual=None):
    h = x.double() if residual is None else x.double() + residual.double()
    y = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps) * w.double()
    return y, h


def ref_layer_norm(x, w, b, eps):
    return F.layer_norm(x.double(), (x.shape[-1],), w.double(),
                        None if b is None else b.double(), eps)


def ref_cross_entropy(logits, target, ignore_index):
    x = logits.double().reshape(-1, logits.shape[-1])
    t = target.reshape(-1).long()
    loss = F.cross_entropy(x, t, ignore_index=ignore_index, reduction="none")
    lse = torch.logsumexp(x, -1)
    keep = t != ignore_index
    mean = loss.sum() / keep.sum()
    return loss.reshape(target.shape), lse.reshape(target.shape), loss.sum(), mean


def make_target(M, N, gen, ignore_index=-100, frac=0.125):
    t = torch.randint(0, N, (M,), generator=gen, device=DEV)
    drop = torch.rand((M,), generator=gen, device=DEV) < frac
    return torch.where(drop, torch.full_like(t, ignore_index), t)


# --- the sweep ---------------------------------------------------------------

@pytest.mark.parametrize("case", cases("rms_norm", ["f32", "bf16"], eps=1e-6)
                         + cases("rms_norm", ["f32", "bf16"], residual=True, eps=1e-5), ids=str)
def test_rms_norm(case, gen):
    M, N, dt, eps = case.M, case.N, case.dtype, case.params["eps"]
    x = randn((M, N), dt, gen, 2.0, 0.5)
    w = randn((N,), dt, gen, 0.5, 1.0)
    if case.params.get("residual"):
        r = randn((M, N), dt, gen, 1.5)
        y, h = rkc.rms_norm(x, w, eps=eps, residual=r)
        yr, hr = ref_rms_norm(x, w, eps, r)
        check(h, hr, dt, "h")
        check(y, yr, dt, "y")
    else:
        y = rkc.rms_norm(x, w, eps=eps)
        check(y, ref_rms_norm(x, w, eps)[0], dt, "y")


@pytest.mark.parametrize("case", cases("layer_norm", ["f32", "bf16"], bias=True, eps=1e-5)
                         + cases("layer_norm", ["f32", "bf16"], bias=False, eps=1e-6), ids=str)
def test_layer_norm(case, gen):
    M, N, dt, eps = case.M, case.N, case.dtype, case.params["eps"]
    x = randn((M, N), dt, gen, 3.0, 1.0)
    w = randn((N,), dt, gen, 0.5, 1.0)
    b = randn((N,), dt, gen, 0.5) if case.params["bias"] else None
    y = rkc.layer_norm(x, w, b, eps=eps)
    check(y, ref_layer_norm(x, w, b, eps), dt, "y")


@pytest.mark.parametrize("case", cases("softmax", ["f32", "bf16", "f16"])
                         + cases("log_softmax", ["f32", "bf16", "f16"]), ids=str)
def test_softmax(case, gen):
    M, N, dt = case.M, case.N, case.dtype
    x = randn((M, N), dt, gen, 3.0)
    if case.op == "softmax":
        check(rkc.softmax(x), torch.softmax(x.double(), -1), dt, "softmax")
    else:
        check(rkc.log_softmax(x), torch.log_softmax(x.double(), -1), dt, "log_softmax")


@pytest.mark.parametrize("case", cases("cross_entropy", ["f32", "bf16"]), ids=str)
def test_cross_entropy(case, gen):
    M, N, dt = case.M, case.N, case.dtype
    x = randn((M, N), dt, gen, 4.0)
    t = make_target(M, N, gen)
    loss, lse = rkc.cross_entropy(x, t, reduction="none", return_lse=True)
    assert loss.dtype == torch.float32 and lse.dtype == torch.float32
    lr, lser, sr, mr = ref_cross_entropy(x, t, -100)
    check(loss, lr, dt, "loss")
    check(lse, lser, dt, "lse")
    check_scalar(rkc.cross_entropy(x, t, reduction="sum"), sr, TOL[dt], "sum")
    check_scalar(rkc.cross_entropy(x, t, reduction="mean"), mr, TOL[dt], "mean")
    check_scalar(rkc.cross_entropy(x, t), mr, TOL[dt], "default reduction (mean)")


# --- strides and alignment ---------------------------------------------------

LAYOUTS = {
    # name: (extra columns of the parent, column offset of x in it)
    "pad64": (64, 0),   # row stride N + 64: aligned (or, N odd, shifted like
                        # the outputs' rows): the full-vector kernel
    "pad3": (3, 0),     # row stride N + 3: odd (or, N odd, not the outputs'
                        # stride modulo any vector): falls back to vector = 1
    "off1": (64, 1),    # x starts one element in: falls back to vector = 1
    "off2": (66, 2),    # 4-byte (bf16) / 8-byte (f32) aligned: vector = 2
}


def strided(M, N, dt, gen, layout, scale=1.0):
    pad, off = LAYOUTS[layout]
    big = randn((M, N + pad), dt, gen, scale)
    x = big[:, off:off + N]
    assert x.stride() == (N + pad, 1)
    return x


def vec_at(N, dt, gen, layout, scale=0.5, shift=1.0):
    off = LAYOUTS[layout][1]
    return randn((N + off,), dt, gen, scale, shift)[off:]


STRIDE_CASES = [(op, dt, N, lay)
                for op in ("rms_norm", "rms_norm_residual", "layer_norm", "softmax",
                           "log_softmax", "cross_entropy")
                for dt in ("f32", "bf16")
                for N in (4095, 4096, 65536)
                for lay in LAYOUTS
                if N <= 4096 or op in ("rms_norm", "softmax", "cross_entropy")]


@pytest.mark.parametrize("op,dt,N,layout", STRIDE_CASES,
                         ids=["%s-%s-N%d-%s" % c for c in STRIDE_CASES])
def test_strided_rows(op, dt, N, layout, gen):
    M = 5 if N <= 4096 else 3
    x = strided(M, N, dt, gen, layout, 2.0)
    if op == "rms_norm":
        w = vec_at(N, dt, gen, layout)
        check(rkc.rms_norm(x, w), ref_rms_norm(x, w, 1e-6)[0], dt, "y")
    elif op == "rms_norm_residual":
        w = vec_at(N, dt, gen, layout)
        r = strided(M, N, dt, gen, "pad64" if layout == "off1" else layout)
        y, h = rkc.rms_norm(x, w, residual=r)
        yr, hr = ref_rms_norm(x, w, 1e-6, r)
        check(h, hr, dt, "h")
        check(y, yr, dt, "y")
    elif op == "layer_norm":
        w = vec_at(N, dt, gen, layout)
        b = vec_at(N, dt, gen, layout, 0.5, 0.0)
        check(rkc.layer_norm(x, w, b), ref_layer_norm(x, w, b, 1e-5), dt, "y")
    elif op == "softmax":
        check(rkc.softmax(x), torch.softmax(x.double(), -1), dt, "softmax")
    elif op == "log_softmax":
        check(rkc.log_softmax(x), torch.log_softmax(x.double(), -1), dt, "log_softmax")
    else:
        t = make_target(M, N, gen)
        loss, lse = rkc.cross_entropy(x, t, reduction="none", return_lse=True)
        lr, lser, _, _ = ref_cross_entropy(x, t, -100)
        check(loss, lr, dt, "loss")
        check(lse, lser, dt, "lse")
    # Misaligned layouts ran through a fallback kernel with narrower vectors.
    spec = {"rms_norm_residual": "rms_norm_residual", "layer_norm": "layer_norm"}.get(op, op)
    vecs = set(k[6] for k in list(rkc.ops._kernels)
               if k[0] == spec and k[2] == M and k[3] == N and k[4] == dt)
    if layout == "pad3" and op == "cross_entropy" and N % 2:
        # Its one [M, N] argument places the (shifted) rows by its own
        # stride: no other row stride to agree with, no fallback.
        assert vecs == {None}, vecs
    elif layout in ("pad3", "off1"):
        assert 1 in vecs, vecs
    elif layout == "off2":
        assert 2 in vecs, vecs


# --- special values ----------------------------------------------------------

BIG = {"f32": 3e38, "bf16": 3e38, "f16": 6e4}
HUGE = {"f32": 1e4, "bf16": 1e4, "f16": 1e4}


def special_rows(N, dt, gen):
    """Rows: all -inf; half -inf; huge spread; one +BIG max with -BIG others;
    constant; plain."""
    M = 6
    x = randn((M, N), "f32", gen, 1.0)
    x[0] = float("-inf")
    x[1, : (N + 1) // 2] = float("-inf")
    x[2] = randn((N,), "f32", gen, HUGE[dt])
    x[3, 0] = BIG[dt]
    x[3, 1::3] = -BIG[dt]
    x[4] = 5.0
    return x.to(DT[dt])


SPECIAL = [(op, dt, N) for op in ("softmax", "log_softmax") for dt in ("f32", "bf16", "f16")
           for N in (1, 33, 4096, 65536, 262144)] + [
    # Streamed rows (N = 1M), where 16-bit rows fold max then sum of exp in
    # registers: a max of 3e38 (beyond 2.36e38, max * log2(e) overflows f32)
    # must still give exp(max - max) = 1.
    (op, "bf16", 1048576) for op in ("softmax", "log_softmax")]


@pytest.mark.parametrize("op,dt,N", SPECIAL, ids=["%s-%s-N%d" % c for c in SPECIAL])
def test_special_values(op, dt, N, gen):
    x = special_rows(N, dt, gen)
    if op == "softmax":
        y, ref = rkc.softmax(x), torch.softmax(x.double(), -1)
    else:
        y, ref = rkc.log_softmax(x), torch.log_softmax(x.double(), -1)
    assert torch.isnan(ref[0]).all()  # a row of -inf: NaN, as in torch
    check(y, ref, dt, op)


def test_cross_entropy_streamed_max_logits(gen):
    # A streamed bf16 row (N = 1M) whose max logit is 3e38: the online fold
    # subtracts the max before scaling by log2(e) (the fused form overflowed
    # and lost the max's own term: loss and lse off by orders of magnitude).
    M, N, dt = 3, 1048576, "bf16"
    x = randn((M, N), "f32", gen, 3.0)
    x[0, 17] = 3e38
    x[1, 5::7] = -3e38
    x[1, 0] = 3e38
    x = x.to(DT[dt])
    t = torch.tensor([17, 0, 4], device=DEV)
    loss, lse = rkc.cross_entropy(x, t, reduction="none", return_lse=True)
    lr, lser, _, _ = ref_cross_entropy(x, t, -100)
    assert torch.isfinite(loss).all() and torch.isfinite(lse).all(), (loss, lse)
    check(loss, lr, dt, "loss")
    check(lse, lser, dt, "lse")


@pytest.mark.parametrize("dt", ["f32", "bf16"])
def test_cross_entropy_huge_logits(dt, gen):
    M, N = 4, 4096
    x = randn((M, N), "f32", gen, HUGE[dt]).to(DT[dt])
    t = make_target(M, N, gen, frac=0.0)
    loss, lse = rkc.cross_entropy(x, t, reduction="none", return_lse=True)
    lr, lser, _, _ = ref_cross_entropy(x, t, -100)
    check(loss, lr, dt, "loss")
    check(lse, lser, dt, "lse")


# --- cross-entropy semantics -------------------------------------------------

@pytest.mark.parametrize("dt", ["f32", "bf16"])
def test_cross_entropy_all_ignored(dt, gen):
    M, N = 5, 1000
    x = randn((M, N), dt, gen, 4.0)
    t = torch.full((M,), -100, dtype=torch.int64, device=DEV)
    loss = rkc.cross_entropy(x, t, reduction="none")
    assert torch.equal(loss, torch.zeros_like(loss))
    ref_mean = F.cross_entropy(x.double(), t, reduction="mean")
    assert torch.isnan(ref_mean)
    assert torch.isnan(rkc.cross_entropy(x, t, reduction="mean"))
    assert float(rkc.cross_entropy(x, t, reduction="sum")) == 0.0
    assert float(F.cross_entropy(x.double(), t, reduction="sum")) == 0.0


@pytest.mark.parametrize("ignore_index", [-1, 3, -100, 2 ** 40])
def test_cross_entropy_ignore_index(ignore_index, gen):
    M, N, dt = 64, 1000, "f32"
    x = randn((M, N), dt, gen, 4.0)
    t = make_target(M, N, gen, ignore_index=ignore_index, frac=0.25)
    t[:4] = 3  # targets equal to a valid ignore_index (3) are ignored
    for red in ("none", "sum", "mean"):
        out = rkc.cross_entropy(x, t, ignore_index=ignore_index, reduction=red)
        ref = F.cross_entropy(x.double(), t, ignore_index=ignore_index, reduction=red)
        if red == "none":
            check(out, ref, dt, "loss")
        else:
            check_scalar(out, ref, TOL[dt], red)


def test_cross_entropy_nd_and_int32(gen):
    B, T, V = 2, 3, 1000
    x = randn((B, T, V), "bf16", gen, 4.0)
    t = make_target(B * T, V, gen).reshape(B, T)
    loss = rkc.cross_entropy(x, t.to(torch.int32), reduction="none")
    assert loss.shape == (B, T)
    lr, _, _, mr = ref_cross_entropy(x, t, -100)
    check(loss, lr, "bf16", "loss")
    check_scalar(rkc.cross_entropy(x, t, reduction="mean"), mr, TOL["bf16"], "mean")


# --- shapes and views --------------------------------------------------------

def test_nd_inputs(gen):
    N, dt = 1000, "bf16"
    x = randn((2, 3, 7, N), dt, gen, 2.0)
    w = randn((N,), dt, gen, 0.5, 1.0)
    y = rkc.rms_norm(x, w)
    assert y.shape == x.shape
    check(y, ref_rms_norm(x, w, 1e-6)[0], dt, "4-D")
    # Leading dims that do not collapse (a transposed batch): copied to rows.
    base = randn((4, 3, N), dt, gen, 2.0)
    xt = base.transpose(0, 1)
    assert xt.stride(-1) == 1 and not xt.is_contiguous()
    check(rkc.rms_norm(xt, w), ref_rms_norm(xt, w, 1e-6)[0], dt, "transposed batch")
    check(rkc.softmax(xt), torch.softmax(xt.double(), -1), dt, "softmax transposed batch")
    # A single row as a 1-D tensor.
    x1 = randn((N,), dt, gen)
    y1 = rkc.layer_norm(x1, w)
    assert y1.shape == (N,)
    check(y1, ref_layer_norm(x1, w, None, 1e-5), dt, "1-D")
    # Broadcast rows (stride 0).
    xb = randn((1, N), dt, gen).expand(5, N)
    check(rkc.log_softmax(xb), torch.log_softmax(xb.double(), -1), dt, "expanded")
    # f32 weight with a bf16 input is cast.
    w32 = w.float()
    check(rkc.rms_norm(x, w32), ref_rms_norm(x, w, 1e-6)[0], dt, "f32 weight")


def test_noncontiguous_weight(gen):
    N, dt = 4096, "f32"
    x = randn((3, N), dt, gen)
    w = randn((2 * N,), dt, gen, 0.5, 1.0)[::2]
    check(rkc.rms_norm(x, w), ref_rms_norm(x, w, 1e-6)[0], dt, "strided weight")


# --- custom specs --------------------------------------------------------------

CUSTOM = [(dt, N, M) for dt in ("f32", "bf16")
          for N, M in ((1, 3), (33, 128), (1000, 4097), (4096, 1), (65536, 3), (262144, 1))]


@pytest.mark.parametrize("dt,N,M", CUSTOM, ids=["%s-M%d-N%d" % (d, m, n) for d, n, m in CUSTOM])
def test_custom_logsumexp(dt, N, M, gen):
    f = rkc.compile(custom_specs.ROW_LOGSUMEXP)
    x = randn((M, N), dt, gen, 3.0)
    if M > 1:
        x[0] = float("-inf")
    out = f(x)
    assert out.dtype == torch.float32 and out.shape == (M,)
    check(out, torch.logsumexp(x.double(), -1), 1e-5, "logsumexp")


@pytest.mark.parametrize("dt,N,M", CUSTOM, ids=["%s-M%d-N%d" % (d, m, n) for d, n, m in CUSTOM])
def test_custom_l2_normalize(dt, N, M, gen):
    f = rkc.compile(custom_specs.L2_NORMALIZE)
    x = randn((M, N), dt, gen, 2.0)
    out = f(x)
    assert out.dtype == DT[dt] and out.shape == (M, N)
    check(out, F.normalize(x.double(), dim=-1), dt, "l2_normalize")


@pytest.mark.parametrize("layout", ["pad64", "off1", "off2"])
@pytest.mark.parametrize("dt", ["f32", "bf16"])
def test_custom_two_results_strided(dt, layout, gen):
    N, M = 4096, 5
    f = rkc.compile(custom_specs.SCALE_AND_SUM, w=(N,))
    x = strided(M, N, dt, gen, layout)
    w = vec_at(N, dt, gen, layout)
    y, s = f(x, w)
    assert y.dtype == DT[dt] and s.dtype == torch.float32
    check(y, x.double() * w.double(), dt, "y")
    check(s, x.double().sum(-1), 1e-5 if dt == "f32" else 1e-4, "sum")
    # N-D input: results get the leading dims back.
    x3 = randn((2, 3, N), dt, gen)
    y3, s3 = f(x3, w)
    assert y3.shape == (2, 3, N) and s3.shape == (2, 3)
    check(y3, x3.double() * w.double(), dt, "y 3-D")


def test_custom_errors(gen):
    x = randn((3, 64), "f32", gen)
    bad = custom_specs.L2_NORMALIZE.replace("math.sqrt", "math.sqrtt")
    with pytest.raises(rkc.RkcError) as e:
        rkc.compile(bad, spec_name="bad.mlir")(x)
    assert "bad.mlir:" in str(e.value) and "error" in str(e.value)
    f = rkc.compile(custom_specs.SCALE_AND_SUM, w=(64,))
    with pytest.raises(TypeError):
        f(x)
    with pytest.raises(ValueError):
        f(x, randn((32,), "f32", gen))
    with pytest.raises(ValueError):
        f(x.cpu(), randn((64,), "f32", gen))
    with pytest.raises(TypeError):
        f(x, randn((64,), "bf16", gen))  # !rk.dtype args must agree


# --- errors --------------------------------------------------------------------

def _neg_cases():
    N = 256

    def x(dt=torch.float32, shape=(4, N)):
        return torch.randn(shape, device=DEV).to(dt)

    def w(n=N, dt=torch.float32):
        return torch.ones(n, device=DEV, dtype=dt)

    return [
        ("cpu-x", lambda: rkc.rms_norm(x().cpu(), w()), ValueError, "CUDA tensor"),
        ("cpu-weight", lambda: rkc.rms_norm(x(), w().cpu()), ValueError, "CUDA tensor"),
        ("int-x", lambda: rkc.softmax(x(torch.int32)), TypeError, "float32, bfloat16 or float16"),
        ("f64-x", lambda: rkc.softmax(x(torch.float64)), TypeError, "float64"),
        ("int-weight", lambda: rkc.rms_norm(x(), w(dt=torch.int64)), TypeError, "float tensor"),
        ("weight-size", lambda: rkc.rms_norm(x(), w(N + 1)), ValueError, r"shape \(256,\)"),
        ("weight-2d", lambda: rkc.layer_norm(x(), w().reshape(1, N)), ValueError, r"shape \(256,\)"),
        ("bias-size", lambda: rkc.layer_norm(x(), w(), w(N - 1)), ValueError, "bias"),
        ("no-weight", lambda: rkc.layer_norm(x(), None), TypeError, "weight is required"),
        ("last-dim-strided", lambda: rkc.softmax(x(shape=(N, 4)).t()), ValueError,
         "contiguous last dimension"),
        ("last-dim-strided-rms", lambda: rkc.rms_norm(x(shape=(4, 2 * N))[:, ::2], w()), ValueError,
         "contiguous last dimension"),
        ("zero-rows", lambda: rkc.softmax(x(shape=(0, N))), ValueError, "zero-size"),
        ("zero-cols", lambda: rkc.softmax(x(shape=(4, 0))), ValueError, "zero-size"),
        ("scalar", lambda: rkc.softmax(torch.tensor(1.0, device=DEV)), ValueError, "dimension"),
        ("not-a-tensor", lambda: rkc.softmax([1.0, 2.0]), TypeError, "torch.Tensor"),
        ("softmax-dim0", lambda: rkc.softmax(x(), dim=0), ValueError, "last dimension"),
        ("residual-shape", lambda: rkc.rms_norm(x(), w(), residual=x(shape=(3, N))), ValueError,
         "residual"),
        ("residual-dtype", lambda: rkc.rms_norm(x(), w(), residual=x(torch.bfloat16)), TypeError,
         "residual"),
        ("eps-negative", lambda: rkc.rms_norm(x(), w(), eps=-1.0), ValueError, "eps"),
        ("eps-nan", lambda: rkc.layer_norm(x(), w(), eps=float("nan")), ValueError, "eps"),
        ("ce-target-size", lambda: rkc.cross_entropy(x(), torch.zeros(5, dtype=torch.int64, device=DEV)),
         ValueError, "target must have shape"),
        ("ce-target-float", lambda: rkc.cross_entropy(x(), torch.zeros(4, device=DEV)), TypeError,
         "integer"),
        ("ce-target-cpu", lambda: rkc.cross_entropy(x(), torch.zeros(4, dtype=torch.int64)), ValueError,
         "CUDA tensor"),
        ("ce-reduction", lambda: rkc.cross_entropy(x(), torch.zeros(4, dtype=torch.int64, device=DEV),
                                                   reduction="avg"), ValueError, "reduction"),
        ("ce-int-logits", lambda: rkc.cross_entropy(x(torch.int64), torch.zeros(4, dtype=torch.int64,
                                                                                device=DEV)),
         TypeError, "logits"),
        ("precompile-op", lambda: rkc.precompile("gelu", (4, N), torch.float32), ValueError, "unknown op"),
    ]


NEG = _neg_cases()


@pytest.mark.parametrize("fn,exc,pattern", [c[1:] for c in NEG], ids=[c[0] for c in NEG])
def test_invalid_inputs(fn, exc, pattern):
    with pytest.raises(exc, match=pattern):
        fn()


# --- torch integration -------------------------------------------------------

def test_torch_library_ops(gen):
    N, dt = 1024, "bf16"
    x = randn((8, N), dt, gen, 2.0)
    w = randn((N,), dt, gen, 0.5, 1.0)
    b = randn((N,), dt, gen, 0.5)
    r = randn((8, N), dt, gen)
    t = make_target(8, N, gen)
    ops = torch.ops.rkc
    assert torch.equal(ops.rms_norm(x, w, 1e-6), rkc.rms_norm(x, w, 1e-6))
    y, h = ops.rms_norm_residual(x, w, r, 1e-6)
    y2, h2 = rkc.rms_norm(x, w, 1e-6, residual=r)
    assert torch.equal(y, y2) and torch.equal(h, h2)
    assert torch.equal(ops.layer_norm(x, w, b, 1e-5), rkc.layer_norm(x, w, b))
    assert torch.equal(ops.layer_norm(x, w, None, 1e-5), rkc.layer_norm(x, w))
    assert torch.equal(ops.softmax(x), rkc.softmax(x))
    assert torch.equal(ops.log_softmax(x), rkc.log_softmax(x))
    assert torch.equal(ops.cross_entropy(x, t, -100, "none"), rkc.cross_entropy(x, t, reduction="none"))
    opcheck = getattr(torch.library, "opcheck", None)
    if opcheck is None:
        pytest.skip("torch.library.opcheck is not available")
    utils = ("test_schema", "test_faketensor")
    opcheck(ops.rms_norm.default, (x, w, 1e-6), test_utils=utils)
    opcheck(ops.rms_norm_residual.default, (x, w, r, 1e-6), test_utils=utils)
    opcheck(ops.layer_norm.default, (x, w, b, 1e-5), test_utils=utils)
    opcheck(ops.softmax.default, (x,), test_utils=utils)
    opcheck(ops.log_softmax.default, (x,), test_utils=utils)
    opcheck(ops.cross_entropy.default, (x, t, -100, "none"), test_utils=utils)
    opcheck(ops.cross_entropy.default, (x, t, -100, "mean"), test_utils=utils)


def test_torch_compile(gen):
    N, dt = 1024, "bf16"
    x = randn((8, N), dt, gen, 2.0)
    w = randn((N,), dt, gen, 0.5, 1.0)
    t = make_target(8, N, gen)

    def fn(x, w, t):
        y = rkc.rms_norm(x, w)
        return rkc.softmax(y * 2), rkc.cross_entropy(y, t, reduction="mean")

    cfn = torch.compile(fn, backend="aot_eager", fullgraph=True)
    a, l1 = cfn(x, w, t)
    b, l2 = fn(x, w, t)
    assert torch.equal(a, b)
    assert torch.equal(l1, l2)


def test_cuda_graph_capture(gen):
    M, N, dt = 16, 4096, "bf16"
    x = randn((M, N), dt, gen, 2.0)
    w = randn((N,), dt, gen, 0.5, 1.0)
    t = make_target(M, N, gen)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm-up: compile and load the modules
        rkc.rms_norm(x, w)
        rkc.softmax(x)
        rkc.cross_entropy(x, t, reduction="none")
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = rkc.rms_norm(x, w)
        p = rkc.softmax(x)
        loss = rkc.cross_entropy(x, t, reduction="none")
    x.copy_(randn((M, N), dt, gen, 2.0))
    g.replay()
    torch.cuda.synchronize()
    check(y, ref_rms_norm(x, w, 1e-6)[0], dt, "graph rms_norm")
    check(p, torch.softmax(x.double(), -1), dt, "graph softmax")
    check(loss, ref_cross_entropy(x, t, -100)[0], dt, "graph cross_entropy")


def test_side_stream(gen):
    M, N, dt = 64, 8192, "f32"
    x = randn((M, N), dt, gen)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        y = rkc.softmax(x)
    s.synchronize()
    check(y, torch.softmax(x.double(), -1), dt, "side stream")


def test_kernel_cache_hit(gen):
    N, dt = 2048, "f32"
    x = randn((7, N), dt, gen)
    w = randn((N,), dt, gen)
    rkc.rms_norm(x, w)
    n = len(rkc.ops._kernels)
    t0 = time.perf_counter()
    for _ in range(20):
        rkc.rms_norm(x, w)
    dt_call = (time.perf_counter() - t0) / 20
    assert len(rkc.ops._kernels) == n
    assert dt_call < 5e-3, "a cached call took %.1f us" % (dt_call * 1e6)
    k = rkc.precompile("rms_norm", (7, N), torch.float32)
    assert "threads=" in k.plan and k.vector_width == 4
