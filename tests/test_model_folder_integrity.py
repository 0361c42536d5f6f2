"""A model folder whose files are not the ones its meta.json records is refused by name: by
site_builder/build.py (one `error:` line, even where only jinja2 is installed) and by
attention_live.Model (ModelError); and export's pre-check (`make model` runs it before
training) refuses view flags the trained model's shape will not have, in one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from other_model import harbour_text
from timeline_model import timeline_model

from attention_live import Model, ModelError
from conftest import ROOT
from testbed.built_site import BUILD


@pytest.fixture(scope="module")
def lighthouse(tmp_path_factory):
    return timeline_model(tmp_path_factory.getbasetemp(), "lighthouse")


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01  # the middle of a graph: its weights, so it still loads
    path.write_bytes(bytes(data))


def snapshot_in_place(folder: Path) -> None:
    """The graph replaced by a timeline snapshot: the same inputs and outputs, other weights."""
    shutil.copyfile(sorted((folder / "timeline").glob("step-*.onnx"))[0], folder / "model.onnx")


def flip_a_snapshot(folder: Path) -> None:
    flip_a_byte(sorted((folder / "timeline").glob("step-*.onnx"))[-1])


def drop_a_snapshot(folder: Path) -> None:
    sorted((folder / "timeline").glob("step-*.onnx"))[0].unlink()


BROKEN = {  # how the folder is changed -> the file the refusal must name
    "one flipped byte in model.onnx": (lambda f: flip_a_byte(f / "model.onnx"), "model.onnx"),
    "a timeline snapshot as model.onnx": (snapshot_in_place, "model.onnx"),
    "one flipped byte in a snapshot": (flip_a_snapshot, "step-00030.onnx"),
    "a snapshot missing": (drop_a_snapshot, "step-00000.onnx"),
    "tokenizer.json missing": (lambda f: (f / "tokenizer.json").unlink(), "tokenizer.json"),
}


@pytest.fixture(params=list(BROKEN))
def broken(request, lighthouse, tmp_path) -> tuple[Path, str]:
    folder = tmp_path / "model"
    shutil.copytree(lighthouse["model"], folder)
    change, name = BROKEN[request.param]
    change(folder)
    return folder, name


def test_the_site_build_refuses_it_naming_the_file(broken, tmp_path):
    folder, name = broken
    out = tmp_path / "site"
    proc = subprocess.run([*BUILD, "--out", str(out), "--model", str(folder), "--no-bundle"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the site was not built: ") and name in lines[0], lines
    assert not out.exists()


def test_model_refuses_it_naming_the_file(broken):
    folder, name = broken
    with pytest.raises(ModelError, match=name.replace(".", r"\.")):
        Model(folder)


def test_the_check_needs_nothing_but_the_standard_library(lighthouse, tmp_path):
    """site_builder/build.py checks the folder where only jinja2 is installed (`make serve`'s venv)."""
    folder = tmp_path / "model"
    shutil.copytree(lighthouse["model"], folder)
    snapshot_in_place(folder)
    code = f"""
import sys
class Absent:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "onnxruntime", "tokenizers", "torch", "anywidget"):
            raise ImportError(name + " is not installed here")
sys.meta_path.insert(0, Absent())
from site_builder import build
try:
    build.load_meta(build.Path({str(folder)!r}))
except build.BuildError as err:
    print(err)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "model.onnx" in proc.stdout and "meta.json records" in proc.stdout, proc.stdout


def test_a_whole_folder_loads_and_one_without_its_timeline_too(lighthouse, tmp_path):
    """Model never reads the timeline, so a copy of the folder without timeline/ loads; the
    site, whose pages show the timeline, refuses that copy."""
    Model(lighthouse["model"])
    folder = tmp_path / "model"
    shutil.copytree(lighthouse["model"], folder, ignore=shutil.ignore_patterns("timeline"))
    assert Model(folder).run("The miller").logits.shape[0] >= 1
    proc = subprocess.run([*BUILD, "--out", str(tmp_path / "site"), "--model", str(folder), "--no-bundle"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 2 and "timeline.json is missing" in proc.stderr, proc.stderr


# --- export --check: the view flags against the shape training will give the model -------------

@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("check") / "harbour.txt"
    path.write_text(harbour_text(), encoding="utf-8")
    return path


def check(corpus: Path, out: Path, *flags) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "export", "--check", "--corpus", str(corpus), "--out", str(out),
                           *flags], cwd=ROOT, capture_output=True, text=True, timeout=300)


def assert_one_error(proc, *words) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in proc.stderr, proc.stderr
    assert all(w in lines[0] for w in words), lines[0]


@pytest.mark.parametrize("flags, words", [
    (["--layer", "99", "--head", "99"], ["--layer 99", "2 layers"]),  # train's defaults: 2 x 4
    (["--head", "5"], ["--head 5", "4 heads"]),
    (["--head", "3", "--", "--threads", "1", "--n-head", "2"], ["--head 3", "2 heads"]),
    (["--layer", "2", "--", "--n-layer=1"], ["--layer 2", "1 layer "]),
    (["--head-order", "2:1,2", "--", "--n-head", "4"], ["2:1,2", "4 heads"]),
    (["--head-order", "²:1,2"], ["²:1,2", "digits 0-9"]),
    (["--head-order", "1:１,2,3,4"], ["digits 0-9"]),
    (["--layer", "²"], ["--layer", "'²'"]),
    (["--layer", "1", "--", "--n-layer", "two"], ["--n-layer", "two"]),
])
def test_check_refuses_what_would_fail_after_training(corpus, tmp_path, flags, words):
    out = tmp_path / "new" / "model"
    assert_one_error(check(corpus, out, *flags), *words)
    assert not (tmp_path / "new").exists()


def test_check_passes_flags_that_fit_the_trained_shape(corpus, tmp_path):
    proc = check(corpus, tmp_path / "m", "--layer", "3", "--head", "2", "--head-order", "3:2,1", "--",
                 "--n-layer", "3", "--n-head", "2", "--snapshots", "")
    assert proc.returncode == 0 and "valid for 3 layers x 2 heads" in proc.stdout, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_make_model_checks_the_view_flags_against_its_training_flags(corpus, tmp_path):
    """`make model`'s pre-check gets the training flags: run as make writes it (make -n)."""
    for name in ("Makefile", "pyproject.toml", "package.json", "package-lock.json"):  # as tests/test_make_targets.py
        shutil.copy2(ROOT / name, tmp_path / name)

    def check_line(*variables) -> list[str]:
        lines = subprocess.run(["make", "-n", "model", f"CORPUS={corpus}", *variables], cwd=tmp_path,
                               capture_output=True, text=True, check=True).stdout.splitlines()
        line = next(line for line in lines if "-m export --check" in line)
        return ["bash", "-c", line.replace(".venv/bin/python", sys.executable, 1)]

    proc = subprocess.run(check_line("VIEW_FLAGS=--layer 3", "NAME=m"), cwd=ROOT, capture_output=True, text=True)
    assert_one_error(proc, "--layer 3", "2 layers")
    proc = subprocess.run(check_line("VIEW_FLAGS=--layer 3", "TRAIN_FLAGS=--n-layer 3", "NAME=m"), cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "3 layers" in proc.stdout, proc.stderr
    assert not (ROOT / "models" / "m").exists()
