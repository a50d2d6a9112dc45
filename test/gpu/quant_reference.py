"""PyTorch reference of rkc's quantized formats (docs/quantization.md), on
any device: the quantizer that rkc.quantize must match bit for bit, the
packings of the weights (int4 k8, int8 k4), dequantization, and a float64
GEMV reference.

Shared by the GPU tests (test_quant_ops.py), the CPU tests (which check
this reference against a scalar numpy transcription of the rules) and
bench/bench_quant.py. Everything is vectorised torch; no rkc here.
"""

import torch

QMAX = {4: 7, 8: 127}
SCALE_DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

# Phrases of librkc's diagnostics for a quantized op (or a variant of one)
# that it cannot lower yet: the tests skip on these, naming the message.
UNSUPPORTED = ("not supported", "unsupported", "are lowered for", "is lowered for",
               "no lowering", "cannot lower", "not implemented", "not yet")


def unsupported(error):
    """The first line of an RkcError's message when it says that librkc does
    not lower this op / variant yet, else None."""
    msg = str(error)
    low = msg.lower()
    if any(p in low for p in UNSUPPORTED):
        return msg.splitlines()[0] if msg else type(error).__name__
    return None


def _dtype(d):
    return SCALE_DTYPES[d] if isinstance(d, str) else d


def _recip(qmax):
    """The float32 reciprocal of qmax: scales are range * fl32(1 / qmax), the
    same on every device (PyTorch's CUDA division by a Python scalar computes
    exactly this, its CPU division does not)."""
    return torch.tensor(1.0, dtype=torch.float32) / torch.tensor(float(qmax), dtype=torch.float32)


def quantize(w, bits=4, group_size=128, symmetric=True, scale_dtype=torch.float16, axis=0):
    """(q, scales, zeros) of w by the rules of docs/quantization.md.

    axis 0: w [K, N], groups of G consecutive k per column (G = 0: all of
    K); q int32 [K, N] (unpacked), scales / zeros [K / G, N]. axis -1: w
    [..., D], groups along the last dim; q [..., D], scales [..., D / G].
    zeros is None when symmetric; scales and zeros have scale_dtype.
    """
    sdt = _dtype(scale_dtype)
    if axis != 0:
        shape = tuple(w.shape)
        D = shape[-1]
        q, s, z = quantize(w.reshape(-1, D).t(), bits, group_size, symmetric, sdt, 0)
        q = q.t().reshape(shape)
        s = s.t().reshape(shape[:-1] + (-1,))
        z = None if z is None else z.t().reshape(shape[:-1] + (-1,))
        return q.contiguous(), s.contiguous(), None if z is None else z.contiguous()
    K, N = w.shape
    G = group_size or K
    x = w.float().reshape(K // G, G, N)
    if symmetric:
        qmax = QMAX[bits]
        s = (x.abs().amax(1) * _recip(qmax)).to(sdt)
        sf = s.float()[:, None, :]
        q = torch.where(sf == 0, torch.zeros_like(x),
                        torch.clamp(torch.round(x / sf), -qmax, qmax))
        z = None
    else:
        if bits != 4:
            raise ValueError("asymmetric is int4 only")
        mn = torch.clamp(x.amin(1), max=0.0)
        mx = torch.clamp(x.amax(1), min=0.0)
        s = ((mx - mn) * _recip(15)).to(sdt)
        sf = s.float()
        zf = torch.where(sf == 0, torch.zeros_like(sf), torch.clamp(torch.round(-mn / sf), 0, 15))
        z = zf.to(sdt)
        sf3, zf3 = sf[:, None, :], zf[:, None, :]
        q = torch.where(sf3 == 0, zf3.expand_as(x),
                        torch.clamp(torch.round(x / sf3) + zf3, 0, 15))
    return q.reshape(K, N).to(torch.int32), s, z


PER_WORD = {4: 8, 8: 4}     # values of K per 32-bit word: int4 k8, int8 k4


def pack(q, bits):
    """The storage of unpacked weights q [K, N] (int; axis 0): int4 (k8) ->
    int32 [K / 8, N], nibble i (bits 4i..4i+3) of word (kp, n) =
    q[8 kp + i, n] & 0xF; int8 (k4) -> int32 [K / 4, N], byte i (bits
    8i..8i+7) of word (kp, n) = q[4 kp + i, n] & 0xFF (two's complement).
    Per-token int8 is stored unpacked: q.to(torch.int8)."""
    per = PER_WORD[bits]
    width = 32 // per
    K, N = q.shape
    if K % per:
        raise ValueError("int%d packs %d values of K per 32-bit word: K = %d" % (bits, per, K))
    u = (q.to(torch.int64) & ((1 << width) - 1)).reshape(K // per, per, N)
    shifts = (width * torch.arange(per, device=q.device, dtype=torch.int64)).reshape(1, per, 1)
    w = (u << shifts).sum(1)
    w = torch.where(w >= 2 ** 31, w - 2 ** 32, w)
    return w.to(torch.int32).contiguous()


def unpack(packed, bits, symmetric=True):
    """The inverse of pack: int32 [K, N] values (two's complement when
    symmetric; int4 asymmetric: 0..15)."""
    per = PER_WORD[bits]
    width = 32 // per
    Kp, N = packed.shape
    shifts = (width * torch.arange(per, device=packed.device, dtype=torch.int32)).reshape(1, per, 1)
    v = (packed.to(torch.int32).unsqueeze(1) >> shifts) & ((1 << width) - 1)
    if symmetric:
        half = 1 << (width - 1)
        v = torch.where(v >= half, v - 2 * half, v)
    return v.reshape(Kp * per, N)


def dequantize_f32(q, scales, zeros, group_size, axis=0):
    """scale * (q - zero) in float32 (the exact product before the output
    rounding), q unpacked int [K, N] (axis 0) or [..., D] (axis -1)."""
    if axis != 0:
        shape = tuple(q.shape)
        D = shape[-1]
        y = dequantize_f32(q.reshape(-1, D).t(), scales.reshape(-1, scales.shape[-1]).t(),
                           None if zeros is None else zeros.reshape(-1, zeros.shape[-1]).t(),
                           group_size if group_size not in (0, D) else 0, 0)
        return y.t().reshape(shape).contiguous()
    K, N = q.shape
    G = group_size or K
    sf = scales.float().repeat_interleave(G, 0)
    zf = 0.0 if zeros is None else zeros.float().repeat_interleave(G, 0)
    return sf * (q.float() - zf)


def dequantize(q, scales, zeros, group_size, dtype, axis=0):
    """What rkc.dequantize returns: dequantize_f32 rounded to dtype."""
    return dequantize_f32(q, scales, zeros, group_size, axis).to(_dtype(dtype))


def gemv(x, w_f32, bias=None):
    """float64 x @ w (+ bias) for x [..., K], w [K, N] (dequantize_f32)."""
    y = x.double() @ w_f32.double()
    if bias is not None:
        y = y + bias.double()
    return y


def half_ulp(v, dtype):
    """Half an ulp of dtype (float16 / bfloat16 / float32) at |v| (float64
    tensor): the most that rounding a value of magnitude |v| to dtype may
    change it."""
    p, emin = {torch.float16: (11, -14), torch.bfloat16: (8, -126),
               torch.float32: (24, -126)}[dtype]
    a = v.abs().double()
    _, e = torch.frexp(a)
    e = torch.where(a == 0, torch.full_like(e, emin), torch.clamp(e - 1, min=emin))
    # e: the binade's exponent (subnormals and zero: emin)
    return torch.ldexp(torch.ones_like(v, dtype=torch.float64), e - p)


def gemv_errors(out, ref):
    """(max_rel, worst) of a GEMV output against its float64 reference,
    after allowing each element the rounding to out's dtype (half an ulp of
    the larger of |out| and |ref|), which no kernel can avoid:
    e = max(|out - ref| - half_ulp, 0); max_rel = max(e) / max|ref|, and
    worst = max(e / (2e-3 |ref| + 2e-3 max|ref|)) (allclose with rtol 2e-3,
    atol 2e-3 max|ref|: <= 1 passes). Also the raw max|out - ref| / max|ref|."""
    o = out.double()
    r = ref.double()
    m = r.abs().max().clamp_min(1e-30)
    raw = (o - r).abs()
    e = torch.clamp(raw - half_ulp(torch.maximum(o.abs(), r.abs()), out.dtype), min=0)
    worst = (e / (2e-3 * r.abs() + 2e-3 * m)).max()
    return (e.max() / m).item(), worst.item(), (raw.max() / m).item()
