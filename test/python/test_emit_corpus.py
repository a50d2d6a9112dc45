"""scripts/emit-corpus: --compare reports files that differ or exist on one
side only (exit 1) and passes identical corpora (exit 0); a small corpus
of the build's rkc is deterministic (two runs compare equal)."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "scripts" / "emit-corpus"
LIB = os.environ.get("RKC_LIBRARY", str(ROOT / "build" / "lib" / "librkc.so"))
RKC = pathlib.Path(LIB).resolve().parent.parent / "bin" / "rkc"


def run(*args):
    return subprocess.run([sys.executable, str(CORPUS), *map(str, args)], capture_output=True,
                          text=True, timeout=600)


def test_compare_lists_differences(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    for d in (a, b):
        (d / "same.cu").write_text("kernel\n")
    (a / "changed.cu").write_text("one\n")
    (b / "changed.cu").write_text("two\n")
    (a / "only_a.err").write_text("error\n")
    r = run("--compare", a, b)
    assert r.returncode == 1
    assert "differs: changed.cu" in r.stdout and "only in %s: only_a.err" % a in r.stdout
    assert "3 files, 2 differ" in r.stdout
    (b / "changed.cu").write_text("one\n")
    (b / "only_a.err").write_text("error\n")
    assert run("--compare", a, b).returncode == 0


@pytest.mark.skipif(not RKC.exists(), reason="needs the build's rkc")
def test_a_corpus_is_deterministic(tmp_path):
    r1 = run(tmp_path / "one", "--rkc", RKC, "--seeds", "0-1", "--jobs", "2")
    r2 = run(tmp_path / "two", "--rkc", RKC, "--seeds", "0-1", "--jobs", "2")
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    assert "kernels" in r1.stdout and len(os.listdir(tmp_path / "one")) > 1000
    assert run("--compare", tmp_path / "one", tmp_path / "two").returncode == 0
