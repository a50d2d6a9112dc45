"""Spec text helpers: shipped specs, attribute substitution, signatures.

No torch here: everything works on strings.
"""

import math
import os
import re

SPEC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs")

# The shipped row-op specs (python/rkc/specs/NAME.mlir).
SPEC_NAMES = ("rms_norm", "rms_norm_residual", "layer_norm", "layer_norm_nobias",
              "softmax", "log_softmax", "cross_entropy")

_texts = {}


def spec_path(name):
    """The file of a shipped spec, e.g. spec_path("rms_norm")."""
    if name not in SPEC_NAMES:
        raise ValueError("unknown rkc spec %r (shipped: %s)" % (name, ", ".join(SPEC_NAMES)))
    return os.path.join(SPEC_DIR, name + ".mlir")


def spec_text(name):
    """The text of a shipped spec, e.g. spec_text("rms_norm")."""
    t = _texts.get(name)
    if t is None:
        if name not in SPEC_NAMES:
            raise ValueError("unknown rkc spec %r (shipped: %s)" % (name, ", ".join(SPEC_NAMES)))
        with open(spec_path(name)) as f:
            t = f.read()
        _texts[name] = t
    return t


def mlir_float(value):
    """A finite Python float as an MLIR float literal that denotes exactly the
    same double: repr() gives the shortest round-trip digits; MLIR needs a
    '.' in the mantissa ("1e-06" -> "1.0e-06")."""
    v = float(value)
    if not math.isfinite(v):
        raise ValueError("expected a finite float, got %r" % (value,))
    s = repr(v)
    mant, sep, exp = s.partition("e")
    if "." not in mant:
        mant += ".0"
    return mant + (("e" + exp) if sep else "")


_EPS_RE = re.compile(r"eps\s*=\s*[-+0-9.eE]+\s*:\s*f32")
_IGNORE_RE = re.compile(r"ignore_index\s*=\s*[-+]?[0-9]+\s*:\s*i64")


def with_eps(text, eps):
    """The spec text with its `eps = ... : f32` attribute set to `eps`."""
    e = float(eps)
    if not math.isfinite(e) or e < 0:
        raise ValueError("eps must be a finite non-negative float, got %r" % (eps,))
    new, n = _EPS_RE.subn("eps = %s : f32" % mlir_float(e), text)
    if n != 1:
        raise ValueError("the spec has %d eps attributes, expected 1" % n)
    return new


def with_ignore_index(text, ignore_index):
    """The spec text with its `ignore_index = ... : i64` set."""
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        try:
            import operator
            ignore_index = operator.index(ignore_index)
        except TypeError:
            raise TypeError("ignore_index must be an int, got %r" % (ignore_index,))
    if not -(1 << 63) <= ignore_index < (1 << 63):
        raise ValueError("ignore_index %d does not fit in int64" % ignore_index)
    new, n = _IGNORE_RE.subn("ignore_index = %d : i64" % ignore_index, text)
    if n != 1:
        raise ValueError("the spec has %d ignore_index attributes, expected 1" % n)
    return new


# --- Function signatures of custom specs -----------------------------------

class SpecArg(object):
    __slots__ = ("index", "name", "type", "rank", "dims", "elem")

    def __init__(self, index, name, type_, rank, dims, elem):
        self.index, self.name, self.type, self.rank, self.dims, self.elem = (
            index, name, type_, rank, dims, elem)

    @property
    def generic(self):
        return self.elem == "!rk.dtype"

    def __repr__(self):
        return "SpecArg(%d, %r, %r)" % (self.index, self.name, self.type)


def _strip_comments(text):
    out = []
    for line in text.splitlines():
        # '//' inside a string literal is not a comment; rk specs rarely have
        # strings other than rk.name values, so track quotes simply.
        q = False
        cut = None
        for i, ch in enumerate(line):
            if ch == '"' and (i == 0 or line[i - 1] != "\\"):
                q = not q
            elif not q and ch == "/" and line[i:i + 2] == "//":
                cut = i
                break
        out.append(line if cut is None else line[:cut])
    return "\n".join(out)


def _split_top(s, sep=","):
    parts, depth, q, cur = [], 0, False, []
    for i, ch in enumerate(s):
        if ch == '"' and (i == 0 or s[i - 1] != "\\"):
            q = not q
        elif not q:
            if ch in "(<[{":
                depth += 1
            elif ch in ")>]}":
                depth -= 1
            elif ch == sep and depth == 0:
                parts.append("".join(cur))
                cur = []
                continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


_FUNC_RE = re.compile(r"func\.func\s+(?:(?:public|private|nested)\s+)?@([\w$.\-]+)\s*\(")
_TENSOR_RE = re.compile(r"^tensor<((?:(?:\?|\d+)x)*)(.+)>$")
_NAME_RE = re.compile(r'rk\.name\s*=\s*"([^"]*)"')


def parse_signature(text):
    """(function name, [SpecArg]) of the first func.func in a spec.

    Raises ValueError when no function signature can be read (the compiler
    gives the precise diagnostic for malformed specs)."""
    src = _strip_comments(text)
    m = _FUNC_RE.search(src)
    if not m:
        raise ValueError("the spec has no func.func")
    i = m.end()
    depth, q, j = 1, False, i
    while j < len(src):
        ch = src[j]
        if ch == '"' and src[j - 1] != "\\":
            q = not q
        elif not q:
            if ch in "(<[{":
                depth += 1
            elif ch in ")>]}":
                depth -= 1
                if depth == 0:
                    break
        j += 1
    if depth != 0:
        raise ValueError("unterminated argument list of @%s" % m.group(1))
    args = []
    for k, a in enumerate(_split_top(src[i:j])):
        a = a.strip()
        am = re.match(r"%[\w$.\-]+\s*:\s*(.*)$", a, re.S)
        if not am:
            raise ValueError("cannot read argument #%d of @%s: %r" % (k, m.group(1), a))
        rest = am.group(1).strip()
        # The type ends where a top-level '{' (the attribute dict) starts.
        d, t_end = 0, len(rest)
        for p, ch in enumerate(rest):
            if ch in "(<[":
                d += 1
            elif ch in ")>]":
                d -= 1
            elif ch == "{" and d == 0:
                t_end = p
                break
        type_ = " ".join(rest[:t_end].split())
        attrs = rest[t_end:]
        nm = _NAME_RE.search(attrs)
        name = nm.group(1) if nm else "arg%d" % k
        tm = _TENSOR_RE.match(type_)
        if tm:
            dims = tuple(None if x == "?" else int(x) for x in tm.group(1).split("x")[:-1])
            elem = tm.group(2).strip()
            # An encoding (", #rk.quant<...>") follows the element type.
            elem = _split_top(elem)[0].strip()
            args.append(SpecArg(k, name, type_, len(dims), dims, elem))
        else:
            args.append(SpecArg(k, name, type_, 0, (), type_))
    return m.group(1), args


# --- Quantized ops (rk.quantize / rk.dequantize / rk.gemv) -------------------
#
# The specs of the quantized ops are generated from their parameters, in the
# form of examples/gemv_w4a16.mlir, quantize_int4.mlir and
# dequantize_int4.mlir (docs/quantization.md describes the formats).

QUANT_OPS = ("quantize", "dequantize", "gemv")
# The packing of quantized weights (axis 0) and its values of K per 32-bit
# word: int4 k8, int8 k4 (per-token int8 is not packed).
WEIGHT_PACKING = {4: "k8", 8: "k4"}
K_PER_WORD = {4: 8, 8: 4}
QUANT_SCALES = ("f16", "bf16", "f32")


def quant_attr(bits, group_size, axis=0, scale="f16", symmetric=True):
    """The #rk.quant encoding: int4 is packed eight values of K per 32-bit
    word (packing = k8), int8 weights (axis 0) four values of K per 32-bit
    word (packing = k4), per-token int8 (axis 1) one value per byte
    (packing = none). docs/quantization.md describes the layouts."""
    if bits not in (4, 8):
        raise ValueError("bits must be 4 or 8, got %r" % (bits,))
    if scale not in QUANT_SCALES:
        raise ValueError("the scale type must be one of %s, got %r" % (", ".join(QUANT_SCALES), scale))
    packing = WEIGHT_PACKING[bits] if bits == 4 or int(axis) == 0 else "none"
    return ("#rk.quant<bits = %d, group_size = %d, axis = %d, scale = %s, symmetric = %s, "
            "packing = %s>" % (bits, int(group_size), int(axis), scale,
                               "true" if symmetric else "false", packing))


def quant_spec_name(op, bits, group_size, symmetric=True, axis=0, bias=False):
    """The function name of a generated spec, e.g. "gemv_w4a16_g128" (the
    kernel is named rkc_<it>)."""
    g = "g%d" % group_size if group_size else "gall"
    asym = "" if symmetric else "_asym"
    if op == "gemv":
        return "gemv_w%da16_%s%s%s" % (bits, g, asym, "_bias" if bias else "")
    tok = "_per_token" if axis else ""
    return "%s_int%d%s_%s%s" % (op, bits, tok, g, asym)


def quant_spec_text(op, bits=4, group_size=128, symmetric=True, scale="f16", axis=0,
                    bias=False):
    """The rk spec of one quantized op, generic over !rk.dtype (the compile
    request's dtype: the activations and output of gemv, the input of
    quantize, the output of dequantize).

    op "quantize": (w [?x?]) -> (q, scales[, zeros]); "dequantize": (q,
    scales[, zeros]) -> w; "gemv": (x [M, K], q [K, N], scales[, zeros][,
    bias [N]]) -> out [M, N]. Arguments are named w, x, q, scales, zeros,
    bias (the names of the shapes of the compile request; q's shape is the
    LOGICAL [K, N], whatever its storage). Asymmetric adds the zero points
    (same shape and type as the scales).
    """
    if op not in QUANT_OPS:
        raise ValueError("unknown quantized op %r (one of: %s)" % (op, ", ".join(QUANT_OPS)))
    if op == "gemv" and axis != 0:
        raise ValueError("rk.gemv takes weights quantized along K (axis = 0), got axis = %r"
                         % (axis,))
    if bias and op != "gemv":
        raise ValueError("only gemv takes a bias")
    q = "tensor<?x?xi%d, %s>" % (bits, quant_attr(bits, group_size, axis, scale, symmetric))
    s = "tensor<?x?x%s>" % scale
    d = "tensor<?x?x!rk.dtype>"
    name = quant_spec_name(op, bits, group_size, symmetric, axis, bias)
    zeros = not symmetric
    what = "symmetric" if symmetric else "asymmetric"
    groups = ("groups of %d along axis %d" % (group_size, axis) if group_size
              else "one group over axis %d" % axis)
    lines = []
    if op == "gemv":
        lines.append("// W%dA16 decode GEMV, %s, %s, %s scales (generated by rkc.quant):"
                     % (bits, what, groups, scale))
        lines.append("// out[m, n] = sum_k x[m, k] * dequant(q)[k, n]%s, fp32 accumulation."
                     % (" + bias[n]" if bias else ""))
        args = ['%%x: %s {rk.name = "x"}' % d, '%%q: %s {rk.name = "q"}' % q,
                '%%s: %s {rk.name = "scales"}' % s]
        operands, types = "%x, %q, %s", [d, q, s]
        if zeros:
            args.append('%%z: %s {rk.name = "zeros"}' % s)
            operands += " zeros %z"
            types.append(s)
        if bias:
            args.append('%b: tensor<?x!rk.dtype> {rk.name = "bias"}')
            operands += " bias %b"
            types.append("tensor<?x!rk.dtype>")
        lines.append("func.func @%s(\n    %s) -> %s {" % (name, ",\n    ".join(args), d))
        lines.append("  %%o = rk.gemv %s\n      : (%s) -> %s" % (operands, ",\n         ".join(types), d))
        lines.append("  return %%o : %s\n}" % d)
    elif op == "quantize":
        lines.append("// %s int%d quantization, %s, %s scales (generated by rkc.quant)."
                     % (what.capitalize(), bits, groups, scale))
        res = [q, s] + ([s] if zeros else [])
        names = "%q, %s" + (", %z" if zeros else "")
        src = "x" if axis else "w"  # per-token activations x [T, D]; weights w [K, N]
        lines.append('func.func @%s(%%%s: %s {rk.name = "%s"})\n    -> (%s) {'
                     % (name, src, d, src, ",\n        ".join(res)))
        lines.append("  %s = rk.quantize %%%s : (%s)\n      -> (%s)"
                     % (names, src, d, ",\n          ".join(res)))
        lines.append("  return %s : %s\n}" % (names, (",\n" + " " * (12 + len(names))).join(res)))
    else:
        lines.append("// Dequantization of %s int%d, %s, %s scales: w = scale * (q - zero) "
                     "(generated by rkc.quant)." % (what, bits, groups, scale))
        args = ['%%q: %s {rk.name = "q"}' % q, '%%s: %s {rk.name = "scales"}' % s]
        operands, types = "%q, %s", [q, s]
        if zeros:
            args.append('%%z: %s {rk.name = "zeros"}' % s)
            operands += " zeros %z"
            types.append(s)
        lines.append("func.func @%s(\n    %s) -> %s {" % (name, ",\n    ".join(args), d))
        lines.append("  %%w = rk.dequantize %s\n      : (%s) -> %s"
                     % (operands, ",\n         ".join(types), d))
        lines.append("  return %%w : %s\n}" % d)
    return "\n".join(lines) + "\n"
