"""Head measurements: score functions on hand-built patterns with exactly known answers, and the
roles they imply (tests/test_heads_on_models.py measures real models)."""

from __future__ import annotations

import numpy as np
import pytest

from export import head_scores as hs
from export import heads

T = 128
N = heads.N_REPEAT


def previous_pattern(T: int = T) -> np.ndarray:
    p = np.zeros((T, T))
    p[0, 0] = 1.0  # row 0 has only itself
    p[np.arange(1, T), np.arange(T - 1)] = 1.0
    return p


def self_pattern(T: int = T) -> np.ndarray:
    return np.eye(T)


def first_pattern(T: int = T) -> np.ndarray:
    p = np.zeros((T, T))
    p[:, 0] = 1.0
    return p


def repeated_pattern(n: int, shift: int) -> np.ndarray:
    """Even attention in the first copy; in the second, query n+i puts everything on key i+shift."""
    p = hs.uniform_causal(2 * n)
    i = np.arange(n)
    p[n + i] = 0.0
    p[n + i, i + shift] = 1.0
    return p


def content_pattern(T: int = T, seed: int = 0) -> np.ndarray:
    """Each row puts 0.9 on one earlier key chosen at random (not q, q-1 or 0), the rest evenly:
    decisive, yet on no fixed position."""
    rng = np.random.default_rng(seed)
    p = hs.uniform_causal(T)
    for q in range(3, T):
        p[q, : q + 1] = 0.1 / (q + 1)
        p[q, rng.integers(1, q - 1)] += 0.9
    return p


def natural_scores(p: np.ndarray, repeated: np.ndarray | None = None) -> dict[str, float]:
    r = hs.uniform_causal(2 * N) if repeated is None else repeated
    return {
        "previous_token": float(hs.previous_token(p)), "self": float(hs.self_attention(p)),
        "first_token": float(hs.first_token(p)), "entropy_bits": float(hs.entropy_bits(p)),
        "row_max": float(hs.row_max(p)), "duplicate_token": float(hs.duplicate_token(r, N)),
        "induction": float(hs.induction(r, N)),
    }


@pytest.mark.parametrize("make", [previous_pattern, self_pattern, first_pattern, hs.uniform_causal, content_pattern])
def test_hand_built_patterns_are_causal_attention(make):
    p = make(T)
    assert np.allclose(p.sum(axis=-1), 1.0) and not np.triu(p, 1).any()


def test_previous_token_pattern():
    s = natural_scores(previous_pattern())
    assert s["previous_token"] == 1.0
    assert s["self"] == 0.0
    assert s["entropy_bits"] == 0.0 and s["row_max"] == 1.0


def test_uniform_pattern_scores_chance():
    s = natural_scores(hs.uniform_causal(T))
    q = np.arange(T)
    assert s["previous_token"] == pytest.approx(np.mean(1 / (q[1:] + 1)), abs=1e-12)
    assert s["self"] == pytest.approx(np.mean(1 / (q[1:] + 1)), abs=1e-12)
    assert s["first_token"] == pytest.approx(np.mean(1 / (q[32:] + 1)), abs=1e-12)
    assert s["entropy_bits"] == pytest.approx(np.mean(np.log2(q[16:] + 1)), abs=1e-12)
    assert s["row_max"] == pytest.approx(np.mean(1 / (q[1:] + 1)), abs=1e-12)
    n = np.arange(N)
    assert s["induction"] == pytest.approx(np.mean(1 / (N + n + 1)), abs=1e-12)
    assert s["duplicate_token"] == pytest.approx(s["induction"], abs=1e-12)
    # The figures the notes quote for even attention over 128-token windows.
    assert round(s["previous_token"], 3) == 0.035 and round(s["induction"], 3) == 0.011


def test_self_and_first_token_patterns():
    assert float(hs.self_attention(self_pattern())) == 1.0
    assert float(hs.previous_token(self_pattern())) == 0.0
    assert float(hs.first_token(first_pattern())) == 1.0
    assert float(hs.previous_token(first_pattern())) == pytest.approx(1 / (T - 1))  # only row 1's key 0 is q-1


def test_induction_and_duplicate_patterns():
    ind, dup = repeated_pattern(N, shift=1), repeated_pattern(N, shift=0)
    assert float(hs.induction(ind, N)) == 1.0 and float(hs.duplicate_token(ind, N)) == 0.0
    assert float(hs.duplicate_token(dup, N)) == 1.0 and float(hs.induction(dup, N)) == 0.0
    with pytest.raises(ValueError, match="repeated twice"):
        hs.induction(hs.uniform_causal(T), N)


def test_scores_keep_leading_axes():
    stack = np.stack([previous_pattern(), self_pattern(), first_pattern()])[None]  # [1, 3, T, T]
    assert hs.previous_token(stack).shape == (1, 3)
    assert np.array_equal(hs.previous_token(stack)[0], [1.0, 0.0, 1 / (T - 1)])
    assert np.array_equal(hs.self_attention(stack)[0], [0.0, 1.0, 0.0])


@pytest.mark.parametrize("pattern, repeated, expected", [
    (previous_pattern(), None, "previous token"),
    (self_pattern(), None, "self"),
    (first_pattern(), None, "first token"),
    (hs.uniform_causal(T), repeated_pattern(N, 1), "induction"),
    (hs.uniform_causal(T), repeated_pattern(N, 0), "duplicate token"),
    (previous_pattern(), repeated_pattern(N, 1), "induction"),  # induction outranks a positional habit
    (content_pattern(), None, "content"),
    (hs.uniform_causal(T), None, "diffuse"),
])
def test_roles(pattern, repeated, expected):
    assert hs.role(natural_scores(pattern, repeated)) == expected


def mixed_pattern(on_previous: float) -> np.ndarray:
    p = np.zeros((T, T))
    p[0, 0] = 1.0
    q = np.arange(2, T)
    p[1, 0] = 1.0
    p[q, q - 1] = on_previous
    p[q, 0] = 1.0 - on_previous
    return p


@pytest.mark.parametrize("on_previous, expected", [(0.6, "previous token"), (0.4, "first token")])
def test_role_within_a_group_goes_to_the_larger_score(on_previous, expected):
    s = natural_scores(mixed_pattern(on_previous))
    assert s["previous_token"] >= 0.3 and s["first_token"] >= 0.3
    assert hs.role(s) == expected


def test_thresholds_are_well_above_even_attention():
    even = hs.even_attention_scores(T, N)
    for group in hs.ROLE_GROUPS:
        for _, name, threshold in group:
            assert threshold >= hs.MIN_RATIO_TO_EVEN * even[name], name


def test_repeated_sequences_and_in_context_gain():
    cand = np.array([5, 9, 11, 40])
    seqs = heads.repeated_sequences(cand, seed=3)
    assert seqs.shape == (64, 2 * N) and np.array_equal(seqs[:, :N], seqs[:, N:])
    assert set(np.unique(seqs)) <= set(cand.tolist())
    assert np.array_equal(seqs, heads.repeated_sequences(cand, seed=3))
    # Logits that know nothing (uniform over V) except in the second copy after its first token:
    # the second copy's first token has nothing before it to copy from, so it is left out.
    V = 50
    logits = np.zeros((64, 2 * N, V), dtype=np.float32)
    for t in range(N, 2 * N - 1):
        logits[np.arange(64), t, seqs[:, t + 1]] = 100.0
    losses = heads.token_losses(logits, seqs)
    assert losses[:, : N - 1] == pytest.approx(np.log(V))
    assert heads.in_context_gain(losses, N) == pytest.approx(np.log(V), abs=1e-6)
