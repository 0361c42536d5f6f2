"""Pages follow the model: the site built on a second, deliberately different model
(tests/other_model.py: 3 layers x 2 heads, no «said», one text) states no fact of the shipped
model, and every figure it shows is that model's."""

from __future__ import annotations

import json
import re

import pytest
from other_model import NAME, other_model
from test_model_card import parse, squash

from browser import build_site
from conftest import MODEL_DIR

PAGES = ("index.html", "attention.html", "model.html", "embed.html")


@pytest.fixture(scope="module")
def other(tmp_path_factory):
    model = other_model(tmp_path_factory.getbasetemp())["model"]
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    site = build_site(tmp_path_factory.mktemp("other-pages"), "--model", str(model))
    return {name: parse((site / name).read_text(encoding="utf-8")) for name in PAGES}, meta


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
