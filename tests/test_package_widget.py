"""AttentionView's Python side from the built wheel, without a front end: its traits are the
element's STATE_KEYS, each with its type in Python and the attribute string on the wire, bad
settings are one plain sentence, and the files it sends are the model folder's bytes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from package_build import installed_wheel

from conftest import MODEL_DIR
from site_builder import build

pytestmark = pytest.mark.slow

SCRIPT = r"""
import json
from attention_live import AttentionView, ModelError, Model
from attention_live.widget import _folder_files, _timeline_file, state_keys
out = {"keys": list(state_keys())}
w = AttentionView(text="The Queen said", layer=2, head=3, token="said", ablate=[(2, 3), (1, 2)], temperature=0.5)
out["state"] = {k: w.trait_metadata(k, "to_json")(getattr(w, k), w) for k in state_keys()}
out["python"] = [w.layer, w.token, w.ablate, w.temperature]
out["from_js"] = [w.trait_metadata(k, "from_json")(v, w) for k, v in (("layer", "1"), ("token", "4"), ("token", "said#2"), ("seed", "7"))]
errors = []
for bad in ({"layer": 7}, {"head": 0}, {"token": 1.5}, {"ablate": "3.1"}, {"colour": "red"}, {"text": 5}, {"model": "x"}):
    try:
        AttentionView(**bad)
        errors.append(None)
    except ModelError as err:
        errors.append(str(err))
out["errors"] = errors
def message(**state):
    try:
        AttentionView(**state)
    except ModelError as err:
        return str(err)
    except Exception as err:  # an escape: what the tests below look for
        return f"{type(err).__name__} escaped: {err}"
out["more_errors"] = [message(**bad) for bad in (
    {"layer": 2, "head": 9}, {"text": "cut \ud83d"}, {"step": -1}, {"step": 1.5}, {"view": "banana"},
    {"temperature": float("nan")}, {"topk": 0}, {"seed": 2**32}, {"ablate": "\u00b2.1"}, {"ablate": 5})]
def steps():
    w = AttentionView(layer=2, step=350)
    got = [w.step, w.trait_metadata("step", "to_json")(w.step, w), w.layer]
    w.step = 400
    return got + [w.step, AttentionView(step=10**6).step]
def from_page():
    w = AttentionView()
    return [w.trait_metadata(k, "from_json")(v, w)
            for k, v in (("step", "350"), ("layer", "\uff12"), ("token", "\uff14"), ("seed", "0x10"))]
for name, make in (("step", steps), ("from_page", from_page)):
    try:
        out[name] = make()
    except Exception as err:
        out[name] = f"{type(err).__name__}: {err}"
source, files, later = _folder_files(Model().folder)
out["files"] = {name: len(data) for name, data in files.items()}
out["later"] = {name: len(_timeline_file(Model().folder, name)) for name in later}
def refused(name):
    try:
        return f"read {len(_timeline_file(Model().folder, name))} bytes"
    except ModelError as err:
        return str(err)
out["refused"] = [refused(n) for n in ("meta.json", "../meta.json", "timeline/step-00400.onnx", None)]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def widget(tmp_path_factory):
    env = {**os.environ, "PYTHONPATH": str(installed_wheel())}
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env,
                          cwd=tmp_path_factory.mktemp("cwd"), check=True)
    return json.loads(done.stdout)


def test_the_traits_are_the_elements_state_keys(widget):
    # site_builder/build.py reads the widget's one list of state keys (its schema's JSON).
    assert widget["keys"] == build.page_params() and "layer" in widget["keys"]


def test_values_are_typed_in_python_and_strings_on_the_wire(widget):
    assert widget["python"] == [2, "said", "1.2 2.3", 0.5]
    state = widget["state"]
    assert (state["text"], state["layer"], state["head"], state["token"], state["ablate"]) == ("The Queen said", "2", "3", "said", "1.2 2.3")
    assert state["view"] is None and state["compare"] is None  # not set: the element's default
    assert widget["from_js"] == [1, 4, "said#2", 7]


def test_bad_settings_are_one_sentence(widget):
    wants = ["there is no layer 7", "there is no head 0", "token must be a token index or a word", "there is no layer 3",
             "AttentionView has no setting 'colour'", "text must be a string", "model must be an attention_live.Model"]
    for got, want in zip(widget["errors"], wants):
        assert got is not None and want in got and "\n" not in got


def test_the_files_sent_are_the_model_folders(widget, meta):
    files = meta["files"]
    assert widget["files"]["model.onnx"] == files["model.onnx"]["bytes"]
    assert widget["files"]["tokenizer.json"] == files["tokenizer.json"]["bytes"]
    assert set(widget["files"]) == {"model.onnx", "tokenizer.json", "meta.json", "golden.json"}
    # Its training timeline's files are sent one by one when the view asks (so that `step` works
    # in a notebook as on the page), and no other file is.
    steps = {f"timeline/{p.name}" for p in (MODEL_DIR / "timeline").glob("step-*.onnx")}
    assert set(widget["later"]) == {"timeline/timeline.json", *steps} and sum(widget["later"].values()) == meta["timeline"]["bytes"]
    for got in widget["refused"]:
        assert "is no file of this model's training timeline" in got


def test_a_head_is_refused_without_naming_another_layer(widget):
    # With layer=2 it once said "layer 1 has no head 9": the head is checked on its own.
    got = widget["more_errors"][0]
    assert "there is no head 9: each layer has heads 1 to 4" in got and "layer 1" not in got


def test_every_bad_setting_is_one_sentence(widget):
    wants = ["text has a lone surrogate", "step must be a training step", "step must be a training step",
             "view must be one of 'head', 'average', 'rollout'", "temperature must be a number, at least 0",
             "topk must be a whole number, at least 1", "seed must be a whole number from 0 to 4294967295",
             "is not a layer.head pair", "ablate must be heads such as"]
    for got, want in zip(widget["more_errors"][1:], wants, strict=True):
        assert got is not None and want in got and "\n" not in got


def test_any_step_of_the_timeline_is_taken_as_the_page_takes_it(widget, meta):
    # A step as an int, as layer is; 400 is no snapshot, and the page shows the last snapshot
    # at or before it; from the shipped step on it shows the shipped model.
    steps = [p.name for p in (MODEL_DIR / "timeline").glob("step-*.onnx")]
    assert meta["timeline"] and "step-00350.onnx" in steps and "step-00400.onnx" not in steps
    assert widget["step"] == [350, "350", 2, 400, 10**6]


def test_numbers_from_the_page_are_ascii_decimals_as_the_page_reads_them(widget):
    # The page reads "２" as no number; Python keeps what it cannot read as the string it was.
    assert widget["from_page"] == [350, "\uff12", "\uff14", "0x10"]
