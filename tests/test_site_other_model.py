"""Pages follow the model: the site built on a second, deliberately different model
(tests/other_model.py: 3 layers x 2 heads, no «said», one text) states no fact of the shipped
model, and every figure it shows is that model's."""

from __future__ import annotations

import copy
import json
import re

import pytest
from html_tree import parse, squash
from other_model import NAME, ONE_LAYER_NAME, SHORT_NAME, one_layer_model, other_model, short_model

from conftest import MODEL_DIR
from site_builder.model_charts import curve
from testbed.built_site import build_site

PAGES = ("index.html", "attention.html", "model.html", "embed.html")


@pytest.fixture(scope="module")
def other(tmp_path_factory):
    model = other_model(tmp_path_factory.getbasetemp())["model"]
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    site = build_site(tmp_path_factory.mktemp("other-pages"), "--model", str(model))
    return {name: parse((site / name).read_text(encoding="utf-8")) for name in PAGES}, meta


@pytest.fixture(scope="module")
def heldout(tmp_path_factory) -> str:
    """The other model's held-out text, its line breaks as spaces (examples are one-line spans)."""
    from train.data import read_corpus

    corpus = other_model(tmp_path_factory.getbasetemp())["corpus"]
    return one_line(read_corpus(corpus).heldout_text)


def one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def shipped_facts() -> list[str]:
    """Strings that state something about the shipped model: its texts, its numbers, its heads."""
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    d = meta["default"]
    facts = [meta["corpus"]["name"], meta["corpus"]["description"], f"{meta['n_params']:,}",
             f"{meta['metrics']['heldout_bpc']:.3f}", f"{meta['metrics']['heldout_bpc']:.2f} bits",
             f"«{d['top_key_text'].strip()}»", f"L{d['layer']}H{d['head']}", f"L{d['layer']} H{d['head']}",
             "«Queen»", "twelve", "eleven", "85–98", "one book"]
    facts += [c["name"] for c in meta["corpus"]["companions"]]
    if d["story"]:
        facts += [f"{d['story']['sentence_set']['agree']} of {d['story']['sentence_set']['total']}", "speaker"]
    return facts


def visible(doc) -> str:
    """What a reader sees, and the attributes a view starts from."""
    attrs = " ".join(f"{k}={v}" for n in doc.iter() for k, v in n.attrs.items() if k in ("text", "aria-label", "title"))
    return squash(doc.text()) + " " + attrs


@pytest.mark.parametrize("page", PAGES)
def test_no_page_states_a_fact_of_the_shipped_model(other, page):
    docs, _ = other
    text = visible(docs[page])
    stated = [f for f in shipped_facts() if re.search(r"(?<![\w.])" + re.escape(f) + r"(?![\w])", text)]
    assert stated == [], f"{page} states what is true only of the shipped model: {stated}"


def test_the_live_page_states_this_models_facts(other):
    docs, meta = other
    text = squash(docs["index.html"].text())
    cfg = meta["config"]
    assert f"({cfg['n_layer']} layers × {cfg['n_head']} heads)" in text
    assert f"trained on {NAME}.txt and reaches {meta['metrics']['heldout_bpc']:.2f} bits per character" in text
    assert f"with {meta['n_params']:,} parameters" in text
    so = meta["default"]["switch_off"]
    assert ("switching off any one" in text) == bool(so)


def test_chapter_one_views_and_sentences_follow_the_model(other):
    docs, meta = other
    doc = docs["attention.html"]
    d = meta["default"]
    views = {v.attrs["id"]: v.attrs for v in doc.find_all("attention-view")}
    first = views["view-1"]
    assert (first["text"], first["layer"], first["head"], first["token"]) == (
        d["text"], str(d["layer"]), str(d["head"]), str(d["token"]))
    second = views["view-2"]
    examples = {(h["layer"], h["head"]): h["example"] for h in meta["heads"] if h["example"]}
    ex = examples[(int(second["layer"]), int(second["head"]))]
    assert (second["text"], second["token"]) == (ex["text"], str(ex["token"]))
    assert (int(second["layer"]), int(second["head"])) != (d["layer"], d["head"])
    text = squash(doc.text())
    assert f"trained on one text ({NAME}.txt)" in text
    assert f"This model has {meta['config']['n_layer'] * meta['config']['n_head']} heads" in text


def test_the_model_card_tells_no_story_and_names_its_own_texts(other):
    docs, meta = other
    doc = docs["model.html"]
    assert doc.find(data_missing="story") is not None and doc.find(data_figure="sentence_set") is None
    assert [r.attrs["data-text"] for r in doc.find_all("tr", data_text=True)] == [f"{NAME}.txt"]
    assert doc.find(data_figure="companions") is None
    assert squash(doc.find(data_figure="chosen_by").text()) == f"Chosen at export by: {meta['default']['chosen_by']}"


def test_every_sentence_shown_is_this_models_own_text(other, heldout):
    """The opening sentence, every head's example and the chapter's views: each a span of this
    model's held-out text, and the pages say so (no sample text, no speaker set: it has no «said»)."""
    docs, meta = other
    assert meta["default"]["source"] == "held-out text"
    assert meta["head_definitions"]["example_source"] == "held-out text"
    shown = [meta["default"]["text"], *(h["example"]["text"] for h in meta["heads"] if h["example"])]
    shown += [v.attrs["text"] for v in docs["attention.html"].find_all("attention-view") if "text" in v.attrs]
    shown += [v.attrs["text"] for v in docs["index.html"].find_all("attention-view") if "text" in v.attrs]
    assert len(shown) > len(meta["heads"])
    for text in shown:
        assert one_line(text) in heldout, text
    card = docs["model.html"]
    assert "the model's own held-out text" in squash(card.find(data_figure="example_source").text())
    assert "the model's own held-out text" in squash(card.find(data_figure="default_source").text())
    chapter = squash(docs["attention.html"].text())
    assert "a span of the model's held-out text" in chapter and "of our own" not in chapter


@pytest.mark.parametrize("page", PAGES)
def test_no_page_calls_this_model_the_shipped_one(other, page):
    docs, _ = other
    assert "shipped" not in visible(docs[page]).lower()


def test_the_curve_sentence_fits_the_curve(other):
    """The training curve's sentence says what the recorded evaluations did: a fall only when the
    figure fell, one figure when there is one (a one-evaluation run once read "fell from 3.112 at
    step 50 to 3.112 at step 50")."""
    docs, meta = other
    assert curve(meta)["label"] in squash(docs["model.html"].text())
    for history, want in [
        ([[50, 3.1123]], "was measured once: 3.112 at step 50"),
        ([[0, 3.1123], [10, 3.1124], [20, 3.2]], "did not fall below 3.112, its value at step 0, in the evaluations up to step 20"),
        ([[0, 3.5], [10, 3.1123]], "fell from 3.500 at step 0 to 3.112 at step 10, the best step"),
    ]:
        edited = copy.deepcopy(meta)
        edited["metrics"].update(history=history, best_step=min(history, key=lambda h: h[1])[0])
        label = curve(edited)["label"]
        assert want in label and (("fell" in label) == want.startswith("fell")), label


# --- a first try: a 6 KB text, a vocabulary smaller than asked for, a one-snapshot timeline -----

@pytest.fixture(scope="module")
def short(tmp_path_factory):
    from train.data import read_corpus

    paths = short_model(tmp_path_factory.getbasetemp())
    meta = json.loads((paths["model"] / "meta.json").read_text(encoding="utf-8"))
    site = build_site(tmp_path_factory.mktemp("short-pages"), "--model", str(paths["model"]))
    docs = {name: parse((site / name).read_text(encoding="utf-8")) for name in PAGES}
    return docs, meta, one_line(read_corpus(paths["corpus"]).heldout_text)


def test_a_first_try_gets_only_true_sentences(short):
    docs, meta, heldout = short
    assert 5_000 < meta["corpus"]["chars"] < 10_000 and meta["default"]["story"] is None
    shown = [meta["default"]["text"], *(h["example"]["text"] for h in meta["heads"] if h["example"])]
    shown += [v.attrs["text"] for page in ("index.html", "attention.html")
              for v in docs[page].find_all("attention-view") if "text" in v.attrs]
    for text in shown:
        assert one_line(text) in heldout, text
    for page in PAGES:
        assert "shipped" not in visible(docs[page]).lower(), page
    index = squash(docs["index.html"].text())
    assert f"comes from the model's own held-out text (the last 10% of {SHORT_NAME}.txt" in index


def test_a_first_try_names_the_vocabulary_it_asked_for(short):
    docs, meta, _ = short
    asked, real = meta["train_args"]["model"]["vocab_size"], meta["config"]["vocab_size"]
    assert real < asked == 2048
    assert f"asked {asked:,}, the text supports {real:,}" in squash(docs["model.html"].text())


def test_a_one_snapshot_timeline_says_one_step(short):
    """One snapshot is a step, not a span ("from step 0 to step 0")."""
    docs, meta, _ = short
    formed = squash(docs["model.html"].find("section", id="formed").text())
    assert "kept one snapshot of this model on the way to the exported model, at step 0 (held-out" in formed
    assert "to step 0" not in formed and "shipped" not in formed


# --- another shape: one layer of 4 heads, learned positions (no second layer, no ALiBi) ----------

@pytest.fixture(scope="module", params=["alibi", "learned"])
def one_layer(tmp_path_factory, request):
    model = one_layer_model(tmp_path_factory.getbasetemp(), request.param)["model"]
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    site = build_site(tmp_path_factory.mktemp("one-layer-pages"), "--model", str(model))
    return {name: parse((site / name).read_text(encoding="utf-8")) for name in PAGES}, meta


def test_a_one_layer_model_is_called_one_layer(one_layer):
    docs, meta = one_layer
    assert (meta["config"]["n_layer"], meta["config"]["n_head"]) == (1, 4)
    assert "(1 layer × 4 heads)" in squash(docs["index.html"].text())
    assert "a 1-layer, 4-head causal transformer" in squash(docs["model.html"].text())
    assert "This model has 4 heads (one layer)" in squash(docs["attention.html"].text())


def test_the_package_calls_a_one_layer_model_one_layer(tmp_path_factory):
    from attention_live import Model

    model = Model(one_layer_model(tmp_path_factory.getbasetemp(), "learned")["model"])
    assert ": 1 layer x 4 heads," in repr(model)


@pytest.mark.parametrize("page", PAGES)
def test_no_page_talks_of_a_second_layer_to_a_one_layer_model_or_of_alibi_to_learned_positions(one_layer, page):
    docs, meta = one_layer
    text = visible(docs[page])
    false = ["layer 2", "1 layers", "layers of", "next layer", "every layer", "later layer", "second layer",
             "induction circuit", "composes with", "heads, L layers"]
    if meta["positions"]["scheme"] == "learned":
        false += ["ALiBi", "slope", "distance bias"]
    for said in false:
        assert said.lower() not in text.lower(), f"{page} says {said!r} of a 1-layer model, {meta['positions']['scheme']}"
    assert f"{ONE_LAYER_NAME}.txt" in text or page == "embed.html"


def test_one_held_out_window_is_one_window():
    from export.heads import definitions

    assert definitions(64, 1, 63, 0)["windows"].startswith("one 64-token window of the held-out text")
    assert definitions(64, 3, 63, 0)["windows"].startswith("3 non-overlapping 64-token windows")
