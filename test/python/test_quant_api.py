"""rkc's quantized ops (rkc.quant: quantize, dequantize, gemv) on a machine
without a GPU.

Without torch: the generated specs (their text, their signature, what the
compiler makes of them: kernel arguments, logical shapes, plans) and the
compiler's own checks. With torch: the PyTorch reference quantizer of the
GPU tests (test/gpu/quant_reference.py) against a scalar numpy
transcription of docs/quantization.md's rules, QuantizedTensor's checks, the
argument errors of every op, and the launch path with CPU tensors standing
in for CUDA tensors (as in test_ops_logic_cpu.py: the C launch validates the
host pointers, strides and alignment, then stops with "no CUDA driver").

Compile-dependent tests skip, naming librkc's message, while librkc says it
does not lower an op or variant yet (quant_reference.unsupported).
"""

import ctypes
import os
import re
import struct

import pytest

import _support  # noqa: F401  (sys.path: python/ and test/gpu/)
import rkc  # noqa: E402
from rkc import _spec, quant  # noqa: E402

try:
    import torch
except ImportError:  # the torch-free tests still run
    torch = None

if torch is not None:
    import quant_reference as R  # noqa: E402
    from rkc import ops  # noqa: E402

REPO = _support.REPO
needs_lib = pytest.mark.skipif(not _support.library_ok(), reason="librkc not found")
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
no_driver = pytest.mark.skipif(_support.has_cuda_driver(), reason="a CUDA driver is present: "
                               "host pointers must not reach it (run test/gpu instead)")

_UNSUPPORTED = ("not supported", "unsupported", "are lowered for", "is lowered for",
                "no lowering", "cannot lower", "not implemented", "not yet")


def compile_or_skip(fn):
    """fn() (a compile), or a skip naming librkc's message when it says the
    op or variant is not lowered yet."""
    try:
        return fn()
    except rkc.RkcError as e:
        msg = str(e)
        if any(p in msg.lower() for p in _UNSUPPORTED):
            pytest.skip("librkc does not lower this yet: %s" % msg.splitlines()[0])
        raise


def example(name):
    with open(os.path.join(REPO, "examples", name + ".mlir")) as f:
        return f.read()


# --- spec text (no torch, no library) ----------------------------------------

def test_quant_attr_is_the_examples():
    attr = _spec.quant_attr(4, 128, 0, "f16", True)
    assert attr == ("#rk.quant<bits = 4, group_size = 128, axis = 0, scale = f16, "
                    "symmetric = true, packing = k8>")
    for name in ("gemv_w4a16", "quantize_int4", "dequantize_int4"):
        assert attr in example(name)
    # int8 weights (axis 0): four values of K per 32-bit word; per-token int8
    # (axis 1): one value per byte.
    assert _spec.quant_attr(8, 128, 0, "f16", True) == (
        "#rk.quant<bits = 8, group_size = 128, axis = 0, scale = f16, symmetric = true, "
        "packing = k4>")
    assert _spec.quant_attr(8, 0, 1, "bf16", True) == (
        "#rk.quant<bits = 8, group_size = 0, axis = 1, scale = bf16, symmetric = true, "
        "packing = none>")
    assert "symmetric = false" in _spec.quant_attr(4, 32, 0, "f32", False)


def _norm(text):
    """Spec text without comments, names and whitespace differences."""
    text = _spec._strip_comments(text)
    text = re.sub(r"@[\w]+", "@f", text)
    return " ".join(text.split())


def test_generated_specs_are_the_examples():
    for op, ex in (("gemv", "gemv_w4a16"), ("quantize", "quantize_int4"),
                   ("dequantize", "dequantize_int4")):
        assert _norm(_spec.quant_spec_text(op, 4, 128, True, "f16")) == _norm(example(ex)), op


SIGS = [
    # op, bits, symmetric, bias, axis -> argument names, result count
    ("gemv", 4, True, False, 0, ["x", "q", "scales"]),
    ("gemv", 4, False, True, 0, ["x", "q", "scales", "zeros", "bias"]),
    ("gemv", 8, True, True, 0, ["x", "q", "scales", "bias"]),
    ("quantize", 4, True, False, 0, ["w"]),
    ("quantize", 4, False, False, 0, ["w"]),
    ("quantize", 8, True, False, 1, ["x"]),
    ("dequantize", 4, False, False, 0, ["q", "scales", "zeros"]),
    ("dequantize", 8, True, False, 1, ["q", "scales"]),
]


@pytest.mark.parametrize("op,bits,sym,bias,axis,names", SIGS,
                         ids=["%s-w%d-%s%s-axis%d" % (s[0], s[1], "sym" if s[2] else "asym",
                                                      "-bias" if s[3] else "", s[4]) for s in SIGS])
def test_spec_signature(op, bits, sym, bias, axis, names):
    text = _spec.quant_spec_text(op, bits, 64, sym, "bf16", axis, bias)
    fname, args = _spec.parse_signature(text)
    assert fname == _spec.quant_spec_name(op, bits, 64, sym, axis, bias)
    assert [a.name for a in args] == names
    elem = {"x": "!rk.dtype", "w": "!rk.dtype", "q": "i%d" % bits, "scales": "bf16",
            "zeros": "bf16", "bias": "!rk.dtype"}
    assert [a.elem for a in args] == [elem[n] for n in names]
    assert [a.rank for a in args] == [1 if n == "bias" else 2 for n in names]
    attr = _spec.quant_attr(bits, 64, axis, "bf16", sym)
    assert text.count(attr) == (2 if op != "quantize" else 3)
    packing = "k8" if bits == 4 else ("k4" if axis == 0 else "none")
    assert text.count("packing = ") == text.count("packing = %s>" % packing) > 0
    line = {"gemv": "rk.gemv %x, %q, %s", "dequantize": "rk.dequantize %q, %s",
            "quantize": "rk.quantize %" + names[0]}[op]
    assert line in text
    if op != "quantize":
        assert ("zeros %z" in text) == (not sym)
        assert ("bias %b" in text) == bias
    else:
        assert text.count(" = rk.quantize") == 1
        assert ("%q, %s, %z = rk.quantize" in text) == (not sym)


def test_spec_names():
    assert _spec.quant_spec_name("gemv", 4, 128) == "gemv_w4a16_g128"
    assert _spec.quant_spec_name("gemv", 8, 0, True, 0, True) == "gemv_w8a16_gall_bias"
    assert _spec.quant_spec_name("quantize", 4, 32, False) == "quantize_int4_g32_asym"
    assert _spec.quant_spec_name("quantize", 8, 0, True, 1) == "quantize_int8_per_token_gall"


@pytest.mark.parametrize("kw,pattern", [
    (dict(op="gemv", axis=1), "axis = 0"),
    (dict(op="quantize", bias=True), "only gemv takes a bias"),
    (dict(op="gemv", bits=2), "bits must be 4 or 8"),
    (dict(op="gemv", scale="f64"), "scale type"),
    (dict(op="matmul"), "unknown quantized op"),
])
def test_spec_text_errors(kw, pattern):
    with pytest.raises(ValueError, match=pattern):
        _spec.quant_spec_text(**kw)


# --- what the compiler makes of the specs (library, no torch) -----------------

COMPILES = [
    # op, dtype, bits, G, sym, scale, bias, (M, K, N)
    ("gemv", "f16", 4, 128, True, "f16", False, (1, 4096, 4096)),
    ("gemv", "bf16", 4, 32, False, "bf16", True, (3, 1024, 1000)),
    ("gemv", "f16", 8, 0, True, "bf16", False, (16, 256, 8)),
    ("gemv", "bf16", 8, 64, True, "f32", True, (4, 128, 4104)),
    ("quantize", "bf16", 4, 64, False, "bf16", False, (None, 256, 1000)),
    ("quantize", "f32", 8, 128, True, "f16", False, (None, 4096, 14336)),
    ("dequantize", "f16", 4, 0, True, "f16", False, (None, 128, 8)),
    ("dequantize", "f32", 4, 128, False, "bf16", False, (None, 1024, 4104)),
]


def _expected_args(op, dtype, bits, G, sym, scale, bias, M, K, N):
    g = 1 if G in (0, K) else K // G
    qi = "i%d" % bits
    if op == "gemv":
        a = [("x", dtype, (M, K), False), ("q", qi, (K, N), False), ("scales", scale, (g, N), False)]
        a += [] if sym else [("zeros", scale, (g, N), False)]
        a += [("bias", dtype, (N,), False)] if bias else []
        return a + [("out0", dtype, (M, N), True)]
    if op == "quantize":
        a = [("w", dtype, (K, N), False), ("out0", qi, (K, N), True), ("out1", scale, (g, N), True)]
        return a + ([] if sym else [("out2", scale, (g, N), True)])
    a = [("q", qi, (K, N), False), ("scales", scale, (g, N), False)]
    a += [] if sym else [("zeros", scale, (g, N), False)]
    return a + [("out0", dtype, (K, N), True)]


@needs_lib
@pytest.mark.parametrize("op,dtype,bits,G,sym,scale,bias,shape", COMPILES,
                         ids=["%s-%s-w%d-g%d-%s-%s%s-%s" % (c[0], c[1], c[2], c[3],
                                                            "sym" if c[4] else "asym", c[5],
                                                            "-bias" if c[6] else "",
                                                            "x".join(str(d) for d in c[7] if d))
                              for c in COMPILES])
def test_generated_specs_compile(op, dtype, bits, G, sym, scale, bias, shape):
    M, K, N = shape
    k = compile_or_skip(lambda: quant.kernel(op, dtype, bits, G, sym, scale, 0, bias,
                                             M=M, K=K, N=N))
    assert [tuple(a) for a in k.args] == _expected_args(op, dtype, bits, G, sym, scale, bias,
                                                        M, K, N)
    # rows = dim 0 of the first 2-D argument: M (gemv) or K.
    assert k.rows == (M if op == "gemv" else K)
    assert k.plan
    assert quant.kernel(op, dtype, bits, G, sym, scale, 0, bias, M=M, K=K, N=N) is k  # cached


@needs_lib
def test_generated_gemv_is_the_example_kernel():
    shapes = {"x": (3, 4096), "q": (4096, 4096), "scales": (32, 4096)}
    ex = compile_or_skip(lambda: rkc.Kernel(example("gemv_w4a16"), shapes, "bf16", "sm_90a"))
    gen = quant.kernel("gemv", "bf16", M=3, K=4096, N=4096)
    assert gen.plan == ex.plan
    assert gen.args == ex.args
    assert gen.cuda.replace("rkc_gemv_w4a16_g128", "K") == ex.cuda.replace("rkc_gemv_w4a16", "K")


@needs_lib
@pytest.mark.parametrize("arch,bits,M,K", [("sm_86", 4, 16, 4096), ("sm_89", 4, 4, 14336),
                                           ("sm_86", 8, 16, 14336)])
def test_gemv_without_room_reads_activations_from_global(arch, bits, M, K):
    """sm_86 / sm_89: a CTA's K range of activations over its 99 KiB and no
    cluster to split K: the GEMV reads them from global memory (acts=global)
    rather than failing to plan; staged where they fit."""
    k = quant.kernel("gemv", "f16", bits=bits, M=M, K=K, N=4096, arch=arch)
    assert "acts=global" in k.plan and "stage_rows_async" not in k.cuda, k.plan
    assert any("acts = global" in r for r in k.remarks), k.remarks
    small = quant.kernel("gemv", "f16", bits=bits, M=2, K=4096, N=4096, arch=arch)
    assert "acts=global" not in small.plan and "stage_rows_async" in small.cuda, small.plan
    with pytest.raises(rkc.RkcError, match="acts=global"):
        quant.kernel("gemv", "f16", bits=bits, M=M, K=K, N=4096, arch=arch,
                     schedule="acts=smem")


@needs_lib
def test_group_of_the_whole_axis_is_one_group():
    a = compile_or_skip(lambda: quant.kernel("dequantize", "f16", 4, 0, M=None, K=256, N=64))
    assert quant.kernel("dequantize", "f16", 4, 256, K=256, N=64) is a


@needs_lib
@pytest.mark.parametrize("kw,pattern", [
    (dict(op="gemv", dtype="f16", M=17, K=256, N=64), "at most 16 activation rows"),
])
def test_compiler_rejects(kw, pattern):
    compile_or_skip(lambda: quant.kernel("gemv", "f16", M=1, K=256, N=64))
    with pytest.raises(rkc.RkcError, match=pattern):
        quant.kernel(**kw)


# quant.kernel checks its parameters as rkc.quantize does, before the
# compiler sees a spec (a negative group once reached it as a spec named
# gemv_w4a16_g-1 that did not parse).
@pytest.mark.parametrize("kw,exc,pattern", [
    (dict(bits=8, group_size=128, K=4100), ValueError, "group_size 128 does not divide K = 4100"),
    (dict(group_size=-1), ValueError, "group_size must be 0 .* or positive, got -1"),
    (dict(group_size=None), TypeError, "group_size must be an int, got None"),
    (dict(group_size=3), ValueError, "group_size 3 does not divide K = 4096"),
    (dict(group_size=8192), ValueError, "group_size 8192 does not divide K = 4096"),
    (dict(bits="x"), TypeError, "bits must be an int"),
    (dict(bits=2), ValueError, "bits must be 4 .* or 8"),
    (dict(M=0), ValueError, "M must be positive, got 0"),
    (dict(K=4096.5), TypeError, "K must be an int"),
    (dict(N=True), TypeError, "N must be an int"),
    (dict(axis=2), ValueError, "axis must be 0 .* or 1"),
])
def test_kernel_checks_parameters(kw, exc, pattern):
    args = dict(op="gemv", dtype="f16", M=1, K=4096, N=4096)
    args.update(kw)
    with pytest.raises(exc, match=pattern):
        quant.kernel(**args)


@needs_lib
@pytest.mark.parametrize("G,D", [(0, 128), (128, 128)])
def test_per_token_compiles(G, D):
    T = 64
    k = compile_or_skip(lambda: quant.kernel("quantize", "f16", 8, G, True, "f16", -1,
                                             K=T, N=D))
    assert [tuple(a) for a in k.args] == [("x", "f16", (T, D), False),
                                          ("out0", "i8", (T, D), True),
                                          ("out1", "f16", (T, 1), True)]
    assert k.rows == T


@needs_lib
def test_per_token_groups_within_a_row_spec():
    """A per-token spec with groups within a row is rejected by librkc with a
    clear error (the Python layer runs such groups as rows of their own:
    test_precompile_is_the_ops_kernel)."""
    with pytest.raises(rkc.RkcError, match="groups within a row are not supported yet"):
        quant.kernel("quantize", "f16", 8, 128, True, "f16", -1, K=64, N=4096)


# --- the reference quantizer against the rules, scalar by scalar (torch) -------

def _np():
    return pytest.importorskip("numpy")


def _to_scale(np, v, sdt):
    """float32 v rounded (to nearest, ties to even) to the scale dtype, as float32."""
    v = np.float32(v)
    if sdt == "f32":
        return v
    if sdt == "f16":
        return np.float32(np.float16(v))
    b = int(np.array(v, dtype=np.float32).view(np.uint32))
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return np.array(b & 0xFFFFFFFF, dtype=np.uint32).view(np.float32)[()]


def _scalar_quantize(w, bits, G, sym, sdt):
    """docs/quantization.md's rules, one group and one column at a time in
    numpy float32: (q [K][N], scales [K/G][N], zeros or None)."""
    np = _np()
    K, N = len(w), len(w[0])
    G = G or K
    qs = [[0] * N for _ in range(K)]
    ss = [[0.0] * N for _ in range(K // G)]
    zs = None if sym else [[0.0] * N for _ in range(K // G)]
    for g in range(K // G):
        for n in range(N):
            vals = [np.float32(w[g * G + i][n]) for i in range(G)]
            if sym:
                qmax = 7 if bits == 4 else 127
                absmax = max(abs(v) for v in vals)
                s = _to_scale(np, absmax * (np.float32(1) / np.float32(qmax)), sdt)
                for i, v in enumerate(vals):
                    qs[g * G + i][n] = 0 if s == 0 else int(min(max(np.rint(v / s), -qmax), qmax))
            else:
                mn = min(min(vals), np.float32(0))
                mx = max(max(vals), np.float32(0))
                s = _to_scale(np, np.float32(mx - mn) * (np.float32(1) / np.float32(15)), sdt)
                z = 0 if s == 0 else int(min(max(np.rint(-mn / s), 0), 15))
                zs[g][n] = float(z)
                for i, v in enumerate(vals):
                    qs[g * G + i][n] = z if s == 0 else int(min(max(np.rint(v / s) + z, 0), 15))
            ss[g][n] = float(s)
    return qs, ss, zs


def _special_weights(K, N, dtype):
    g = torch.Generator().manual_seed(K * 131 + N)
    w = torch.randn(K, N, generator=g) * 2
    w[:, 0] = 0.0                           # all-zero column: scale 0
    w[:, 1] = 0.75                          # constant positive column
    w[:, 2] = 0.0                           # a group of ties: x / s = k + 1/2 (s = 1/8)
    w[:8, 2] = torch.tensor([7, 0.5, 1.5, 2.5, -2.5, -0.5, 3.5, -7]) / 8
    w[:, 3] = -torch.rand(K, generator=g)   # all negative (asymmetric: mx = 0)
    return w.to(dtype)


@needs_torch
@pytest.mark.parametrize("bits,sym", [(4, True), (4, False), (8, True)])
@pytest.mark.parametrize("wdt,sdt", [("f32", "f16"), ("bf16", "bf16"), ("f16", "f32"),
                                     ("f16", "bf16")])
def test_reference_follows_the_rules(bits, sym, wdt, sdt):
    K, N, G = 32, 6, 16
    w = _special_weights(K, N, R.SCALE_DTYPES[wdt])
    q, s, z = R.quantize(w, bits, G, sym, sdt)
    qs, ss, zs = _scalar_quantize(w.float().tolist(), bits, G, sym, sdt)
    assert q.tolist() == qs
    assert s.float().tolist() == ss and s.dtype == R.SCALE_DTYPES[sdt]
    assert (z is None) == sym
    if not sym:
        assert z.float().tolist() == zs and z.dtype == s.dtype
    # Ties round to even: x / s = 0.5, 1.5, 2.5, -2.5, -0.5, 3.5 -> 0, 2, 2, -2, 0, 4.
    if sym and bits == 4:
        assert q[:8, 2].tolist() == [7, 0, 2, 2, -2, 0, 4, -7]
    assert q[:, 0].abs().sum() == 0 if sym else (q[:, 0] == z[0, 0].long()).all()
    # Round trip through the packed storage (int4 k8, int8 k4: int32 words).
    p = R.pack(q, bits)
    assert p.dtype == torch.int32
    assert p.shape == ((K // 8, N) if bits == 4 else (K // 4, N))
    assert torch.equal(R.unpack(p, bits, sym), q)


@needs_torch
def test_reference_packing_bits():
    """Word (kp, n) holds q[8 kp + i, n] in bits 4i..4i+3."""
    q = torch.tensor([1, 2, 3, 4, 5, 6, 7, -1] + [0, -8, 0, 0, 0, 0, 0, 1],
                     dtype=torch.int32).reshape(16, 1)
    p = R.pack(q, 4)
    assert p.shape == (2, 1)
    assert int(p[0, 0]) & 0xFFFFFFFF == 0xF7654321
    assert int(p[1, 0]) & 0xFFFFFFFF == 0x10000080
    assert torch.equal(R.unpack(p, 4, True), q)


@needs_torch
def test_reference_packing_bits_int8():
    """int8 k4: word (kp, n) holds q[4 kp + i, n] as a two's-complement byte
    in bits 8i..8i+7: little-endian, the int8 [K, N] tensor with each
    column's 4 consecutive values of K made adjacent bytes."""
    q = torch.tensor([[1, 5], [-1, 6], [127, 7], [-127, 8],
                      [-128, 0], [0, -2], [2, -3], [3, -4]], dtype=torch.int32)
    p = R.pack(q, 8)
    assert p.dtype == torch.int32 and p.shape == (2, 2)
    assert [int(v) & 0xFFFFFFFF for v in p.flatten()] == [0x817FFF01, 0x08070605,
                                                           0x03020080, 0xFCFDFE00]
    assert torch.equal(R.unpack(p, 8), q)
    # The same words as the int8 tensor's bytes regrouped (the conversion
    # QuantizedTensor's error message suggests).
    g = torch.Generator().manual_seed(5)
    for K, N in ((4, 1), (8, 3), (64, 24), (128, 1000)):
        q = torch.randint(-127, 128, (K, N), generator=g, dtype=torch.int32)
        p = R.pack(q, 8)
        assert p.shape == (K // 4, N)
        if struct.pack("=i", 1) == struct.pack("<i", 1):   # little-endian host
            v = q.to(torch.int8).reshape(K // 4, 4, N).transpose(1, 2).reshape(K // 4, 4 * N)
            assert torch.equal(p, v.view(torch.int32))
        assert torch.equal(R.unpack(p, 8), q)
    with pytest.raises(ValueError, match="int8 packs 4 values of K"):
        R.pack(torch.zeros(6, 2, dtype=torch.int32), 8)


@needs_torch
def test_reference_per_token_and_dequantize():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(5, 256, generator=g).half()
    for G in (0, 64, 256):
        q, s, z = R.quantize(x, 8, G, True, "f16", axis=-1)
        ng = 1 if G in (0, 256) else 256 // G
        assert q.shape == (5, 256) and s.shape == (5, ng) and z is None
        qt, st, _ = R.quantize(x.t().contiguous(), 8, G, True, "f16")
        assert torch.equal(q, qt.t()) and torch.equal(s, st.t())
        y = R.dequantize_f32(q, s, None, G, axis=-1)
        bound = s.float().repeat_interleave(256 // ng, 1) / 2
        assert ((y - x.float()).abs() <= bound).all()
    w = torch.randn(64, 24, generator=g)
    q, s, z = R.quantize(w, 4, 32, False, "bf16")
    y = R.dequantize(q, s, z, 32, "bf16")
    assert y.dtype == torch.bfloat16
    assert torch.equal(y, (s.float().repeat_interleave(32, 0) * (q.float() - z.float()
                                                                  .repeat_interleave(32, 0)))
                       .bfloat16())


@needs_torch
def test_gemv_error_metric():
    ref = torch.tensor([[1.0, -0.5, 0.25, 1e-4]], dtype=torch.float64)
    exact = ref.to(torch.bfloat16)
    e, worst, raw = R.gemv_errors(exact, ref)
    assert e == 0 and worst == 0       # the output rounding alone is no error
    off = exact.clone()
    off[0, 1] = -0.51
    e, worst, raw = R.gemv_errors(off, ref)
    assert 5e-3 < e < 1e-2 and worst > 1
    assert R.unsupported(rkc.RkcError("x.mlir:5:12: error: quantized ops are lowered for [K, N] "
                                      "tensors quantized along K (axis = 0)")).startswith("x.mlir")
    assert R.unsupported(rkc.RkcError("x.mlir:1:1: error: group_size 48 does not divide")) is None


# --- QuantizedTensor (torch) ---------------------------------------------------

def _qt_parts(bits=4, K=64, N=24, G=32, sym=True, sdt=None):
    sdt = sdt or torch.float16
    ng = 1 if G == 0 else K // G
    packed = torch.zeros(K // (8 if bits == 4 else 4), N, dtype=torch.int32)   # k8 / k4
    s = torch.ones(ng, N, dtype=sdt)
    z = None if sym else torch.zeros(ng, N, dtype=sdt)
    return packed, s, z


@needs_torch
def test_quantized_tensor():
    p, s, z = _qt_parts(4, sym=False)
    q = rkc.QuantizedTensor(p, s, z, bits=4, group_size=32, shape=(64, 24))
    assert (q.bits, q.group_size, q.shape, q.axis, q.symmetric) == (4, 32, (64, 24), 0, False)
    assert q.nbytes == 8 * 24 * 4 + 2 * (2 * 24 * 2)
    assert q.scale_dtype == torch.float16 and q.device == p.device
    assert q.packed is p and q.scales is s and q.zeros is z
    assert "int4" in repr(q) and "asymmetric" in repr(q)
    with pytest.raises(AttributeError):
        q.packed = p
    assert "int4 k8" in repr(q)
    p8, s8, _ = _qt_parts(8, G=0)
    assert p8.shape == (16, 24) and p8.dtype == torch.int32
    q8 = rkc.QuantizedTensor(p8, s8, bits=8, group_size=0)   # shape from packed: (4 * 16, 24)
    assert q8.shape == (64, 24) and q8.symmetric and q8.packed is p8
    assert q8.nbytes == 64 * 24 + 24 * 2
    assert "int8 k4" in repr(q8) and "shape=(64, 24)" in repr(q8)
    q8s = rkc.QuantizedTensor(p8, s8, bits=8, group_size=0, shape=(64, 24))
    assert q8s.shape == (64, 24) and q8s._fmt == q8._fmt
    # Strided or misaligned parts are copied into contiguous, aligned tensors.
    big = torch.zeros(8, 48, dtype=torch.int32)
    qs = rkc.QuantizedTensor(big[:, ::2], s, bits=4, group_size=32, shape=(64, 24))
    assert qs.packed.is_contiguous() and torch.equal(qs.packed, big[:, ::2])
    off = torch.ones(2 * 24 + 1, dtype=torch.float16)[1:].view(2, 24)
    assert off.data_ptr() % 16
    qo = rkc.QuantizedTensor(p, off, bits=4, group_size=32, shape=(64, 24))
    assert qo.scales.data_ptr() % 16 == 0
    # Per-token.
    t = rkc.QuantizedTensor(torch.zeros(3, 5, 128, dtype=torch.int8),
                            torch.ones(3, 5, 2, dtype=torch.bfloat16), bits=8, group_size=64,
                            axis=-1)
    assert t.axis == -1 and t.shape == (3, 5, 128) and t.nbytes == 3 * 5 * 128 + 3 * 5 * 2 * 2
    assert "int8," in repr(t) and "k4" not in repr(t)   # per-token int8: one value per byte
    # A 2-D per-token int8 tensor keeps its shape (no k4 inference).
    t2 = rkc.QuantizedTensor(torch.zeros(16, 24, dtype=torch.int8),
                             torch.ones(16, 1, dtype=torch.float16), bits=8, group_size=0, axis=-1)
    assert t2.shape == (16, 24) and t2.packed.dtype == torch.int8


def _qt_errors():
    p, s, z = _qt_parts(4, sym=False)
    p8, s8, _ = _qt_parts(8)
    Q = rkc.QuantizedTensor
    return [
        ("bits", lambda: Q(p, s, z, bits=2, shape=(64, 24), group_size=32), ValueError, "bits must"),
        ("no-shape", lambda: Q(p, s, z, bits=4, group_size=32), TypeError, "shape"),
        ("packed-shape", lambda: Q(p, s, z, bits=4, group_size=32, shape=(128, 24)), ValueError,
         r"packed must be torch.int32 of shape \(16, 24\)"),
        ("packed-dtype", lambda: Q(p.to(torch.int64), s, z, bits=4, group_size=32, shape=(64, 24)),
         ValueError, "packed must be torch.int32"),
        ("int8-dtype", lambda: Q(p8.to(torch.uint8), s8, bits=8, group_size=32, shape=(64, 24)),
         ValueError, r"packed must be torch.int32 of shape \(16, 24\) for int8 \(four 8-bit "
         r"values of K per word, packing k4\)"),
        # The former int8 weight storage (int8 [K, N]) is rejected, with the
        # conversion to k4 words in the message; with and without shape.
        ("int8-unpacked", lambda: Q(torch.zeros(64, 24, dtype=torch.int8), s8, bits=8,
                                    group_size=32, shape=(64, 24)), ValueError,
         r"packed must be torch.int32 of shape \(16, 24\) for int8 .*packing k4.*got "
         r"torch.int8 of shape \(64, 24\)"),
        ("int8-unpacked-no-shape", lambda: Q(torch.zeros(64, 24, dtype=torch.int8), s8, bits=8,
                                             group_size=32), ValueError,
         r"q.reshape\(16, 4, 24\).transpose\(1, 2\).reshape\(16, 96\).view\(torch.int32\)"),
        ("int8-K-not-4", lambda: Q(torch.zeros(15, 24, dtype=torch.int32), s8, bits=8,
                                   group_size=0, shape=(62, 24)), ValueError,
         "int8 packs 4 values of K per 32-bit word: K = 62 is not a multiple of 4"),
        ("int8-K-not-4-no-shape", lambda: Q(torch.zeros(62, 24, dtype=torch.int8), s8, bits=8,
                                            group_size=0), ValueError,
         "int8 packs 4 values of K per 32-bit word: K = 62 is not a multiple of 4"),
        ("int8-packed-shape", lambda: Q(p8, s8, bits=8, group_size=32, shape=(128, 24)),
         ValueError, r"packed must be torch.int32 of shape \(32, 24\)"),
        ("scales-shape", lambda: Q(p, s[:1], z, bits=4, group_size=32, shape=(64, 24)),
         ValueError, r"scales must have shape \(2, 24\)"),
        ("scales-dtype", lambda: Q(p, s.double(), z, bits=4, group_size=32, shape=(64, 24)),
         TypeError, "scales must be float16"),
        ("zeros-dtype", lambda: Q(p, s, z.bfloat16(), bits=4, group_size=32, shape=(64, 24)),
         ValueError, "zeros must have the shape and dtype"),
        ("sym-with-zeros", lambda: Q(p, s, z, bits=4, group_size=32, shape=(64, 24),
                                     symmetric=True), ValueError, "no zero points"),
        ("asym-no-zeros", lambda: Q(p, s, None, bits=4, group_size=32, shape=(64, 24),
                                    symmetric=False), ValueError, "needs zero points"),
        ("asym-int8", lambda: Q(p8, s8, s8, bits=8, group_size=32), ValueError, "int4 only"),
        ("group", lambda: Q(p, s, z, bits=4, group_size=48, shape=(64, 24)), ValueError,
         "does not divide K = 64"),
        ("K-not-8", lambda: Q(p, s, z, bits=4, group_size=0, shape=(60, 24)), ValueError,
         "not a multiple of 8"),
        ("not-tensor", lambda: Q(p.tolist(), s, z, bits=4, group_size=32, shape=(64, 24)),
         TypeError, "packed must be a torch.Tensor"),
        ("per-token-int4", lambda: Q(p, s, z, bits=4, group_size=32, shape=(8, 24), axis=-1),
         ValueError, "int8 symmetric only"),
        ("axis", lambda: Q(p8, s8, bits=8, group_size=32, axis=2), ValueError, "axis must be 0"),
        ("1-D", lambda: Q(p8.reshape(-1), s8, bits=8, group_size=32), ValueError,
         "at least 2 positive dimensions"),
    ]


@needs_torch
@pytest.mark.parametrize("i", range(22), ids=lambda i: "qt-error-%d" % i)
def test_quantized_tensor_errors(i):
    errors = _qt_errors()
    assert len(errors) == 22
    name, fn, exc, pattern = errors[i]
    with pytest.raises(exc, match=pattern):
        fn()


# --- the ops with CPU tensors standing in for CUDA tensors (torch + library) ---

class Launches(list):
    pass


@pytest.fixture
def launches(monkeypatch):
    rec = Launches()
    ops._t()
    real_check = ops._check_tensor

    def check_tensor(op, what, t):
        if isinstance(t, torch.Tensor) and t.device.type == "cpu":
            return
        real_check(op, what, t)

    def submit(k, ptrs, strides, M, dev):
        with pytest.raises(rkc.RkcError) as e:
            k.launch(ptrs, strides, M, None)
        # Validation passed (pointers, alignment, strides): stopped at the driver.
        assert e.value.status == rkc.RKC_ERROR_NO_DRIVER, str(e.value)
        rec.append({"kernel": k, "ptrs": list(ptrs), "strides": list(strides), "M": M})

    monkeypatch.setattr(ops, "_check_tensor", check_tensor)
    monkeypatch.setattr(ops, "_submit", submit)
    monkeypatch.setattr(ops, "_arch", lambda dev: "sm_90a")
    # CPU tensors have no device index: one target for them and for the
    # "cuda:0" of precompile, whatever GPU the machine has (or none).
    monkeypatch.setattr(ops, "_target", lambda dev: ("sm_90a", None))
    monkeypatch.setattr(ops, "_compile_on", lambda dev, make: make())
    monkeypatch.setattr(ops, "_fast", {})
    return rec


def _launch_ok(fn):
    return compile_or_skip(fn)


@needs_torch
@needs_lib
@no_driver
@pytest.mark.parametrize("bits,sym", [(4, True), (4, False), (8, True)])
def test_quantize_dequantize_launch(launches, bits, sym):
    K, N = 256, 1000
    w = torch.randn(K, N).bfloat16()
    q = _launch_ok(lambda: rkc.quantize(w, bits=bits, group_size=64, symmetric=sym))
    assert isinstance(q, rkc.QuantizedTensor)
    assert (q.bits, q.group_size, q.symmetric, q.shape, q.axis) == (bits, 64, sym, (K, N), 0)
    assert q.scale_dtype == torch.bfloat16                    # default: w's dtype
    assert q.packed.shape == ((K // 8, N) if bits == 4 else (K // 4, N))
    assert q.packed.dtype == torch.int32                      # k8 / k4 words
    assert q.scales.shape == (4, N) and (q.zeros is None) == sym
    l = launches[-1]
    k = l["kernel"]
    assert [a.name for a in k.inputs] == ["w"] and len(k.outputs) == (2 if sym else 3)
    assert l["ptrs"] == [w.data_ptr(), q.packed.data_ptr(), q.scales.data_ptr()] + (
        [] if sym else [q.zeros.data_ptr()])
    assert l["M"] == K and l["strides"] == [0] * len(l["ptrs"])
    d = _launch_ok(lambda: rkc.dequantize(q))
    assert d.shape == (K, N) and d.dtype == torch.bfloat16
    l = launches[-1]
    assert l["ptrs"] == [q.packed.data_ptr(), q.scales.data_ptr()] + (
        [] if sym else [q.zeros.data_ptr()]) + [d.data_ptr()]
    assert l["kernel"].args[-1].dtype == "bf16" and l["M"] == K
    d32 = q.dequantize(torch.float32)
    assert d32.dtype == torch.float32 and launches[-1]["kernel"].args[-1].dtype == "f32"
    # f32 weights: f16 scales by default; an explicit scale dtype.
    q2 = rkc.quantize(w.float(), bits=bits, group_size=0, symmetric=sym)
    assert q2.scale_dtype == torch.float16 and q2.scales.shape == (1, N)
    assert launches[-1]["kernel"].args[0].dtype == "f32"
    q3 = rkc.quantize(w, bits=bits, group_size=128, symmetric=sym, scale_dtype="f32")
    assert q3.scale_dtype == torch.float32
    # linear.weight.t(): a transposed view is copied first.
    lin = torch.randn(N, K).half()
    q4 = rkc.quantize(lin.t(), bits=bits, symmetric=sym)
    assert q4.shape == (K, N) and launches[-1]["ptrs"][0] != lin.data_ptr()


@needs_torch
@needs_lib
@no_driver
@pytest.mark.parametrize("bits,sym", [(4, True), (4, False), (8, True)])
def test_gemv_launch(launches, bits, sym):
    K, N = 256, 1000
    w = torch.randn(K, N).half()
    q = _launch_ok(lambda: rkc.quantize(w, bits=bits, group_size=32, symmetric=sym))
    qptrs = [q.packed.data_ptr(), q.scales.data_ptr()] + ([] if sym else [q.zeros.data_ptr()])
    for M in (1, 3, 16):
        x = torch.randn(M, K).bfloat16()
        y = _launch_ok(lambda: rkc.gemv(x, q))
        assert y.shape == (M, N) and y.dtype == torch.bfloat16
        l = launches[-1]
        assert [a.name for a in l["kernel"].args] == ["x", "q", "scales"] + (
            [] if sym else ["zeros"]) + ["out0"]
        assert l["ptrs"] == [x.data_ptr()] + qptrs + [y.data_ptr()]
        assert l["M"] == M and l["kernel"].rows == M
    # Bias (cast to x's dtype), 1-D x, N-D x, rkc.linear.
    x = torch.randn(4, K).half()
    b = torch.randn(N)
    y = rkc.gemv(x, q, bias=b)
    l = launches[-1]
    assert [a.name for a in l["kernel"].inputs][-1] == "bias"
    assert l["kernel"].inputs[-1].dtype == "f16" and l["ptrs"][-2] != b.data_ptr()
    y1 = rkc.gemv(x[0], q)
    assert y1.shape == (N,) and launches[-1]["M"] == 1
    y3 = rkc.linear(torch.randn(2, 3, K).half(), q, b.half())
    assert y3.shape == (2, 3, N) and launches[-1]["M"] == 6
    assert rkc.linear is rkc.gemv
    # Strided and misaligned activations are copied (contiguous, 16-byte aligned).
    xs = torch.randn(3, 2 * K).half()[:, ::2]
    rkc.gemv(xs, q)
    assert launches[-1]["ptrs"][0] != xs.data_ptr() and launches[-1]["ptrs"][0] % 16 == 0
    xo = torch.randn(K + 1).half()[1:]
    assert xo.data_ptr() % 16
    rkc.gemv(xo, q)
    assert launches[-1]["ptrs"][0] % 16 == 0
    xp = torch.randn(3, K + 8).half()[:, :K]          # padded rows: copied
    rkc.gemv(xp, q)
    assert launches[-1]["ptrs"][0] != xp.data_ptr()


@needs_torch
@needs_lib
@no_driver
def test_gemv_fast_path(monkeypatch, launches):
    """A second call with the same layout takes ops._fast (a prepared
    launcher): the same kernel, pointers and rows as the checked path."""
    lib = rkc._lib.library()
    real = lib["rkcKernelLaunch"]
    real.restype = ctypes.c_int
    fast = []

    def c_launch(h, packed, strides, rows, stream):
        st = real(h, packed, strides, rows, stream)
        assert st == rkc.RKC_ERROR_NO_DRIVER, lib.rkcGetLastError()
        n = len(packed) // 8
        fast.append({"handle": h.value, "ptrs": list(struct.unpack("%dQ" % n, packed)),
                     "M": rows.value})
        return 0

    monkeypatch.setattr(ops, "_FAST_DEVICES", ("cpu",))
    monkeypatch.setattr(ops, "_current_device", lambda: None)
    monkeypatch.setattr(ops, "_raw_stream", lambda dev: 0x5000)
    monkeypatch.setattr(ops, "_launch_fn", c_launch)
    K, N = 256, 1000
    for bits, sym in ((4, True), (4, False), (8, True)):
        q = _launch_ok(lambda: rkc.quantize(torch.randn(K, N).half(), bits=bits, group_size=32,
                                            symmetric=sym))
        for bias in (None, torch.randn(N).half(), torch.randn(N)):
            x = torch.randn(3, K).half()
            del launches[:], fast[:]
            y0 = rkc.gemv(x, q, bias)
            assert len(launches) == 1 and not fast
            x2 = torch.randn(3, K).half()
            y = rkc.gemv(x2, q, bias)
            assert len(launches) == 1 and len(fast) == 1, "the second call took the slow path"
            assert y.shape == y0.shape and y.dtype == y0.dtype
            slow, f = launches[0], fast[0]
            assert f["handle"] == slow["kernel"]._handle.value and f["M"] == slow["M"] == 3
            assert f["ptrs"][0] == x2.data_ptr() and f["ptrs"][-1] == y.data_ptr()
            assert f["ptrs"][1:len(f["ptrs"]) - 1 - (bias is not None)] == slow["ptrs"][1:len(
                slow["ptrs"]) - 1 - (bias is not None)]
            if bias is not None and bias.dtype == x.dtype:
                assert f["ptrs"][-2] == bias.data_ptr()
            # A misaligned x of the same layout goes back to the checked path.
            xo = torch.randn(3 * K + 1).half()[1:].view(3, K)
            rkc.gemv(xo, q, bias)
            assert len(launches) == 2 and launches[-1]["ptrs"][0] % 16 == 0


def _errors():
    K, N = 256, 96
    w = torch.randn(K, N).half()
    q4 = rkc.quantize(w, bits=4, group_size=128)
    q8 = rkc.quantize(w, bits=8, group_size=128)
    x = torch.randn(2, K).half()
    kv = rkc.QuantizedTensor(torch.zeros(4, 128, dtype=torch.int8),
                             torch.ones(4, 1, dtype=torch.float16), bits=8, group_size=0,
                             axis=-1)
    return [
        ("bits", lambda: rkc.quantize(w, bits=3), ValueError, r"rkc.quantize: bits must be 4"),
        ("bits-bool", lambda: rkc.quantize(w, bits=True), TypeError, "bits must be an int"),
        ("group-divide", lambda: rkc.quantize(w, group_size=96), ValueError,
         "group_size 96 does not divide K = 256"),
        ("group-int8", lambda: rkc.quantize(torch.randn(384, 8).half(), bits=8, group_size=48),
         ValueError, "group_size must be 0 .* 32, 64 or 128, got 48"),
        ("group-int4-8", lambda: rkc.quantize(torch.randn(384, 8).half(), bits=4, group_size=12),
         ValueError, "multiple of 8"),
        ("group-negative", lambda: rkc.quantize(w, group_size=-1), ValueError, "group_size"),
        ("group-float", lambda: rkc.quantize(w, group_size=128.0), TypeError, "group_size"),
        ("asym-int8", lambda: rkc.quantize(w, bits=8, symmetric=False), ValueError,
         "asymmetric quantization is int4 only"),
        ("K-not-8", lambda: rkc.quantize(torch.randn(100, 8).half(), group_size=0), ValueError,
         "K = 100 .* not a multiple of 8"),
        ("K-not-4", lambda: rkc.quantize(torch.randn(102, 8).half(), bits=8, group_size=0),
         ValueError, r"int8 packs 4 values of K per 32-bit word: K = 102 \(dim 0 of w\) is not "
         "a multiple of 4"),
        ("w-int", lambda: rkc.quantize(w.to(torch.int32)), TypeError,
         "rkc.quantize: w must be float32, bfloat16 or float16"),
        ("w-f64", lambda: rkc.quantize(w.double()), TypeError, "float64"),
        ("w-1d", lambda: rkc.quantize(w[0]), ValueError, r"w must be \[K, N\]"),
        ("w-3d", lambda: rkc.quantize(w.reshape(2, 128, N)), ValueError, r"must be \[K, N\]"),
        ("w-zero", lambda: rkc.quantize(w[:0]), ValueError, "zero-size"),
        ("w-list", lambda: rkc.quantize([[1.0]]), TypeError, "w must be a torch.Tensor"),
        ("scale-dtype", lambda: rkc.quantize(w, scale_dtype=torch.float64), TypeError,
         "scale_dtype"),
        ("axis", lambda: rkc.quantize(w, axis=2), ValueError, "axis must be 0"),
        ("per-token-int4", lambda: rkc.quantize(w, axis=-1), ValueError,
         "per-token quantization .* int8 symmetric only"),
        ("per-token-group", lambda: rkc.quantize(torch.randn(4, 96).half(), bits=8, axis=-1),
         ValueError, r"group_size 128 does not divide D \(the last dim\) = 96"),
        ("symmetric-type", lambda: rkc.quantize(w, symmetric="no"), TypeError, "symmetric"),
        ("gemv-M", lambda: rkc.gemv(torch.randn(17, K).half(), q4), ValueError,
         "rkc.gemv: x has 17 rows .* at most 16"),
        ("gemv-M-nd", lambda: rkc.gemv(torch.randn(3, 6, K).half(), q4), ValueError, "18 rows"),
        ("gemv-K", lambda: rkc.gemv(torch.randn(2, K + 8).half(), q4), ValueError,
         r"x has 264 columns .* \[K, N\] = \[256, 96\]"),
        ("gemv-f32", lambda: rkc.gemv(x.float(), q4), TypeError,
         "rkc.gemv: x must be float16 or bfloat16, got torch.float32"),
        ("gemv-q", lambda: rkc.gemv(x, w), TypeError, "rkc.gemv: q must be an rkc.QuantizedTensor"),
        ("gemv-per-token", lambda: rkc.gemv(torch.randn(2, 128).half(), kv), ValueError,
         "axis=0"),
        ("gemv-bias-shape", lambda: rkc.gemv(x, q8, bias=torch.randn(N + 1)), ValueError,
         r"bias must have shape \(96,\)"),
        ("gemv-bias-int", lambda: rkc.gemv(x, q8, bias=torch.zeros(N, dtype=torch.int32)),
         TypeError, "bias must be a float tensor"),
        ("gemv-scalar", lambda: rkc.gemv(x[0, 0], q8), ValueError, "scalar"),
        ("gemv-zero", lambda: rkc.gemv(x[:0], q8), ValueError, "zero-size"),
        ("dequantize-q", lambda: rkc.dequantize(w), TypeError,
         "rkc.dequantize: q must be an rkc.QuantizedTensor"),
        ("dequantize-dtype", lambda: rkc.dequantize(q4, torch.int8), TypeError,
         "rkc.dequantize: dtype must be float32, bfloat16 or float16"),
        ("dequantize-dtype-str", lambda: rkc.dequantize(q4, "f16"), TypeError, "torch dtype"),
    ]


@needs_torch
@needs_lib
@no_driver
def test_errors(launches):
    errs = _errors()
    del launches[:]   # the setup quantized q4 and q8
    for name, fn, exc, pattern in errs:
        with pytest.raises(exc, match=pattern):
            fn()
        assert not launches, name


@needs_torch
def test_quantize_allocates_k4_words(monkeypatch):
    """rkc.quantize's outputs (without librkc: the compile and the launch
    stubbed): int8 weights are int32 [K / 4, N] words (k4) and their spec
    says packing = k4; int4 int32 [K / 8, N]; per-token int8 stays int8 of
    the input's shape. K not a multiple of 4 is rejected before compiling."""
    ops._t()
    compiled, launched = [], []

    class FakeKernel(object):
        def __init__(self, key):
            self.outputs = (None,) * (2 if key[3] else 3)

    def compile_(*key, **kw):
        compiled.append(key)
        return FakeKernel(key)

    monkeypatch.setattr(ops, "_check_tensor", lambda op, what, t: None)
    monkeypatch.setattr(ops, "_arch", lambda dev: "sm_90a")
    monkeypatch.setattr(quant, "_compile", compile_)
    monkeypatch.setattr(quant, "_run", lambda k, tensors, dev, key: launched.append(tensors))
    K, N = 256, 128
    w = torch.randn(K, N).half()
    cases = [(8, 0, (K // 4, N), torch.int32, "k4"), (4, 0, (K // 8, N), torch.int32, "k8"),
             (8, -1, (K, N), torch.int8, "none")]
    for bits, axis, pshape, pdtype, packing in cases:
        q = rkc.quantize(w, bits=bits, group_size=64, axis=axis)
        assert q.packed.shape == pshape and q.packed.dtype == pdtype, (bits, axis)
        assert q.shape == (K, N) and q.axis == axis
        assert launched[-1][1] is q.packed
        key = compiled[-1]
        text = _spec.quant_spec_text(*key[:7])
        assert text.count("packing = ") == text.count("packing = %s>" % packing) > 0, text
    n = len(compiled)
    with pytest.raises(ValueError, match=r"rkc.quantize: int8 packs 4 values of K per 32-bit "
                                         r"word: K = 102 \(dim 0 of w\) is not a multiple of 4"):
        rkc.quantize(torch.randn(102, 8).half(), bits=8, group_size=0)
    assert len(compiled) == n
    # K = 4 (one word per column) and per-token rows of any length.
    q = rkc.quantize(torch.randn(4, 3).half(), bits=8, group_size=0)
    assert q.packed.shape == (1, 3) and q.packed.dtype == torch.int32
    q = rkc.quantize(torch.randn(5, 3).half(), bits=8, group_size=0, axis=-1)
    assert q.packed.shape == (5, 3) and q.packed.dtype == torch.int8


@needs_torch
def test_cpu_tensors_rejected():
    w = torch.randn(64, 8).half()
    with pytest.raises(ValueError, match="rkc.quantize: w must be a CUDA tensor"):
        rkc.quantize(w)
    p, s, z = _qt_parts(8, K=64, N=8, G=0)
    q = rkc.QuantizedTensor(p, s, bits=8, group_size=0)
    with pytest.raises(ValueError, match="rkc.gemv: q.packed must be a CUDA tensor"):
        rkc.gemv(torch.randn(1, 64).half(), q)
    with pytest.raises(ValueError, match="rkc.dequantize: q.packed must be a CUDA tensor"):
        rkc.dequantize(q)


@needs_torch
@needs_lib
def test_precompile_is_the_ops_kernel(monkeypatch):
    ops._t()
    monkeypatch.setattr(ops, "_arch", lambda dev: "sm_90a")
    # quant.kernel plans for an explicit arch, (arch, None); so does the
    # "cuda:0" here, whatever GPU the machine has (or none).
    monkeypatch.setattr(ops, "_target", lambda dev: ("sm_90a", None))
    monkeypatch.setattr(ops, "_compile_on", lambda dev, make: make())
    k = compile_or_skip(lambda: quant.precompile("gemv", (256, 1000), torch.bfloat16, bits=4,
                                                 group_size=32, symmetric=False, rows=3,
                                                 bias=True, device="cuda:0"))
    assert [a.name for a in k.args] == ["x", "q", "scales", "zeros", "bias", "out0"]
    assert k.args[2].dtype == "bf16"      # scale_dtype default: as rkc.quantize's
    assert quant.kernel("gemv", "bf16", 4, 32, False, "bf16", 0, True, M=3, K=256, N=1000) is k
    kq = quant.precompile("quantize", (256, 1000), torch.float32, bits=8, device="cuda:0")
    assert kq.args[2].dtype == "f16"
    # Per token with groups within a row: the one-group-per-row kernel over
    # [T * D / G, G] (what rkc.quantize and rkc.dequantize run).
    kt = quant.precompile("quantize", (33, 4096), torch.float16, bits=8, group_size=128,
                          axis=-1, device="cuda:0")
    assert kt.args[0].shape == (33 * 32, 128) and kt.args[2].shape == (33 * 32, 1)
    kd = quant.precompile("dequantize", (33, 4096), torch.bfloat16, bits=8, group_size=128,
                          axis=-1, device="cuda:0")
    assert kd.args[0].shape == (33 * 32, 128) and kd.args[1].shape == (33 * 32, 1)
    with pytest.raises(ValueError, match="rows=M"):
        quant.precompile("gemv", (256, 1000), torch.float16, device="cuda:0")
    with pytest.raises(ValueError, match="unknown op"):
        quant.precompile("matmul", (256, 1000), torch.float16, device="cuda:0")
