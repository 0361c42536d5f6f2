"""attention_live.Model on the committed model: the graph's own numbers (the same session path as
the reference the page is checked against), the page's token labels, top-k and heads from
meta.json, generate() by the page's sampler spec, and one plain sentence for every bad input."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from attention_live import Model, ModelError
from attention_live.sampler import candidates, mulberry32, pick, uniform_at
from attention_live.tokens import piece_bytes
from conftest import MODEL_DIR
from helpers import HOSTILE_STRINGS

TEXT = "The Queen turned round and said"


@pytest.fixture(scope="module")
def model():
    return Model()


def test_run_gives_the_graphs_numbers(model, reference):
    r = model.run(TEXT)
    ids = reference.ids(TEXT)
    want = reference.run(ids)
    assert r.ids == ids
    assert r.attention.shape == r.scores.shape == (2, 4, len(ids), len(ids))
    assert np.array_equal(r.attention, want["attention"]) and np.array_equal(r.scores, want["scores"])
    assert np.array_equal(r.logits, want["logits"])
    # top-k: the largest logits, probabilities of the plain softmax
    top = r.top(-1, k=5)
    assert [p.id for p in top] == list(np.argsort(-want["probs"][-1], kind="stable")[:5])
    assert np.allclose([p.p for p in top], np.sort(want["probs"][-1])[::-1][:5], rtol=1e-12)
    assert [p.id for p in r.top(0, k=3)] == list(np.argsort(-want["probs"][0], kind="stable")[:3])


def test_heads_switched_off_are_the_graphs_head_mask(model, reference):
    ids = reference.ids(TEXT)
    mask = np.ones((2, 4), np.float32)
    mask[0, 1] = mask[1, 2] = 0
    want = reference.run(ids, mask)["attention"]
    for r in (model.run(TEXT, head_mask=mask), model.run(TEXT, ablate="2.3 1.2"), model.run(TEXT, ablate=[(1, 2), (2, 3)])):
        assert np.array_equal(r.attention, want)
        assert r.ablated == [(1, 2), (2, 3)]
    assert not np.array_equal(model.run(TEXT).attention, want)


@pytest.mark.parametrize("text", [s for s in HOSTILE_STRINGS if s] + ["日本", "👍🏽 thumbs"])
def test_token_texts_join_to_the_text(model, text):
    r = model.run(text)
    # Byte-level BPE round-trips every string: the labels, joined, are the (last n_ctx tokens of the) text.
    joined = "".join(t.text for t in r.tokens)
    assert text.endswith(joined) if r.truncated else joined == text
    assert all(t.piece == model.tokenizer.id_to_token(t.id) for t in r.tokens)


def test_a_character_split_over_tokens_belongs_to_its_first_byte(model):
    r = model.run("日本")  # rare characters: several byte-level tokens each
    assert len(r.tokens) > 2
    assert [t.text for t in r.tokens if t.text] == ["日", "本"]
    # Each character goes to the token holding its first byte: 日 is bytes 0-2, 本 bytes 3-5.
    ends = np.cumsum([len(piece_bytes(t.piece)) for t in r.tokens])
    holder = lambda byte: int(np.searchsorted(ends, byte, side="right"))
    assert r.tokens[holder(0)].text == "日" and r.tokens[holder(3)].text == "本"


def test_a_long_text_keeps_its_last_window_as_the_page_does(model):
    r = model.run(" a" * 400)
    assert len(r.tokens) == 128 and r.truncated == {"total": 400, "start": 272}


def test_heads_are_meta_json(model, meta):
    assert [(h.layer, h.head, h.role, h.scores) for h in model.heads] == [
        (h["layer"], h["head"], h["role"], h["scores"]) for h in meta["heads"]]
    assert model.head(2, 3).name == "2.3"


def greedy(model, ids, n):
    out = []
    for _ in range(n):
        out.append(int(np.argmax(model.run(model.tokenizer.decode(ids + out)).logits[-1])))
    return out


def test_greedy_generation_picks_the_most_likely_token_each_step(model, reference):
    g = model.generate(TEXT, max_tokens=12)
    ids = reference.ids(TEXT)
    for n, tok in enumerate(g.tokens):
        logits = reference.run(ids + [t.id for t in g.tokens[:n]])["logits"][-1]
        assert tok.id == int(np.argmax(logits))
        assert tok.p == pytest.approx(float(reference.run(ids + [t.id for t in g.tokens[:n + 1]])["probs"][-2][tok.id]), rel=1e-6)
    assert g.text == TEXT + "".join(t.text for t in g.tokens) and g.reason == "max-tokens"


def test_seeded_generation_takes_draw_n_for_position_n(model):
    a = model.generate(TEXT, 10, temperature=1.0, top_k=20, seed=5)
    assert model.generate(TEXT, 10, temperature=1.0, top_k=20, seed=5) == a
    # Six then four more: the same tokens as ten at once (position n always takes draw n).
    first = model.generate(TEXT, 6, temperature=1.0, top_k=20, seed=5)
    assert first.tokens == a.tokens[:6]
    assert model.generate(TEXT, 10, temperature=1.0, top_k=20, seed=6) != a


def test_generation_stops_at_the_window(model):
    text = " a" * 126  # 126 tokens: room for 2 more
    g = model.generate(text, 5)
    assert len(g.tokens) == 2 and g.reason == "window"


def test_the_sampler_is_sampler_js_arithmetic():
    u = mulberry32(7)
    draws = [u() for _ in range(5)]
    assert uniform_at(7, 3) == draws[3] and all(0 <= d < 1 for d in draws)
    logits = np.array([1.0, 3.0, 3.0, -1.0], np.float32)
    assert candidates(logits, 3) == [1, 2, 0]  # ties: the lower id first
    assert pick(logits, 0, 40, None) == 1
    assert pick(logits, 1.0, 1, 0.99) == 1  # top-1 leaves one candidate
    assert pick(logits, 1.0, 4, 0.99) == 0  # the running sum of 1, 1, e^-2 passes 0.99 x total at id 0


@pytest.mark.parametrize(("call", "words"), [
    (lambda m: m.run(""), "the text is empty"),
    (lambda m: m.run(5), "the text must be a string"),
    (lambda m: m.run(TEXT, ablate="3.1"), "there is no layer 3"),
    (lambda m: m.run(TEXT, ablate="2.9"), "layer 2 has no head 9"),
    (lambda m: m.run(TEXT, ablate="two"), "is not a layer.head pair"),
    (lambda m: m.run(TEXT, head_mask=np.ones(3)), "head_mask must have shape (2, 4)"),
    (lambda m: m.head(1, 5), "layer 1 has no head 5"),
    (lambda m: m.run(TEXT).top(99), "there is no token 99"),
    (lambda m: m.generate(TEXT, 0), "max_tokens must be a whole number"),
    (lambda m: m.generate(TEXT, temperature=-1), "temperature must be a number, at least 0"),
    (lambda m: m.generate(TEXT, top_k=0), "top_k must be a whole number"),
    (lambda m: m.generate(TEXT, seed=2**32), "seed must be a whole number from 0 to 4294967295"),
    (lambda m: m.generate("a " * 200), "no room to continue it"),
])
def test_bad_input_is_one_plain_sentence(model, call, words):
    with pytest.raises(ModelError) as err:
        call(model)
    message = str(err.value)
    assert words in message and "\n" not in message


def test_a_folder_that_is_not_a_model_is_named(tmp_path):
    with pytest.raises(ModelError, match="is not a folder"):
        Model(tmp_path / "nowhere")
    with pytest.raises(ModelError, match="has no model.onnx and no tokenizer.json and no meta.json"):
        Model(tmp_path)
    for name in ("model.onnx", "tokenizer.json", "meta.json"):
        shutil.copy2(MODEL_DIR / name, tmp_path / name)
    assert Model(tmp_path).run(TEXT).ids == Model().run(TEXT).ids  # any exported folder
    (tmp_path / "meta.json").write_text(json.dumps({"format_version": 2}))
    with pytest.raises(ModelError, match="meta.json: meta.json has no config$"):
        Model(tmp_path)
    (tmp_path / "meta.json").write_bytes((MODEL_DIR / "meta.json").read_bytes())
    (tmp_path / "model.onnx").write_bytes(b"not a graph")  # not the graph meta.json records: refused by name
    with pytest.raises(ModelError, match=r"model\.onnx is 11 bytes; .*meta\.json records"):
        Model(tmp_path)


def test_run_ids_takes_ids_as_they_are(model, reference):
    ids = reference.ids(TEXT)
    assert np.array_equal(model.run_ids(ids).attention, model.run(TEXT).attention)
    assert model.run_ids(ids).text == TEXT
    for bad, words in (([], "reads 1 to 128 token ids, not 0"), ([5, 2048], "2048 is no token id"), ([1.5], "1.5 is no token id")):
        with pytest.raises(ModelError, match=words):
            model.run_ids(bad)
