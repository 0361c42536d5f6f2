"""The view the page opens on, on the committed model (through onnxruntime, as the page runs it):
meta.json's `default` is exactly what export/default_view.py chooses from what the model does,
its story (when there is one) holds on the whole sentence set and not only on the opening
sentence, and its switch-off figures are what the model gives with each earlier head off."""

import json

import numpy as np
import pytest
from test_export import assert_json_close

from conftest import MODEL_DIR
from export import default_view
from export.heads import PROBE_TEXT, ort_run
from export.parity import session_for
from export.story import expected_keys, load_sentences, said_evidence, said_row
from train.tokenizer import load_tokenizer_json

SETS = [default_view.SPEAKER_SENTENCES, default_view.NEARER_NAME_SENTENCES]


@pytest.fixture(scope="module")
def shipped():
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    tok = load_tokenizer_json((MODEL_DIR / "tokenizer.json").read_text(encoding="utf-8"))
    return meta, tok, ort_run(session_for((MODEL_DIR / "model.onnx").read_bytes()))


@pytest.mark.parametrize("path", SETS)
def test_the_sentence_sets_are_big_enough_and_well_formed(path):
    rows = load_sentences(path)
    assert len(rows) >= 30 and len({t for t, _ in rows}) == len(rows)
    for text, word in rows:
        assert text.endswith(" said") and word in text[: -len(" said")], text


@pytest.mark.parametrize("path", SETS)
def test_the_sentence_sets_tokenize_as_the_story_needs(shipped, path):
    _, tok, _ = shipped
    if not default_view.has_said(tok):  # then no story is told: test_the_recorded_default_... checks that
        assert shipped[0]["default"]["story"] is None
        return
    for text, word in load_sentences(path):
        ids, q, offsets = said_row(tok, text)
        assert q == len(ids) - 1 and expected_keys(text, word, q, offsets)


def test_the_recorded_default_is_what_export_chooses(shipped):
    """Story, opening sentence, top weight and switch-off figures: all recomputed, none copied."""
    meta, tok, run = shipped
    cfg = meta["config"]
    again = default_view.choose(run, tok, meta["heads"], PROBE_TEXT.read_text(encoding="utf-8"),
                                cfg["n_layer"], cfg["n_head"], cfg["n_ctx"])
    assert_json_close(meta["default"], again, "default", atol=2e-4)


def test_the_default_view_is_what_golden_shows(shipped):
    meta, tok, _ = shipped
    d = meta["default"]
    golden = json.loads((MODEL_DIR / "golden.json").read_text(encoding="utf-8"))
    assert golden["text"] == d["text"] and golden["ids"] == tok.encode(d["text"]).ids
    row = golden["attention"][d["layer"] - 1][d["head"] - 1][d["token"]]
    assert row[d["top_key"]] == pytest.approx(d["top_weight"], abs=1e-4)
    assert max(w for w in row if w is not None) == row[d["top_key"]]
    assert tok.decode([golden["ids"][d["top_key"]]]) == d["top_key_text"]


def test_a_story_is_told_only_when_it_holds_on_the_set(shipped):
    meta, tok, run = shipped
    s = meta["default"]["story"]
    if s is None:
        assert default_view.story(run, tok, meta["config"]["n_layer"], meta["config"]["n_head"]) is None
        return
    d = meta["default"]
    evidence = said_evidence(run, tok, load_sentences(default_view.SPEAKER_SENTENCES), d["layer"], d["head"])
    misses = [(r["text"], r["top_key"]) for r in evidence["rows"] if not r["agrees"]]
    assert evidence["share"] >= default_view.STORY_MIN_SHARE, misses
    assert {k: evidence[k] for k in ("agree", "total")} == {k: s["sentence_set"][k] for k in ("agree", "total")}
    assert d["top_weight"] >= default_view.DECISIVE and d["token"] == len(tok.encode(d["text"]).ids) - 1


def test_a_head_that_does_not_do_it_fails_the_check(shipped):
    """The check can fail: on the same sentences, some other head does not pass."""
    meta, tok, run = shipped
    if not default_view.has_said(tok):
        pytest.skip("the shipped vocabulary has no «said»: no head can be checked on the set")
    shares = [said_evidence(run, tok, load_sentences(default_view.SPEAKER_SENTENCES), layer, head)["share"]
              for layer in range(1, meta["config"]["n_layer"] + 1) for head in range(1, meta["config"]["n_head"] + 1)]
    assert min(shares) < default_view.STORY_MIN_SHARE


def test_a_stricter_threshold_drops_the_story(shipped, monkeypatch):
    meta, tok, run = shipped
    s = meta["default"]["story"]
    if s is None:
        pytest.skip("the shipped model tells no story")
    monkeypatch.setattr(default_view, "STORY_MIN_SHARE", s["sentence_set"]["share"] + 0.01)
    assert default_view.story(run, tok, meta["config"]["n_layer"], meta["config"]["n_head"]) is None


def test_switch_off_figures_are_what_the_model_gives(shipped):
    meta, tok, run = shipped
    d = meta["default"]
    n_layer, n_head = meta["config"]["n_layer"], meta["config"]["n_head"]
    if d["layer"] == 1:
        assert d["switch_off"] is None
        return
    ids = np.array([tok.encode(d["text"]).ids])
    recorded = d["switch_off"]["heads"]
    assert [(h["layer"], h["head"]) for h in recorded] == [(l, h) for l in range(1, d["layer"]) for h in range(1, n_head + 1)]
    for entry in recorded:
        mask = np.ones((n_layer, n_head), np.float32)
        mask[entry["layer"] - 1, entry["head"] - 1] = 0
        _, att = run(ids, mask)
        assert float(att[0, d["layer"] - 1, d["head"] - 1, d["token"], d["top_key"]]) == pytest.approx(entry["weight"], abs=1e-4)
    # The switch is real: some earlier head moves the weight.
    assert max(abs(h["weight"] - d["top_weight"]) for h in recorded) > 1e-3
