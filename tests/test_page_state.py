"""The element's pure modules under Node: state rules (pin, hover, keys, permalinks) and the
read-outs of a run (views, top-5). No browser needed; the browser tests cover the wiring."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import run_node

META = {
    "config": {"n_layer": 2, "n_head": 4, "n_ctx": 128},
    "default": {"text": "A made-up sentence for the state rules", "layer": 2, "head": 3, "token": 4, "view": "head"},
}

STATE_JS = """
import { readFileSync } from "node:fs";
const S = await import(process.cwd() + "/static/attention-view/state.js");
const { meta } = JSON.parse(readFileSync(0, "utf8"));
const none = { text: null, token: null, layer: null, head: null, view: null };
const dims = { count: 7, nLayer: 2, nHead: 4 };
const out = {};
const d = S.resolve(none, meta);
out.defaults = d;
out.otherText = S.resolve({ ...none, text: "Hello there" }, meta);
out.clamped = S.resolve({ ...none, layer: "9", head: "-3", view: "nonsense", token: "x" }, meta);
out.pinnedLast = S.pinnedIndex({ ...d, token: null }, 7);
out.pinnedNeg = S.pinnedIndex({ ...d, token: -2 }, 7);
out.pinnedBig = S.pinnedIndex({ ...d, token: 40 }, 7);
out.pinnedEmpty = S.pinnedIndex(d, 0);
const hovered = S.reduce(d, { type: "preview", token: 1 }, dims);
out.hover = { shown: S.shownIndex(hovered, 7), pinned: S.pinnedIndex(hovered, 7) };
const unhovered = S.reduce(hovered, { type: "preview", token: null }, dims);
out.unhover = S.shownIndex(unhovered, 7);
const clicked = S.reduce(hovered, { type: "pin", token: 2 }, dims);
out.click = { shown: S.shownIndex(clicked, 7), pinned: S.pinnedIndex(clicked, 7), preview: clicked.preview };
out.moves = [
  S.pinnedIndex(S.reduce(d, { type: "move", delta: -1 }, dims), 7),
  S.pinnedIndex(S.reduce({ ...d, token: 0 }, { type: "move", delta: -1 }, dims), 7),
  S.pinnedIndex(S.reduce({ ...d, token: 6 }, { type: "move", delta: 1 }, dims), 7),
  S.pinnedIndex(S.reduce(d, { type: "move", to: "first" }, dims), 7),
  S.pinnedIndex(S.reduce(d, { type: "move", to: "last" }, dims), 7),
];
let s = { ...d, layer: 1, head: 1 };
out.cycle = [];
for (let i = 0; i < 9; i++) { s = S.reduce(s, { type: "cycleHead", delta: 1 }, dims); out.cycle.push([s.layer, s.head]); }
out.cycleBack = S.reduce({ ...d, layer: 1, head: 1 }, { type: "cycleHead", delta: -1 }, dims);
out.views = [S.reduce(d, { type: "cycleView" }, dims).view, S.reduce({ ...d, view: "rollout" }, { type: "cycleView" }, dims).view];
out.selectResetsView = S.reduce({ ...d, view: "average" }, { type: "select", layer: 1, head: 2 }, dims);
out.typeAtLast = S.reduce({ ...d, token: 6 }, { type: "text", text: "more" }, dims).token;
out.typeElsewhere = S.reduce({ ...d, token: 2 }, { type: "text", text: "more" }, dims).token;
const hostile = { text: "a+b & c=d #x %20 <script>\\n\\u00e9\\ud83e\\udd8a", token: 3, layer: 1, head: 4, view: "average" };
out.hash = S.toHash(hostile);
out.back = S.fromHash(out.hash);
out.emptyHash = S.fromHash("");
out.attrs = S.toAttributes({ ...hostile, token: null });
const W = await import(process.cwd() + "/static/attention-view/model/words.js");
const labels = [" The", " Dor", "mouse", " said", ",", ' "', "Off", " said", "!", " 12", "\u00e9", ""].map((text) => ({ text }));
const words = W.wordsOf(labels);
out.words = words.list.map((w) => [w.first, w.last, w.text]);
out.find = ["said", "said#2", "said#3", "Dormouse", "Off", "12#1", "x"].map((s) => W.findWord(words, s));
out.specs = labels.map((_, i) => W.wordSpec(words, i));
out.wordPins = ["said#2", "-1", "2", "nothing"].map((t) => S.pinnedIndex({ ...d, token: S.resolve({ ...none, text: "t", token: t }, meta).token }, labels.length, labels));
out.scales = [d.scale, S.resolve({ ...none, scale: "relative" }, meta).scale, S.resolve({ ...none, scale: "loud" }, meta).scale];
out.scaleAction = S.reduce(d, { type: "scale", scale: "relative" }, dims).scale;
out.scaleHash = [S.toHash({ ...hostile, scale: "relative" }), S.toHash({ ...hostile, scale: "share" })];
out.scaleAttrs = [S.toAttributes({ ...d, scale: "relative" }).scale, S.toAttributes(d).scale];
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def state():
    return run_node(STATE_JS, {"meta": META})


def test_defaults_come_from_meta(state):
    d = state["defaults"]
    assert (d["text"], d["layer"], d["head"], d["token"], d["view"]) == (
        META["default"]["text"], 2, 3, 4, "head")
    # Another sentence does not inherit the default's token index: it follows the last token.
    assert state["otherText"]["token"] is None and state["otherText"]["text"] == "Hello there"


def test_bad_attributes_are_clamped(state):
    c = state["clamped"]
    # A token that is not a number is a word spec (words.js): kept, and resolved against the tokens.
    assert (c["layer"], c["head"], c["view"], c["token"]) == (2, 1, "head", "x")


def test_token_index_rules(state):
    assert state["pinnedLast"] == 6 and state["pinnedNeg"] == 5 and state["pinnedBig"] == 6
    assert state["pinnedEmpty"] == -1
    assert state["moves"] == [3, 0, 6, 0, 6]


def test_hover_previews_and_click_pins(state):
    assert state["hover"] == {"shown": 1, "pinned": 4}
    assert state["unhover"] == 4
    assert state["click"] == {"shown": 2, "pinned": 2, "preview": None}


def test_head_key_walks_every_head(state):
    assert state["cycle"] == [[1, 2], [1, 3], [1, 4], [2, 1], [2, 2], [2, 3], [2, 4], [1, 1], [1, 2]]
    assert (state["cycleBack"]["layer"], state["cycleBack"]["head"]) == (2, 4)
    assert state["views"] == ["average", "head"]
    assert state["selectResetsView"]["view"] == "head"


def test_typing_follows_the_last_token(state):
    assert state["typeAtLast"] is None
    assert state["typeElsewhere"] == 2


def test_hash_round_trip(state):
    back = state["back"]
    # Keys the state does not set (scale, ablate, compare, ...) come back null.
    assert {k: v for k, v in back.items() if v is not None} == {
        "text": "a+b & c=d #x %20 <script>\n\u00e9\U0001f98a", "token": "3", "layer": "1", "head": "4", "view": "average"}
    assert {"text", "token", "layer", "head", "view", "scale"} <= set(back)
    assert "+" not in state["hash"]
    assert set(state["emptyHash"]) == set(back) and all(v is None for v in state["emptyHash"].values())
    assert state["attrs"]["token"] is None


VIEWS_JS = """
import { readFileSync } from "node:fs";
const V = await import(process.cwd() + "/static/attention-view/readouts/readouts.js");
const { AttentionTensor } = await import(process.cwd() + "/static/attention-view/model/attention.js");
const { T, attention, logits, vocab } = JSON.parse(readFileSync(0, "utf8"));
const tensor = (data) => new AttentionTensor(data, 2, 2, T);
const out = { T, L: 2, H: 2, attention: tensor(Float32Array.from(attention)), scores: tensor(new Float32Array(attention.length)) };
const r = {
  avg: Array.from(V.averageMatrix(out, 1)),
  roll: Array.from(V.rolloutMatrix(out, 1)),
  head: Array.from(V.viewRow(out, { view: "head", layer: 2, head: 2 }, 2)),
  top: V.topFromLogits(Float32Array.from(logits).subarray(vocab, 2 * vocab), 5),
  spread: [V.spread([1, 0, 0], 2), V.spread([1 / 3, 1 / 3, 1 / 3], 2)],
};
process.stdout.write(JSON.stringify(r));
"""


def test_views_and_top5_match_numpy():
    rng = np.random.default_rng(0)
    T, L, H, vocab = 5, 2, 2, 50
    raw = rng.normal(size=(L, H, T, T))
    raw[..., np.triu_indices(T, 1)[0], np.triu_indices(T, 1)[1]] = -np.inf
    att = np.exp(raw - raw.max(-1, keepdims=True))
    att = (att / att.sum(-1, keepdims=True)).astype(np.float32)
    logits = rng.normal(size=(T, vocab)).astype(np.float32)
    got = run_node(VIEWS_JS, {"T": T, "attention": att.ravel().tolist(), "logits": logits.ravel().tolist(),
                              "vocab": vocab})
    a = att.astype(np.float64)
    np.testing.assert_allclose(np.array(got["avg"]).reshape(T, T), a[1].mean(0), atol=1e-7)
    hat = [0.5 * a[l].mean(0) + 0.5 * np.eye(T) for l in range(L)]
    np.testing.assert_allclose(np.array(got["roll"]).reshape(T, T), hat[1] @ hat[0], atol=1e-7)
    np.testing.assert_allclose(np.array(got["roll"]).reshape(T, T).sum(1), 1, atol=1e-6)
    np.testing.assert_allclose(got["head"], a[1, 1, 2], atol=0)
    z = logits[1].astype(np.float64)
    p = np.exp(z - z.max())
    p /= p.sum()
    order = np.argsort(-p)[:5]
    assert [t["id"] for t in got["top"]] == order.tolist()
    np.testing.assert_allclose([t["p"] for t in got["top"]], p[order], atol=1e-12)
    assert got["spread"][0] == 0 and math.isclose(got["spread"][1], 1, rel_tol=1e-12)


def test_scale_defaults_to_share_and_only_relative_is_written(state):
    assert state["scales"] == ["share", "relative", "share"]
    assert state["scaleAction"] == "relative"
    relative, share = state["scaleHash"]
    assert relative.endswith("&scale=relative") and "scale" not in share
    assert state["scaleAttrs"] == ["relative", None]


def test_words_join_pieces_and_word_specs_pin_their_last_piece(state):
    assert state["words"] == [[0, 0, "The"], [1, 2, "Dormouse"], [3, 3, "said"], [4, 4, ","], [5, 5, '"'],
                              [6, 6, "Off"], [7, 7, "said"], [8, 8, "!"], [9, 11, "12\u00e9"]]
    assert state["find"] == [3, 7, -1, 2, 6, -1, -1]
    assert state["specs"] == ["The", None, "Dormouse", "said", ",", '"', "Off", "said#2", "!", None, None, "12\u00e9"]
    # Word, negative index, index; an unknown word follows the last token.
    assert state["wordPins"] == [7, 11, 2, 11]
