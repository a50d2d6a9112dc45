"""Helpers shared by the scripts that compile many kernels on the CPU
(scripts/spill-sweep, scripts/gemv-registers, scripts/emit-corpus): seed
and integer lists of the command line, `--shape` arguments, and ptxas's
register and spill report of a PTX file."""

import os
import re
import shutil
import subprocess


def seed_list(text):
    """"0-99,120" -> [0, ..., 99, 120]."""
    seeds = []
    for part in text.split(","):
        a, _, b = part.strip().partition("-")
        seeds += range(int(a), int(b or a) + 1)
    return seeds


def int_list(text):
    return [int(x) for x in text.split(",") if x.strip()]


def shape_args(shapes):
    """{name: dims} -> the `rkc compile` arguments --shape name=D0xD1..."""
    args = []
    for name, dims in shapes.items():
        args += ["--shape", "%s=%s" % (name.lstrip("%"), "x".join(map(str, dims)))]
    return args


def find_ptxas():
    """ptxas on PATH or in the CUDA toolkit's default place (None if neither)."""
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    return ptxas if os.path.exists(ptxas) else None


def ptxas_usage(ptxas, arch, ptx):
    """(registers, spill store bytes, None) of the PTX file's kernel by
    `ptxas -v`, or (None, None, the error)."""
    p = subprocess.run([ptxas, "-arch=" + arch, "-v", ptx, "-o", os.devnull],
                       capture_output=True, text=True)
    regs = re.search(r"Used (\d+) registers", p.stderr)
    spills = re.search(r"(\d+) bytes spill stores", p.stderr)
    if p.returncode != 0 or not regs:
        return None, None, "ptxas: " + p.stderr.strip()[-200:]
    return int(regs.group(1)), int(spills.group(1)) if spills else 0, None
