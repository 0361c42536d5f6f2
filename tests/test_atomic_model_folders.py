"""Export and `make ship` replace a model folder whole: Ctrl-C (SIGINT) at random moments of a
real run leaves the previous folder byte for byte as it was, or the new one whole, and nothing
of their own beside it; `make ship` refuses an incomplete folder without touching the shipped one.

Every run here is a real process on a small model (tests/timeline_model.py's "lighthouse", which
has a training timeline); `make ship` runs in a copy of the repository, never on static/model/."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from timeline_model import timeline_model

from attention_live.integrity import verify_model_folder
from conftest import ROOT

INTERRUPTS = 8
NEW_ORDER = ["--head-order", "1:2,1,3,4"]  # the new export: other bytes than the folder it replaces


def tree_hash(path: Path) -> str | None:
    """One hash of every file under `path` (names and bytes); None if there is nothing there."""
    if not path.exists():
        return None
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*")):
        digest.update(str(file.relative_to(path)).encode() + (b"/" if file.is_dir() else b":" + file.read_bytes()))
    return digest.hexdigest()


def run(cmd: list, cwd: Path, delay: float | None = None, after: str | None = None,
        group: bool = False) -> tuple[subprocess.CompletedProcess, float, float]:
    """Runs `cmd`; with `delay`, sends it SIGINT `delay` seconds after its output showed the line
    `after` (after its start without one) unless it ended first; `group`: to its whole process
    group, as Ctrl-C in a terminal reaches make and the command it runs. Returns the process and
    the seconds from its start to `after` and to its end."""
    with tempfile.TemporaryFile("w+") as err:
        start = time.monotonic()
        proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, stdout=subprocess.PIPE, stderr=err, text=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=group)
        lines, anchor = [], start if after is None else None
        for line in proc.stdout if after is not None else ():
            lines.append(line)
            if after in line:
                anchor = time.monotonic()
                break
        if delay is not None and anchor is not None:
            time.sleep(max(0.0, anchor + delay - time.monotonic()))
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGINT) if group else proc.send_signal(signal.SIGINT)
        lines.append(proc.stdout.read())
        proc.wait(timeout=600)
        end = time.monotonic()
        err.seek(0)
        done = subprocess.CompletedProcess(cmd, proc.returncode, "".join(lines), err.read())
    return done, (anchor or end) - start, end - start


@pytest.fixture(scope="module")
def lighthouse(tmp_path_factory):
    return timeline_model(tmp_path_factory.getbasetemp(), "lighthouse")


def export_command(model: dict, out: Path) -> list:
    return [sys.executable, "-m", "export", "--checkpoint", model["checkpoint"], "--corpus", model["corpus"],
            "--out", out, *NEW_ORDER]


def assert_new_export(folder: Path, old: str | None) -> None:
    verify_model_folder(folder)
    assert json.loads((folder / "meta.json").read_text(encoding="utf-8"))["head_order"] == {"1": [2, 1, 3, 4]}
    assert tree_hash(folder) != old


def test_export_interrupted_at_random_moments(lighthouse, tmp_path):
    """Half the runs replace an earlier export, half write a new folder three levels down; half
    are sent SIGINT at a random moment of a whole run's time, half at one after the graph passed
    its parity check (measuring, the timeline, writing and swapping)."""
    reference, parity, seconds = run(export_command(lighthouse, tmp_path / "reference"), ROOT, after="parity ok")
    assert reference.returncode == 0, reference.stderr
    assert_new_export(tmp_path / "reference", None)
    old = tree_hash(lighthouse["model"])
    rng, outcomes = random.Random(26), []
    for n in range(INTERRUPTS):
        earlier = n % 4 in (0, 3)
        root = tmp_path / ("earlier" if earlier else "fresh")
        out = root / "model" if earlier else root / "a" / "b" / "model"
        if not earlier or tree_hash(out) != old:
            shutil.rmtree(root, ignore_errors=True)
            if earlier:
                shutil.copytree(lighthouse["model"], out)
        anchored = n % 2 == 0
        delay = rng.uniform(0, seconds - parity) if anchored else seconds * rng.uniform(0.02, 1.0)
        proc, _, _ = run(export_command(lighthouse, out), ROOT, delay, "parity ok" if anchored else None)
        moment = f"{delay:.1f} s after {'the parity check' if anchored else 'the start'}"
        outcomes.append((moment, proc.returncode))
        if proc.returncode == 0:  # the run ended before the signal: the new folder, whole
            assert_new_export(out, old)
            continue
        if proc.returncode == 130:  # interrupted in main(): said so, in one line
            assert "Traceback" not in proc.stderr and "export interrupted" in proc.stderr, proc.stderr
        if earlier:
            assert tree_hash(out) == old, f"interrupted {moment}: the earlier export changed"
            assert [p.name for p in root.iterdir()] == ["model"], f"interrupted {moment}: a folder was left beside it"
        else:
            assert not root.exists(), f"interrupted {moment}: {sorted(map(str, root.rglob('*')))} left behind"
    print("export interrupts (moment, exit code):", outcomes)


# --- make ship, in a copy of the repository ---------------------------------------------------

REPO_FILES = ["Makefile", "README.md", "docs", "site_builder", "export", "attention_live", "train/__init__.py",
              "train/files.py", "static", "checkpoints/alice.pt"]


@pytest.fixture(scope="module")
def repo(lighthouse, tmp_path_factory):
    """A copy of what `make ship` reads and writes, with the lighthouse model as models/x/ and a
    pristine copy of the shipped model to restore between runs."""
    copy = tmp_path_factory.mktemp("repo")
    for name in REPO_FILES:
        source, target = ROOT / name, copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            shutil.copy2(source, target)
    shutil.copytree(lighthouse["model"], copy / "models" / "x")
    shutil.copy2(lighthouse["checkpoint"], copy / "models" / "x.pt")
    pristine = tmp_path_factory.mktemp("pristine")
    shutil.copytree(copy / "static" / "model", pristine / "model")
    shutil.copy2(copy / "checkpoints" / "alice.pt", pristine / "alice.pt")
    return {"root": copy, "pristine": pristine}


def make_ship(name: str = "x") -> list:
    return ["make", "--no-print-directory", "ship", f"NAME={name}", f"PY={sys.executable}"]


def shipped_state(root: Path) -> tuple:
    return tree_hash(root / "static" / "model"), tree_hash(root / "checkpoints" / "alice.pt")


def restore(repo: dict) -> None:
    root, pristine = repo["root"], repo["pristine"]
    if shipped_state(root) != (tree_hash(pristine / "model"), tree_hash(pristine / "alice.pt")):
        shutil.rmtree(root / "static" / "model")
        shutil.copytree(pristine / "model", root / "static" / "model")
        shutil.copy2(pristine / "alice.pt", root / "checkpoints" / "alice.pt")


def listing(root: Path) -> dict:
    return {folder: sorted(p.name for p in (root / folder).iterdir()) for folder in ("static", "checkpoints", "models")}


def test_make_ship_interrupted_at_random_moments(repo):
    root = repo["root"]
    old = shipped_state(root)
    new = (tree_hash(root / "models" / "x"), tree_hash(root / "models" / "x.pt"))
    before = listing(root)
    proc, echoed, seconds = run(make_ship(), root, after="")  # from make's echo of the first command
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert shipped_state(root) == new and listing(root) == before
    rng, outcomes = random.Random(7), []
    for _ in range(2 * INTERRUPTS):  # a second each: twice as many, more of them early (the copying)
        restore(repo)
        delay = (seconds - echoed) * rng.uniform(0.0, 1.0) ** 2
        proc, _, _ = run(make_ship(), root, delay, after="", group=True)
        state = shipped_state(root)
        outcomes.append((round(delay, 2), proc.returncode, "new" if state == new else "old" if state == old else "MIXED"))
        # The model folder and the checkpoint: both as before, or both new; never half of either.
        assert state in (old, new), f"interrupted at {delay:.2f} s: {outcomes[-1]}\n{proc.stdout}{proc.stderr}"
        assert listing(root) == before, f"interrupted at {delay:.2f} s: something was left beside the shipped model"
    print("make ship interrupts (delay s, exit code, shipped):", outcomes)


def test_make_ship_refuses_an_incomplete_folder_and_touches_nothing(repo):
    root = repo["root"]
    restore(repo)
    shutil.copytree(root / "models" / "x", root / "models" / "partial")
    shutil.copy2(root / "models" / "x.pt", root / "models" / "partial.pt")
    (root / "models" / "partial" / "tokenizer.json").unlink()
    old, readme, before = shipped_state(root), (root / "README.md").read_bytes(), listing(root)
    proc = subprocess.run(make_ship("partial"), cwd=root, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    own = [line for line in proc.stderr.splitlines() if not line.startswith("make")]
    assert len(own) == 1 and own[0].startswith("error: ") and "tokenizer.json" in own[0], proc.stderr
    assert shipped_state(root) == old and (root / "README.md").read_bytes() == readme and listing(root) == before
    shutil.rmtree(root / "models" / "partial")
    (root / "models" / "partial.pt").unlink()
