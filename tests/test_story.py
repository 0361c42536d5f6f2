"""The default view tells a true story, on the committed model (through onnxruntime, as the page
runs it): at «said», the default head puts most of its budget on one earlier token, and it does
the same on a whole set of sentences of that kind, not only on the one the page opens with."""

import json

import numpy as np
import pytest

from conftest import MODEL_DIR, ROOT
from export.heads import ort_run
from export.parity import session_for
from export.story import expected_keys, load_sentences, said_evidence, said_row
from train.tokenizer import load_tokenizer_json

SENTENCES = ROOT / "export" / "data" / "speaker_sentences.tsv"  # «said» -> the speaker
TWO_NAMES = ROOT / "export" / "data" / "nearer_name_sentences.tsv"  # a second name stands nearer


@pytest.fixture(scope="module")
def shipped():
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    tok = load_tokenizer_json((MODEL_DIR / "tokenizer.json").read_text(encoding="utf-8"))
    return meta, tok, ort_run(session_for((MODEL_DIR / "model.onnx").read_bytes()))


@pytest.mark.parametrize("path", [SENTENCES, TWO_NAMES])
def test_the_sentence_sets_are_big_enough_and_well_formed(shipped, path):
    _, tok, _ = shipped
    rows = load_sentences(path)
    assert len(rows) >= 30 and len({t for t, _ in rows}) == len(rows)
    for text, word in rows:
        ids, q, offsets = said_row(tok, text)
        assert q == len(ids) - 1 and expected_keys(text, word, q, offsets)


def test_the_recorded_two_name_figure_is_what_the_model_does(shipped):
    meta, tok, run = shipped
    d = meta["default"]
    evidence = said_evidence(run, tok, load_sentences(TWO_NAMES), d["layer"], d["head"])
    assert {k: evidence[k] for k in ("agree", "total")} == {k: d["nearer_name_set"][k] for k in ("agree", "total")}


def test_default_view_is_decisive(shipped):
    meta, tok, run = shipped
    d = meta["default"]
    ids, q, offsets = said_row(tok, d["text"])
    assert d["token"] == q
    _, att = run(np.array([ids]), None)
    row = att[0, d["layer"] - 1, d["head"] - 1, q]
    top = int(np.argmax(row))
    assert row[top] >= 0.6, f"the default view's top weight is {row[top]:.2f}"
    assert top < q  # an earlier token, not itself
    assert row[top] == pytest.approx(d["top_weight"], abs=1e-4) and top == d["top_key"]
    golden = json.loads((MODEL_DIR / "golden.json").read_text())
    assert golden["attention"][d["layer"] - 1][d["head"] - 1][q][top] == pytest.approx(float(row[top]), abs=1e-5)


def test_the_same_head_does_the_same_on_the_sentence_set(shipped):
    meta, tok, run = shipped
    d = meta["default"]
    evidence = said_evidence(run, tok, load_sentences(SENTENCES), d["layer"], d["head"])
    misses = [(r["text"], r["top_key"]) for r in evidence["rows"] if not r["agrees"]]
    assert evidence["share"] >= 0.6, misses
    assert {k: evidence[k] for k in ("agree", "total")} == {k: d["sentence_set"][k] for k in ("agree", "total")}


def test_a_head_that_does_not_do_it_fails_the_check(shipped):
    """The check can fail: a head with another habit does not pass on the same sentences."""
    meta, tok, run = shipped
    d = meta["default"]
    others = [said_evidence(run, tok, load_sentences(SENTENCES), layer, head)["share"]
              for layer in range(1, meta["config"]["n_layer"] + 1) for head in range(1, meta["config"]["n_head"] + 1)
              if (layer, head) != (d["layer"], d["head"])]
    assert min(others) < 0.6


def test_the_speaker_head_survives_any_one_layer_one_head_switched_off(shipped):
    """The page's "How to read it" says so (site/templates/index.html): with any one layer-1
    head off, the default head still puts 85-98% on the speaker in the opening sentence, so it
    finds the name from the tokens themselves rather than from what layer 1 wrote."""
    meta, tok, run = shipped
    d = meta["default"]
    ids = np.array([tok.encode(d["text"]).ids])
    n_layer, n_head = meta["config"]["n_layer"], meta["config"]["n_head"]
    weights = []
    for head in range(n_head):
        mask = np.ones((n_layer, n_head), np.float32)
        mask[0, head] = 0
        _, att = run(ids, mask)
        weights.append(float(att[0, d["layer"] - 1, d["head"] - 1, d["token"], d["top_key"]]))
    assert all(0.85 <= w <= 0.98 for w in weights), weights
    # And the switch is real: the layer-2 weight does move (by up to 8 points here).
    assert max(abs(w - d["top_weight"]) for w in weights) > 0.03
