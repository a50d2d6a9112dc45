"""ctypes binding of the rkc C API (include/rkc-c/rkc.h).

The library is found through the environment variable ``RKC_LIBRARY`` (a path
to ``librkc.so``), else in the build tree next to this package
(``<repo>/build/lib/librkc.so``). Nothing is loaded at import time: the first
call that needs the library loads it, and raises :class:`RkcError` when it
cannot be found.
"""

import ctypes
import operator
import os
import struct
import threading

__all__ = [
    "RkcError",
    "Kernel",
    "library",
    "library_path",
    "version",
    "RKC_OK",
    "RKC_ERROR_INVALID_ARGUMENT",
    "RKC_ERROR_COMPILE",
    "RKC_ERROR_NO_DRIVER",
    "RKC_ERROR_CUDA",
]

RKC_OK = 0
RKC_ERROR_INVALID_ARGUMENT = 1
RKC_ERROR_COMPILE = 2
RKC_ERROR_NO_DRIVER = 3
RKC_ERROR_CUDA = 4
RKC_LAUNCH_PDL = 0x1  # programmatic dependent launch (include/rkc-c/rkc.h)

_STATUS_NAMES = {
    RKC_OK: "RKC_OK",
    RKC_ERROR_INVALID_ARGUMENT: "RKC_ERROR_INVALID_ARGUMENT",
    RKC_ERROR_COMPILE: "RKC_ERROR_COMPILE",
    RKC_ERROR_NO_DRIVER: "RKC_ERROR_NO_DRIVER",
    RKC_ERROR_CUDA: "RKC_ERROR_CUDA",
}


class RkcError(RuntimeError):
    """A failure reported by librkc (compile or launch), or a missing library.

    ``status`` is the rkc_status code (0 when the library could not be
    loaded); the message is rkcGetLastError()'s text, which carries the spec
    location for compile errors ("rms_norm.mlir:3:8: error: ...").
    """

    def __init__(self, message, status=0):
        super().__init__(message)
        self.status = status

    @property
    def status_name(self):
        return _STATUS_NAMES.get(self.status, str(self.status))


_lock = threading.Lock()
_lib = None
_lib_path = None
_load_error = None


def _candidates():
    env = os.environ.get("RKC_LIBRARY")
    if env:
        return [env], True
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.normpath(os.path.join(here, "..", "..", "build", "lib", "librkc.so"))], False


def _declare(lib):
    c_char_p, c_int, c_int64, c_void_p = ctypes.c_char_p, ctypes.c_int, ctypes.c_int64, ctypes.c_void_p
    sigs = {
        "rkcGetLastError": (c_char_p, []),
        "rkcVersion": (c_char_p, []),
        "rkcKernelCompile": (c_int, [c_char_p, c_char_p, c_char_p, c_char_p, c_char_p,
                                     c_char_p, ctypes.POINTER(c_void_p)]),
        "rkcKernelDestroy": (None, [c_void_p]),
        "rkcKernelNumArgs": (c_int, [c_void_p]),
        "rkcKernelArgName": (c_char_p, [c_void_p, c_int]),
        "rkcKernelArgDtype": (c_char_p, [c_void_p, c_int]),
        "rkcKernelArgRank": (c_int, [c_void_p, c_int]),
        "rkcKernelArgDim": (c_int64, [c_void_p, c_int, c_int]),
        "rkcKernelArgIsOutput": (c_int, [c_void_p, c_int]),
        "rkcKernelPlan": (c_char_p, [c_void_p]),
        "rkcKernelRemarks": (c_char_p, [c_void_p]),
        "rkcKernelCuda": (c_char_p, [c_void_p]),
        "rkcKernelPtx": (c_char_p, [c_void_p]),
        "rkcKernelVectorWidth": (c_int, [c_void_p]),
        "rkcKernelLaunch": (c_int, [c_void_p, ctypes.POINTER(c_void_p),
                                    ctypes.POINTER(c_int64), c_int64, c_void_p]),
        "rkcKernelSetLaunchFlags": (c_int, [c_void_p, ctypes.c_uint]),
        "rkcKernelLaunchFlags": (ctypes.c_uint, [c_void_p]),
    }
    for name, (res, args) in sigs.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise RkcError("%s does not export %s: is it an rkc library of a "
                           "matching version?" % (lib._name, name))
        fn.restype = res
        fn.argtypes = args


def library():
    """The loaded librkc (a ctypes.CDLL); raises RkcError if it is missing."""
    global _lib, _lib_path, _load_error
    lib = _lib
    if lib is not None:
        return lib
    with _lock:
        if _lib is not None:
            return _lib
        paths, from_env = _candidates()
        errors = []
        for p in paths:
            if not os.path.exists(p):
                errors.append("%s: no such file" % p)
                continue
            try:
                lib = ctypes.CDLL(p)
            except OSError as e:
                errors.append("%s: %s" % (p, e))
                continue
            _declare(lib)
            _lib, _lib_path = lib, p
            return lib
        hint = ("RKC_LIBRARY is set but does not name a loadable librkc.so"
                if from_env else
                "set RKC_LIBRARY=/path/to/librkc.so or build rkc "
                "(cmake --build build) so that build/lib/librkc.so exists")
        _load_error = "cannot load librkc: %s (%s)" % ("; ".join(errors), hint)
        raise RkcError(_load_error)


_raw_launch = None


def raw_launch():
    """rkcKernelLaunch as a second ctypes function object without argtypes
    (restype int): the launch paths pass arguments that need no conversion
    (the handle and row count as ctypes objects, the pointers as packed
    bytes, the stream as a cached c_void_p), which is about twice as cheap
    as ctypes' argtypes conversions. Releases the GIL like any CDLL call."""
    global _raw_launch
    f = _raw_launch
    if f is None:
        f = library()["rkcKernelLaunch"]
        f.restype = ctypes.c_int
        _raw_launch = f
    return f


# CUstream ints -> c_void_p (a ctypes call without argtypes would pass an int
# as a 32-bit C int). Streams are few; the map is bounded anyway.
_cstreams = {None: None}


def cstream(s):
    """The c_void_p of a CUstream int (cached); None stays None."""
    c = _cstreams.get(s)
    if c is None and s is not None:
        if len(_cstreams) > 1024:
            _cstreams.clear()
            _cstreams[None] = None
        c = _cstreams[s] = ctypes.c_void_p(s)
    return c


def raise_launch_error(st):
    raise RkcError(last_error() or ("rkcKernelLaunch failed with status %d" % st), st)


def library_path():
    """Path of the loaded library (loads it first)."""
    library()
    return _lib_path


def version():
    """rkc's version string, e.g. "0.1.0"."""
    return library().rkcVersion().decode()


def _text(b):
    return b.decode("utf-8", "replace") if b is not None else ""


def last_error():
    return _text(library().rkcGetLastError())


def _enc(s):
    if s is None:
        return None
    b = s if isinstance(s, bytes) else str(s).encode("utf-8")
    if b"\0" in b:  # C strings: the text would end there, silently
        raise ValueError("rkc: a NUL character in %r" % (s[:60],))
    return b


class ArgInfo(tuple):
    """(name, dtype, shape, is_output) of one kernel argument."""

    __slots__ = ()

    def __new__(cls, name, dtype, shape, is_output):
        return tuple.__new__(cls, (name, dtype, shape, is_output))

    name = property(lambda self: self[0])
    dtype = property(lambda self: self[1])
    shape = property(lambda self: self[2])
    is_output = property(lambda self: self[3])

    def __repr__(self):
        return "ArgInfo(name=%r, dtype=%r, shape=%r, is_output=%r)" % tuple(self)


_c_void_p_array = {}
_c_int64_array = {}
_packers = {}


class Kernel(object):
    """One compiled kernel (an rkc_kernel handle), independent of torch.

    ``Kernel(spec_text, shapes, dtype=None, arch=None, schedule=None,
    spec_name="<spec>", pdl=False)`` compiles (librkc caches by request, so an
    identical request is cheap). ``shapes`` is "x=128x4096;w=4096" or a dict
    {name: (d0, d1)}. Raises RkcError with the spec location on failure.
    ``pdl=True`` launches with programmatic dependent launch (sm_90+): the
    kernel may start while the previous kernel of the stream finishes and
    waits for it before touching its data; a GEMV reads its quantized
    weights before that wait (RKC_LAUNCH_PDL in include/rkc-c/rkc.h).
    """

    def __init__(self, spec_text, shapes, dtype=None, arch=None, schedule=None,
                 spec_name="<spec>", pdl=False):
        lib = library()
        self._lib = lib
        self._handle = None
        if not isinstance(spec_text, (str, bytes)):
            raise TypeError("rkc.Kernel: the spec must be text (str), got %s"
                            % type(spec_text).__name__)
        if isinstance(shapes, dict):
            shapes = format_shapes(shapes)
        handle = ctypes.c_void_p()
        st = lib.rkcKernelCompile(_enc(spec_text), _enc(spec_name), _enc(shapes),
                                  _enc(dtype), _enc(arch), _enc(schedule),
                                  ctypes.byref(handle))
        if st != RKC_OK:
            raise RkcError(last_error() or ("rkcKernelCompile failed with status %d" % st), st)
        if not handle.value:
            raise RkcError("rkcKernelCompile returned no kernel", RKC_ERROR_COMPILE)
        self._handle = handle
        if pdl:
            st = lib.rkcKernelSetLaunchFlags(handle, RKC_LAUNCH_PDL)
            if st != RKC_OK:
                raise RkcError(last_error() or "rkcKernelSetLaunchFlags failed", st)
        self.pdl = bool(pdl)
        self.spec_text = spec_text
        self.request = (spec_name, shapes, dtype, arch, schedule)
        n = lib.rkcKernelNumArgs(handle)
        args = []
        for i in range(n):
            rank = lib.rkcKernelArgRank(handle, i)
            args.append(ArgInfo(_text(lib.rkcKernelArgName(handle, i)),
                                _text(lib.rkcKernelArgDtype(handle, i)),
                                tuple(int(lib.rkcKernelArgDim(handle, i, d)) for d in range(rank)),
                                bool(lib.rkcKernelArgIsOutput(handle, i))))
        self.args = tuple(args)
        self.num_args = n
        self.inputs = tuple(a for a in args if not a.is_output)
        self.outputs = tuple(a for a in args if a.is_output)
        self.vector_width = int(lib.rkcKernelVectorWidth(handle))
        self.plan = _text(lib.rkcKernelPlan(handle))
        # The row length N and rows M the kernel was compiled for: those of
        # the first [M, N] argument (as the emitter does).
        self.rows = self.cols = None
        for a in args:
            if len(a.shape) == 2:
                self.rows, self.cols = a.shape
                break
        if n not in _c_void_p_array:
            _c_void_p_array[n] = ctypes.c_void_p * n
            _c_int64_array[n] = ctypes.c_int64 * n
            _packers[n] = struct.Struct("%dQ" % n).pack
        self._ptr_t = _c_void_p_array[n]
        self._stride_t = _c_int64_array[n]
        # The pointer array of a launch: n native uint64 packed into a bytes
        # object (immutable, one per call: safe with concurrent launches).
        self._pack = _packers[n]
        self._rows_c = None if self.rows is None else ctypes.c_int64(self.rows)
        self._launch = lib.rkcKernelLaunch
        self._raw = raw_launch()

    @property
    def cuda(self):
        """The generated CUDA C++ source."""
        return _text(self._lib.rkcKernelCuda(self._handle))

    @property
    def remarks(self):
        """The planner's decisions behind `plan`, one "plan: ..." line each
        (as `rkc compile --print-plan` prints them)."""
        return tuple(_text(self._lib.rkcKernelRemarks(self._handle)).splitlines())

    @property
    def ptx(self):
        return _text(self._lib.rkcKernelPtx(self._handle))

    def launch(self, ptrs, strides=None, rows=None, stream=None):
        """Launches with one device pointer (int) per argument (inputs then
        outputs), row strides in elements (None or 0 entries: contiguous),
        ``rows`` = M and a CUstream (int or None for the default stream).
        Raises RkcError on failure; never blocks the host."""
        if len(ptrs) != self.num_args:
            raise ValueError("kernel takes %d pointers (%s), got %d"
                             % (self.num_args, ", ".join(a.name for a in self.args), len(ptrs)))
        s = None if strides is None else self._stride_t(*strides)
        if rows is None:
            m = self._rows_c
        elif rows.__class__ is int:
            if rows == self.rows:
                m = self._rows_c
            elif -1 << 63 <= rows < 1 << 63:  # librkc checks the sign
                m = ctypes.c_int64(rows)
            else:
                raise ValueError("rows must be below 2^63, got %d" % rows)
        else:
            m = None
        if m is not None and (stream is None or stream.__class__ is int):
            try:
                p = self._pack(*ptrs)
            except struct.error:  # not plain ints: ctypes' conversions below
                p = None
            if p is not None:
                st = self._raw(self._handle, p, s, m, cstream(stream))
                if st:
                    raise_launch_error(st)
                return
        # The slow path (pointers or rows that are not plain ints): what
        # ctypes would truncate or refuse with a bare "wrong type".
        for v in ptrs:
            if v is not None and not isinstance(v, ctypes.c_void_p):
                v = _index("pointer", v)
                if not 0 <= v < 1 << 64:
                    raise ValueError("a device pointer must be in 0..2^64-1, got %d" % v)
        m = self.rows if rows is None else _index("rows", rows)
        if not -1 << 63 <= m < 1 << 63:
            raise ValueError("rows must be below 2^63, got %d" % m)
        p = self._ptr_t(*ptrs)
        st = self._launch(self._handle, p, s, m, stream)
        if st != RKC_OK:
            raise RkcError(last_error() or ("rkcKernelLaunch failed with status %d" % st), st)

    def __repr__(self):
        return "<rkc.Kernel %s %s>" % (self.request[1], self.plan)

    def __del__(self):
        h = getattr(self, "_handle", None)
        if h is not None and h.value:
            try:
                self._lib.rkcKernelDestroy(h)
            except Exception:  # interpreter shutdown
                pass
            self._handle = None


def _index(what, v):
    """v as an int (int, numpy or torch integer scalars): a float or a bool
    is a TypeError, not truncated."""
    if isinstance(v, bool):
        raise TypeError("%s must be an int, got %r" % (what, v))
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError("%s must be an int, got %r" % (what, v)) from None


def format_shapes(shapes):
    """{"x": (128, 4096), "w": (4096,)} -> "x=128x4096;w=4096"."""
    parts = []
    for name, dims in shapes.items():
        if hasattr(dims, "__index__"):  # one dimension given as a number
            dims = (dims,)
        parts.append("%s=%s" % (name, "x".join(str(_index("shape of %r" % name, d))
                                                for d in dims)))
    return ";".join(parts)
