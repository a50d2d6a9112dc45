"""Mutated random row programs through `rkc compile` (CPU, no GPU).

The random programs of the GPU suite (test/gpu/random_specs.py) are valid;
here each is damaged the way a hand edit damages a spec (a line deleted,
duplicated or swapped with another, two values swapped, a tensor's rank,
an element type, a broadcast dimension or an index changed) and compiled
to PTX. Whatever the damage, rkc must answer with a kernel (exit 0) or
with `error:` lines (exit 1, no output file left), never crash or hang.
"""

import os
import pathlib
import random
import re
import subprocess

import pytest

import _support  # noqa: F401  (sys.path: python/ and test/gpu/)
import random_specs

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB = os.environ.get("RKC_LIBRARY", str(ROOT / "build" / "lib" / "librkc.so"))
RKC = pathlib.Path(LIB).resolve().parent.parent / "bin" / "rkc"

pytestmark = pytest.mark.skipif(not RKC.exists(), reason="needs the build's rkc")

CASES = 160


def mutate(rng, text):
    lines = text.split("\n")
    i = rng.randrange(2, max(3, len(lines) - 2))
    k = rng.randrange(9)
    if k == 0:
        del lines[i]
    elif k == 1:
        names = sorted(set(re.findall(r"%[a-z0-9]+", lines[i])))
        if len(names) >= 2:
            a, b = rng.sample(names, 2)
            lines[i] = lines[i].replace(a, "@@").replace(b, a).replace("@@", b)
    elif k == 2:
        lines[i] = lines[i].replace("tensor<?x?x", "tensor<?x", 1)
    elif k == 3:
        if "dims [" in lines[i]:
            lines[i] = re.sub(r"dims \[\d\]", "dims [%d]" % rng.choice([0, 1, 2]), lines[i])
        else:
            lines[i] = lines[i].replace("f32", "i32", 1)
    elif k == 4:
        lines[i] = lines[i].replace("f32", rng.choice(["f16", "f64", "i1"]), 1)
    elif k == 5:
        lines.insert(i, lines[i])
    elif k == 6:
        lines[i] = re.sub(r"\[(\d)\]", lambda m: "[%d]" % rng.choice([0, 1, 2, 7]), lines[i])
    elif k == 7:
        lines[i] = lines[i].replace("!rk.dtype", rng.choice(["f32", "bf16", "i64", "i8", "f64"]), 1)
    else:
        j = rng.randrange(2, max(3, len(lines) - 2))
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


@pytest.mark.parametrize("case", range(CASES))
def test_mutated_program(tmp_path, case):
    rng = random.Random(7919 * case + 3)
    prog = random_specs.generate(rng.randrange(100000))
    text = prog.text
    for _ in range(rng.randint(1, 2)):
        text = mutate(rng, text)
    spec = tmp_path / "mutated.mlir"
    spec.write_text(text)
    out = tmp_path / "out.ptx"
    M, N = rng.choice([(3, 7), (4, 4096), (2, 1048576), (5, 5)])
    args = [str(RKC), "compile", str(spec), "--dtype", rng.choice(["bf16", "f32", "f16"]),
            "--emit", "ptx", "-o", str(out)]
    for name, dims in random_specs.input_shapes(prog, M, N).items():
        args += ["--shape", "%s=%s" % (name, "x".join(map(str, dims)))]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    where = "%s\n%s\n%s" % (" ".join(args[2:]), text, r.stderr[-2000:])
    assert r.returncode in (0, 1), "rkc exited with %d (a crash?)\n%s" % (r.returncode, where)
    if r.returncode == 0:
        assert out.exists() and out.stat().st_size > 0, where
    else:
        assert "error:" in r.stderr, where
        assert not out.exists(), "an output file was left behind\n" + where
        assert [p.name for p in tmp_path.iterdir()] == ["mutated.mlir"], where
