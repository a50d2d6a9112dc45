"""Row ops on CUDA tensors through librkc, and custom specs (rkc.compile).

torch is imported on first use, so ``import rkc`` works without it. Every op
launches one rkc kernel on torch's current stream: no host synchronisation,
no allocation besides the outputs (and the scalar reduction of
cross_entropy(reduction="mean"|"sum")), so the ops can be captured in CUDA
graphs (run each shape once before capturing: the first call compiles).

The first call with a given layout (per tensor: dtype, shape, strides,
device; eps / ignore_index) runs every check and prepares a launcher; later
calls with that layout look it up in one dict access and go straight to the
C launch (see _Launcher), checking only what may change per call: pointer
alignment, the current device and stream.
"""

import ctypes
import os
import sys
import threading

from . import _spec
from . import _lib
from ._lib import Kernel, RkcError, format_shapes, _cstreams, cstream, raise_launch_error

__all__ = ["rms_norm", "layer_norm", "softmax", "log_softmax", "cross_entropy",
           "compile", "CompiledSpec", "precompile", "clear_cache", "set_pdl"]

_MAX_DIM = (1 << 31) - 1

_torch = None
_state_lock = threading.Lock()
_FLOAT = {}      # torch dtype -> rkc dtype name ("f32", "bf16", "f16")
_TORCH_OF = {}   # rkc arg dtype name ("f32", "i64", ...) -> torch dtype
_arch_of = {}    # device index -> "sm_90a"
_device_of = {}  # device index -> (its SM count, its name)
_ops_registered = False


def _t():
    """torch, imported on first use (and the custom ops registered)."""
    global _torch, _raw_stream, _is_compiling, _current_device, _empty_like
    if _torch is not None:
        return _torch
    try:
        import torch
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("rkc's tensor ops need PyTorch (import torch failed: %s)" % e)
    with _state_lock:
        if _torch is None:
            _FLOAT.update({torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"})
            _TORCH_OF.update({"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16,
                              "f64": torch.float64, "i64": torch.int64, "i32": torch.int32,
                              "i16": torch.int16, "i8": torch.int8, "i1": torch.bool})
            _raw_stream = (getattr(torch._C, "_cuda_getCurrentRawStream", None)
                           or (lambda dev: torch.cuda.current_stream(dev).cuda_stream))
            _current_device = (getattr(torch._C, "_cuda_getDevice", None)
                               or torch.cuda.current_device)
            _is_compiling = (getattr(getattr(torch, "compiler", None), "is_compiling", None)
                             or _never)
            _empty_like = torch.empty_like
            _torch = torch
    register_torch_ops()
    return torch


def register_torch_ops():
    """Registers torch.ops.rkc.{rms_norm, rms_norm_residual, layer_norm,
    softmax, log_softmax, cross_entropy} (done automatically on first use of
    an op, and at ``import rkc`` when torch is already imported). Returns
    True when they are registered."""
    global _ops_registered
    if _ops_registered:
        return True
    torch = _t()
    with _state_lock:
        if _ops_registered:
            return True
        _ops_registered = True  # try once; a failure is reported, not retried
        try:
            from . import _torch_ops
            _torch_ops.register(torch)
        except Exception as e:  # pragma: no cover - depends on torch's version
            import warnings
            warnings.warn("rkc: could not register torch.ops.rkc custom ops: %s" % e)
            return False
    return True


def _never():
    return False


_raw_stream = None      # torch._C._cuda_getCurrentRawStream(device index) -> int
_empty_like = None      # torch.empty_like
_current_device = None  # torch._C._cuda_getDevice() -> int
_is_compiling = None    # torch.compiler.is_compiling (or _never)


def _compiling():
    f = _is_compiling
    return f is not None and f()


# --- kernels ---------------------------------------------------------------

def _empty(shape, dtype, device):
    """Every output is allocated here (tests replace it to poison outputs)."""
    return _torch.empty(shape, dtype=dtype, device=device)


_empty_default = _empty


_kernels = {}
_kernels_lock = threading.Lock()
_texts = {}


def clear_cache():
    """Forgets the compiled kernels of this process (the Python cache; librkc
    keeps its own in-process cache, so a recompile of the same request is a
    cache hit there)."""
    with _kernels_lock:
        _kernels.clear()
        _fast.clear()


def _cached_kernel(key, make):
    k = _kernels.get(key)
    if k is None:
        k = make()  # outside the lock: compiles of different keys overlap
        with _kernels_lock:
            k = _kernels.setdefault(key, k)
    return k


def _builtin_text(spec, attr):
    key = (spec, attr)
    t = _texts.get(key)
    if t is None:
        t = _spec.spec_text(spec)
        if spec in ("rms_norm", "rms_norm_residual", "layer_norm", "layer_norm_nobias"):
            t = _spec.with_eps(t, attr)
        elif spec == "cross_entropy":
            t = _spec.with_ignore_index(t, attr)
        _texts[key] = t
    return t


_ROW_ARG = {"rms_norm": "x", "rms_norm_residual": "x", "layer_norm": "x",
            "layer_norm_nobias": "x", "softmax": "x", "log_softmax": "x",
            "cross_entropy": "logits"}


def _builtin_kernel(spec, attr, M, N, dt, dev, vec=None):
    pdl = _pdl
    key = (spec, attr, M, N, dt, _target(dev), vec, pdl)
    k = _kernels.get(key)
    if k is not None:
        return k
    return _cached_kernel(key, lambda: _compile_on(dev, lambda: Kernel(
        _builtin_text(spec, attr), "%s=%dx%d" % (_ROW_ARG[spec], M, N), dt, _arch(dev),
        None if vec is None else "vector=%d" % vec, spec + ".mlir", pdl=pdl)))


def _env_pdl():
    v = os.environ.get("RKC_PDL", "1").strip().lower()
    return v not in ("0", "false", "no", "off")


_pdl = _env_pdl()


def set_pdl(enabled):
    """Whether the row ops (rms_norm, layer_norm, softmax, log_softmax,
    cross_entropy) launch with programmatic dependent launch (sm_90+; no
    effect before). A PDL kernel may start while the previous kernel of the
    stream finishes; it waits for it before its first global memory access,
    so results are those of a plain launch, and its launch latency hides
    behind the previous kernel's tail (small batches in a CUDA graph: 2.6 ->
    2.0 us per RMSNorm of [1, 4096] bf16 on an H100, docs/runtime.md).
    Default: on, unless the environment variable RKC_PDL is 0 / false / off.
    Returns the previous setting."""
    global _pdl
    if not isinstance(enabled, bool):
        raise TypeError("rkc.set_pdl: enabled must be True or False, got %r" % (enabled,))
    with _kernels_lock:
        old, _pdl = _pdl, enabled
        if old != enabled:
            _fast.clear()  # launchers hold the handles of the other setting
    return old


def _arch(dev):
    a = _arch_of.get(dev)
    if a is None:
        major, minor = _torch.cuda.get_device_capability(dev)
        if (major, minor) == (9, 0):
            a = "sm_90a"
        elif (major, minor) == (10, 0):
            a = "sm_100a"
        else:
            a = "sm_%d%d" % (major, minor)
        _arch_of[dev] = a
    return a


def _target(dev):
    """What a kernel for device `dev` is planned for, the cache keys' part:
    (arch, SM count, device name). librkc plans grids, splits and waves for
    the SMs of the device current in the thread that compiles (_compile_on
    makes `dev` current), and some row layouts for its DRAM bandwidth per
    SM (an H100 and an H200 share arch and SM count, not bandwidth): two
    GPUs that differ in either get their own kernels, GPUs alike share
    them."""
    if dev is None:  # no device (the CPU tests' stand-ins)
        return (_arch(dev), None)
    s = _device_of.get(dev)
    if s is None:
        props = _torch.cuda.get_device_properties(dev)
        s = (props.multi_processor_count, getattr(props, "name", ""))
        _device_of[dev] = s
    return (_arch(dev),) + s


def _compile_on(dev, make):
    """make() (a compile) with device `dev` current (None: as it is)."""
    if dev is None or dev == _torch.cuda.current_device():
        return make()
    with _torch.cuda.device(dev):
        return make()


def _strides_ok(V, N, strides):
    """True when row strides (0: contiguous, N) suit V-element accesses of
    rows of N: multiples of V, or, when N is not (shifted rows: each row is
    read from the aligned address before it, rkc/vec.cuh), all equal
    modulo V (the rule of rkcKernelLaunch; conservative for [N] arguments,
    whose stride 0 counts as N)."""
    if N % V == 0:
        return not any(s % V for s in strides)
    first = (strides[0] or N) % V if strides else 0
    return all((s or N) % V == first for s in strides)


def _aligned(V, N, ptrs, sizes, strides, skip):
    """True when every vector-accessed pointer and row stride suits V-element
    accesses (the rule of rkcKernelLaunch: pointer % min(V * elem, 16) and
    _strides_ok)."""
    for i, p in enumerate(ptrs):
        if i not in skip and p % min(V * sizes[i], 16):
            return False
    return _strides_ok(V, N, [s for i, s in enumerate(strides) if i not in skip])


def _launch(k, tensors, strides, M, dev, skip, recompile):
    """Launches `k`, or the variant `recompile(v)` compiled for v-element
    vectors when the data is not aligned for k's."""
    ptrs = [t.data_ptr() for t in tensors]
    V = k.vector_width
    if V > 1:
        sizes = [t.element_size() for t in tensors]
        N = k.cols or 1
        if not _aligned(V, N, ptrs, sizes, strides, skip):
            v = V >> 1
            while v > 1 and not _aligned(v, N, ptrs, sizes, strides, skip):
                v >>= 1
            k = recompile(max(v, 1))
    _submit(k, ptrs, strides, M, dev)


def _submit(k, ptrs, strides, M, dev):
    """The launch on torch's current stream of device `dev` (made current
    for the driver when it is not)."""
    torch = _torch
    if dev != torch.cuda.current_device():
        with torch.cuda.device(dev):
            k.launch(ptrs, strides, M, _stream(dev))
    else:
        k.launch(ptrs, strides, M, _stream(dev))


def _stream(dev):
    """torch's current CUDA stream of device `dev`, as a CUstream (int)."""
    f = _raw_stream
    if f is not None:
        return f(dev)
    return _torch.cuda.current_stream(dev).cuda_stream


def _run_builtin(spec, attr, M, N, dt, dev, tensors, n_in, skip=(), key=None, device=None,
                 src=None, **fast):
    """tensors: the kernel's arguments in order (inputs then outputs); 2-D
    ones are [M, N] with stride(1) == 1; `skip`: indices of per-row [M]
    arguments (never vector-accessed). With `key` (the call's layout key,
    given when the arguments needed no copy), a _Launcher is registered under
    it once the launch went through; `device`: the tensors' torch.device;
    `src`: the op's row input as given; `fast`: the launcher's op-specific
    fields (oshape, odtype: of the outputs; wcast, bcast, tcast)."""
    k = _builtin_kernel(spec, attr, M, N, dt, dev)
    strides = [t.stride(0) if (i < n_in and M > 1 and t.dim() == 2) else 0
               for i, t in enumerate(tensors)]

    def recompile(v):
        return _builtin_kernel(spec, attr, M, N, dt, dev, v)

    _launch(k, tensors, strides, M, dev, skip, recompile)
    if key is not None and device.type in _FAST_DEVICES:
        sizes = set(t.element_size() for i, t in enumerate(tensors) if i not in skip)
        if len(sizes) == 1:
            L = _Launcher(k, strides, M, dev, device, sizes.pop(),
                          [s for i, s in enumerate(strides) if i not in skip], recompile)
            for name, value in fast.items():
                setattr(L, name, value)
            # Outputs shaped and typed like x, x contiguous with canonical
            # strides: torch.empty_like(x) (half the cost of torch.empty(shape,
            # dtype=, device=)) allocates exactly what _empty would.
            if "like" not in fast:
                L.like = _like(src, L.oshape, L.odtype)
            if len(_fast) >= _FAST_MAX:
                _fast.clear()
            _fast[key] = L


def _like(t, shape, dtype):
    """Whether torch.empty_like(t) allocates what _empty(shape, dtype, ...)
    does: t has that shape (and dtype, unless None) and is contiguous with
    canonical strides (empty_like copies the strides of dense tensors)."""
    if tuple(t.shape) != tuple(shape) or (dtype is not None and t.dtype != dtype):
        return False
    acc = 1
    for d, st in zip(reversed(tuple(t.shape)), reversed(tuple(t.stride()))):
        if st != acc:
            return False
        acc *= d
    return True


# --- prepared launchers (the hot path) -------------------------------------
#
# A call whose layout was seen before takes one dict lookup: _fast maps a key
# of everything the argument checks depend on (op, attribute, and per tensor
# dtype, shape, strides, device) to a _Launcher made by the first call with
# that layout, after it passed every check and launched. A repeat call then
# reads a few tensor attributes, allocates the outputs, and makes one C call.
# A call that needed a copy or a cast of its input (broadcast rows, leading
# dims that do not collapse, strided weights) registers nothing and always
# takes the checked path. Only what the key does not fix is looked at per
# call: the data pointers' alignment (a narrower-vector kernel, as in
# _launch), the current device and the current stream.

_fast = {}
_FAST_MAX = 4096           # layouts; the map is cleared when it grows past
_FAST_DEVICES = ("cuda",)  # device types whose layouts get a launcher
_launch_fn = None          # the launchers' C entry point (None: librkc's; tests swap it)


class _Launcher(object):
    __slots__ = ("kernel", "handle", "fn", "pack", "strides", "rows", "amask", "dev",
                 "device", "V", "size", "vstrides", "recompile", "variants",
                 "oshape", "odtype", "like", "wcast", "bcast", "tcast")

    def __init__(self, k, strides, M, dev, device, size, vstrides, recompile):
        self.fn = _launch_fn or _lib.raw_launch()
        self.pack = k._pack
        self.strides = k._stride_t(*strides) if any(strides) else None
        self.rows = k._rows_c if M == k.rows else ctypes.c_int64(M)
        self.dev = dev
        self.device = device
        self.V = k.vector_width
        self.size = size
        self.vstrides = tuple(vstrides)
        self.recompile = recompile
        self.variants = {}
        self.kernel = k
        self.like = False
        self.wcast = self.bcast = self.tcast = None
        # The kernel for fully aligned pointers (narrower than k when a row
        # stride does not suit k's vectors) and the pointer bits it needs 0.
        v = self._vector(0)
        k0 = self._kernel(v)
        self.handle = k0._handle
        self.amask = min(v * size, 16) - 1 if v > 1 else 0
        self.variants[0] = k0

    def _vector(self, aor):
        """The widest vector (<= V) that suits pointers whose OR is `aor`
        and the row strides (the rule of _aligned / rkcKernelLaunch)."""
        v = self.V
        while v > 1 and (aor % min(v * self.size, 16) or
                         not _strides_ok(v, self.kernel.cols or 1, self.vstrides)):
            v >>= 1
        return max(v, 1)

    def _kernel(self, v):
        return self.kernel if v == self.V else self.recompile(v)

    def _variant(self, aor):
        r = aor & 15
        k = self.variants.get(r)
        if k is None:
            k = self.variants.setdefault(r, self._kernel(self._vector(r)))
        return k._handle

    def go(self, aor, packed):
        """Launches with the packed pointers; `aor`: the OR of the
        vector-accessed ones."""
        h = self.handle if not aor & self.amask else self._variant(aor)
        dev = self.dev
        if _current_device() != dev:
            return self._go_on_device(h, packed)
        s = _raw_stream(dev)
        c = _cstreams.get(s)
        if c is None:
            c = cstream(s)
        st = self.fn(h, packed, self.strides, self.rows, c)
        if st:
            raise_launch_error(st)

    def _go_on_device(self, h, packed):
        with _torch.cuda.device(self.dev):
            st = self.fn(h, packed, self.strides, self.rows, cstream(_raw_stream(self.dev)))
        if st:
            raise_launch_error(st)


# --- argument checks -------------------------------------------------------

def _check_tensor(op, what, t):
    torch = _torch
    if not isinstance(t, torch.Tensor):
        raise TypeError("rkc.%s: %s must be a torch.Tensor, got %s" % (op, what, type(t).__name__))
    if t.device.type != "cuda":
        raise ValueError("rkc.%s: %s must be a CUDA tensor, got a tensor on %s"
                         % (op, what, t.device))


def _check_float(op, what, t):
    if t.dtype not in _FLOAT:
        raise TypeError("rkc.%s: %s must be float32, bfloat16 or float16, got %s"
                        % (op, what, t.dtype))


def _rows(op, what, x):
    """x as a 2-D [M, N] view (or copy), with its original shape."""
    _check_tensor(op, what, x)
    _check_float(op, what, x)
    shape = tuple(x.shape)
    if x.dim() == 0:
        raise ValueError("rkc.%s: %s must have at least one dimension, got a scalar" % (op, what))
    if 0 in shape:
        raise ValueError("rkc.%s: %s has a zero-size dimension (shape %s)" % (op, what, shape))
    N = shape[-1]
    if N > 1 and x.stride(-1) != 1:
        raise ValueError("rkc.%s: %s must have a contiguous last dimension (stride(-1) == 1), "
                         "got shape %s with strides %s; call .contiguous() first"
                         % (op, what, shape, tuple(x.stride())))
    if N > _MAX_DIM:
        raise ValueError("rkc.%s: the row length %d of %s exceeds 2^31 - 1" % (op, N, what))
    if x.dim() == 1:
        x2 = x.unsqueeze(0)
    elif x.dim() == 2:
        x2 = x
    else:
        x2 = x.reshape(-1, N)  # a view when the leading dims collapse, else a copy
    M = x2.shape[0]
    if M > _MAX_DIM:
        raise ValueError("rkc.%s: %s has %d rows, more than 2^31 - 1" % (op, what, M))
    if M > 1 and x2.stride(0) < N:
        x2 = x2.contiguous()  # broadcast (stride 0) or overlapping rows
    return x2, shape


def _vec(op, what, w, N, x):
    """A row vector [N] on x's device, in x's dtype, contiguous."""
    _check_tensor(op, what, w)
    if w.device != x.device:
        raise ValueError("rkc.%s: %s is on %s but x is on %s" % (op, what, w.device, x.device))
    if not w.is_floating_point():
        raise TypeError("rkc.%s: %s must be a float tensor, got %s" % (op, what, w.dtype))
    if w.dim() != 1 or w.shape[0] != N:
        raise ValueError("rkc.%s: %s must have shape (%d,) (the row length of x), got %s"
                         % (op, what, N, tuple(w.shape)))
    if w.dtype != x.dtype:
        w = w.to(x.dtype)
    if N > 1 and w.stride(0) != 1:
        w = w.contiguous()
    return w


def _same_rows(op, what, r, shape, x):
    r2, rshape = _rows(op, what, r)
    if rshape != shape:
        raise ValueError("rkc.%s: %s must have the shape of x %s, got %s" % (op, what, shape, rshape))
    if r.device != x.device:
        raise ValueError("rkc.%s: %s is on %s but x is on %s" % (op, what, r.device, x.device))
    if r.dtype != x.dtype:
        raise TypeError("rkc.%s: %s must have the dtype of x (%s), got %s" % (op, what, x.dtype, r.dtype))
    return r2


# --- the ops ---------------------------------------------------------------
#
# Each op first looks its layout up in _fast (see _Launcher); a miss (a new
# layout, or arguments whose attributes cannot even be read) takes the
# checked path (_*_checked), which raises the errors, launches through
# _launch/_submit and registers the layout's launcher.

def _rms_norm(x, weight, eps, residual):
    try:
        if residual is None:
            L = _fast[("rms_norm", eps, x.dtype, x.shape, x.stride(), x.device,
                       weight.dtype, weight.shape, weight.stride(), weight.device)]
        else:
            L = _fast[("rms_norm_residual", eps, x.dtype, x.shape, x.stride(), x.device,
                       weight.dtype, weight.shape, weight.stride(), weight.device,
                       residual.dtype, residual.shape, residual.stride(), residual.device)]
    except Exception:
        return _rms_norm_checked(x, weight, eps, residual)
    if L.wcast is not None:
        weight = weight.to(L.wcast)
    like = L.like and _empty is _empty_default
    y = _empty_like(x) if like else _empty(L.oshape, L.odtype, L.device)
    px, pw, py = x.data_ptr(), weight.data_ptr(), y.data_ptr()
    if residual is None:
        L.go(px | pw | py, L.pack(px, pw, py))
        return y
    h = _empty_like(x) if like else _empty(L.oshape, L.odtype, L.device)
    pr, ph = residual.data_ptr(), h.data_ptr()
    L.go(px | pw | pr | py | ph, L.pack(px, pw, pr, py, ph))
    return y, h


def _fast_attr(value):
    """Whether an eps may key a launcher: a number that hashes and compares
    by value (not a tensor, which would key by identity)."""
    return isinstance(value, (float, int))


def _rms_norm_checked(x, weight, eps, residual):
    _t()
    op = "rms_norm"
    x2, shape = _rows(op, "x", x)
    M, N = x2.shape
    e = _eps(op, eps)
    w = _vec(op, "weight", weight, N, x)
    dev = x.device.index
    oshape = tuple(shape)
    y = _empty(oshape, x.dtype, x.device)
    same = x2.data_ptr() == x.data_ptr() and (w is weight or w.dtype != weight.dtype) \
        and _fast_attr(eps)
    wcast = None if w is weight else x.dtype
    if residual is None:
        key = None
        if same:
            key = ("rms_norm", eps, x.dtype, x.shape, x.stride(), x.device,
                   weight.dtype, weight.shape, weight.stride(), weight.device)
        _run_builtin("rms_norm", e, M, N, _FLOAT[x.dtype], dev, [x2, w, y], 2,
                     key=key, device=x.device, src=x, oshape=oshape, odtype=x.dtype, wcast=wcast)
        return y
    r2 = _same_rows(op, "residual", residual, shape, x)
    h = _empty(oshape, x.dtype, x.device)
    key = None
    if same and r2.data_ptr() == residual.data_ptr():
        key = ("rms_norm_residual", eps, x.dtype, x.shape, x.stride(), x.device,
               weight.dtype, weight.shape, weight.stride(), weight.device,
               residual.dtype, residual.shape, residual.stride(), residual.device)
    _run_builtin("rms_norm_residual", e, M, N, _FLOAT[x.dtype], dev, [x2, w, r2, y, h], 3,
                 key=key, device=x.device, src=x, oshape=oshape, odtype=x.dtype, wcast=wcast)
    return y, h


def _eps(op, eps):
    try:
        e = float(eps)
    except (TypeError, ValueError):
        raise TypeError("rkc.%s: eps must be a float, got %r" % (op, eps))
    if not (e >= 0 and e != float("inf")):
        raise ValueError("rkc.%s: eps must be finite and non-negative, got %r" % (op, eps))
    return e


def rms_norm(x, weight, eps=1e-6, residual=None):
    """RMSNorm over the last dim: ``x * rsqrt(mean(x^2) + eps) * weight``.

    With ``residual``, ``h = x + residual`` is normalised and ``(y, h)`` is
    returned (the fused add + RMSNorm of transformer blocks). x: CUDA tensor
    (f32/bf16/f16) of shape [..., N] with stride(-1) == 1; weight: [N] (cast
    to x's dtype). Outputs are new contiguous tensors of x's shape.
    """
    torch = _torch or _t()
    if _is_compiling():
        if residual is None:
            return torch.ops.rkc.rms_norm(x, weight, float(eps))
        return torch.ops.rkc.rms_norm_residual(x, weight, residual, float(eps))
    return _rms_norm(x, weight, eps, residual)


def _layer_norm(x, weight, bias, eps):
    try:
        if bias is None:
            L = _fast[("layer_norm_nobias", eps, x.dtype, x.shape, x.stride(), x.device,
                       weight.dtype, weight.shape, weight.stride(), weight.device)]
        else:
            L = _fast[("layer_norm", eps, x.dtype, x.shape, x.stride(), x.device,
                       weight.dtype, weight.shape, weight.stride(), weight.device,
                       bias.dtype, bias.shape, bias.stride(), bias.device)]
    except Exception:
        return _layer_norm_checked(x, weight, bias, eps)
    if L.wcast is not None:
        weight = weight.to(L.wcast)
    if L.like and _empty is _empty_default:  # outputs shaped and typed like x
        y = _empty_like(x)
    else:
        y = _empty(L.oshape, L.odtype, L.device)
    px, pw, py = x.data_ptr(), weight.data_ptr(), y.data_ptr()
    if bias is None:
        L.go(px | pw | py, L.pack(px, pw, py))
        return y
    if L.bcast is not None:
        bias = bias.to(L.bcast)
    pb = bias.data_ptr()
    L.go(px | pw | pb | py, L.pack(px, pw, pb, py))
    return y


def _layer_norm_checked(x, weight, bias, eps):
    _t()
    op = "layer_norm"
    x2, shape = _rows(op, "x", x)
    M, N = x2.shape
    e = _eps(op, eps)
    if weight is None:
        raise TypeError("rkc.layer_norm: weight is required (a tensor of shape (%d,))" % N)
    w = _vec(op, "weight", weight, N, x)
    oshape = tuple(shape)
    y = _empty(oshape, x.dtype, x.device)
    dev = x.device.index
    same = x2.data_ptr() == x.data_ptr() and (w is weight or w.dtype != weight.dtype) \
        and _fast_attr(eps)
    wcast = None if w is weight else x.dtype
    if bias is None:
        key = None
        if same:
            key = ("layer_norm_nobias", eps, x.dtype, x.shape, x.stride(), x.device,
                   weight.dtype, weight.shape, weight.stride(), weight.device)
        _run_builtin("layer_norm_nobias", e, M, N, _FLOAT[x.dtype], dev, [x2, w, y], 2,
                     key=key, device=x.device, src=x, oshape=oshape, odtype=x.dtype, wcast=wcast)
    else:
        b = _vec(op, "bias", bias, N, x)
        key = None
        if same and (b is bias or b.dtype != bias.dtype):
            key = ("layer_norm", eps, x.dtype, x.shape, x.stride(), x.device,
                   weight.dtype, weight.shape, weight.stride(), weight.device,
                   bias.dtype, bias.shape, bias.stride(), bias.device)
        _run_builtin("layer_norm", e, M, N, _FLOAT[x.dtype], dev, [x2, w, b, y], 3,
                     key=key, device=x.device, src=x, oshape=oshape, odtype=x.dtype, wcast=wcast,
                     bcast=None if b is bias else x.dtype)
    return y


def layer_norm(x, weight, bias=None, eps=1e-5):
    """LayerNorm over the last dim (biased variance, like torch):
    ``(x - mean) * rsqrt(var + eps) * weight (+ bias)``."""
    torch = _torch or _t()
    if _is_compiling():
        return torch.ops.rkc.layer_norm(x, weight, bias, float(eps))
    return _layer_norm(x, weight, bias, eps)


def _check_dim(op, x, dim):
    if dim is None:
        return
    nd = max(getattr(x, "dim", lambda: 1)(), 1)
    if dim not in (-1, nd - 1):
        raise ValueError("rkc.%s works over the last dimension only (dim=-1), got dim=%r" % (op, dim))


def _softmax_like(spec, x):
    try:
        L = _fast[(spec, x.dtype, x.shape, x.stride(), x.device)]
    except Exception:
        return _softmax_like_checked(spec, x)
    if L.like and _empty is _empty_default:  # outputs shaped and typed like x
        y = _empty_like(x)
    else:
        y = _empty(L.oshape, L.odtype, L.device)
    px, py = x.data_ptr(), y.data_ptr()
    L.go(px | py, L.pack(px, py))
    return y


def _softmax_like_checked(spec, x):
    _t()
    x2, shape = _rows(spec, "x", x)
    M, N = x2.shape
    oshape = tuple(shape)
    y = _empty(oshape, x.dtype, x.device)
    key = None
    if x2.data_ptr() == x.data_ptr():
        key = (spec, x.dtype, x.shape, x.stride(), x.device)
    _run_builtin(spec, None, M, N, _FLOAT[x.dtype], x.device.index, [x2, y], 1,
                 key=key, device=x.device, src=x, oshape=oshape, odtype=x.dtype)
    return y


def softmax(x, dim=-1):
    """Softmax over the last dim (a row of -inf gives NaN, as in torch)."""
    torch = _torch or _t()
    if dim != -1:
        _check_dim("softmax", x, dim)
    if _is_compiling():
        return torch.ops.rkc.softmax(x)
    return _softmax_like("softmax", x)


def log_softmax(x, dim=-1):
    """Log-softmax over the last dim."""
    torch = _torch or _t()
    if dim != -1:
        _check_dim("log_softmax", x, dim)
    if _is_compiling():
        return torch.ops.rkc.log_softmax(x)
    return _softmax_like("log_softmax", x)


_REDUCTIONS = ("none", "mean", "sum")


def _cross_entropy(logits, target, ignore_index, reduction, return_lse=False):
    try:
        if reduction not in _REDUCTIONS or ignore_index.__class__ is not int:
            raise KeyError
        L = _fast[("cross_entropy", ignore_index, logits.dtype, logits.shape, logits.stride(),
                   logits.device, target.dtype, target.shape, target.stride(), target.device)]
    except Exception:
        return _cross_entropy_checked(logits, target, ignore_index, reduction, return_lse)
    if L.tcast is not None:
        target = target.to(L.tcast)
    if L.like and _empty is _empty_default:  # float32 outputs shaped like target
        loss = _empty_like(target, dtype=L.odtype)
        lse = _empty_like(target, dtype=L.odtype)
    else:
        loss = _empty(L.oshape, L.odtype, L.device)
        lse = _empty(L.oshape, L.odtype, L.device)
    px = logits.data_ptr()
    L.go(px, L.pack(px, target.data_ptr(), loss.data_ptr(), lse.data_ptr()))
    return _ce_reduce(loss, lse, target, ignore_index, reduction, return_lse)


def _ce_reduce(loss, lse, t, ignore_index, reduction, return_lse):
    """loss, lse: of the batch shape; t: the int64 targets."""
    if reduction == "none":
        out = loss
    elif reduction == "sum":
        out = loss.sum()
    else:
        # Mean over the rows whose target is not ignored (0/0 = nan when all
        # are, as in torch); no host synchronisation.
        out = loss.sum() / (t != ignore_index).sum()
    if return_lse:
        return out, lse
    return out


def _cross_entropy_checked(logits, target, ignore_index, reduction, return_lse):
    torch = _t()
    op = "cross_entropy"
    if reduction not in _REDUCTIONS:
        raise ValueError("rkc.cross_entropy: reduction must be 'none', 'mean' or 'sum', got %r"
                         % (reduction,))
    ii = ignore_index
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        try:
            import operator
            ignore_index = operator.index(ignore_index)
        except TypeError:
            raise TypeError("rkc.cross_entropy: ignore_index must be an int, got %r" % (ignore_index,))
    if not -(1 << 63) <= ignore_index < (1 << 63):
        raise ValueError("rkc.cross_entropy: ignore_index %d does not fit in int64" % ignore_index)
    x2, shape = _rows(op, "logits", logits)
    M, N = x2.shape
    _check_tensor(op, "target", target)
    if target.device != logits.device:
        raise ValueError("rkc.cross_entropy: target is on %s but logits is on %s"
                         % (target.device, logits.device))
    if target.dtype.is_floating_point or target.dtype.is_complex or target.dtype == torch.bool:
        raise TypeError("rkc.cross_entropy: target must hold integer class indices, got %s"
                        % target.dtype)
    batch = shape[:-1]
    if tuple(target.shape) != batch and not (len(batch) == 0 and tuple(target.shape) in ((), (1,))):
        raise ValueError("rkc.cross_entropy: target must have shape %s (logits %s without its "
                         "class dimension), got %s" % (batch, shape, tuple(target.shape)))
    t = target.reshape(-1)
    tcast = None
    if t.dtype != torch.int64:
        t = t.to(torch.int64)
        tcast = torch.int64
    if M > 1 and t.stride(0) != 1:
        t = t.contiguous()
    batch = tuple(batch)
    loss = _empty(batch, torch.float32, logits.device)
    lse = _empty(batch, torch.float32, logits.device)
    key = None
    if (x2.data_ptr() == logits.data_ptr() and ii.__class__ is int and
            (t.data_ptr() == target.data_ptr() if tcast is None else target.is_contiguous())):
        key = ("cross_entropy", ii, logits.dtype, logits.shape, logits.stride(), logits.device,
               target.dtype, target.shape, target.stride(), target.device)
    _run_builtin("cross_entropy", ignore_index, M, N, _FLOAT[logits.dtype], logits.device.index,
                 [x2, t, loss, lse], 2, skip=(1, 2, 3), key=key, device=logits.device, src=logits,
                 oshape=batch, odtype=torch.float32, tcast=tcast,
                 like=key is not None and _like(target, batch, None))
    return _ce_reduce(loss, lse, t, ignore_index, reduction, return_lse)


def cross_entropy(logits, target, ignore_index=-100, reduction="mean", return_lse=False):
    """Cross-entropy of logits [..., C] (classes in the LAST dim) against
    integer targets [...]: ``loss = logsumexp(logits) - logits[target]``, 0
    for rows whose target is ``ignore_index``.

    reduction: "none" (per-row float32 losses of shape [...]), "sum", or
    "mean" (over non-ignored rows, NaN when all are ignored, like
    torch.nn.functional.cross_entropy). Losses are float32 whatever the
    logits' dtype. Targets outside [0, C) other than ignore_index are not
    checked (no host sync): their loss is computed with a target logit of 0.
    ``return_lse=True`` also returns the per-row logsumexp (float32).
    """
    torch = _torch or _t()
    if _is_compiling() and not return_lse:
        return torch.ops.rkc.cross_entropy(logits, target, int(ignore_index), reduction)
    return _cross_entropy(logits, target, ignore_index, reduction, return_lse)


# --- precompile ------------------------------------------------------------

def precompile(op, shape, dtype, device=None, **params):
    """Compiles the kernel that ``op`` would use for an input of ``shape`` and
    ``dtype`` (aligned data), so that the first call does not pay for it; e.g.
    before CUDA graph capture, or from several threads at once (compiles run
    in parallel). op: "rms_norm" (residual=bool, eps=float), "layer_norm"
    (bias=bool, eps), "softmax", "log_softmax", "cross_entropy"
    (ignore_index=int). Returns the rkc.Kernel."""
    torch = _t()
    if isinstance(dtype, str):
        dt = dtype
        if dt not in ("f32", "bf16", "f16"):
            dt = {"float32": "f32", "bfloat16": "bf16", "float16": "f16"}.get(dtype)
    else:
        dt = _FLOAT.get(dtype)
    if dt is None:
        raise TypeError("rkc.precompile: dtype must be float32, bfloat16 or float16, got %r" % (dtype,))
    shape = tuple(int(d) for d in shape)
    if not shape or 0 in shape:
        raise ValueError("rkc.precompile: bad shape %r" % (shape,))
    N = shape[-1]
    M = 1
    for d in shape[:-1]:
        M *= d
    params = dict(params)
    if op == "rms_norm":
        spec = "rms_norm_residual" if params.pop("residual", False) else "rms_norm"
        attr = _eps(op, params.pop("eps", 1e-6))
    elif op == "layer_norm":
        spec = "layer_norm" if params.pop("bias", True) else "layer_norm_nobias"
        attr = _eps(op, params.pop("eps", 1e-5))
    elif op in ("softmax", "log_softmax"):
        spec, attr = op, None
    elif op == "cross_entropy":
        spec, attr = op, int(params.pop("ignore_index", -100))
    else:
        raise ValueError("rkc.precompile: unknown op %r" % (op,))
    if params:
        raise TypeError("rkc.precompile: unexpected parameters for %s: %s" % (op, ", ".join(params)))
    dev = None if device is None else torch.device(device).index
    if dev is None:
        dev = torch.cuda.current_device()
    return _builtin_kernel(spec, attr, M, N, dt, dev)


# --- custom specs ----------------------------------------------------------

def _dims_tuple(name, d):
    if isinstance(d, str):
        d = tuple(int(v) for v in d.split("x"))
    elif isinstance(d, int):
        d = (d,)
    else:
        d = tuple(None if v is None else int(v) for v in d)
    return d


class CompiledSpec(object):
    """A custom spec, callable on CUDA tensors: ``outs = spec(*inputs)``.

    Inputs are given in the order of the spec's arguments. A [M, N] argument
    accepts any tensor [..., N] with stride(-1) == 1 (flattened to rows; the
    outputs get the leading dims back); dynamic dims and !rk.dtype are bound
    from the tensors. One compiled kernel per (shapes, dtype, device arch,
    alignment) is cached. Returns one tensor, or a tuple for several results.
    """

    def __init__(self, spec_text, spec_name=None, schedule=None, dtype=None, dims=None):
        self.spec_text = spec_text
        try:
            self.func_name, self.args = _spec.parse_signature(spec_text)
        except ValueError as e:
            # Let the compiler say what is wrong, with a location.
            probe_name = spec_name or "<spec>"
            try:
                Kernel(spec_text, "", None, "sm_90a", None, probe_name)
            except RkcError:
                raise
            raise RkcError("%s: error: %s" % (probe_name, e))
        self.spec_name = spec_name or (self.func_name + ".mlir")
        self.schedule = schedule or None
        self.dtype = dtype
        self.generic = "!rk.dtype" in spec_text
        names = [a.name for a in self.args]
        self.dims = {}
        for k, v in (dims or {}).items():
            if k not in names:
                raise TypeError("rkc.compile: %r is not an argument of @%s (arguments: %s)"
                                % (k, self.func_name, ", ".join(names)))
            self.dims[k] = _dims_tuple(k, v)
        self._kernels = {}

    def __repr__(self):
        return "<rkc.CompiledSpec @%s(%s)>" % (self.func_name, ", ".join(a.name for a in self.args))

    def kernel(self, shapes, dtype=None, arch=None, schedule=None):
        """The rkc.Kernel for explicit shapes ({name: dims} or "x=4x1024")
        and dtype ("f32", "bf16", "f16"); no torch needed."""
        if isinstance(shapes, dict):
            shapes = format_shapes(shapes)
        return Kernel(self.spec_text, shapes, dtype if self.generic else None,
                      arch, schedule if schedule is not None else self.schedule, self.spec_name)

    def _dtype_of(self, tensors):
        if not self.generic:
            return None
        dt = None
        for a, t in zip(self.args, tensors):
            if a.generic:
                if t.dtype not in _FLOAT:
                    raise TypeError("rkc.compile(@%s): %s must be float32, bfloat16 or float16, "
                                    "got %s" % (self.func_name, a.name, t.dtype))
                if dt is None:
                    dt = t.dtype
                elif t.dtype != dt:
                    raise TypeError("rkc.compile(@%s): the !rk.dtype arguments must share one "
                                    "dtype, got %s and %s" % (self.func_name, dt, t.dtype))
        if dt is None:
            if self.dtype is None:
                raise TypeError("rkc.compile(@%s): no input fixes !rk.dtype; pass dtype= to "
                                "rkc.compile" % self.func_name)
            dt = self.dtype
        if isinstance(dt, str):
            return dt
        return _FLOAT[dt]

    def __call__(self, *tensors):
        torch = _t()
        fn = "compile(@%s)" % self.func_name
        if len(tensors) != len(self.args):
            raise TypeError("rkc.%s takes %d tensors (%s), got %d"
                            % (fn, len(self.args), ", ".join(a.name for a in self.args), len(tensors)))
        device = None
        for a, t in zip(self.args, tensors):
            _check_tensor(fn, a.name, t)
            if device is None:
                device = t.device
            elif t.device != device:
                raise ValueError("rkc.%s: %s is on %s but %s is on %s"
                                 % (fn, a.name, t.device, self.args[0].name, device))
        dt = self._dtype_of(tensors)
        batch = None
        prepared = []
        for a, t in zip(self.args, tensors):
            if 0 in t.shape:
                raise ValueError("rkc.%s: %s has a zero-size dimension (shape %s)"
                                 % (fn, a.name, tuple(t.shape)))
            want = self.dims.get(a.name)
            if want is not None and (len(want) != t.dim() or
                                     any(w is not None and w != s for w, s in zip(want, t.shape))):
                raise ValueError("rkc.%s: %s must have shape %s, got %s"
                                 % (fn, a.name, want, tuple(t.shape)))
            if a.rank == 2:
                if t.dim() < 2:
                    raise ValueError("rkc.%s: %s must have at least 2 dimensions ([..., N]), "
                                     "got shape %s" % (fn, a.name, tuple(t.shape)))
                N = t.shape[-1]
                if N > 1 and t.stride(-1) != 1:
                    raise ValueError("rkc.%s: %s must have a contiguous last dimension "
                                     "(stride(-1) == 1), got strides %s; call .contiguous() first"
                                     % (fn, a.name, tuple(t.stride())))
                if t.dim() > 2:
                    if batch is None:
                        batch = tuple(t.shape[:-1])
                    t = t.reshape(-1, N)
                if t.shape[0] > 1 and t.stride(0) < N:
                    t = t.contiguous()
            elif a.rank == 1:
                if t.dim() != 1:
                    t = t.reshape(-1)
                if t.shape[0] > 1 and t.stride(0) != 1:
                    t = t.contiguous()
            else:
                raise ValueError("rkc.%s: argument %s has type %s; only rank-1 and rank-2 "
                                 "tensors are supported" % (fn, a.name, a.type))
            prepared.append(t)
        dev = device.index
        target = _target(dev)
        shapes = ";".join("%s=%s" % (a.name, "x".join(str(d) for d in t.shape))
                          for a, t in zip(self.args, prepared))

        def get(vec):
            key = (shapes, dt, target, vec)
            k = self._kernels.get(key)
            if k is None:
                sched = self.schedule if vec is None else (
                    "vector=%d" % vec if not self.schedule else "%s,vector=%d" % (self.schedule, vec))
                k = _compile_on(dev, lambda: Kernel(self.spec_text, shapes, dt, target[0], sched,
                                                    self.spec_name))
                self._kernels.setdefault(key, k)
            return k

        k = get(None)
        if k.rows is None:
            raise ValueError("rkc.%s: the spec has no [M, N] argument" % fn)
        M, N = k.rows, k.cols
        if len(k.inputs) != len(prepared):
            raise RkcError("rkc.%s: the kernel takes %d inputs (%s), the spec's signature %d"
                           % (fn, len(k.inputs), ", ".join(a.name for a in k.inputs), len(prepared)))
        for a, t, info in zip(self.args, prepared, k.inputs):
            want = _TORCH_OF.get(info.dtype)
            if want is not None and t.dtype != want:
                raise TypeError("rkc.%s: %s must be %s, got %s" % (fn, a.name, want, t.dtype))
        outs = []
        for info in k.outputs:
            odt = _TORCH_OF.get(info.dtype)
            if odt is None:
                raise RkcError("rkc.%s: result %s has dtype %s, which torch cannot hold"
                               % (fn, info.name, info.dtype))
            outs.append(_empty(info.shape, odt, device))
        tensors_all = prepared + outs
        strides = [t.stride(0) if (i < len(prepared) and t.dim() == 2 and M > 1) else 0
                   for i, t in enumerate(tensors_all)]
        # Vector-accessed: [M, N] arguments and [N] row vectors (an [M] argument
        # when M == N is checked too: the conservative choice).
        skip = set(i for i, t in enumerate(tensors_all)
                   if not (t.dim() == 2 or (t.dim() == 1 and t.shape[0] == N)))
        _launch(k, tensors_all, strides, M, dev, skip, get)
        if batch is not None:
            outs = [o.view(batch + tuple(o.shape[1:])) if o.shape[0] == M else o for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)


def compile(spec_text, spec_name=None, schedule=None, dtype=None, **dims):
    """A callable for a custom rk spec: ``f = rkc.compile(text); y = f(x, w)``.

    spec_name: the file name used in error messages; schedule: a plan
    override ("threads=256,vector=4"); dtype: the !rk.dtype when no input
    tensor fixes it; ``**dims``: shapes the inputs must have, by argument
    name (e.g. ``w=(4096,)``; None entries are free). Compile errors raise
    rkc.RkcError with the spec location; they are reported at the first call,
    when the shapes are known.
    """
    if not isinstance(spec_text, str):
        raise TypeError("rkc.compile: the spec must be text (str), got %s"
                        % type(spec_text).__name__)
    return CompiledSpec(spec_text, spec_name=spec_name, schedule=schedule, dtype=dtype, dims=dims)


if "torch" in sys.modules:  # torch already imported: make torch.ops.rkc.* available now
    try:
        _t()
    except Exception:  # pragma: no cover
        pass
