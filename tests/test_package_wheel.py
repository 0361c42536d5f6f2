"""`make wheel`'s wheel into a fresh venv with pip and nothing else: it imports, runs the shipped
model, holds no torch, and its assets command copies the embed files (or refuses with one line)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import pytest
from package_build import built_wheel

from conftest import MODEL_DIR

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel():
    return built_wheel()


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel):
    folder = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], check=True)
    return python


def test_the_wheel_ships_the_model_the_bundle_and_the_runtime(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    embed = "attention_live/_assets/embed/"
    for name in ("model.onnx", "tokenizer.json", "meta.json", "golden.json"):
        assert embed + "model/" + name in names
        assert zipfile.ZipFile(wheel).read(embed + "model/" + name) == (MODEL_DIR / name).read_bytes()
    for name in ("attention-view.js", "vendor/ort-wasm-simd-threaded.wasm", "vendor/ort.wasm.min.mjs", "vendor/tokenizers.min.mjs"):
        assert embed + name in names
    assert {"attention_live/_assets/widget.mjs", "attention_live/_assets/state_schema.json", "attention_live/model.py",
            "attention_live/meta.schema.json"} <= names
    assert not [n for n in names if "/frontend/" in n or n.endswith(".pt")]  # sources and checkpoints stay home


def test_a_fresh_venv_runs_the_model_without_torch(venv, tmp_path):
    code = ("import json, attention_live; r = attention_live.Model().run('The Queen said'); "
            "print(json.dumps([[t.text for t in r.tokens], list(r.attention.shape), attention_live.Model().folder.as_posix()]))")
    done = subprocess.run([str(venv), "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    texts, shape, folder = json.loads(done.stdout)
    assert texts == ["The", " Queen", " said"] and shape == [2, 4, 3, 3]
    assert "site-packages/attention_live/_assets" in folder
    listed = subprocess.run([str(venv), "-m", "pip", "list", "--format=json"], capture_output=True, text=True, check=True)
    installed = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "torch" not in installed and {"onnxruntime", "tokenizers", "numpy", "anywidget"} <= installed


def test_the_assets_command_copies_the_embed_files(venv, tmp_path):
    dest = tmp_path / "static" / "attention-live"  # static/ is made too
    # (cwd is tmp_path: the checkout's own attention_live is not on the path)
    done = subprocess.run([str(venv), "-m", "attention_live.assets", str(dest)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (dest / "attention-view.js").is_file() and (dest / "model" / "model.onnx").read_bytes() == (MODEL_DIR / "model.onnx").read_bytes()
    # Again: an earlier copy is replaced whole.
    (dest / "stale.txt").write_text("x")
    assert subprocess.run([str(venv), "-m", "attention_live.assets", str(dest)], capture_output=True, cwd=tmp_path).returncode == 0
    assert not (dest / "stale.txt").exists()
    assert sorted(p.name for p in dest.parent.iterdir()) == ["attention-live"]  # no staging folder left


@pytest.mark.parametrize(("setup", "words"), [
    (lambda d: (d.mkdir(), (d / "mine.txt").write_text("keep")), "is not empty and holds no earlier copy"),
    (lambda d: d.write_text("a file"), "is a file"),
])
def test_the_assets_command_refuses_with_one_line(venv, tmp_path, setup, words):
    dest = tmp_path / "out"
    setup(dest)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    done = subprocess.run([str(venv), "-m", "attention_live.assets", str(dest)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ") and words in done.stderr
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing written


def test_the_assets_function_refuses_what_is_no_path(venv, tmp_path):
    code = ("from attention_live.assets import AssetsError, copy_assets\n"
            "for dest in (None, 5, 'a\\x00b', 'cut\\ud83d'):\n"
            "    try:\n"
            "        copy_assets(dest)\n"
            "    except AssetsError as err:\n"
            "        print(err)\n")
    done = subprocess.run([str(venv), "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["the destination must be a folder's path, not NoneType", "the destination must be a folder's path, not int"]
    assert len(lines) == 4 and all("is no path this file system can take" in line for line in lines[2:])
    assert list(tmp_path.iterdir()) == []
