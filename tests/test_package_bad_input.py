"""Every bad input to attention_live.Model is a ModelError with one plain sentence, never a raw
exception from Python, numpy, tokenizers or onnxruntime, and never a run that quietly computes
garbage: wrong types, None, NaN, huge and negative numbers, bools, lone surrogates, and model
folders whose meta.json does not describe their graph."""

from __future__ import annotations

import json
import shutil
from functools import partial

import numpy as np
import pytest

from attention_live import Model, ModelError
from conftest import MODEL_DIR

TEXT = "The Queen turned round and said"


@pytest.fixture(scope="module")
def model():
    return Model()


def refused(call, *words):
    with pytest.raises(ModelError) as err:
        call()
    message = str(err.value)
    assert "\n" not in message and all(w in message for w in words), message
    return message


# Each of these escaped as a raw exception or was accepted before the package checked it.
BAD_CALLS = {
    "lone surrogate in run": (lambda m: m.run("said \ud83d"), "lone surrogate, U+D83D at character 5"),
    "lone surrogate in generate": (lambda m: m.generate("\udc00 said"), "lone surrogate"),
    "superscript digit in ablate": (lambda m: m.run(TEXT, ablate="\u00b2.1"), "is not a layer.head pair"),
    "full-width digits in ablate": (lambda m: m.run(TEXT, ablate="\uff11.\uff12"), "is not a layer.head pair"),
    "a number for ablate": (lambda m: m.run(TEXT, ablate=5), "ablate must be heads such as"),
    "a bool in an ablate pair": (lambda m: m.run(TEXT, ablate=[(True, 1)]), "there is no layer True"),
    "a number for the folder": (lambda m: Model(123), "must be a path", "not int"),
    "None for ids": (lambda m: m.run_ids(None), "ids must be a list of token ids", "not NoneType"),
    "bytes for ids": (lambda m: m.run_ids(b"ab"), "ids must be a list of token ids"),
    "NaN in head_mask": (lambda m: m.run(TEXT, head_mask=np.full((2, 4), np.nan)), "finite"),
    "infinity in head_mask": (lambda m: m.run(TEXT, head_mask=[[1, 1, 1, 1], [1, 1, 1, np.inf]]), "finite"),
    "strings in head_mask": (lambda m: m.run(TEXT, head_mask=[["1"] * 4] * 2), "head_mask must be numbers"),
    "a ragged head_mask": (lambda m: m.run(TEXT, head_mask=[[1, 1], [1]]), "head_mask must be numbers"),
    "a bool for a position": (lambda m: m.run(TEXT).top(True), "there is no token True"),
    "a bool for a layer": (lambda m: m.head(True, 1), "there is no layer True"),
    "a huge temperature int": (lambda m: m.generate(TEXT, temperature=10**400), "temperature must be a number"),
    "a huge token id": (lambda m: m.piece_text(10**30), "is no token id"),
    "None for a token id": (lambda m: m.piece_text(None), "None is no token id"),
}


@pytest.mark.parametrize("name", BAD_CALLS)
def test_bad_input_is_a_model_error(model, name):
    call, *words = BAD_CALLS[name]
    refused(lambda: call(model), *words)


def test_numpy_numbers_are_numbers(model):
    # The checks refuse bools, not numpy's integers and floats.
    assert model.head(np.int64(2), np.int64(3)).name == "2.3"
    assert model.run(TEXT, ablate=[(np.int64(1), np.int64(2))]).ablated == [(1, 2)]
    assert len(model.run_ids(np.array(model.run(TEXT).ids)).tokens) == len(model.run(TEXT).tokens)
    g = model.generate(TEXT, np.int64(2), temperature=np.float32(0.5), top_k=np.int64(3), seed=np.uint32(4))
    assert g == model.generate(TEXT, 2, temperature=0.5, top_k=3, seed=4)


def folder_with(tmp_path, edit):
    """A copy of the shipped model's folder with its meta.json edited."""
    tmp_path = tmp_path / "model"
    shutil.copytree(MODEL_DIR, tmp_path)
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    edit(meta)
    (tmp_path / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("edit", "words"), [
    (lambda m: m["config"].update(n_layer=3), ("meta.json does not describe its model.onnx", "head_mask", "[2, 4]")),
    (lambda m: m["config"].update(n_head=5), ("meta.json does not describe its model.onnx", "[2, 5]")),
    (lambda m: m["config"].update(vocab_size=4096), ("meta.json does not describe its model.onnx", "logits")),
], ids=["n_layer 3", "n_head 5", "vocab_size 4096"])
def test_a_meta_json_that_does_not_describe_the_graph_is_refused_at_load(tmp_path, edit, words):
    refused(lambda: Model(folder_with(tmp_path, edit)), *words)


@pytest.mark.parametrize(("edit", "words"), [
    # meta.json's schema names the first wrong field; what it cannot say (a head outside the model,
    # a head listed twice), the package's own check of the list does.
    (lambda m: m["heads"][0].pop("layer"), "meta.json has no heads[0].layer"),
    (lambda m: m["heads"][3].update(head=9), "has a broken list of heads (entry 4 names no head of a 2 x 4 model)"),
    (lambda m: m.update(heads={"layer": 1}), "meta.json's heads must be a list, not {\"layer\": 1}"),
    (lambda m: m["heads"].append("2.3"), "meta.json's heads[8] must be an object, not \"2.3\""),
    (lambda m: m["heads"].append(dict(m["heads"][0])), "has a broken list of heads (head 1.1 is listed twice)"),
    (lambda m: m["heads"][0].update(scores=[1, 2]), "meta.json's heads[0].scores must be an object, not [1, 2]"),
], ids=["no layer", "head 9", "not a list", "a string", "twice", "scores a list"])
def test_a_broken_list_of_heads_is_refused_at_load(tmp_path, edit, words):
    # Before, such a folder loaded and `model.heads` raised KeyError or TypeError later.
    refused(lambda: Model(folder_with(tmp_path, edit)).heads, words)


def generate_with(setting, model, value):
    return model.generate(TEXT, **{"max_tokens": 1, setting: value})


# A small fuzz of every public call: each value either works or is one ModelError sentence.
ODD_VALUES = [None, True, False, 0, -1, 10**30, -(10**30), 1.5, float("nan"), float("inf"), "", " ", "x",
              "\ud800", "\uff11", b"ab", [], [None], {}, object(), np.nan, np.float32(1)]
CALLS = {
    "Model": lambda m, v: Model(v),
    "run": lambda m, v: m.run(v),
    "run_ids": lambda m, v: m.run_ids(v),
    "run_ids item": lambda m, v: m.run_ids([v]),
    "ablate": lambda m, v: m.run(TEXT, ablate=v),
    "ablate item": lambda m, v: m.run(TEXT, ablate=[v]),
    "ablate layer": lambda m, v: m.run(TEXT, ablate=[(v, 1)]),
    "head_mask": lambda m, v: m.run(TEXT, head_mask=v),
    "head_mask values": lambda m, v: m.run(TEXT, head_mask=[[v] * 4] * 2),
    "head layer": lambda m, v: m.head(v, 1),
    "head head": lambda m, v: m.head(1, v),
    "top position": lambda m, v: m.run(TEXT).top(v),
    "top k": lambda m, v: m.run(TEXT).top(k=v),
    "piece_text": lambda m, v: m.piece_text(v),
    **{f"generate {kw}": partial(generate_with, kw) for kw in ("max_tokens", "temperature", "top_k", "seed")},
}


@pytest.mark.parametrize("call", CALLS)
def test_odd_values_work_or_are_one_sentence(model, call):
    escaped = []
    for value in ODD_VALUES:
        try:
            CALLS[call](model, value)
        except ModelError as err:
            if "\n" in str(err):
                escaped.append(f"{value!r}: a message of several lines")
        except Exception as err:  # what this test is for: nothing but ModelError gets out
            escaped.append(f"{value!r}: {type(err).__name__}: {err}")
    assert not escaped, escaped
