"""Helpers shared by the scripts that handle the tuning database's rows
without a GPU (scripts/tuning-restamp, scripts/codegen-fingerprint,
scripts/tuning-merge): find a row's spec by its op hash, compile the row's
spec, dtype, shapes and schedule to PTX, write a database in its shipped
form."""

import glob
import itertools
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_rows(path, rows):
    """Rewrites a database atomically in the shipped form: one JSON object a
    line, keys sorted, no spaces."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n")
    os.replace(tmp, path)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def shipped_specs():
    """The spec files a row's op hash is looked up among."""
    return sorted(glob.glob(os.path.join(ROOT, "python", "rkc", "specs", "*.mlir")) +
                  glob.glob(os.path.join(ROOT, "examples", "*.mlir")))


def print_key(rkc, spec, dtype, shapes):
    cmd = [rkc, "tune", spec, "--print-key", "--dtype", dtype]
    for s in shapes.split(";"):
        cmd += ["--shape", s]
    rc, out, err = run(cmd)
    if rc != 0:
        return None
    fields = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    return fields


def emit_ptx(rkc, spec, row, path):
    cmd = ["env", "RKC_DISABLE_DISK_CACHE=1", rkc, "compile", spec, "--dtype", row["dtype"],
           "--arch", row["arch"], "--schedule", row["schedule"], "--emit", "ptx", "-o", path]
    for s in row["shapes"].split(";"):
        cmd += ["--shape", s]
    rc, _, err = run(cmd)
    if rc != 0:
        return None, err.strip()
    with open(path) as f:
        return f.read(), None


def generated_specs(name, tmp):
    """The binding's generated quantized-op specs (rkc._spec) whose kernel
    is `name` (e.g. rkc_gemv_w4a16_g128), one file per scale type."""
    m = re.search(r"_g(\d+|all)", name)
    if not name.startswith("rkc_") or not m:
        return []
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from rkc import _spec
    group = 0 if m.group(1) == "all" else int(m.group(1))
    out = []
    for op, bits, sym, axis, bias in itertools.product(_spec.QUANT_OPS, (4, 8), (True, False),
                                                       (0, 1), (False, True)):
        if "rkc_" + _spec.quant_spec_name(op, bits, group, sym, axis, bias) != name:
            continue
        for scale in ("f16", "bf16", "f32"):
            try:
                text = _spec.quant_spec_text(op, bits, group, sym, scale, axis, bias)
            except ValueError:
                continue
            path = os.path.join(tmp, "%s-%s.mlir" % (name, scale))
            with open(path, "w") as f:
                f.write(text)
            out.append(path)
    return out


def spec_for(rkc, row, specs, tmp, cache):
    """The spec file whose op hash is the row's (None if none), memoised by
    op in `cache`."""
    op = row["op"]
    if op not in cache:
        cache[op] = next((s for s in specs + generated_specs(row["name"], tmp)
                          if (print_key(rkc, s, row["dtype"], row["shapes"]) or {})
                          .get("op") == op), None)
    return cache[op]


def build_key(rkc, row, specs):
    """The fields `rkc tune --print-key` prints for `row`'s dtype and shapes
    with the first spec that takes them (codegen revision, nvrtc, ...)."""
    for spec in specs:
        k = print_key(rkc, spec, row["dtype"], row["shapes"])
        if k:
            return k
    return {}


def codegen_revision(rkc, row, specs):
    """The kCodegenRevision `rkc` prints with a key of `row`'s shapes."""
    k = build_key(rkc, row, specs)
    return int(k["codegen"]) if "codegen" in k else None
