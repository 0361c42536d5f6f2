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
    # Not a pattern score: measured through the model's head_mask (tests/test_heads_on_models.py
    # test_ablation_on_a_pytorch_run computes it by hand on a real PyTorch model).
    "ablation_nats": (hs.ABLATION, None, None),
    # A weight score: a hand-built OV circuit (E = I, W_V·W_O = I, γ = 1) copies every token.
    "copying": (hs.WEIGHTS, (np.eye(4), np.eye(4), np.eye(4), np.ones(4)), 1.0),
}


def test_every_score_has_a_known_answer():
    assert list(KNOWN_ANSWERS) == list(hs.SCORE_NAMES)
    for score in hs.SCORES:
        kind, pattern, answer = KNOWN_ANSWERS[score.name]
        assert score.measured_on == kind, score.name
        if kind == hs.ABLATION:
            assert score.fn is None
            continue
        if kind == hs.WEIGHTS:
            assert score.fn(*pattern) == pytest.approx(answer, abs=1e-12), score.name
            continue
        got = hs.pattern_scores(kind, pattern, N)[score.name]
        assert float(got) == pytest.approx(answer, abs=1e-12), score.name


def test_copying_score_on_hand_built_ov_circuits():
    """Identity → 1, minus identity → −1; a circuit that copies two directions, suppresses one with
    half the weight and ignores one: (1 + 1 − 0.5) / 2.5; a rotation (eigenvalues ±i) → 0; and
    γ and the embedding enter as the full circuit E·W_V·W_O·(γ⊙E)ᵀ says."""
    eye = np.eye(4)
    assert hs.copying(eye, eye, eye, np.ones(4)) == pytest.approx(1.0, abs=1e-12)
    assert hs.copying(eye, eye, -eye, np.ones(4)) == pytest.approx(-1.0, abs=1e-12)
    assert hs.copying(eye, eye, np.diag([1.0, 1.0, -0.5, 0.0]), np.ones(4)) == pytest.approx(0.6, abs=1e-12)
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    assert hs.copying(np.eye(2), np.eye(2), rotation, np.ones(2)) == pytest.approx(0.0, abs=1e-12)
    # A negative γ on one channel turns that channel's copying into suppression.
    assert hs.copying(eye, eye, eye, np.array([1.0, 1.0, 1.0, -1.0])) == pytest.approx(0.5, abs=1e-12)
    # A tall embedding (6 tokens in 4 channels): E·Eᵀ is positive semidefinite, so W_V·W_O = I still copies.
    E = np.random.default_rng(0).standard_normal((6, 4))
    assert hs.copying(E, eye, eye, np.ones(4)) == pytest.approx(1.0, abs=1e-9)
    assert hs.copying(E, eye, -eye, np.ones(4)) == pytest.approx(-1.0, abs=1e-9)


def test_weight_scores_read_each_heads_own_rows_and_columns():
    """One layer of 2 heads in 4 channels: head 1 reads channels 0-1 and writes them back, head 2
    reads channels 2-3 and writes them back negated."""
    C, eye = 4, np.eye(4)
    qkv = np.zeros((3 * C, C))
    qkv[2 * C:] = eye  # value rows: head 1's are rows 0-1 of v, head 2's rows 2-3
    proj = np.diag([1.0, 1.0, -1.0, -1.0])  # head 1's output columns 0-1, head 2's 2-3
    weights = {"tok_emb.weight": eye, "ln_final.weight": np.ones(C),
               "blocks.0.attn.qkv.weight": qkv, "blocks.0.attn.proj.weight": proj}
    np.testing.assert_allclose(hs.weight_scores(weights, 1, 2)["copying"], [[1.0, -1.0]], atol=1e-12)


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
