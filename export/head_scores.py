"""What one attention head does, as numbers: pure numpy on attention patterns.

Every score takes a pattern `[..., q, k]` (causal: row q is zero after key q and sums to 1) and
averages over query rows only, returning an array of shape `pattern.shape[:-2]` (a 0-d array for a
single `[T, T]` pattern); the caller averages over windows and sequences.

Query 0 can only attend to itself, so its row says nothing about the head; it is left out of every
average (`previous_token`, `self`, `row_max`) unless a larger start is stated.

Roles (`role`), checked in this order, first group that passes wins:

| order | label | passes when | even attention (128-token windows / n = 63) |
|---|---|---|---|
| 1 | "induction" / "duplicate token" | induction ≥ 0.20 / duplicate_token ≥ 0.20; if both pass, the larger | 0.011 / 0.011 |
| 2 | "previous token" / "first token" / "self" | previous_token ≥ 0.30 / first_token ≥ 0.30 / self ≥ 0.30; if several pass, the larger | 0.035 / 0.014 / 0.035 |
| 3 | "content" | row_max ≥ 0.25 (decisive, yet on no fixed position) | 0.035 |
| 4 | "diffuse" | otherwise | |

Why this order: induction and duplicate-token are measured on repeated random tokens, where no
position or content habit can score above chance (0.011), so passing them is the strongest
evidence of a mechanism. The positional habits come next; a head that is decisive but on none of
those positions must be choosing by content. Every threshold is at least 5 times (in fact ≥ 7
times) what even attention scores, so a label never describes chance. The content threshold is a
quarter of the budget on one key, on average over every row: a head that is decisive only at some
tokens (names, verbs, quote marks) and spread elsewhere averages well below its best rows.
"""

from __future__ import annotations

import numpy as np

FIRST_TOKEN_FROM = 32  # by q = 32 a head has plenty of other keys, so weight on key 0 is a choice
ENTROPY_FROM = 16  # short rows have little entropy to lose; start where the rows are long enough

# (label, score name, threshold); groups are checked in order, within a group the largest passing score wins.
ROLE_GROUPS: tuple[tuple[tuple[str, str, float], ...], ...] = (
    (("induction", "induction", 0.20), ("duplicate token", "duplicate_token", 0.20)),
    (("previous token", "previous_token", 0.30), ("first token", "first_token", 0.30), ("self", "self", 0.30)),
    (("content", "row_max", 0.25),),
)
FALLBACK_ROLE = "diffuse"
ROLES = tuple(label for group in ROLE_GROUPS for label, _, _ in group) + (FALLBACK_ROLE,)
MIN_RATIO_TO_EVEN = 5.0


def _check(pattern: np.ndarray) -> np.ndarray:
    pattern = np.asarray(pattern, dtype=np.float64)  # float32 sums over 128 keys drift in the 7th digit
    if pattern.ndim < 2 or pattern.shape[-1] != pattern.shape[-2]:
        raise ValueError(f"expected a pattern [..., q, k] with q == k, got shape {list(pattern.shape)}")
    return pattern


def _from(start: int, T: int) -> int:
    """The first query row to average from: `start`, or row 1 when the pattern is shorter."""
    return start if T > start else min(1, T - 1)


def previous_token(pattern: np.ndarray) -> np.ndarray:
    """Mean weight on key q-1, over query rows q >= 1."""
    p = _check(pattern)
    T = p.shape[-1]
    q = np.arange(1, T)
    return p[..., q, q - 1].mean(axis=-1)


def self_attention(pattern: np.ndarray) -> np.ndarray:
    """Mean weight on key q (the query itself), over query rows q >= 1."""
    p = _check(pattern)
    q = np.arange(_from(1, p.shape[-1]), p.shape[-1])
    return p[..., q, q].mean(axis=-1)


def first_token(pattern: np.ndarray) -> np.ndarray:
    """Mean weight on key 0, over query rows q >= 32 (q >= 1 if the pattern is shorter)."""
    p = _check(pattern)
    start = _from(FIRST_TOKEN_FROM, p.shape[-1])
    return p[..., start:, 0].mean(axis=-1)


def entropy_bits(pattern: np.ndarray) -> np.ndarray:
    """Mean row entropy in bits, over query rows q >= 16 (q >= 1 if the pattern is shorter)."""
    p = _check(pattern)
    rows = p[..., _from(ENTROPY_FROM, p.shape[-1]):, :]
    # 0 * log 0 = 0: masked keys and keys the softmax underflowed to exactly 0 contribute nothing.
    terms = np.where(rows > 0, -rows * np.log2(np.where(rows > 0, rows, 1.0)), 0.0)
    return terms.sum(axis=-1).mean(axis=-1)


def row_max(pattern: np.ndarray) -> np.ndarray:
    """Mean largest weight per row, over query rows q >= 1."""
    p = _check(pattern)
    return p[..., _from(1, p.shape[-1]):, :].max(axis=-1).mean(axis=-1)


def _second_copy(pattern: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    p = _check(pattern)
    if p.shape[-1] != 2 * n:
        raise ValueError(f"expected a pattern over a sequence of {n} tokens repeated twice ({2 * n}), got {p.shape[-1]}")
    i = np.arange(n)
    return p, i


def duplicate_token(pattern: np.ndarray, n: int) -> np.ndarray:
    """On n tokens repeated twice: mean weight of query n+i on key i (the same token, earlier)."""
    p, i = _second_copy(pattern, n)
    return p[..., n + i, i].mean(axis=-1)


def induction(pattern: np.ndarray, n: int) -> np.ndarray:
    """On n tokens repeated twice: mean weight of query n+i on key i+1 (what followed that token)."""
    p, i = _second_copy(pattern, n)
    return p[..., n + i, i + 1].mean(axis=-1)


def uniform_causal(T: int) -> np.ndarray:
    """Even attention: row q spreads 1/(q+1) over keys 0..q. The chance level of every score."""
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]


def even_attention_scores(n_ctx: int = 128, n_repeat: int = 63) -> dict[str, float]:
    """What a head that attends evenly would score, under the same windows as `measure_heads`."""
    u = uniform_causal(n_ctx)
    r = uniform_causal(2 * n_repeat)
    return {
        "previous_token": float(previous_token(u)),
        "self": float(self_attention(u)),
        "first_token": float(first_token(u)),
        "entropy_bits": float(entropy_bits(u)),
        "row_max": float(row_max(u)),
        "duplicate_token": float(duplicate_token(r, n_repeat)),
        "induction": float(induction(r, n_repeat)),
    }


def role(scores: dict[str, float]) -> str:
    """The label for a head's scores (see the module docstring for the table and the order)."""
    for group in ROLE_GROUPS:
        passing = [(scores[name], label) for label, name, threshold in group if scores[name] >= threshold]
        if passing:
            return max(passing)[1]
    return FALLBACK_ROLE


def role_table() -> list[dict]:
    """The thresholds as data, for meta.json's `definitions`."""
    return [
        {"order": order, "role": label, "score": name, "at_least": threshold}
        for order, group in enumerate(ROLE_GROUPS, start=1)
        for label, name, threshold in group
    ] + [{"order": len(ROLE_GROUPS) + 1, "role": FALLBACK_ROLE, "score": None, "at_least": None}]
