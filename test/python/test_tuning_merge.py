"""scripts/tuning-merge: a GPU run's exported rows merged into a shipped
database by key (that GPU's rows of the database's codegen revision only),
existing rows kept unless --replace, the file rewritten in its one-line
JSON form; bad input stops it without touching the database."""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
MERGE = ROOT / "scripts" / "tuning-merge"


def row(key, gpu="NVIDIA H200|132|3201000|13000", codegen=17, ms=0.1):
    return {"key": key, "gpu": gpu, "codegen": codegen, "ms": ms, "schedule": "threads=32"}


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def merge(*args):
    return subprocess.run([sys.executable, str(MERGE), *map(str, args), "--no-fingerprint"],
                          capture_output=True, text=True, timeout=60)


def test_merge_by_key_gpu_and_revision(tmp_path):
    db, export = tmp_path / "h200.jsonl", tmp_path / "export.jsonl"
    write(db, [row("a"), row("b")])
    write(export, [row("a", ms=0.05), row("c"), row("d", gpu="NVIDIA H100 80GB HBM3|132|2619000|13000"),
                   row("e", codegen=16)])
    r = merge(export, "--into", db)
    assert r.returncode == 0, r.stderr
    assert "1 rows added, 0 replaced, 2 of other GPUs or revisions left out" in r.stdout
    assert [x["key"] for x in read(db)] == ["a", "b", "c"]
    assert read(db)[0]["ms"] == 0.1  # an existing row stays without --replace
    # One-line JSON with sorted keys and no spaces, as the shipped files.
    assert db.read_text().splitlines()[2] == json.dumps(row("c"), sort_keys=True,
                                                        separators=(",", ":"))


def test_replace_takes_the_exported_row(tmp_path):
    db, export = tmp_path / "h200.jsonl", tmp_path / "export.jsonl"
    write(db, [row("a"), row("b")])
    write(export, [row("b", ms=0.05)])
    r = merge(export, "--into", db, "--replace")
    assert r.returncode == 0, r.stderr
    assert "0 rows added, 1 replaced" in r.stdout
    assert [x["ms"] for x in read(db)] == [0.1, 0.05]


def test_bad_input_leaves_the_database(tmp_path):
    db, export = tmp_path / "h200.jsonl", tmp_path / "export.jsonl"
    write(db, [row("a")])
    before = db.read_text()
    export.write_text(json.dumps(row("c")) + "\n{not json\n")
    r = merge(export, "--into", db)
    assert r.returncode == 1 and "export.jsonl:2: not JSON" in r.stderr
    export.write_text('{"a": 1}\n')
    r = merge(export, "--into", db)
    assert r.returncode == 1 and "not a tuning row" in r.stderr
    assert db.read_text() == before


def test_an_empty_database_needs_the_gpu(tmp_path):
    db, export = tmp_path / "new.jsonl", tmp_path / "export.jsonl"
    write(export, [row("a"), row("d", gpu="NVIDIA H100 80GB HBM3|132|2619000|13000")])
    r = merge(export, "--into", db)
    assert r.returncode == 1 and "name the GPU with --gpu" in r.stderr
    r = merge(export, "--into", db, "--gpu", "NVIDIA H100")
    assert r.returncode == 0, r.stderr
    assert [x["key"] for x in read(db)] == ["d"]
