"""Model.generate against the page's Continue: greedy token for token, and seeded sampling by
the same sampler spec (compared only where no draw lands near a boundary, so the test cannot
hinge on the last bits of two runtimes' float32 logits); token texts as the page's chips."""

from __future__ import annotations

import pytest
from widget_generate import generate, page, set_text

from attention_live import Model
from attention_live.sampler import pick_with_margin, uniform_at

pytestmark = pytest.mark.browser

MARGIN = 1e-3  # over the total weight; float32 noise between the runtimes is far smaller


@pytest.fixture(scope="module")
def model():
    return Model()


@pytest.mark.parametrize("text", ["The Queen turned round and said", "The Hatter"])
def test_greedy_generation_is_the_pages(page, model, text):
    want = model.generate(text, 20)
    set_text(page, text)
    got = generate(page, {"temperature": 0, "maxTokens": 20})["ok"]
    assert [t["id"] for t in got["tokens"]] == [t.id for t in want.tokens]
    assert [t["text"] for t in got["tokens"]] == [t.text for t in want.tokens]
    assert got["text"] == want.text


def smallest_margin(model, text, generation, temperature, top_k, seed):
    """The closest any draw of `generation` came to a boundary between two candidates."""
    ids = model.run(text).ids
    worst = 1.0
    for tok in generation.tokens:
        logits = model.run_ids(ids).logits[-1]
        chosen, margin = pick_with_margin(logits, temperature, top_k, uniform_at(seed, len(ids)))
        assert chosen == tok.id
        worst = min(worst, margin)
        ids = [*ids, tok.id]
    return worst


@pytest.mark.parametrize(("text", "seed"), [("Alice was beginning to get very tired", 8), ("The Queen turned round and said", 3)])
def test_seeded_generation_is_the_pages(page, model, text, seed):
    want = model.generate(text, 16, temperature=1.0, top_k=20, seed=seed)
    assert smallest_margin(model, text, want, 1.0, 20, seed) > MARGIN, "a draw near a boundary: pick another seed"
    set_text(page, text)
    got = generate(page, {"temperature": 1, "topK": 20, "seed": seed, "maxTokens": 16})["ok"]
    assert [t["id"] for t in got["tokens"]] == [t.id for t in want.tokens]


def test_token_texts_are_the_pages_chips(page, model):
    text = "日本 and 👍🏽 \u201cquoted\u201d  spaces"
    shown = set_text(page, text)
    assert [(t["id"], t["text"], t["piece"]) for t in shown["tokens"]] == [(t.id, t.text, t.piece) for t in model.run(text).tokens]
