"""The head-score registry (export/head_scores.py `SCORES`) is the one list of scores: every entry
has a known answer on a hand-built pattern, and meta.json, the model card's columns and the docs
all follow it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_heads import N, T, first_pattern, previous_pattern, repeated_pattern, self_pattern

from conftest import MODEL_DIR
from export import head_scores as hs
from export import heads

# name -> (the data kind, a hand-built pattern, the exact answer). A new registry entry fails
# test_every_score_has_a_known_answer until it has one here.
KNOWN_ANSWERS = {
    "previous_token": (hs.HELDOUT, previous_pattern(), 1.0),
    "self": (hs.HELDOUT, self_pattern(), 1.0),
    "first_token": (hs.HELDOUT, first_pattern(), 1.0),
    "entropy_bits": (hs.HELDOUT, hs.uniform_causal(T), float(np.mean(np.log2(np.arange(16, T) + 1)))),
    "row_max": (hs.HELDOUT, previous_pattern(), 1.0),
    "duplicate_token": (hs.REPEATED, repeated_pattern(N, shift=0), 1.0),
    "induction": (hs.REPEATED, repeated_pattern(N, shift=1), 1.0),
    # Not a pattern score: measured through the model's head_mask (tests/test_heads.py
    # test_ablation_on_a_pytorch_run computes it by hand on a real PyTorch model).
    "ablation_nats": (hs.ABLATION, None, None),
}


def test_every_score_has_a_known_answer():
    assert list(KNOWN_ANSWERS) == list(hs.SCORE_NAMES)
    for score in hs.SCORES:
        kind, pattern, answer = KNOWN_ANSWERS[score.name]
        assert score.measured_on == kind, score.name
        if kind == hs.ABLATION:
            assert score.fn is None
            continue
        got = hs.pattern_scores(kind, pattern, N)[score.name]
        assert float(got) == pytest.approx(answer, abs=1e-12), score.name


def test_roles_come_from_the_registry():
    with_roles = [s for s in hs.SCORES if s.role]
    assert {label for group in hs.ROLE_GROUPS for label, _, _ in group} == {s.role.label for s in with_roles}
    assert [r["role"] for r in hs.role_table()][-1] == hs.FALLBACK_ROLE
    for s in with_roles:  # a role rewards a score well above what even attention gives
        assert s.role.at_least >= hs.MIN_RATIO_TO_EVEN * hs.even_attention_scores(T, N)[s.name], s.name


def test_measure_heads_measures_exactly_the_registry():
    rng = np.random.default_rng(0)

    def run(ids, head_mask=None):  # a fixed causal pattern per head: enough to see which scores come back
        W, L = ids.shape
        att = np.broadcast_to(hs.uniform_causal(L), (W, 1, 2, L, L)).copy()
        return rng.standard_normal((W, L, 11)).astype(np.float32), att

    out = heads.measure_heads(run, rng.integers(0, 11, 300), np.arange(11), 1, 2, n_ctx=128)
    for entry in out["heads"]:
        assert list(entry["scores"]) == list(hs.SCORE_NAMES)
    assert [row["name"] for row in out["definitions"]["scores"]] == list(hs.SCORE_NAMES)
    assert all(isinstance(out["definitions"][name], str) for name in hs.SCORE_NAMES)


def test_committed_meta_json_follows_the_registry():
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    defs = meta["head_definitions"]
    assert [row["name"] for row in defs["scores"]] == list(hs.SCORE_NAMES)
    assert defs["roles"] == hs.role_table()
    for entry in meta["heads"]:
        assert list(entry["scores"]) == list(hs.SCORE_NAMES)


def test_the_docs_table_is_the_registry():
    text = hs.DOCS.read_text(encoding="utf-8")
    assert hs.docs_with_table(text) == text, "docs/model-files.md is stale: run python -m export.head_scores --docs"
    for name in hs.SCORE_NAMES:
        assert f"`{name}`" in text
