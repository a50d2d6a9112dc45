"""rkc's quantized ops on the GPU: rkc.quantize against the PyTorch reference
quantizer bit for bit (packed words, scales, zero points), rkc.dequantize
exactly, the quantize -> dequantize error within the format's bound, and
rkc.gemv (W4A16 / W8A16) against a float64 reference computed from the
dequantized weights.

Formats, rounding and bounds: docs/quantization.md; the reference:
quant_reference.py. Every output is poisoned before the launch (NaN floats,
-128 per-token int8, 0x80808080 int8 k4 words (each byte -128), 0x5A5A5A5A
int4 k8 words) and must be fully written. GEMV errors, with
ref the float64 reference and out the f16/bf16 result, allow each element
the rounding of the result to its dtype (half an ulp), then require
max(e) / max|ref| <= 2e-3 and e <= 2e-3 |ref| + 2e-3 max|ref| per element.

Kernels of the parametrized cases are compiled up front, in parallel
(RKC_TEST_COMPILE_THREADS). Cases whose op or variant librkc does not lower
yet skip with its message (quant_reference.unsupported).
"""

import zlib

import pytest

torch = pytest.importorskip("torch")

import rkc  # noqa: E402
from rkc import quant  # noqa: E402
import quant_reference as R  # noqa: E402
from conftest import gpu_unavailable, precompile_selected  # noqa: E402

DEV = "cuda"
DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
U = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8, "f32": 2.0 ** -24}   # unit roundoff
TOL = 2e-3

FMTS = [(4, True), (4, False), (8, True)]          # int4 sym, int4 asym, int8 sym
GROUPS = [32, 64, 128, 0]
SHAPES = [(4096, 4096), (256, 8), (4096, 14336), (128, 1000), (1024, 4104)]
MS = [1, 3, 4, 16]


def fmt_name(bits, sym):
    return "w%d%s" % (bits, "" if sym else "-asym")


class QCase(object):
    """One parametrized case; `kernels` lists what rkc.quant.precompile warms."""

    def __init__(self, op, bits, sym, G, K, N, dtype, sdt, M=None, bias=False):
        self.op, self.bits, self.sym, self.G, self.K, self.N = op, bits, sym, G, K, N
        self.dtype, self.sdt, self.M, self.bias = dtype, sdt, M, bias

    def __str__(self):
        s = "%s-%s-g%d-K%d-N%d-%s-s%s" % (self.op, fmt_name(self.bits, self.sym), self.G,
                                          self.K, self.N, self.dtype, self.sdt)
        if self.M is not None:
            s += "-M%d" % self.M
        return s + ("-bias" if self.bias else "")

    __repr__ = __str__

    def kernels(self):
        common = dict(bits=self.bits, group_size=self.G, symmetric=self.sym,
                      scale_dtype=DT[self.sdt])
        shape = (self.K, self.N)
        if self.op == "gemv":
            return [("gemv", shape, self.dtype, tuple(sorted(dict(common, rows=self.M,
                                                                   bias=self.bias).items())))]
        return [("quantize", shape, self.dtype, tuple(sorted(common.items()))),
                ("dequantize", shape, self.sdt, tuple(sorted(common.items()))),
                ("dequantize", shape, "f32", tuple(sorted(common.items())))]


def gemv_cases():
    """Every format x group x shape once (60 cases); activation / scale
    dtypes, M and bias rotate so that each format meets each of them."""
    out = []
    for fi, (bits, sym) in enumerate(FMTS):
        for gi, G in enumerate(GROUPS):
            for si, (K, N) in enumerate(SHAPES):
                i = fi * 20 + gi * 5 + si
                M = 1 if (K, N) == (4096, 14336) else MS[(i + gi + fi) % 4]
                out.append(QCase("gemv", bits, sym, G, K, N, ("f16", "bf16")[i % 2],
                                 ("f16", "bf16")[(i // 2 + fi) % 2], M, bias=(i % 3 == 1)))
    return out


def quantize_cases():
    out = []
    for fi, (bits, sym) in enumerate(FMTS):
        for gi, G in enumerate(GROUPS):
            for si, (K, N) in enumerate(SHAPES):
                i = fi * 20 + gi * 5 + si
                out.append(QCase("quantize", bits, sym, G, K, N, ("f16", "bf16", "f32")[i % 3],
                                 ("f16", "bf16")[(i // 3 + fi) % 2]))
    # float32 scales.
    out += [QCase("quantize", 4, True, 128, 1024, 4104, "bf16", "f32"),
            QCase("quantize", 4, False, 64, 128, 1000, "f16", "f32"),
            QCase("quantize", 8, True, 0, 256, 8, "f32", "f32")]
    return out


GEMV = gemv_cases()
QUANTIZE = quantize_cases()


def _coverage():
    assert len(set((c.bits, c.sym, c.dtype) for c in GEMV)) == 6   # format x activation dtype
    assert len(set((c.bits, c.sym, c.sdt) for c in GEMV)) == 6
    assert set((c.bits, c.sym, c.M) for c in GEMV) >= set((b, s, m) for b, s in FMTS for m in MS)
    assert set((c.dtype, c.sdt) for c in GEMV) == set((a, s) for a in ("f16", "bf16")
                                                      for s in ("f16", "bf16"))
    assert all(c.M == 1 for c in GEMV if (c.K, c.N) == (4096, 14336))
    assert set((c.bits, c.sym, c.bias) for c in GEMV) == set((b, s, x) for b, s in FMTS
                                                             for x in (False, True))
    assert set((c.bits, c.sym, c.dtype) for c in QUANTIZE) >= set(
        (b, s, d) for b, s in FMTS for d in ("f16", "bf16", "f32"))


_coverage()


# --- fixtures ----------------------------------------------------------------

@pytest.fixture(scope="session", autouse=True)
def _precompile_quant(request):
    """Compiles the kernels of every selected case, on several threads."""
    if gpu_unavailable():
        return
    request.config._rkc_precompile_quant = precompile_selected(
        request, QCase, lambda op, shape, dt, params: quant.precompile(op, shape, DT[dt], **dict(params)))


# int32 words: int4 k8 0x5A5A5A5A; int8 k4 0x80808080 (as int32), each byte
# -128, outside the quantizer's [-127, 127].
POISON = {torch.int8: -128, torch.int32: 0x5A5A5A5A}
POISON_K4 = 0x80808080 - 2 ** 32


def _case_bits(request):
    """The `bits` of a parametrized test (a QCase's or a `bits` parameter)."""
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    return getattr(params.get("case"), "bits", params.get("bits"))


@pytest.fixture(autouse=True)
def poison(monkeypatch, request):
    """Outputs start as NaN (floats), -128 (int8: outside [-127, 127]),
    0x80808080 (int32 words of an int8 test: k4, each byte -128) or
    0x5A5A5A5A (other int32 words: int4 k8)."""
    fill = dict(POISON)
    if _case_bits(request) == 8:
        fill[torch.int32] = POISON_K4

    def empty(shape, dtype, device):
        t = torch.empty(shape, dtype=dtype, device=device)
        t.fill_(float("nan") if dtype.is_floating_point else fill.get(dtype, -7777))
        return t
    monkeypatch.setattr(rkc.ops, "_empty", empty)


@pytest.fixture
def gen(request):
    g = torch.Generator(device=DEV)
    g.manual_seed(zlib.crc32(request.node.nodeid.encode()))
    return g


def randn(shape, dtype, gen, scale=1.0):
    t = torch.randn(shape, generator=gen, device=DEV, dtype=torch.float32) * scale
    return t.to(DT[dtype] if isinstance(dtype, str) else dtype)


def lowered(fn):
    """fn(), or a skip naming librkc's message when it does not lower the op
    or variant yet."""
    try:
        return fn()
    except rkc.RkcError as e:
        reason = R.unsupported(e)
        if reason:
            pytest.skip("librkc does not lower this yet: " + reason)
        raise


def weights(K, N, dtype, gen, bits, G):
    """randn weights with a few special columns: all zero (scale 0),
    constant, all negative, one large outlier per 32 rows, and (symmetric)
    exact ties: per group, qmax / 64 then (j + 1/2) / 64, so that the scale
    is 1/64 and x / scale = j + 1/2 must round half to even."""
    w = randn((K, N), "f32", gen, 0.05)
    if N >= 8:
        w[:, 0] = 0.0
        w[:, 1] = 0.02
        w[:, 2] = -w[:, 2].abs()
        w[::32, 3] *= 40.0
        qmax = R.QMAX[bits]
        i = torch.arange(K, device=DEV) % (G or K)
        col = ((i % (2 * qmax)) - qmax + 0.5) / 64
        col[i == 0] = qmax / 64
        w[:, 4] = col
    return w.to(DT[dtype])


def check_equal(out, ref, what):
    assert out.shape == ref.shape and out.dtype == ref.dtype, (what, out.shape, out.dtype,
                                                              ref.shape, ref.dtype)
    if out.dtype.is_floating_point:
        nan = torch.isnan(out)
        if nan.any():
            pytest.fail("%s: %d NaN outputs (unwritten), first at %s"
                        % (what, int(nan.sum()), nan.nonzero()[0].tolist()))
    if not torch.equal(out, ref):
        bad = out != ref
        first = bad.nonzero()[0].tolist()
        pytest.fail("%s: %d of %d elements differ from the reference (first at %s: %r vs %r)"
                    % (what, int(bad.sum()), bad.numel(), first, out[tuple(first)].item(),
                       ref[tuple(first)].item()))


def check_gemv(out, ref, dtype, what="out"):
    assert out.dtype == DT[dtype] and tuple(out.shape) == tuple(ref.shape), (
        what, out.dtype, tuple(out.shape), tuple(ref.shape))
    nan = torch.isnan(out)
    if nan.any():
        pytest.fail("%s: %d NaN outputs (unwritten or wrong), first at %s"
                    % (what, int(nan.sum()), nan.nonzero()[0].tolist()))
    err, worst, raw = R.gemv_errors(out, ref)
    assert err <= TOL and worst <= 1.0, (
        "%s: max|err| / max|ref| = %.3e (> %.0e?), worst per-element ratio %.3f (> 1?), raw "
        "max|out - ref| / max|ref| %.3e (the f16/bf16 rounding of the result allowed)"
        % (what, err, TOL, worst, raw))


def bound(q, s, z, G, K, sdt):
    """The quantize -> dequantize bound per element: scale / 2; asymmetric
    adds 15 u scale (the range mx - mn may exceed 15 scale by the scale's
    rounding, u its unit roundoff), and a little for float32 arithmetic."""
    g = G or K
    sf = s.float().repeat_interleave(g, 0)
    slack = (15 * U[sdt] if z is not None else 0.0) + 1e-6
    return sf * (0.5 + slack)


# --- quantize / dequantize -----------------------------------------------------

@pytest.mark.parametrize("case", QUANTIZE, ids=str)
def test_quantize(case, gen):
    bits, sym, G, K, N = case.bits, case.sym, case.G, case.K, case.N
    w = weights(K, N, case.dtype, gen, bits, G)
    qt = lowered(lambda: rkc.quantize(w, bits=bits, group_size=G, symmetric=sym,
                                      scale_dtype=DT[case.sdt]))
    q, s, z = R.quantize(w, bits, G, sym, case.sdt)
    check_equal(qt.scales, s, "scales")
    if not sym:
        check_equal(qt.zeros, z, "zeros")
    else:
        assert qt.zeros is None
    check_equal(qt.packed, R.pack(q, bits), "packed")
    assert (qt.bits, qt.group_size, qt.symmetric, qt.shape) == (bits, G, sym, (K, N))
    # Dequantize: exactly the reference, in the scales' dtype and in float32.
    d = lowered(lambda: rkc.dequantize(qt))
    check_equal(d, R.dequantize(q, s, z, G, DT[case.sdt]), "dequantize")
    d32 = rkc.dequantize(qt, torch.float32)
    f32 = R.dequantize_f32(q, s, z, G)
    check_equal(d32, f32, "dequantize f32")
    # Quantize -> dequantize within the format's bound.
    err = (d32 - w.float()).abs()
    lim = bound(q, s, z, G, K, case.sdt)
    if (err > lim).any():
        i = tuple((err > lim).nonzero()[0].tolist())
        pytest.fail("quantize -> dequantize error %.4g > bound %.4g (scale %.4g) at %s; %d "
                    "elements over" % (err[i].item(), lim[i].item(),
                                       s.float()[i[0] // (G or K), i[1]].item(), list(i),
                                       int((err > lim).sum())))


@pytest.mark.parametrize("bits,sym", FMTS, ids=[fmt_name(b, s) for b, s in FMTS])
def test_quantize_layouts(bits, sym, gen):
    """A transposed nn.Linear weight and a misaligned view quantize like a
    contiguous copy."""
    K, N = 512, 200
    lin = randn((N, K), "bf16", gen, 0.05)
    a = lowered(lambda: rkc.quantize(lin.t(), bits=bits, group_size=64, symmetric=sym))
    b = rkc.quantize(lin.t().contiguous(), bits=bits, group_size=64, symmetric=sym)
    check_equal(a.packed, b.packed, "packed (transposed)")
    check_equal(a.scales, b.scales, "scales (transposed)")
    flat = randn((K * N + 3,), "f16", gen, 0.05)
    v = flat[3:].view(K, N)
    assert v.data_ptr() % 16
    c = rkc.quantize(v, bits=bits, group_size=64, symmetric=sym)
    q, s, z = R.quantize(v, bits, 64, sym, "f16")
    check_equal(c.packed, R.pack(q, bits), "packed (misaligned)")


# --- per-token int8 --------------------------------------------------------------

PER_TOKEN = [(T, D, G, dt) for (T, D) in ((4097, 128), (33, 4096)) for G in (0, 128)
             for dt in ("f16", "bf16")] + [((2, 5), 128, 0, "f16")]
# Odd rows (shifted int8 and 16-bit accesses), rows of one value, groups of
# 32 within rows of 96.
PER_TOKEN += [(7, 33, 0, "bf16"), (5, 1, 0, "f16"), (9, 96, 32, "bf16"), (3, 4095, 0, "f16")]


@pytest.mark.parametrize("T,D,G,dt", PER_TOKEN,
                         ids=["T%s-D%d-g%d-%s" % ("x".join(map(str, T)) if isinstance(T, tuple)
                                                  else T, D, G, dt) for T, D, G, dt in PER_TOKEN])
def test_quantize_per_token(T, D, G, dt, gen):
    shape = (tuple(T) if isinstance(T, tuple) else (T,)) + (D,)
    x = randn(shape, dt, gen, 3.0)
    x.view(-1, D)[0] = 0.0                      # a row of zeros: scale 0
    qt = lowered(lambda: rkc.quantize(x, bits=8, group_size=G, axis=-1))
    q, s, _ = R.quantize(x, 8, G, True, DT[dt], axis=-1)
    assert qt.axis == -1 and qt.shape == shape and qt.scale_dtype == DT[dt]
    check_equal(qt.scales, s, "scales")
    check_equal(qt.packed, q.to(torch.int8), "q")
    d = lowered(lambda: rkc.dequantize(qt, torch.float32))
    f32 = R.dequantize_f32(q, s, None, G, axis=-1)
    check_equal(d, f32, "dequantize")
    ng = s.shape[-1]
    lim = s.float().repeat_interleave(D // ng, -1) * (0.5 + 1e-6)
    assert ((d - x.float()).abs() <= lim).all()


# --- gemv ------------------------------------------------------------------------

def quantized(K, N, bits, sym, G, sdt, gen):
    """(QuantizedTensor, float32 dequantized weights) from the reference."""
    w = randn((K, N), "f32", gen, 0.05)
    q, s, z = R.quantize(w, bits, G, sym, sdt)
    qt = rkc.QuantizedTensor(R.pack(q, bits), s, z, bits=bits, group_size=G, shape=(K, N))
    return qt, R.dequantize_f32(q, s, z, G)


@pytest.mark.parametrize("case", GEMV, ids=str)
def test_gemv(case, gen):
    K, N, M = case.K, case.N, case.M
    qt, W = quantized(K, N, case.bits, case.sym, case.G, case.sdt, gen)
    x = randn((M, K), case.dtype, gen)
    b = randn((N,), case.dtype, gen) if case.bias else None
    out = lowered(lambda: rkc.gemv(x, qt, bias=b))
    check_gemv(out, R.gemv(x, W, b), case.dtype)
    # Again (through the prepared launcher of this layout).
    check_gemv(rkc.gemv(x, qt, bias=b), R.gemv(x, W, b), case.dtype, "second call")


# The heuristic plans of the planner's regimes, at shapes no other test
# uses (odd M and N): K = 4096 with N about the SMs' 32-column groups (8
# warps of 16 blocks), M > 8 with long K and few groups (one CTA of 16
# warps per SM, with aliased partial sums at 14336), very wide N (no K
# split when the last wave is full: 128000; not: 100000), int8 from M = 1
# on tensor cores and bf16 int8 on CUDA cores, a group of 96.
# (bits, sym, G, K, N, M, activation dtype)
PLAN_REGIMES = [
    (4, True, 128, 4096, 4100, 1, "f16"),
    (4, False, 64, 4096, 3968, 4, "bf16"),
    (4, True, 128, 4096, 4096, 8, "f16"),
    (4, True, 128, 8192, 4000, 7, "f16"),
    (4, True, 128, 12288, 3584, 16, "f16"),
    (8, True, 128, 14336, 4104, 13, "f16"),
    (4, False, 32, 6144, 2056, 10, "bf16"),
    (4, False, 128, 14336, 2048, 12, "f16"),
    (4, True, 96, 9216, 4096, 16, "bf16"),
    (4, True, 0, 4096, 128000, 3, "f16"),
    (8, True, 64, 4096, 128000, 9, "f16"),
    (8, True, 32, 2048, 100000, 2, "f16"),
    (8, True, 128, 4096, 6144, 5, "f16"),
    (8, True, 0, 5120, 13824, 1, "f16"),
    (8, True, 128, 3072, 8200, 1, "bf16"),
    (8, True, 128, 16384, 1000, 16, "f16"),
]


@pytest.mark.parametrize("bits,sym,G,K,N,M,dt", PLAN_REGIMES,
                         ids=["w%d%s-g%d-%dx%d-m%d-%s" % (c[0], "" if c[1] else "asym", c[2],
                                                          c[3], c[4], c[5], c[6])
                              for c in PLAN_REGIMES])
def test_gemv_plan_regimes(bits, sym, G, K, N, M, dt, gen):
    qt, W = quantized(K, N, bits, sym, G, "f16", gen)
    x = randn((M, K), dt, gen)
    out = lowered(lambda: rkc.gemv(x, qt))
    check_gemv(out, R.gemv(x, W), dt)


@pytest.mark.parametrize("bits,sym", FMTS, ids=[fmt_name(b, s) for b, s in FMTS])
def test_gemv_layouts(bits, sym, gen):
    """1-D, N-D, strided and misaligned activations; a float32 bias; rkc.linear."""
    K, N, dt = 1024, 1000, "bf16"
    qt, W = quantized(K, N, bits, sym, 128, "bf16", gen)
    x1 = randn((K,), dt, gen)
    y1 = lowered(lambda: rkc.gemv(x1, qt))
    assert y1.shape == (N,)
    check_gemv(y1, R.gemv(x1, W), dt, "1-D")
    x3 = randn((2, 3, K), dt, gen)
    b32 = randn((N,), "f32", gen)
    y3 = rkc.linear(x3, qt, b32)
    assert y3.shape == (2, 3, N)
    check_gemv(y3, R.gemv(x3, W, b32.to(DT[dt])), dt, "3-D with a float32 bias")
    xs = randn((4, 2 * K), dt, gen)[:, ::2]
    check_gemv(rkc.gemv(xs, qt), R.gemv(xs, W), dt, "strided")
    xo = randn((3 * K + 1,), dt, gen)[1:].view(3, K)
    assert xo.data_ptr() % 16
    check_gemv(rkc.gemv(xo, qt), R.gemv(xo, W), dt, "misaligned")
    xp = randn((5, K + 8), dt, gen)[:, :K]
    check_gemv(rkc.gemv(xp, qt), R.gemv(xp, W), dt, "padded rows")


# Tensor-core GEMV schedules (int4, mma = 1) the heuristic may not pick:
# 1, 2 and 4 groups of 32 columns per warp, N not a multiple of the warp's
# or CTA's columns (tail groups), K split over warps and clusters or only
# over some warps (kwarps), unrolls that do and do not divide a scale
# group, both formats and activation dtypes.
# (sym, G, K, N, M, dtype, schedule)
MMA_SCHEDULES = [
    (True, 128, 4096, 4104, 16, "f16", "vector=2,threads=128,cluster=4,unroll=2,mma=1"),
    (False, 64, 1024, 1000, 3, "bf16", "vector=4,threads=128,cluster=2,unroll=1,mma=1"),
    (True, 0, 1024, 1000, 16, "bf16", "vector=2,threads=256,cluster=1,unroll=4,mma=1"),
    (False, 32, 4096, 4096, 16, "f16", "vector=4,threads=64,cluster=8,unroll=2,mma=1"),
    (True, 128, 256, 8, 5, "f16", "vector=4,threads=32,cluster=1,unroll=2,mma=1"),
    (False, 128, 4096, 14336, 16, "bf16", "vector=2,threads=128,cluster=2,unroll=4,mma=1"),
    (True, 32, 1024, 4104, 8, "bf16", "vector=1,threads=256,cluster=2,unroll=8,mma=1"),
    # kwarps: only some warps split K, the others take further column groups.
    (True, 128, 4096, 14336, 16, "f16", "vector=2,threads=256,cluster=4,unroll=4,mma=1,kwarps=2"),
    (False, 64, 1024, 1000, 7, "bf16", "vector=1,threads=256,cluster=2,unroll=2,mma=1,kwarps=1"),
    (True, 32, 2048, 4104, 16, "bf16", "vector=2,threads=128,cluster=1,unroll=4,mma=1,kwarps=2"),
    (False, 0, 512, 72, 2, "f16", "vector=1,threads=128,cluster=1,unroll=1,mma=1,kwarps=2"),
    # Blocks of 8 (the planner's choice for long K ranges per warp) with a
    # group that neither divides a block nor is divided by it (96 = 12
    # packed rows; scales loaded at the fold), M = 1 and M = 4 on 4 warps.
    (True, 96, 3072, 1000, 1, "f16", "vector=1,threads=256,cluster=1,unroll=8,mma=1"),
    (False, 96, 3072, 1000, 4, "bf16", "vector=1,threads=128,cluster=1,unroll=8,mma=1"),
    # One CTA of 16 warps per SM in clusters of 2 whose 224 KiB of staged
    # activations the partial sums reuse (KSplitShape::aliased), N a
    # multiple of the 64-column tile or not (4160 = 65 tiles), odd M.
    (True, 128, 14336, 4096, 16, "f16", "vector=1,threads=512,cluster=2,unroll=4,mma=1,kwarps=8"),
    (False, 128, 14336, 4160, 13, "bf16", "vector=1,threads=512,cluster=2,unroll=4,mma=1,kwarps=8"),
    # Those CTAs' receive buffer beside the activations (one sum a thread)
    # above; with two columns a lane it lies among the partial sums.
    (True, 128, 14336, 4096, 16, "f16", "vector=2,threads=512,cluster=2,unroll=4,mma=1,kwarps=8"),
]


def launch_and_check(k, x, qt, W, N, dt):
    """Launches a GEMV kernel (x, packed, scales[, zeros] -> out [M, N])
    on NaN-filled output and checks it against the float64 reference."""
    out = torch.full((x.shape[0], N), float("nan"), device=DEV, dtype=DT[dt])
    ptrs = [x.data_ptr(), qt._packed.data_ptr(), qt._scales.data_ptr()]
    if qt._zeros is not None:
        ptrs.append(qt._zeros.data_ptr())
    k.launch(ptrs + [out.data_ptr()], stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    check_gemv(out, R.gemv(x, W), dt, k.plan)


@pytest.mark.parametrize("sym,G,K,N,M,dt,sched", MMA_SCHEDULES,
                         ids=["%s-g%d-%dx%d-m%d-%s-%s" % ((("sym" if c[0] else "asym"),) + c[1:6]
                                                          + (c[6].replace(",", "-")
                                                             .replace("=", ""),))
                              for c in MMA_SCHEDULES])
def test_gemv_mma_schedules(sym, G, K, N, M, dt, sched, gen):
    qt, W = quantized(K, N, 4, sym, G, "f16", gen)
    x = randn((M, K), dt, gen)
    k = lowered(lambda: quant.kernel("gemv", dt, bits=4, group_size=G, symmetric=sym,
                                     scale="f16", M=M, K=K, N=N, schedule=sched))
    assert "mma=1" in k.plan, k.plan
    launch_and_check(k, x, qt, W, N, dt)


# int8 weights on tensor cores (f16 activations, M >= 4 by default): the
# heuristic's plans and explicit schedules (1 and 2 groups of 32 columns
# per warp, kwarps, clusters), groups of 32 / 64 / 128 and whole K, N not a
# multiple of a warp's or CTA's columns. (G, K, N, M, schedule or None)
MMA_INT8 = [
    (128, 4096, 4096, 16, None),
    (32, 1024, 1000, 4, None),
    (64, 2048, 4104, 9, None),
    (0, 512, 72, 5, None),
    (128, 14336, 1024, 16, None),
    (128, 4096, 4104, 16, "vector=2,threads=256,cluster=2,unroll=2,mma=1,kwarps=2"),
    (32, 1024, 1000, 2, "vector=1,threads=128,cluster=4,unroll=1,mma=1"),
    (0, 256, 8, 16, "vector=1,threads=64,cluster=1,unroll=4,mma=1,kwarps=1"),
    (128, 4096, 4096, 1, "vector=1,threads=512,cluster=1,unroll=8,mma=1"),
    # The heuristic's one-CTA-per-SM plans: aliased partial sums (K =
    # 14336, M = 16) and not (12288 x 2048 at M = 12: all 16 warps split K).
    (128, 14336, 4096, 16, None),
    (64, 12288, 2048, 12, None),
]


@pytest.mark.parametrize("G,K,N,M,sched", MMA_INT8,
                         ids=["g%d-%dx%d-m%d-%s" % (c[0], c[1], c[2], c[3],
                                                    (c[4] or "heuristic").replace(",", "-")
                                                    .replace("=", ""))
                              for c in MMA_INT8])
def test_gemv_mma_int8(G, K, N, M, sched, gen):
    qt, W = quantized(K, N, 8, True, G, "f16", gen)
    x = randn((M, K), "f16", gen)
    k = lowered(lambda: quant.kernel("gemv", "f16", bits=8, group_size=G, symmetric=True,
                                     scale="f16", M=M, K=K, N=N, schedule=sched))
    assert "mma=1" in k.plan, k.plan
    out = torch.full((M, N), float("nan"), device=DEV, dtype=torch.float16)
    k.launch([x.data_ptr(), qt._packed.data_ptr(), qt._scales.data_ptr(), out.data_ptr()],
             stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    check_gemv(out, R.gemv(x, W), "f16", k.plan)
    if sched is None:
        check_gemv(rkc.gemv(x, qt), R.gemv(x, W), "f16", "rkc.gemv " + k.plan)


def schedule_case_ids(cases):
    """Test ids of (bits, sym, G, K, N, M, dtype, schedule or None) cases."""
    return ["w%d%s-g%d-%dx%d-m%d-%s-%s" % (c[0], "" if c[1] else "asym", c[2], c[3], c[4], c[5],
                                           c[6], (c[7] or "heuristic").replace(",", "-")
                                           .replace("=", ""))
            for c in cases]


# Activations staged in parts of each K-split warp's range while the
# products run (over 64 KiB staged, KSplitShape::stageChunks): parts shared
# by 2-4 warps (a named barrier each) or one warp's own (__syncwarp), K
# ranges whose steps do not divide into the parts, ranges of fewer steps
# than parts (empty parts), weights as A (M <= 8) and as B, int4 and int8,
# aliased partial sums or not. (bits, sym, G, K, N, M, dtype, schedule)
STAGED_IN_PARTS = [
    (4, True, 128, 4224, 1004, 16, "f16", "vector=1,threads=512,cluster=1,unroll=1,mma=1,kwarps=8"),
    (4, False, 64, 8320, 2052, 12, "bf16", "vector=1,threads=256,cluster=1,unroll=4,mma=1"),
    (4, True, 128, 2304, 1028, 16, "f16", "vector=1,threads=512,cluster=1,unroll=2,mma=1,kwarps=16"),
    (4, True, 128, 14336, 4100, 8, "f16", None),
    (4, False, 128, 11008, 4096, 16, "bf16", None),
    (8, True, 128, 8192, 2052, 9, "f16", "vector=1,threads=512,cluster=2,unroll=4,mma=1,kwarps=4"),
    (8, True, 128, 14336, 4096, 16, "f16", None),
]


@pytest.mark.parametrize("bits,sym,G,K,N,M,dt,sched", STAGED_IN_PARTS,
                         ids=schedule_case_ids(STAGED_IN_PARTS))
def test_gemv_staged_in_parts(bits, sym, G, K, N, M, dt, sched, gen):
    qt, W = quantized(K, N, bits, sym, G, "f16", gen)
    x = randn((M, K), dt, gen)
    k = lowered(lambda: quant.kernel("gemv", dt, bits=bits, group_size=G, symmetric=sym,
                                     scale="f16", M=M, K=K, N=N, schedule=sched))
    assert "mma=1" in k.plan and "stage_part(" in k.cuda, k.plan
    launch_and_check(k, x, qt, W, N, dt)


# Activations read from global memory instead of staged (acts=global: the
# planner's way on sm_80-sm_89 where a CTA's K range of activations does not
# fit its shared memory, no cluster splitting K; forced here on this GPU):
# weights as A (M <= 8) and as B, int4 with and without zero points, int8,
# f16 / bf16, clusters, kwarps, N tails, and the plan sm_86 takes at M = 16,
# K = 14336 (8 warps, no cluster). (bits, sym, G, K, N, M, dtype, schedule)
GLOBAL_ACTS = [
    (4, True, 128, 14336, 4096, 16, "f16", "vector=1,threads=256,cluster=1,unroll=4,mma=1,acts=global"),
    (4, False, 64, 2048, 1000, 9, "bf16", "vector=2,threads=128,cluster=2,unroll=2,mma=1,acts=global"),
    (4, True, 32, 1024, 1000, 4, "bf16", "vector=1,threads=256,cluster=1,unroll=8,mma=1,kwarps=4,acts=global"),
    (4, True, 0, 512, 72, 1, "f16", "vector=1,threads=128,cluster=1,unroll=1,mma=1,acts=global"),
    (4, False, 128, 4096, 4104, 13, "f16", "vector=1,threads=512,cluster=2,unroll=4,mma=1,kwarps=8,acts=global"),
    (8, True, 128, 4096, 4096, 16, "f16", "vector=1,threads=256,cluster=1,unroll=4,mma=1,acts=global"),
    (8, True, 64, 1024, 1000, 5, "f16", "vector=1,threads=128,cluster=2,unroll=2,mma=1,acts=global"),
    # The heuristic's: K beyond what a cluster of 16 can stage (sm_90a).
    (4, True, 128, 131072, 264, 16, "f16", None),
]


@pytest.mark.parametrize("bits,sym,G,K,N,M,dt,sched", GLOBAL_ACTS,
                         ids=schedule_case_ids(GLOBAL_ACTS))
def test_gemv_global_acts(bits, sym, G, K, N, M, dt, sched, gen):
    qt, W = quantized(K, N, bits, sym, G, "f16", gen)
    x = randn((M, K), dt, gen)
    k = quant.kernel("gemv", dt, bits=bits, group_size=G, symmetric=sym, scale="f16",
                     M=M, K=K, N=N, schedule=sched)
    assert "acts=global" in k.plan and "stage_rows_async" not in k.cuda, k.plan
    launch_and_check(k, x, qt, W, N, dt)
    # Rows of x 8 values longer than K (a row stride the staged kernel's
    # 16-byte copies also take).
    xp = randn((M, K + 8), dt, gen)[:, :K]
    out = torch.full((M, N), float("nan"), device=DEV, dtype=DT[dt])
    ptrs = [xp.data_ptr(), qt._packed.data_ptr(), qt._scales.data_ptr()]
    if qt._zeros is not None:
        ptrs.append(qt._zeros.data_ptr())
    k.launch(ptrs + [out.data_ptr()], strides=[K + 8] + [0] * len(ptrs),
             stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    check_gemv(out, R.gemv(xp, W), dt, k.plan + " (padded rows)")


# int8 k4 with K a multiple of 4 but not of 8 or 16 (a partial block of
# packed rows), and K = 4: one word per column.
INT8_ODD_K = [(4, 72, 1), (12, 40, 5), (132, 1000, 1), (4100, 264, 16)]


@pytest.mark.parametrize("bits", [8], ids=["w8"])        # `bits`: the k4 poison (fixture)
@pytest.mark.parametrize("K,N,M", INT8_ODD_K, ids=["K%d-N%d-M%d" % c for c in INT8_ODD_K])
def test_int8_k4_odd_k(K, N, M, bits, gen):
    w = weights(K, N, "f16", gen, bits, 0)
    qt = lowered(lambda: rkc.quantize(w, bits=bits, group_size=0))
    q, s, _ = R.quantize(w, bits, 0, True, "f16")
    assert qt.packed.dtype == torch.int32 and qt.packed.shape == (K // 4, N)
    check_equal(qt.scales, s, "scales")
    check_equal(qt.packed, R.pack(q, bits), "packed")
    check_equal(lowered(lambda: rkc.dequantize(qt, torch.float32)),
                R.dequantize_f32(q, s, None, 0), "dequantize f32")
    W = R.dequantize_f32(q, s, None, 0)
    x = randn((M, K), "f16", gen)
    check_gemv(lowered(lambda: rkc.gemv(x, qt)), R.gemv(x, W), "f16", "K = %d" % K)


@pytest.mark.parametrize("K,N,M", [(65536, 264, 16), (98304, 72, 9)])
def test_gemv_long_k(K, N, M, gen):
    """K long enough that a CTA's staged activations need a cluster of 16
    (the planner's non-portable cluster) on tensor cores."""
    qt, W = quantized(K, N, 4, True, 128, "f16", gen)
    x = randn((M, K), "bf16", gen)
    check_gemv(lowered(lambda: rkc.gemv(x, qt)), R.gemv(x, W), "bf16", "K = %d" % K)


def test_quantize_then_gemv(gen):
    """rkc.quantize of a transposed nn.Linear weight, then rkc.gemv: the
    dequantized weights' float64 product (a Llama MLP shape, M = 1)."""
    K, N = 4096, 14336
    lin = randn((N, K), "f16", gen, 0.02)
    for bits, sym in FMTS:
        qt = lowered(lambda: rkc.quantize(lin.t(), bits=bits, group_size=128, symmetric=sym))
        W = rkc.dequantize(qt, torch.float32)
        x = randn((1, K), "f16", gen)
        check_gemv(rkc.gemv(x, qt), R.gemv(x, W), "f16", fmt_name(bits, sym))


def test_gemv_cuda_graph(gen):
    """Captured in a CUDA graph (after a first call compiled the kernel),
    replays compute the current contents of the captured buffers."""
    K, N, M = 4096, 4096, 4
    qt, W = quantized(K, N, 4, True, 128, "f16", gen)
    x = randn((M, K), "f16", gen)
    lowered(lambda: rkc.gemv(x, qt))
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        rkc.gemv(x, qt)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = rkc.gemv(x, qt)
    x.copy_(randn((M, K), "f16", gen))
    g.replay()
    torch.cuda.synchronize()
    check_gemv(y, R.gemv(x, W), "f16", "graph replay")


# --- bad inputs --------------------------------------------------------------------

def test_errors(gen):
    K, N = 256, 96
    w = randn((K, N), "f16", gen)
    q4 = lowered(lambda: rkc.quantize(w, bits=4, group_size=128))
    x = randn((2, K), "f16", gen)
    cases = [
        (lambda: rkc.quantize(w, bits=3), ValueError, "bits must be 4"),
        (lambda: rkc.quantize(w, group_size=96), ValueError, "does not divide K = 256"),
        (lambda: rkc.quantize(randn((384, 8), "f16", gen), bits=8, group_size=48), ValueError,
         "32, 64 or 128"),
        (lambda: rkc.quantize(w, bits=8, symmetric=False), ValueError, "int4 only"),
        (lambda: rkc.quantize(randn((100, 8), "f16", gen), group_size=0), ValueError,
         "not a multiple of 8"),
        (lambda: rkc.quantize(randn((102, 8), "f16", gen), bits=8, group_size=0), ValueError,
         "int8 packs 4 values of K per 32-bit word: K = 102 .* not a multiple of 4"),
        (lambda: rkc.quantize(w.to(torch.int32)), TypeError, "float32, bfloat16 or float16"),
        (lambda: rkc.quantize(w.cpu()), ValueError, "must be a CUDA tensor"),
        (lambda: rkc.gemv(randn((17, K), "f16", gen), q4), ValueError, "at most 16"),
        (lambda: rkc.gemv(randn((2, K + 8), "f16", gen), q4), ValueError, "last dim of x must be K"),
        (lambda: rkc.gemv(x.float(), q4), TypeError, "float16 or bfloat16"),
        (lambda: rkc.gemv(x.cpu(), q4), ValueError, "must be a CUDA tensor"),
        (lambda: rkc.gemv(x, q4, bias=randn((N + 1,), "f16", gen)), ValueError,
         r"bias must have shape \(96,\)"),
        (lambda: rkc.gemv(x, q4, bias=randn((N,), "f16", gen).cpu()), ValueError, "bias"),
        (lambda: rkc.gemv(x, w), TypeError, "QuantizedTensor"),
        (lambda: rkc.dequantize(q4, torch.int32), TypeError, "dtype"),
    ]
    for fn, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            fn()
