"""What every test file shares: the repository's paths, the live view's shadow root, and small
texts the tests write themselves (the training book is never part of the repo)."""

from __future__ import annotations

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODEL_DIR = ROOT / "static" / "model"
# In a page's JavaScript: the shadow root of its first <attention-view>.
SHADOW = 'document.querySelector("attention-view").shadowRoot'

HOSTILE_STRINGS = [
    "",
    " ",
    "   leading and trailing   ",
    "tabs\tand\t\ttabs",
    "line one\nline two\r\nline three\n\n\n",
    "👩‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 👍🏽 thumbs",
    "日本語のテキストと中文文本",
    "مرحبا بالعالم שלום עולם",
    "nul\x00byte and bell\x07",
    "<script>alert('x')</script>",
    "<img src=x onerror=alert(1)>",
    "a" * 5000,
    "Ünïcödé çömbïnïng: e\u0301 n\u0303",
    "\ufeffBOM at start",
    "mixed 123 numbers 4.56e-7 and $%^&*() punctuation!!!",
]


def synthetic_text(n_sentences: int = 400, seed: int = 0) -> str:
    """A toy language with real structure (subjects, verbs, objects) so a model can learn it."""
    rng = random.Random(seed)
    subjects = ["the cat", "a dog", "the queen", "my friend", "the old king", "a small bird"]
    verbs = ["sees", "follows", "likes", "calls", "finds", "greets"]
    objects = ["the garden", "a red ball", "the river", "her hat", "the long road", "a tiny door"]
    lines = []
    for _ in range(n_sentences):
        s = f"{rng.choice(subjects)} {rng.choice(verbs)} {rng.choice(objects)}."
        lines.append(s[0].upper() + s[1:])
    return " ".join(lines) + "\n"


def assert_json_close(want, got, where="", rtol=1e-5, atol=1e-5):
    """Equal structure and strings; floats within rtol/atol (ints are exact): for figures another
    machine computes with its own summation order."""
    import pytest

    if isinstance(want, dict):
        assert isinstance(got, dict) and want.keys() == got.keys(), f"{where}: keys differ"
        for key in want:
            assert_json_close(want[key], got[key], f"{where}.{key}", rtol, atol)
    elif isinstance(want, list):
        assert isinstance(got, list) and len(want) == len(got), f"{where}: lengths differ"
        for i, (a, b) in enumerate(zip(want, got)):
            assert_json_close(a, b, f"{where}[{i}]", rtol, atol)
    elif isinstance(want, float) or isinstance(got, float):
        assert got == pytest.approx(want, rel=rtol, abs=atol), where
    else:
        assert want == got, where


def expected_labels(meta) -> dict:
    """Each head's role label as the grid shows it: role and its score, then its part in the
    circuit meta.json records (written out here from the record, not from the page's code)."""
    rules = {}
    for rule in meta["head_definitions"]["roles"]:
        rules.setdefault(rule["role"], rule["score"])
    out = {}
    for head in meta["heads"]:
        score = rules[head["role"]]
        label = head["role"] if score is None else f"{head['role']} {head['scores'][score]:.2f}"
        out[(head["layer"], head["head"])] = label
    # A circuit meta.json records adds each of its two heads' part (the later head's role words).
    c = meta.get("circuit")
    if c and c.get("head") and c.get("composes_with"):
        later, earlier = (c["head"]["layer"], c["head"]["head"]), (c["composes_with"]["layer"], c["composes_with"]["head"])
        role = next(h["role"] for h in meta["heads"] if (h["layer"], h["head"]) == later)
        out[later] += f" \u00b7 reads L{earlier[0]}H{earlier[1]}"
        out[earlier] += f" \u00b7 feeds L{later[0]}H{later[1]}\u2019s {role}"
    return out
