"""Random row programs: an rk spec and an independent float64 reference.

A spec is a random composition of what users write by hand: elementwise
maps (arith / math ops, constants), reductions along the row (add, max,
min, a mean through rk.dim, argmax / argmin of an input, a logsumexp
through a custom combiner), per-row values broadcast back over the row,
optional [N] weight and bias, a second [M, N] input, a per-row input,
several results of mixed kinds ([M, N] in the data's dtype or f32, [M]
f32 and i64, a value returned twice, an input returned as it is). Each program comes with a reference written with torch
ops (not rkc's own reference), evaluated in float64 and in float32; the
gap between the two measures how well conditioned the program is, and the
check's tolerance grows with it (`tolerance`).

The generator tracks an interval for every value and only applies an op
where its argument is in a safe domain (log and rsqrt of values >= 0.05,
exp of values <= 8, division by values away from 0), so programs stay
finite on inputs in their stated ranges. Argmax / argmin are taken of
inputs only: an index of a computed f32 value could differ from the
float64 reference's by a rounding tie.

Used by test/gpu/test_random_specs_gpu.py (the GPU check) and
test/python/test_binding_cpu.py (every program compiles, no GPU);
`python3 test/gpu/random_specs.py SEED` prints one program.
"""

import math
import random
import sys

NMAX = 1 << 21  # the longest row a sum's interval allows for
BIG = 1e30  # no value's interval may reach past it (f32 overflows at 3.4e38)
F16_MAX = 6.0e4  # values stored as the data's dtype stay finite in f16


def _fits(iv, limit=BIG):
    return max(abs(iv[0]), abs(iv[1])) <= limit


class Val(object):
    """An SSA value of the program: kind "MN", "M", "N" or "S" (scalar),
    elem "dt" (the data's !rk.dtype), "f32" or "i64", an interval."""

    def __init__(self, name, kind, elem, lo, hi):
        self.name, self.kind, self.elem, self.lo, self.hi = name, kind, elem, lo, hi

    def mlir_type(self):
        e = {"dt": "!rk.dtype", "f32": "f32", "i64": "i64"}[self.elem]
        return {"MN": "tensor<?x?x%s>", "M": "tensor<?x%s>", "N": "tensor<?x%s>", "S": "%s"}[self.kind] % e


def _interval_mul(a, b):
    ps = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return min(ps), max(ps)


def _fmt(c):
    return "%.6e" % c


# Unary ops: name -> (domain check, interval, MLIR lines builder, torch fn).
# The MLIR builder gets (out, a, fresh) and returns a list of lines.
def _unary_ops():
    def simple(op):
        return lambda o, a, fresh: ["%s = %s %s : f32" % (o, op, a)]

    def const_binary(op, c):
        def build(o, a, fresh):
            k = fresh()
            return ["%s = arith.constant %s : f32" % (k, _fmt(c)), "%s = %s %s, %s : f32" % (o, op, a, k)]
        return build

    ops = []
    ops.append(("neg", lambda lo, hi: True, lambda lo, hi: (-hi, -lo), simple("arith.negf"), lambda t, x: -x))
    ops.append(("abs", lambda lo, hi: True, lambda lo, hi: (0.0 if lo < 0 < hi else min(abs(lo), abs(hi)),
                                                             max(abs(lo), abs(hi))),
                simple("math.absf"), lambda t, x: x.abs()))
    ops.append(("tanh", lambda lo, hi: True, lambda lo, hi: (math.tanh(lo), math.tanh(hi)),
                simple("math.tanh"), lambda t, x: t.tanh(x)))
    ops.append(("exp", lambda lo, hi: hi <= 8 and lo >= -60, lambda lo, hi: (math.exp(lo), math.exp(hi)),
                simple("math.exp"), lambda t, x: t.exp(x)))
    ops.append(("exp2", lambda lo, hi: hi <= 10 and lo >= -80, lambda lo, hi: (2.0 ** lo, 2.0 ** hi),
                simple("math.exp2"), lambda t, x: t.exp2(x)))
    ops.append(("log", lambda lo, hi: lo >= 0.05 and hi < 1e30, lambda lo, hi: (math.log(lo), math.log(hi)),
                simple("math.log"), lambda t, x: t.log(x)))
    ops.append(("log1p", lambda lo, hi: lo >= -0.5 and hi < 1e30,
                lambda lo, hi: (math.log1p(lo), math.log1p(hi)), simple("math.log1p"), lambda t, x: t.log1p(x)))
    ops.append(("sqrt", lambda lo, hi: lo >= 0 and hi < 1e30, lambda lo, hi: (math.sqrt(lo), math.sqrt(hi)),
                simple("math.sqrt"), lambda t, x: t.sqrt(x)))
    ops.append(("rsqrt", lambda lo, hi: lo >= 0.05 and hi < 1e30,
                lambda lo, hi: (1 / math.sqrt(hi), 1 / math.sqrt(lo)), simple("math.rsqrt"),
                lambda t, x: t.rsqrt(x)))
    ops.append(("erf", lambda lo, hi: True, lambda lo, hi: (math.erf(lo), math.erf(hi)),
                simple("math.erf"), lambda t, x: t.erf(x)))
    ops.append(("sin", lambda lo, hi: abs(lo) < 100 and abs(hi) < 100, lambda lo, hi: (-1.0, 1.0),
                simple("math.sin"), lambda t, x: t.sin(x)))
    ops.append(("atan", lambda lo, hi: True, lambda lo, hi: (math.atan(lo), math.atan(hi)),
                simple("math.atan"), lambda t, x: t.atan(x)))
    ops.append(("pow", lambda lo, hi: lo >= 0.05 and hi < 1e10,
                lambda lo, hi: (lo ** 1.5, hi ** 1.5),
                lambda o, a, fresh: (lambda k: ["%s = arith.constant 1.5 : f32" % k,
                                                "%s = math.powf %s, %s : f32" % (o, a, k)])(fresh()),
                lambda t, x: x ** 1.5))
    ops.append(("square", lambda lo, hi: max(abs(lo), abs(hi)) < 1e15,
                lambda lo, hi: ((0.0 if lo < 0 < hi else min(lo * lo, hi * hi)), max(lo * lo, hi * hi)),
                lambda o, a, fresh: ["%s = arith.mulf %s, %s : f32" % (o, a, a)], lambda t, x: x * x))
    ops.append(("recip", lambda lo, hi: lo >= 0.1 or hi <= -0.1, lambda lo, hi: (1 / hi, 1 / lo),
                lambda o, a, fresh: (lambda k: ["%s = arith.constant 1.0 : f32" % k,
                                                "%s = arith.divf %s, %s : f32" % (o, k, a)])(fresh()),
                lambda t, x: 1.0 / x))
    ops.append(("leaky_relu", lambda lo, hi: True, lambda lo, hi: (min(lo, 0.125 * lo), max(hi, 0.125 * hi)),
                lambda o, a, fresh: (lambda z, c, s, p: [
                    "%s = arith.constant 0.0 : f32" % z, "%s = arith.cmpf ogt, %s, %s : f32" % (c, a, z),
                    "%s = arith.constant 1.25e-01 : f32" % s, "%s = arith.mulf %s, %s : f32" % (p, a, s),
                    "%s = arith.select %s, %s, %s : f32" % (o, c, a, p)])(fresh(), fresh(), fresh(), fresh()),
                lambda t, x: t.where(x > 0, x, 0.125 * x)))
    return ops


UNARY = _unary_ops()

BINARY = {
    "add": ("arith.addf", lambda a, b: (a[0] + b[0], a[1] + b[1]), lambda t, x, y: x + y),
    "sub": ("arith.subf", lambda a, b: (a[0] - b[1], a[1] - b[0]), lambda t, x, y: x - y),
    "mul": ("arith.mulf", _interval_mul, lambda t, x, y: x * y),
    "max": ("arith.maximumf", lambda a, b: (max(a[0], b[0]), max(a[1], b[1])), lambda t, x, y: t.maximum(x, y)),
    "min": ("arith.minimumf", lambda a, b: (min(a[0], b[0]), min(a[1], b[1])), lambda t, x, y: t.minimum(x, y)),
    "div": ("arith.divf", lambda a, b: _interval_mul(a, (1 / b[1], 1 / b[0])), lambda t, x, y: x / y),
}


class Program(object):
    """A generated spec: `text`, `inputs` [(name, kind, lo, hi)], `results`
    [(kind, elem)], and `reference(torch, tensors, dtype)` -> outputs."""

    def __init__(self, seed, text, inputs, results, steps, result_vals, data_dtype):
        self.seed, self.text, self.inputs, self.results = seed, text, inputs, results
        self._steps, self._result_vals, self._data_dtype = steps, result_vals, data_dtype

    def reference(self, torch, tensors, compute, data_dtype):
        """The results from `tensors` (the inputs, by name) evaluated with
        torch ops in `compute`; values the spec stores as !rk.dtype are
        rounded to `data_dtype` (the torch dtype it is bound to)."""
        self._data_dtype[0] = data_dtype
        env = dict(tensors)
        for step in self._steps:
            step(torch, env, compute)
        return [env[v.name] for v in self._result_vals]


def generate(seed):
    rng = random.Random(seed)
    counter = [0]

    def fresh():
        counter[0] += 1
        return "%%v%d" % counter[0]

    lines = []
    steps = []
    steps_dtype = [None]  # the data's torch dtype, set by Program.reference

    def rounding(v):
        # Values stored as the data's dtype are rounded where they are
        # stored: the reference rounds them too.
        if v.elem != "dt":
            return lambda torch, x, compute: x
        return lambda torch, x, compute: x.to(steps_dtype[0]).to(compute)

    x = Val("%x", "MN", "dt", -2.0, 2.0)
    args = [(x, "x")]
    mn, m_vals, n_vals = [x], [], []
    if rng.random() < 0.4:
        w = Val("%w", "N", "f32" if rng.random() < 0.3 else "dt", 0.5, 1.5)
        args.append((w, "w"))
        n_vals.append(w)
        if rng.random() < 0.4:
            # A second row vector (a bias): two [N] operands, the hinted
            # loads of long rows' [N] operands side by side.
            b = Val("%b", "N", "f32" if rng.random() < 0.3 else "dt", -0.5, 0.5)
            args.append((b, "b"))
            n_vals.append(b)
    if rng.random() < 0.3:
        r = Val("%r", "MN", "dt", -1.0, 1.0)
        args.append((r, "r"))
        mn.append(r)
    if rng.random() < 0.25:
        # A per-row input (a temperature, a scale), f32.
        t = Val("%t", "M", "f32", 0.5, 1.5)
        args.append((t, "t"))
        m_vals.append(t)
    inputs = [(a[1], a[0].kind, a[0].elem, a[0].lo, a[0].hi) for a in args]

    # The inputs, converted to the compute dtype.
    for v, nm in args:
        steps.append(lambda torch, env, compute, v=v, nm=nm: env.__setitem__(v.name, env[nm].to(compute)))

    def region_expr(operands):
        """A random expression over the region arguments; returns (MLIR
        lines, result name, interval, torch fn of the operand tensors)."""
        body = []
        names = ["%%a%d" % i for i in range(len(operands))]
        # Fold the operands together with binary ops first.
        cur = (names[0], (operands[0].lo, operands[0].hi), lambda t, xs: xs[0])
        for i in range(1, len(operands)):
            b = (names[i], (operands[i].lo, operands[i].hi), (lambda i: lambda t, xs: xs[i])(i))
            choices = [k for k in BINARY if (k != "div" or b[1][0] >= 0.1 or b[1][1] <= -0.1)
                       and _fits(BINARY[k][1](cur[1], b[1]))]
            op = rng.choice(choices)
            mop, ifn, tfn = BINARY[op]
            iv = ifn(cur[1], b[1])
            o = fresh()
            body.append("%s = %s %s, %s : f32" % (o, mop, cur[0], b[0]))
            cur = (o, iv, (lambda f, g, h: lambda t, xs: h(t, f(t, xs), g(t, xs)))(cur[2], b[2], tfn))
        for _ in range(rng.randint(0 if len(operands) > 1 else 1, 3)):
            lo, hi = cur[1]
            if rng.random() < 0.3:
                # A constant operand.
                c = rng.choice([-1.5, -0.5, 0.25, 0.75, 2.0, 3.0])
                op = rng.choice([k for k in ("add", "mul", "max", "min")
                                 if _fits(BINARY[k][1](cur[1], (c, c)))])
                mop, ifn, tfn = BINARY[op]
                k, o = fresh(), fresh()
                body += ["%s = arith.constant %s : f32" % (k, _fmt(c)), "%s = %s %s, %s : f32" % (o, mop, cur[0], k)]
                cur = (o, ifn(cur[1], (c, c)),
                       (lambda f, h, c: lambda t, xs: (lambda v: h(t, v, t.full_like(v, c)))(f(t, xs)))(
                           cur[2], tfn, c))
                continue
            ok = [u for u in UNARY if u[1](lo, hi) and _fits(u[2](lo, hi))]
            name, _, ifn, build, tfn = rng.choice(ok)
            o = fresh()
            body += build(o, cur[0], fresh)
            nlo, nhi = ifn(lo, hi)
            cur = (o, (min(nlo, nhi), max(nlo, nhi)), (lambda f, g: lambda t, xs: g(t, f(t, xs)))(cur[2], tfn))
        return names, body, cur

    def emit_map(operands, kind, elem):
        """rk.map over `operands` (all of `kind`, or scalars) -> a new Val."""
        names, body, (res, iv, fn) = region_expr(operands)
        if elem == "dt" and not _fits(iv, F16_MAX):
            elem = "f32"
        out = Val(fresh(), kind, elem, iv[0], iv[1])
        sig = ", ".join("%s: f32" % n for n in names)
        lines.append("  %s = rk.map %s {" % (out.name, ", ".join(o.name for o in operands)))
        lines.append("  ^bb0(%s):" % sig)
        lines.extend("    " + b for b in body)
        lines.append("    rk.yield %s : f32" % res)
        lines.append("  } : %s -> %s" % (", ".join(o.mlir_type() for o in operands), out.mlir_type()))
        rnd = rounding(out)

        def step(torch, env, compute, operands=operands, out=out, fn=fn, rnd=rnd):
            xs = [env[o.name] for o in operands]
            env[out.name] = rnd(torch, fn(torch, xs), compute)
        steps.append(step)
        return out

    def broadcast(v):
        """[M] or [N] -> [M, N] through rk.broadcast."""
        b = Val(fresh(), "MN", v.elem, v.lo, v.hi)
        dims = 0 if v.kind == "M" else 1
        lines.append("  %s = rk.broadcast %s dims [%d] : %s -> %s"
                     % (b.name, v.name, dims, v.mlir_type(), b.mlir_type()))

        def step(torch, env, compute, v=v, b=b, dims=dims):
            t = env[v.name]
            env[b.name] = t[:, None] if dims == 0 else t[None, :]
        steps.append(step)
        return b

    def reduce(v):
        kinds = ["max", "min", "mean"] + (["add"] if _fits((v.lo * NMAX, v.hi * NMAX)) else [])
        if v.elem == "dt" and v.name in ("%x", "%r"):
            kinds += ["argmax", "argmin"]
        if _fits((v.lo, v.hi), 60.0):
            kinds.append("lse")
        k = rng.choice(kinds)
        if k == "lse":
            return reduce_lse(v)
        if k in ("argmax", "argmin"):
            val = Val(fresh(), "M", "f32", v.lo, v.hi)
            idx = Val(fresh(), "M", "i64", 0, NMAX)
            lines.append("  %s, %s = rk.reduce %s %s : %s -> tensor<?xf32>, tensor<?xi64>"
                         % (val.name, idx.name, k, v.name, v.mlir_type()))

            def step(torch, env, compute, v=v, val=val, idx=idx, k=k):
                t = env[v.name]
                i = t.argmax(dim=1) if k == "argmax" else t.argmin(dim=1)
                env[val.name] = t.gather(1, i[:, None])[:, 0]
                env[idx.name] = i
            steps.append(step)
            return [val, idx]
        red = "add" if k == "mean" else k
        lo, hi = v.lo, v.hi
        if red == "add":
            lo, hi = min(lo, NMAX * lo), max(hi, NMAX * hi)
        s = Val(fresh(), "M", "f32", lo, hi)
        lines.append("  %s = rk.reduce %s %s : %s -> tensor<?xf32>" % (s.name, red, v.name, v.mlir_type()))

        def step(torch, env, compute, v=v, s=s, red=red):
            t = env[v.name]
            env[s.name] = {"add": lambda: t.sum(dim=1), "max": lambda: t.amax(dim=1),
                           "min": lambda: t.amin(dim=1)}[red]()
        steps.append(step)
        if k != "mean":
            return [s]
        n = Val(fresh(), "S", "f32", 1, NMAX)
        mean = Val(fresh(), "M", "f32", v.lo, v.hi)
        lines.append("  %s = rk.dim %s[1] : %s -> f32" % (n.name, v.name, v.mlir_type()))
        lines.append("  %s = rk.map %s, %s {" % (mean.name, s.name, n.name))
        lines.append("  ^bb0(%a0: f32, %a1: f32):")
        lines.append("    %q = arith.divf %a0, %a1 : f32")
        lines.append("    rk.yield %q : f32")
        lines.append("  } : tensor<?xf32>, f32 -> tensor<?xf32>")

        def mstep(torch, env, compute, v=v, s=s, mean=mean):
            env[mean.name] = env[s.name] / env[v.name].shape[1]
        steps.append(mstep)
        return [mean]

    def reduce_lse(v):
        """The online softmax state (max, sum of exp(x - max)) through a
        custom combiner, then log(sum) + max: a logsumexp."""
        one = Val(fresh(), "MN", "f32", 1.0, 1.0)
        m = Val(fresh(), "M", "f32", v.lo, v.hi)
        l = Val(fresh(), "M", "f32", 1.0, NMAX)
        lse = Val(fresh(), "M", "f32", v.lo, v.hi + math.log(NMAX))
        lines.append("  %s = rk.map %s {" % (one.name, v.name))
        lines.append("  ^bb0(%a0: f32):")
        lines.append("    %c = arith.constant 1.0 : f32")
        lines.append("    rk.yield %c : f32")
        lines.append("  } : %s -> tensor<?x?xf32>" % v.mlir_type())
        lines.append("  %s, %s = rk.reduce %s, %s init [0xFF800000 : f32, 0.0 : f32] {"
                     % (m.name, l.name, v.name, one.name))
        lines.append("  ^bb0(%m1: f32, %l1: f32, %m2: f32, %l2: f32):")
        lines.append("    %m = arith.maximumf %m1, %m2 : f32")
        lines.append("    %z = arith.subf %m, %m : f32")
        lines.append("    %empty = arith.cmpf uno, %z, %z : f32")
        lines.append("    %d1 = arith.subf %m1, %m : f32")
        lines.append("    %d2 = arith.subf %m2, %m : f32")
        lines.append("    %e1 = math.exp %d1 : f32")
        lines.append("    %e2 = math.exp %d2 : f32")
        lines.append("    %p1 = arith.mulf %l1, %e1 : f32")
        lines.append("    %p2 = arith.mulf %l2, %e2 : f32")
        lines.append("    %s = arith.addf %p1, %p2 : f32")
        lines.append("    %both = arith.addf %l1, %l2 : f32")
        lines.append("    %l = arith.select %empty, %both, %s : f32")
        lines.append("    rk.yield %m, %l : f32, f32")
        lines.append("  } : %s, tensor<?x?xf32> -> tensor<?xf32>, tensor<?xf32>" % v.mlir_type())
        lines.append("  %s = rk.map %s, %s {" % (lse.name, m.name, l.name))
        lines.append("  ^bb0(%a0: f32, %a1: f32):")
        lines.append("    %g = math.log %a1 : f32")
        lines.append("    %q = arith.addf %a0, %g : f32")
        lines.append("    rk.yield %q : f32")
        lines.append("  } : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>")

        def step(torch, env, compute, v=v, m=m, l=l, lse=lse):
            t = env[v.name]
            mx = t.amax(dim=1)
            sm = (t - mx[:, None]).exp().sum(dim=1)
            env[m.name], env[l.name], env[lse.name] = mx, sm, mx + sm.log()
        steps.append(step)
        return [lse, m, l]

    produced = []
    n_steps = rng.randint(2, 6)
    did_reduce = False
    for i in range(n_steps):
        act = rng.choices(["map_mn", "reduce", "map_m"], weights=[5, 3 if not did_reduce else 2,
                                                                   2 if m_vals else 0])[0]
        if act == "reduce":
            src = rng.choice(mn)
            outs = reduce(src)
            m_vals.append(outs[0])
            produced += outs
            did_reduce = True
        elif act == "map_m":
            src = rng.choice([v for v in m_vals if v.elem == "f32"])
            out = emit_map([src], "M", "f32")
            m_vals.append(out)
            produced.append(out)
        else:
            ops = [rng.choice(mn)]
            extra = rng.randint(0, 2)
            for _ in range(extra):
                pick = rng.random()
                if m_vals and pick < 0.5:
                    ops.append(broadcast(rng.choice([v for v in m_vals if v.elem == "f32"])))
                elif n_vals and pick < 0.8:
                    ops.append(broadcast(rng.choice(n_vals)))
                else:
                    ops.append(rng.choice(mn))
            elem = rng.choice(["f32", "dt"])
            out = emit_map(ops, "MN", elem)
            mn.append(out)
            produced.append(out)
    if not did_reduce and rng.random() < 0.7:
        outs = reduce(rng.choice(mn))
        produced += outs
    # Results: the last value, and up to two more of the produced ones.
    result_vals = [produced[-1]]
    others = [v for v in produced[:-1] if v not in result_vals]
    rng.shuffle(others)
    result_vals += others[:rng.randint(0, 2)]
    if rng.random() < 0.08:
        result_vals.append(result_vals[0])  # one value returned twice
    if rng.random() < 0.08:
        result_vals.append(x)  # an input returned as it is (a copy)
    # An index result comes with nothing else to tell: keep it as it is.
    sig = ", ".join("%s: %s {rk.name = \"%s\"}" % (v.name, v.mlir_type(), nm) for v, nm in args)
    rtypes = ", ".join(v.mlir_type() for v in result_vals)
    text = ["// random row program, seed %d (test/gpu/random_specs.py)" % seed,
            "func.func @random_%d(%s) -> (%s) {" % (seed, sig, rtypes)]
    text += lines
    text.append("  return %s : %s" % (", ".join(v.name for v in result_vals), rtypes))
    text.append("}")
    return Program(seed, "\n".join(text) + "\n", inputs, [(v.kind, v.elem) for v in result_vals],
                   steps, result_vals, steps_dtype)


def input_shapes(prog, M, N):
    """The inputs' shapes for rows of N values, M of them: {name: dims}."""
    return {name: {"MN": (M, N), "N": (N,), "M": (M,)}[kind] for name, kind, _, _, _ in prog.inputs}


def make_inputs(torch, prog, M, N, dtype, device, gen):
    """Random inputs in their stated ranges: {name: tensor}."""
    out = {}
    shapes = input_shapes(prog, M, N)
    for name, kind, elem, lo, hi in prog.inputs:
        shape = shapes[name]
        t = torch.rand(shape, generator=gen, device=device, dtype=torch.float32) * (hi - lo) + lo
        out[name] = t.to(dtype) if elem == "dt" else t
    return out


def rel_err(torch, got, ref):
    got = got.to(torch.float64)
    ref = ref.to(torch.float64)
    denom = max(ref.norm().item(), 1e-6 * math.sqrt(ref.numel()))
    return (got - ref).norm().item() / denom


def tolerance(torch, prog, tensors, dtype):
    """Per result: max(base, 8 x the float32 reference's own error), base
    1e-2 for results stored as 16-bit data, 5e-5 for f32 results (1e-5 of
    f32 data: fast-math exp / reciprocal of 16-bit data cost ~1e-6)."""
    r64 = prog.reference(torch, tensors, torch.float64, dtype)
    r32 = prog.reference(torch, tensors, torch.float32, dtype)
    tols = []
    for (kind, elem), a, b in zip(prog.results, r32, r64):
        if elem == "i64":
            tols.append(0.0)
            continue
        base = 1e-2 if (elem == "dt" and dtype != torch.float32) else (1e-5 if dtype == torch.float32 else 5e-5)
        tols.append(max(base, 8 * rel_err(torch, a, b)))
    return r64, tols


if __name__ == "__main__":
    for s in sys.argv[1:] or ["0"]:
        sys.stdout.write(generate(int(s)).text)
