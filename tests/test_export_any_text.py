"""Any text trains and exports: a model of a text with no «said» (tests/other_model.py, made with
the real CLIs) exports with exit 0, a sensible default view chosen from what it does and no story;
`--check` catches what would fail after training before any training starts; bad view flags are
refused with one error line and nothing written."""

from __future__ import annotations

import json

import numpy as np
import pytest
from other_model import other_model, run

from export.heads import ort_run
from export.parity import session_for
from train.tokenizer import load_tokenizer_json


@pytest.fixture(scope="module")
def other(tmp_path_factory):
    return other_model(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="module")
def meta(other):
    return json.loads((other["model"] / "meta.json").read_text(encoding="utf-8"))


def test_the_vocabulary_has_no_said_and_no_story_is_told(other, meta):
    tok = load_tokenizer_json((other["model"] / "tokenizer.json").read_text(encoding="utf-8"))
    assert "Ġsaid" not in tok.get_vocab()
    d = meta["default"]
    assert d["story"] is None and d["chosen_by"] == "most decisive example"


def test_the_default_view_is_its_strongest_example_row(other, meta):
    d, cfg = meta["default"], meta["config"]
    assert (cfg["n_layer"], cfg["n_head"], cfg["n_ctx"]) == (3, 2, 64)
    assert 1 <= d["layer"] <= 3 and 1 <= d["head"] <= 2
    examples = [h for h in meta["heads"] if h["example"] and 0 < h["example"]["key"] < h["example"]["token"]]
    best = max(examples, key=lambda h: h["example"]["weight"])
    assert (d["layer"], d["head"], d["text"], d["token"]) == (best["layer"], best["head"], best["example"]["text"],
                                                            best["example"]["token"])
    # ... measured again on exactly that text, through the exported graph
    tok = load_tokenizer_json((other["model"] / "tokenizer.json").read_text(encoding="utf-8"))
    _, att = ort_run(session_for((other["model"] / "model.onnx").read_bytes()))(np.array([tok.encode(d["text"]).ids]))
    row = att[0, d["layer"] - 1, d["head"] - 1, d["token"]]
    assert int(np.argmax(row)) == d["top_key"] and float(row.max()) == pytest.approx(d["top_weight"], abs=1e-4)
    assert 0 < d["top_key"] < d["token"]  # a choice among earlier tokens, not a resting place
    golden = json.loads((other["model"] / "golden.json").read_text(encoding="utf-8"))
    assert golden["text"] == d["text"]


def test_switch_off_covers_every_earlier_head(meta):
    d = meta["default"]
    if d["layer"] == 1:
        assert d["switch_off"] is None
    else:
        assert [(h["layer"], h["head"]) for h in d["switch_off"]["heads"]] == [
            (l, h) for l in range(1, d["layer"]) for h in (1, 2)]


def test_view_flags_pin_the_view(other, tmp_path):
    out = tmp_path / "pinned"
    proc = run("export", "--checkpoint", other["checkpoint"], "--corpus", other["corpus"], "--out", out,
               "--text", "The baker mends the lantern", "--layer", "3", "--head", "2")
    assert proc.returncode == 0, proc.stderr
    d = json.loads((out / "meta.json").read_text(encoding="utf-8"))["default"]
    assert (d["text"], d["layer"], d["head"], d["story"]) == ("The baker mends the lantern", 3, 2, None)
    assert d["chosen_by"] == "given: --text, --layer, --head"


def assert_refused(proc, folder, *words):
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert all(w in lines[0] for w in words), lines[0]
    assert not folder.exists(), "a refused export left a folder behind"


@pytest.mark.parametrize("flags, words", [
    (["--layer", "4"], ["layer 4", "3 layers"]),
    (["--head", "3"], ["head 3", "2 heads"]),
    (["--text", "lantern " * 80], ["tokens", "1 to 64"]),
])
def test_bad_view_flags_are_refused_after_loading_the_model(other, tmp_path, flags, words):
    out = tmp_path / "new" / "model"
    proc = run("export", "--checkpoint", other["checkpoint"], "--corpus", other["corpus"], "--out", out, *flags)
    assert_refused(proc, tmp_path / "new", *words)


def test_check_passes_and_writes_nothing(other, tmp_path):
    out = tmp_path / "not" / "yet"
    proc = run("export", "--check", "--corpus", other["corpus"], "--out", out)
    assert proc.returncode == 0 and "export check ok" in proc.stdout, proc.stderr
    assert not (tmp_path / "not").exists()


@pytest.mark.parametrize("case", ["no corpus", "not text", "layer 0", "empty text", "head order", "out is a file"])
def test_check_fails_in_seconds_with_one_error_line(other, tmp_path, case):
    corpus, out, flags = other["corpus"], tmp_path / "out", []
    if case == "no corpus":
        corpus = tmp_path / "missing.txt"
    elif case == "not text":
        corpus = tmp_path / "binary.txt"
        corpus.write_bytes(bytes(range(256)) * 20)
    elif case == "layer 0":
        flags = ["--layer", "0"]
    elif case == "empty text":
        flags = ["--text", "  "]
    elif case == "head order":
        flags = ["--head-order", "2:1,1"]
    else:
        out.write_text("a file where the folder should be", encoding="utf-8")
    proc = run("export", "--check", "--corpus", corpus, "--out", out, *flags)
    if case == "out is a file":
        assert proc.returncode == 2 and proc.stderr.startswith("error: ") and out.is_file()
    else:
        assert_refused(proc, out)
