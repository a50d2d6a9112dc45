"""Quantized weights (int4 / int8) and the decode GEMV (W4A16 / W8A16) on
CUDA tensors through librkc.

    import torch, rkc
    qw = rkc.quantize(linear.weight.t(), bits=4, group_size=128)  # [K, N] -> QuantizedTensor
    y = rkc.gemv(x, qw, bias=linear.bias)       # x [M, K] (M <= 16) -> [M, N] in x's dtype
    w = rkc.dequantize(qw)                      # [K, N] in the scales' dtype
    kq = rkc.quantize(kv, bits=8, group_size=0, axis=-1)   # per-token int8 of [T, D]

Weights are [K, N] (K = in_features, the reduced dim; N = out_features):
``out = x @ dequant(W)``. torch.nn.Linear.weight is [N, K], so pass
``linear.weight.t()``. The formats (int4 weights packed eight values of K
per 32-bit word, packing k8; int8 weights four values of K per 32-bit word,
packing k4; per-token int8 one value per byte; group scales [K / G, N], zero
points) and the quantization rounding are those of docs/quantization.md; a
QuantizedTensor may also be built from tensors in that format (e.g.
converted from a checkpoint).

Every op compiles its kernel from a spec generated from its parameters
(rkc._spec.quant_spec_text), caches it like the row ops (rkc.ops), and
launches it on torch's current stream: no host synchronisation, so gemv and
quantize can be captured in CUDA graphs once each shape has run once (or
after rkc.quant.precompile). Bad bits, group sizes, shapes, dtypes and
devices raise ValueError / TypeError naming the op.
"""

import operator

from . import _spec
from . import ops as _ops
from ._lib import Kernel, RkcError, format_shapes

__all__ = ["QuantizedTensor", "quantize", "dequantize", "gemv", "linear", "precompile",
           "kernel", "MAX_GEMV_ROWS"]

MAX_GEMV_ROWS = 16          # rk.gemv is a decode GEMV: M = 1 ... 16 activation rows
_GROUPS = (32, 64, 128)     # group sizes of every format (besides 0 and the whole axis)
_QMAX = {4: 7, 8: 127}
_ALIGN = 16                 # byte alignment of every pointer a quantized kernel loads
_SCALE_ALIASES = {"f16": "f16", "float16": "f16", "half": "f16", "bf16": "bf16",
                  "bfloat16": "bf16", "f32": "f32", "float32": "f32", "float": "f32"}
_MAX_DIM = (1 << 31) - 1


# --- kernels (no torch needed) ---------------------------------------------

def _spec_group(group_size, length):
    """The group_size of the spec: one group over the whole axis is 0."""
    return 0 if group_size in (0, length) else group_size


def _token_rows(rows, D, G):
    """(rows, cols) of the per-token kernel for `rows` rows of D values in
    groups of G: groups within a row (0 < G < D) run the one-group-per-row
    kernel over the same contiguous memory viewed as [rows * D / G, G] (the
    scales [rows, D / G] are [rows * D / G, 1])."""
    return (rows * (D // G), G) if 0 < G < D else (rows, D)


def _kernel_key(op, bits, group, symmetric, scale, axis, bias, shapes, dtype, target, vec,
                pdl=False):
    return ("quant", op, bits, group, bool(symmetric), scale, axis, bool(bias), shapes, dtype,
            target, vec, bool(pdl))


def _compile(op, bits, group, symmetric, scale, axis, bias, shapes, dtype, target, vec=None,
             pdl=False, dev=None):
    """The cached rkc.Kernel of one quantized op; `shapes` a format_shapes
    string, `group` already canonical (_spec_group); `target`: (arch, SM
    count, name) of device `dev` (rkc.ops._target; (arch, None) and dev None for
    an explicit arch), compiled with `dev` current; `pdl`: its handle
    launches with programmatic dependent launch."""
    key = _kernel_key(op, bits, group, symmetric, scale, axis, bias, shapes, dtype, target, vec,
                      pdl)
    k = _ops._kernels.get(key)
    if k is not None:
        return k

    def make():
        name = _spec.quant_spec_name(op, bits, group, symmetric, axis, bias)
        text = _spec.quant_spec_text(op, bits, group, symmetric, scale, axis, bias)
        return _ops._compile_on(dev, lambda: Kernel(
            text, shapes, dtype, target[0], None if vec is None else "vector=%d" % vec,
            name + ".mlir", pdl=pdl))

    return _ops._cached_kernel(key, make)


def _shapes(op, bits, group, symmetric, axis, bias, M=None, K=None, N=None):
    """The compile request's shapes, by argument name: LOGICAL shapes (q is
    [K, N] whatever its storage). For per-token ops (axis 1), K is the rows
    T and N the row length D."""
    ng = 1 if group == 0 else (K // group if axis == 0 else N // group)
    sshape = (ng, N) if axis == 0 else (K, ng)
    if op == "quantize":
        d = [("x" if axis else "w", (K, N))]
    elif op == "dequantize":
        d = [("q", (K, N)), ("scales", sshape)]
        if not symmetric:
            d.append(("zeros", sshape))
    else:
        d = [("x", (M, K)), ("q", (K, N)), ("scales", sshape)]
        if not symmetric:
            d.append(("zeros", sshape))
        if bias:
            d.append(("bias", (N,)))
    return format_shapes(dict(d))


def kernel(op, dtype, bits=4, group_size=128, symmetric=True, scale="f16", axis=0, bias=False,
           M=None, K=None, N=None, arch="sm_90a", schedule=None):
    """The rkc.Kernel of a quantized op for explicit parameters, without
    torch (compile-only machines, tests, inspecting plans and CUDA).

    op: "quantize" (input [K, N], or [T=K, D=N] per token with axis=1),
    "dequantize" or "gemv" (x [M, K] times q [K, N]); dtype: the !rk.dtype
    ("f16", "bf16", "f32": gemv's activations, quantize's input,
    dequantize's output); scale: "f16", "bf16" or "f32". Raises RkcError
    when librkc cannot compile it."""
    op = str(op)
    if op not in _spec.QUANT_OPS:
        raise ValueError("rkc.quant.kernel: unknown op %r (one of: %s)"
                         % (op, ", ".join(_spec.QUANT_OPS)))
    if K is None or N is None or (op == "gemv" and M is None):
        raise TypeError("rkc.quant.kernel: %s needs %s" % (op, "M, K and N" if op == "gemv"
                                                           else "K and N"))
    for what, v in (("M", M), ("K", K), ("N", N)):
        if v is not None and _int("quant.kernel", what, v) <= 0:
            raise ValueError("rkc.quant.kernel: %s must be positive, got %d" % (what, v))
    bits = _bits("quant.kernel", bits)
    if axis not in (0, 1, -1) or isinstance(axis, bool):
        raise ValueError("rkc.quant.kernel: axis must be 0 (along K) or 1 (per token), got %r"
                         % (axis,))
    axis = 1 if axis in (1, -1) else 0
    group = _spec_group(_group("quant.kernel", bits, group_size, K if axis == 0 else N,
                               "K" if axis == 0 else "D"), K if axis == 0 else N)
    scale = _SCALE_ALIASES.get(str(scale), str(scale))
    shapes = _shapes(op, bits, group, symmetric, axis, bias, M, K, N)
    if schedule is not None:
        name = _spec.quant_spec_name(op, bits, group, symmetric, axis, bias)
        return Kernel(_spec.quant_spec_text(op, bits, group, symmetric, scale, axis, bias),
                      shapes, dtype, arch, schedule, name + ".mlir")
    return _compile(op, bits, group, symmetric, scale, axis, bias, shapes, dtype, (arch, None))


# --- argument checks -------------------------------------------------------

def _int(op, what, v):
    if isinstance(v, bool):
        raise TypeError("rkc.%s: %s must be an int, got %r" % (op, what, v))
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError("rkc.%s: %s must be an int, got %r" % (op, what, v))


def _bits(op, bits):
    b = _int(op, "bits", bits)
    if b not in (4, 8):
        raise ValueError("rkc.%s: bits must be 4 (int4) or 8 (int8), got %d" % (op, b))
    return b


def _group(op, bits, group_size, length, axis_name):
    """The validated group size along an axis of `length` elements."""
    g = _int(op, "group_size", group_size)
    if g < 0:
        raise ValueError("rkc.%s: group_size must be 0 (one group over %s) or positive, got %d"
                         % (op, axis_name, g))
    if g == 0 or g == length:
        return g
    if length % g:
        raise ValueError("rkc.%s: group_size %d does not divide %s = %d"
                         % (op, g, axis_name, length))
    if g in _GROUPS or (bits == 4 and g % 8 == 0):
        return g
    raise ValueError("rkc.%s: group_size must be 0 (one group over %s), 32, 64 or 128%s, got %d"
                     % (op, axis_name, " (or, for int4, a multiple of 8 dividing %s)" % axis_name
                        if bits == 4 else "", g))


def _scale_name(op, scale_dtype, default):
    torch = _ops._t()
    if scale_dtype is None:
        scale_dtype = default
    if isinstance(scale_dtype, str):
        s = _SCALE_ALIASES.get(scale_dtype)
        if s is not None:
            return s
    elif isinstance(scale_dtype, torch.dtype):
        s = _ops._FLOAT.get(scale_dtype)
        if s is not None:
            return s
    raise TypeError("rkc.%s: scale_dtype must be torch.float16, torch.bfloat16 or "
                    "torch.float32, got %r" % (op, scale_dtype))


def _axis(op, axis, ndim):
    a = _int(op, "axis", axis)
    if a == 0:
        return 0
    if a in (-1, ndim - 1):
        return 1
    raise ValueError("rkc.%s: axis must be 0 (weights [K, N], groups along K) or -1 (per-token, "
                     "groups along the last dim), got %d" % (op, a))


def _aligned(t):
    """t itself when contiguous and 16-byte aligned, else a copy that is
    (the quantized kernels load every operand with 128-bit accesses)."""
    if not t.is_contiguous():
        t = t.contiguous()
    if t.data_ptr() % _ALIGN:
        t = t.clone()  # a new allocation (torch's are at least 16-byte aligned)
    return t


def _shape_str(s):
    return "(%s)" % ", ".join(str(int(d)) for d in s) if len(s) != 1 else "(%d,)" % s[0]


def _check_weight_k(op, bits, K, what=""):
    """K of quantized weights must fill whole 32-bit words."""
    kw = _spec.K_PER_WORD[bits]
    if K % kw:
        raise ValueError("rkc.%s: int%d packs %d values of K per 32-bit word: K = %d%s is not a "
                         "multiple of %d" % (op, bits, kw, K, what, kw))


# --- the quantized tensor --------------------------------------------------

class QuantizedTensor(object):
    """Quantized values with their scales (and zero points): what
    rkc.quantize returns and rkc.gemv / rkc.dequantize take.

    ``QuantizedTensor(packed, scales, zeros=None, bits=4, group_size=128,
    shape=(K, N), axis=0)`` wraps tensors already in the format of
    docs/quantization.md (checked here; copies are made only to make them
    contiguous and 16-byte aligned):

    * axis 0 (weights, ``shape`` = (K, N), groups of ``group_size`` along
      K; 0: one group over all of K): int4 ``packed`` is torch.int32
      [K / 8, N], word (kp, n) holding q[8 kp + i, n] in bits 4i..4i+3
      (packing k8); int8 ``packed`` is torch.int32 [K / 4, N], word (kp, n)
      holding q[4 kp + i, n] as a two's-complement byte in bits 8i..8i+7
      (packing k4; from an int8 [K, N] tensor q, on a little-endian host:
      ``q.reshape(K // 4, 4, N).transpose(1, 2).reshape(K // 4, 4 * N)
      .view(torch.int32)``). ``scales`` [K / G, N] (or [1, N])
      of float16, bfloat16 or float32; ``zeros`` (asymmetric int4 only) the
      same shape and dtype, holding integer zero points 0..15.
    * axis -1 (per-token int8, ``shape`` = (..., D)): ``packed`` torch.int8
      of ``shape``, ``scales`` of shape (..., D / G) ((..., 1) for one group).

    ``shape`` is required for int4; for int8 it defaults to (4 * rows, N)
    of an int32 [rows, N] ``packed`` with axis 0 (k4 words), else to
    packed's shape (per-token). ``symmetric`` is True without zero points.
    The tensors are read-only attributes: a QuantizedTensor is immutable
    (its launchers are cached).
    """

    __slots__ = ("_packed", "_scales", "_zeros", "_bits", "_group_size", "_shape", "_axis",
                 "_fmt", "_ptrs")

    def __init__(self, packed, scales, zeros=None, bits=4, group_size=128, shape=None, axis=0,
                 symmetric=None):
        torch = _ops._t()
        op = "QuantizedTensor"
        bits = _bits(op, bits)
        for what, t in (("packed", packed), ("scales", scales)) + (
                (("zeros", zeros),) if zeros is not None else ()):
            if not isinstance(t, torch.Tensor):
                raise TypeError("rkc.%s: %s must be a torch.Tensor, got %s"
                                % (op, what, type(t).__name__))
        if symmetric is None:
            symmetric = zeros is None
        if symmetric and zeros is not None:
            raise ValueError("rkc.%s: a symmetric format takes no zero points (zeros must be None)"
                             % op)
        if not symmetric:
            if zeros is None:
                raise ValueError("rkc.%s: an asymmetric format needs zero points (zeros)" % op)
            if bits != 4:
                raise ValueError("rkc.%s: asymmetric quantization is int4 only (int8 is "
                                 "symmetric, q in [-127, 127])" % op)
        if shape is None:
            if bits == 4:
                raise TypeError("rkc.%s: int4 needs shape=(K, N) (packed is [K / 8, N])" % op)
            if axis == 0 and packed.dtype == torch.int32 and packed.dim() == 2:
                shape = (4 * packed.shape[0], packed.shape[1])  # int8 k4: [K / 4, N] words
            else:
                shape = tuple(packed.shape)
        shape = tuple(_int(op, "shape", d) for d in shape)
        if len(shape) < 2 or any(d <= 0 or d > _MAX_DIM for d in shape):
            raise ValueError("rkc.%s: shape must have at least 2 positive dimensions, got %s"
                             % (op, shape))
        axis = _axis(op, axis, len(shape))
        if axis == 0:
            if len(shape) != 2:
                raise ValueError("rkc.%s: quantized weights (axis 0) are [K, N], got shape %s"
                                 % (op, shape))
            K, N = shape
            _check_weight_k(op, bits, K)
            group_size = _group(op, bits, group_size, K, "K")
            ng = 1 if group_size == 0 else K // group_size
            sshape = (ng, N)
            pshape, pdtype = (K // _spec.K_PER_WORD[bits], N), torch.int32
        else:
            if bits != 8 or not symmetric:
                raise ValueError("rkc.%s: per-token quantization (axis=-1) is int8 symmetric only"
                                 % op)
            D = shape[-1]
            group_size = _group(op, bits, group_size, D, "D (the last dim)")
            ng = 1 if group_size == 0 else D // group_size
            sshape = shape[:-1] + (ng,)
            pshape, pdtype = shape, torch.int8
        if tuple(packed.shape) != pshape or packed.dtype != pdtype:
            hint = ""
            if axis == 0:
                hint = (" (eight 4-bit values of K per word, packing k8)" if bits == 4 else
                        " (four 8-bit values of K per word, packing k4)")
                if bits == 8 and packed.dtype == torch.int8 and tuple(packed.shape) == shape:
                    hint += ("; an int8 [K, N] tensor q converts with q.reshape(%d, 4, %d)"
                             ".transpose(1, 2).reshape(%d, %d).view(torch.int32)"
                             % (K // 4, N, K // 4, 4 * N))
            raise ValueError("rkc.%s: packed must be %s of shape %s for int%d%s, got %s of shape %s"
                             % (op, pdtype, _shape_str(pshape), bits, hint,
                                packed.dtype, _shape_str(packed.shape)))
        if scales.dtype not in _ops._FLOAT:
            raise TypeError("rkc.%s: scales must be float16, bfloat16 or float32, got %s"
                            % (op, scales.dtype))
        if tuple(scales.shape) != sshape:
            raise ValueError("rkc.%s: scales must have shape %s (%s), got %s"
                             % (op, _shape_str(sshape), "one group" if group_size == 0 else
                                "groups of %d" % group_size, _shape_str(scales.shape)))
        if zeros is not None and (tuple(zeros.shape) != sshape or zeros.dtype != scales.dtype):
            raise ValueError("rkc.%s: zeros must have the shape and dtype of scales (%s, %s), "
                             "got %s, %s" % (op, _shape_str(sshape), scales.dtype,
                                             _shape_str(zeros.shape), zeros.dtype))
        for what, t in (("scales", scales), ("zeros", zeros)):
            if t is not None and t.device != packed.device:
                raise ValueError("rkc.%s: %s is on %s but packed is on %s"
                                 % (op, what, t.device, packed.device))
        self._packed = _aligned(packed)
        self._scales = _aligned(scales)
        self._zeros = None if zeros is None else _aligned(zeros)
        self._bits = bits
        self._group_size = group_size
        self._shape = shape
        self._axis = axis
        sname = _ops._FLOAT[scales.dtype]
        length = shape[0] if axis == 0 else shape[-1]
        # Everything the kernels depend on besides the activations.
        self._fmt = (bits, _spec_group(group_size, length), zeros is None, sname, axis, shape,
                     packed.device)
        self._ptrs = tuple(t.data_ptr() for t in (self._packed, self._scales, self._zeros)
                           if t is not None)

    packed = property(lambda self: self._packed, doc="the quantized values (see the class doc)")
    scales = property(lambda self: self._scales, doc="the group scales")
    zeros = property(lambda self: self._zeros, doc="the zero points (asymmetric), else None")
    bits = property(lambda self: self._bits)
    group_size = property(lambda self: self._group_size,
                          doc="values per group along the axis (0: one group over the axis)")
    shape = property(lambda self: self._shape,
                     doc="the logical shape: (K, N) for weights, the input's for per-token")
    axis = property(lambda self: 0 if self._axis == 0 else -1,
                    doc="0 (weights, groups along K) or -1 (per-token, groups along the last dim)")
    symmetric = property(lambda self: self._zeros is None)
    device = property(lambda self: self._packed.device)
    scale_dtype = property(lambda self: self._scales.dtype)

    @property
    def nbytes(self):
        """Bytes of the packed values, scales and zero points."""
        n = self._packed.numel() * self._packed.element_size()
        n += self._scales.numel() * self._scales.element_size()
        if self._zeros is not None:
            n += self._zeros.numel() * self._zeros.element_size()
        return n

    def dequantize(self, dtype=None):
        """rkc.dequantize(self, dtype)."""
        return dequantize(self, dtype)

    def __repr__(self):
        return ("QuantizedTensor(int%d%s, shape=%s, axis=%d, group_size=%d, %s, scales=%s, "
                "device=%s)" % (self._bits,
                                " " + _spec.WEIGHT_PACKING[self._bits] if self._axis == 0 else "", self._shape,
                                self.axis, self._group_size,
                                "symmetric" if self.symmetric else "asymmetric",
                                str(self._scales.dtype).replace("torch.", ""), self.device))


def _check_q(op, q):
    if not isinstance(q, QuantizedTensor):
        raise TypeError("rkc.%s: q must be an rkc.QuantizedTensor (see rkc.quantize), got %s"
                        % (op, type(q).__name__))
    _ops._check_tensor(op, "q.packed", q.packed)


def _float_name(op, what, dtype, allow_f32=True):
    name = _ops._FLOAT.get(dtype)
    if name is None or (name == "f32" and not allow_f32):
        raise TypeError("rkc.%s: %s must be %s, got %s"
                        % (op, what, "float32, bfloat16 or float16" if allow_f32
                           else "float16 or bfloat16", dtype))
    return name


def _run(k, tensors, dev, key):
    """Launches k on the tensors (inputs then outputs, all contiguous: row
    strides 0) on torch's current stream; `key`: _compile's arguments, for
    the narrower-vector variant of a kernel with vector accesses when the
    data is not aligned for them (column kernels have none: 1)."""
    _ops._launch(k, tensors, [0] * len(tensors), k.rows, dev, (),
                 lambda v: _compile(*key, vec=v, pdl=k.pdl, dev=dev))


# --- quantize ----------------------------------------------------------------

def quantize(w, bits=4, group_size=128, symmetric=True, scale_dtype=None, axis=0):
    """Quantizes ``w`` on the GPU into a QuantizedTensor.

    axis=0 (weights): w [K, N] (float32, bfloat16 or float16; K = in
    features, the reduced dim of rkc.gemv); groups of ``group_size``
    consecutive k per column share a scale (0: one group over all of K).
    bits=4: symmetric (q in [-7, 7]) or asymmetric (``symmetric=False``: q in
    [0, 15] with zero points), packed eight values of K per int32 word (k8):
    K must be a multiple of 8. bits=8: symmetric only (q in [-127, 127]),
    packed four values of K per int32 word (k4): K must be a multiple of 4.
    group_size: 0, 32, 64, 128 or K (for int4 also any multiple of 8 that
    divides K).

    axis=-1 (per-token, e.g. a KV cache): w [..., D], int8 symmetric, groups
    along the last dim (0 or D: one scale per row; 32, 64 or 128 dividing
    D: D / group_size scales per row, each group quantized as a row of its
    own by the same kernel).

    scale_dtype: float16, bfloat16 or float32 (default: w's dtype, float16
    for float32 w). The rounding is docs/quantization.md's (bit-exact with
    its PyTorch reference). A non-contiguous w (e.g. linear.weight.t()) is
    copied first.
    """
    torch = _ops._t()
    op = "quantize"
    _ops._check_tensor(op, "w", w)
    dt = _float_name(op, "w", w.dtype)
    bits = _bits(op, bits)
    if w.dim() < 2:
        raise ValueError("rkc.quantize: w must be [K, N] (axis=0) or [..., D] (axis=-1), got "
                         "shape %s" % _shape_str(tuple(w.shape)))
    if 0 in w.shape:
        raise ValueError("rkc.quantize: w has a zero-size dimension (shape %s)"
                         % _shape_str(tuple(w.shape)))
    ax = _axis(op, axis, w.dim())
    if not isinstance(symmetric, bool):
        raise TypeError("rkc.quantize: symmetric must be True or False, got %r" % (symmetric,))
    if not symmetric and bits != 4:
        raise ValueError("rkc.quantize: asymmetric quantization is int4 only (int8 is symmetric, "
                         "q in [-127, 127])")
    sname = _scale_name(op, scale_dtype, w.dtype if dt != "f32" else torch.float16)
    sdtype = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[sname]
    shape = tuple(w.shape)
    if ax == 0:
        if w.dim() != 2:
            raise ValueError("rkc.quantize: weights (axis=0) must be [K, N], got shape %s"
                             % _shape_str(shape))
        K, N = shape
        _check_weight_k(op, bits, K, " (dim 0 of w)")
        G = _group(op, bits, group_size, K, "K")
        rows, cols = K, N
        ng = 1 if G == 0 else K // G
        sshape = (ng, N)
        pshape, pdtype = (K // _spec.K_PER_WORD[bits], N), torch.int32
    else:
        if bits != 8 or not symmetric:
            raise ValueError("rkc.quantize: per-token quantization (axis=-1) is int8 symmetric "
                             "only, got bits=%d%s" % (bits, "" if symmetric else ", asymmetric"))
        D = shape[-1]
        G = _group(op, bits, group_size, D, "D (the last dim)")
        rows, cols = 1, D
        for d in shape[:-1]:
            rows *= d
        rows, cols = _token_rows(rows, D, G)
        ng = 1 if G == 0 else D // G
        sshape = shape[:-1] + (ng,)
        pshape, pdtype = shape, torch.int8
    if rows > _MAX_DIM or cols > _MAX_DIM:
        raise ValueError("rkc.quantize: w has shape %s: dimensions above 2^31 - 1"
                         % _shape_str(shape))
    x2 = _aligned(w).reshape(rows, cols)
    group = _spec_group(G, rows if ax == 0 else cols)
    shapes = _shapes(op, bits, group, symmetric, ax, False, K=rows, N=cols)
    dev = w.device.index
    key = (op, bits, group, symmetric, sname, ax, False, shapes, dt, _ops._target(dev))
    k = _compile(*key, dev=dev)
    if len(k.outputs) != (2 if symmetric else 3):
        raise RkcError("rkc.quantize: the kernel has %d results, expected %d"
                       % (len(k.outputs), 2 if symmetric else 3))
    packed = _ops._empty(pshape, pdtype, w.device)
    scales = _ops._empty(sshape, sdtype, w.device)
    zeros = None if symmetric else _ops._empty(sshape, sdtype, w.device)
    outs = [packed, scales] + ([] if zeros is None else [zeros])
    _run(k, [x2] + outs, dev, key)
    return QuantizedTensor(packed, scales, zeros, bits=bits, group_size=G, shape=shape,
                           axis=0 if ax == 0 else -1, symmetric=symmetric)


# --- dequantize --------------------------------------------------------------

def dequantize(q, dtype=None):
    """The float tensor that q encodes: ``scale * (q - zero)`` computed in
    float32 and rounded to ``dtype`` (float16, bfloat16 or float32; default
    the scales' dtype), of shape q.shape ([K, N] for weights)."""
    torch = _ops._t()
    op = "dequantize"
    _check_q(op, q)
    dtype = q.scale_dtype if dtype is None else dtype
    if not isinstance(dtype, torch.dtype):
        raise TypeError("rkc.dequantize: dtype must be a torch dtype (float16, bfloat16 or "
                        "float32), got %r" % (dtype,))
    dt = _float_name(op, "dtype", dtype)
    bits, group, symmetric, sname, axis, shape, _ = q._fmt
    if axis == 0:
        rows, cols = shape
    else:
        cols = shape[-1]
        rows = 1
        for d in shape[:-1]:
            rows *= d
        rows, cols = _token_rows(rows, cols, group)
        group = _spec_group(group, cols)
    shapes = _shapes(op, bits, group, symmetric, axis, False, K=rows, N=cols)
    dev = q.device.index
    key = (op, bits, group, symmetric, sname, axis, False, shapes, dt, _ops._target(dev))
    k = _compile(*key, dev=dev)
    out = _ops._empty(shape, dtype, q.device)
    ins = [q.packed, q.scales] + ([] if symmetric else [q.zeros])
    _run(k, ins + [out], dev, key)
    return out


# --- gemv --------------------------------------------------------------------

def _bias_layout(bias):
    return None if bias is None else (bias.dtype, bias.shape, bias.stride(), bias.device)


def gemv(x, q, bias=None, pdl=False):
    """``x @ dequant(q) (+ bias)`` for a few rows of activations: the decode
    GEMV (W4A16 / W8A16), fp32 accumulation.

    x: CUDA float16 or bfloat16, [M, K] with M <= 16 (or [K]: one row, the
    result is [N]; or [..., K] with at most 16 rows in all); q: a weight
    QuantizedTensor (axis 0) of shape (K, N) on x's device; bias: [N] (cast
    to x's dtype). Returns [..., N] in x's dtype. x is copied first when it
    is not contiguous or not 16-byte aligned.

    pdl=True (sm_90+): programmatic dependent launch. The kernel starts
    while the previous kernel of the stream finishes and loads its first
    weights at once; it reads x and bias and writes the output only after
    that kernel completed. So q's packed weights, scales and zeros must not
    be written by the kernel launched just before (constant weights while
    serving). It overlaps each GEMV's start with the previous kernel's tail,
    e.g. in a CUDA graph of decode layers (docs/runtime.md).
    """
    try:
        L = _ops._fast[("gemv", q._fmt, x.dtype, x.shape, x.stride(), x.device,
                        _bias_layout(bias), pdl)]
    except Exception:
        return _gemv_checked(x, q, bias, pdl)
    px = x.data_ptr()
    if bias is not None:
        if L.bcast is not None:
            bias = bias.to(L.bcast)
        pb = bias.data_ptr()
        if (px | pb) & (_ALIGN - 1):
            return _gemv_checked(x, q, bias, pdl)
        out = _ops._empty(L.oshape, L.odtype, L.device)
        L.go(0, L.pack(px, *(q._ptrs + (pb, out.data_ptr()))))
        return out
    if px & (_ALIGN - 1):
        return _gemv_checked(x, q, bias, pdl)
    out = _ops._empty(L.oshape, L.odtype, L.device)
    L.go(0, L.pack(px, *(q._ptrs + (out.data_ptr(),))))
    return out


def _gemv_checked(x, q, b, pdl=False):
    _ops._t()
    op = "gemv"
    if pdl not in (True, False):  # 0 and 1 too: the fast path's key equals theirs
        raise TypeError("rkc.gemv: pdl must be True or False, got %r" % (pdl,))
    pdl = bool(pdl)
    _check_q(op, q)
    _ops._check_tensor(op, "x", x)
    dt = _float_name(op, "x", x.dtype, allow_f32=False)
    bits, group, symmetric, sname, axis, shape, _ = q._fmt
    if axis != 0:
        raise ValueError("rkc.gemv: q must be a weight quantized along K (axis=0), got a "
                         "per-token (axis=-1) QuantizedTensor")
    K, N = shape
    if x.dim() == 0:
        raise ValueError("rkc.gemv: x must be [M, K] or [K], got a scalar")
    xshape = tuple(x.shape)
    if xshape[-1] != K:
        raise ValueError("rkc.gemv: x has %d columns (shape %s) but q is [K, N] = [%d, %d]: the "
                         "last dim of x must be K" % (xshape[-1], _shape_str(xshape), K, N))
    M = 1
    for d in xshape[:-1]:
        M *= d
    if M == 0:
        raise ValueError("rkc.gemv: x has a zero-size dimension (shape %s)" % _shape_str(xshape))
    if M > MAX_GEMV_ROWS:
        raise ValueError("rkc.gemv: x has %d rows (shape %s); the decode GEMV takes at most %d: "
                         "use torch.matmul(x, q.dequantize()) for more"
                         % (M, _shape_str(xshape), MAX_GEMV_ROWS))
    if x.device != q.device:
        raise ValueError("rkc.gemv: x is on %s but q is on %s" % (x.device, q.device))
    x2 = _aligned(x).reshape(M, K)
    tensors = [x2, q.packed, q.scales] + ([] if symmetric else [q.zeros])
    bcast = None
    if b is not None:
        _ops._check_tensor(op, "bias", b)
        if b.device != x.device:
            raise ValueError("rkc.gemv: bias is on %s but x is on %s" % (b.device, x.device))
        if not b.is_floating_point():
            raise TypeError("rkc.gemv: bias must be a float tensor, got %s" % b.dtype)
        if tuple(b.shape) != (N,):
            raise ValueError("rkc.gemv: bias must have shape (%d,) (N, the columns of q), got %s"
                             % (N, _shape_str(tuple(b.shape))))
        b2 = b
        if b.dtype != x.dtype:
            b2 = b.to(x.dtype)
            bcast = x.dtype
        b2 = _aligned(b2)
        tensors.append(b2)
    shapes = _shapes(op, bits, group, symmetric, 0, b is not None, M=M, K=K, N=N)
    dev = x.device.index
    key = (op, bits, group, symmetric, sname, 0, b is not None, shapes, dt, _ops._target(dev))
    k = _compile(*key, pdl=pdl, dev=dev)
    oshape = xshape[:-1] + (N,)
    out = _ops._empty(oshape, x.dtype, x.device)
    tensors.append(out)
    _run(k, tensors, dev, key)
    # A launcher for this layout when nothing had to be copied (a cast bias
    # is cast again per call: a new tensor, aligned).
    same = (x2.data_ptr() == x.data_ptr() and x.is_contiguous() and
            (b is None or bcast is not None or b2 is b))
    if same and x.device.type in _ops._FAST_DEVICES:
        L = _ops._Launcher(k, [0] * len(tensors), M, dev, x.device, x.element_size(), (), None)
        L.oshape, L.odtype, L.bcast = oshape, x.dtype, bcast
        fast = _ops._fast
        if len(fast) >= _ops._FAST_MAX:
            fast.clear()
        fast[("gemv", q._fmt, x.dtype, x.shape, x.stride(), x.device, _bias_layout(b), pdl)] = L
    return out


linear = gemv


# --- precompile --------------------------------------------------------------

def precompile(op, shape, dtype, bits=4, group_size=128, symmetric=True, scale_dtype=None,
               axis=0, bias=False, rows=None, device=None):
    """Compiles the kernel that an op would use, so that its first call
    does not (e.g. before CUDA graph capture, or from several threads).

    op "quantize": shape = w's shape, dtype = w's; "dequantize": shape = q's
    (K, N), dtype = the output's; "gemv": shape = q's (K, N), rows = M,
    dtype = x's, bias = whether a bias is given. The other parameters are
    those of rkc.quantize (scale_dtype default: as rkc.quantize's for dtype).
    Returns the rkc.Kernel."""
    torch = _ops._t()
    if op not in _spec.QUANT_OPS:
        raise ValueError("rkc.quant.precompile: unknown op %r (one of: %s)"
                         % (op, ", ".join(_spec.QUANT_OPS)))
    dt = _float_name("quant.precompile", "dtype", dtype, allow_f32=op != "gemv")
    bits = _bits(op, bits)
    shape = tuple(int(d) for d in shape)
    ax = _axis(op, axis, len(shape))
    if ax == 0:
        K, N = shape
    else:
        N = shape[-1]
        K = 1
        for d in shape[:-1]:
            K *= d
    G = _group(op, bits, group_size, K if ax == 0 else N, "K" if ax == 0 else "D (the last dim)")
    if ax != 0:
        K, N = _token_rows(K, N, G)
    sname = _scale_name(op, scale_dtype, dtype if dt != "f32" else torch.float16)
    if op == "gemv" and (rows is None or not 1 <= rows <= MAX_GEMV_ROWS):
        raise ValueError("rkc.quant.precompile: gemv needs rows=M in 1..%d, got %r"
                         % (MAX_GEMV_ROWS, rows))
    group = _spec_group(G, K if ax == 0 else N)
    shapes = _shapes(op, bits, group, symmetric, ax, bias, M=rows, K=K, N=N)
    dev = None if device is None else torch.device(device).index
    if dev is None:
        dev = torch.cuda.current_device()
    return _compile(op, bits, group, symmetric, sname, ax, bias, shapes, dt, _ops._target(dev),
                    dev=dev)
