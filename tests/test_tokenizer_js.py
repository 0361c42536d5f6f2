"""The page's tokenizer (@huggingface/tokenizers, the very ES module the site ships) against
Python `tokenizers` on the committed tokenizer.json, plus the byte-level token labels.

Runs the module under Node: the same code the browser runs, without a browser's start-up cost.
"""

from __future__ import annotations

import random

import pytest

from conftest import MODEL_DIR, run_node
from helpers import HOSTILE_STRINGS

ENCODE_JS = """
import { readFileSync } from "node:fs";
const { Tokenizer } = await import(process.cwd() + "/node_modules/@huggingface/tokenizers/dist/tokenizers.min.mjs");
const { labelTokens } = await import(process.cwd() + "/static/attention-view/model/token-labels.js");
const { texts, tokenizer } = JSON.parse(readFileSync(0, "utf8"));
const tok = new Tokenizer(JSON.parse(readFileSync(tokenizer, "utf8")), {});
const out = texts.map((t) => {
  if (t === "") return { ids: [], pieces: [], labels: [] };
  const enc = tok.encode(t, { add_special_tokens: false });
  return { ids: enc.ids, pieces: enc.tokens, labels: labelTokens(enc.tokens) };
});
process.stdout.write(JSON.stringify(out));
"""

ALPHABETS = [
    "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", " \t\n\r  ",
    ".,;:!?'\"()[]{}<>/\\|@#$%^&*-_=+~`", "àéîõüçñßøåæœ", "αβγδεζηθλμπσω", "абвгдежзиклмнопрст",
    "日本語中文字漢字かなカナ한국어", "עברית שלום", "العربية مرحبا", "हिन्दी", "ไทย",
    "😀🦊🍄🐇🎩⏰👍🏽", "\u200d\u200b\u00a0\ufeff\u0301\u0303", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝒜𝓁𝒾𝒸ℯ",
]
WORDS = ["Alice", "Queen", "said", "the", "rabbit", "don't", "it's", "we'll", "I'm", "Hatter",
         "  ", "\n\n", "...", "--", "café", "naïve", "3.14", "1,000", "can't", "O'Brien"]


def varied_strings(n: int = 240, seed: int = 7) -> list[str]:
    """Hand-picked hostile strings, then seeded random mixes of words and many scripts."""
    rng = random.Random(seed)
    out = list(HOSTILE_STRINGS)
    out += ["The Hatter looked at the Queen and said", "🏳️‍🌈", "e\u0301", "a  b   c    d", "\t\t\tx", "x\r\n\r\ny"]
    while len(out) < n:
        parts = []
        for _ in range(rng.randint(1, 12)):
            if rng.random() < 0.5:
                parts.append(rng.choice(WORDS))
            else:
                alphabet = rng.choice(ALPHABETS)
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))))
            parts.append(rng.choice(["", " ", " ", "  ", "\n", "\t"]))
        out.append("".join(parts))
    return out


@pytest.fixture(scope="module")
def js_results():
    texts = varied_strings()
    results = run_node(ENCODE_JS, {"texts": texts, "tokenizer": str(MODEL_DIR / "tokenizer.json")})
    return texts, results


def test_enough_varied_strings(js_results):
    texts, _ = js_results
    assert len(set(texts)) >= 200
    assert any(len(t) > 1000 for t in texts)
    assert any(any(ord(c) > 0xFFFF for c in t) for t in texts)  # astral characters


def test_js_ids_equal_python_ids(js_results, reference):
    texts, results = js_results
    mismatches = [
        (t[:40], r["ids"][:10], reference.ids(t)[:10])
        for t, r in zip(texts, results) if r["ids"] != reference.ids(t)
    ]
    assert mismatches == []


def test_labels_spell_the_text_exactly(js_results):
    """Token labels built from bytes: joined they give back the input, whatever the splits."""
    texts, results = js_results
    bad = [t[:40] for t, r in zip(texts, results) if "".join(lab["text"] for lab in r["labels"]) != t]
    assert bad == []


def test_split_characters_are_grouped(js_results):
    """A character spread over several tokens shows once, on its first token; the others point back."""
    texts, results = js_results
    split_seen = 0
    for text, r in zip(texts, results):
        for i, lab in enumerate(r["labels"]):
            first, last = lab["span"]
            assert first <= i <= last
            if lab["text"] == "":
                split_seen += 1
                assert lab["owner"] < i and r["labels"][lab["owner"]]["text"] != ""
            assert "\ufffd" not in lab["text"] or "\ufffd" in text
    assert split_seen > 0, "no test string split a character over tokens; the grouping went untested"
