"""What one attention head does, as numbers: pure numpy on attention patterns, and `SCORES`, the
one registry of head scores. Everything else is derived from it: what `export/heads.py`
measures, meta.json's `heads[].scores` and `head_definitions` (each score's definition, column
label, the data it is measured on, the role thresholds and the even-attention figures), the model
card's columns (site_builder/model_card.py reads them from meta.json) and the score table in
docs/model-files.md (`python -m export.head_scores --docs` rewrites it; a test keeps it in sync).

Adding a detector is one `@registered(...)` pattern function here plus a test on a hand-built pattern with a known
answer (tests/test_head_registry.py `KNOWN_ANSWERS`, which must name every entry).

Every pattern score takes a pattern `[..., q, k]` (causal: row q is zero after key q and sums to
1) and averages over query rows only, returning an array of shape `pattern.shape[:-2]` (a 0-d
array for a single `[T, T]` pattern); the caller averages over windows and sequences. Query 0 can
only attend to itself, so its row says nothing about the head; it is left out of every average
(`previous_token`, `self`, `row_max`) unless a larger start is stated.

Roles: a score may carry a `Role` (label, threshold, group). Groups are checked in order and the
first group with a passing score gives the role, the largest passing score within it; a head
that passes none is "diffuse". Why this order: induction and duplicate-token are measured on
repeated random tokens, where no position or content habit can score above chance (0.011), so
passing them is the strongest evidence of a mechanism. The positional habits come next; a head
that is decisive but on none of those positions must be choosing by content. Every threshold is
at least 5 times (in fact >= 7 times) what even attention scores, so a label never describes
chance. The content threshold is a quarter of the budget on one key, on average over every row:
a head that is decisive only at some tokens (names, verbs, quote marks) and spread elsewhere
averages well below its best rows.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FIRST_TOKEN_FROM = 32  # by q = 32 a head has plenty of other keys, so weight on key 0 is a choice
ENTROPY_FROM = 16  # short rows have little entropy to lose; start where the rows are long enough
FALLBACK_ROLE = "diffuse"
MIN_RATIO_TO_EVEN = 5.0

# The data a score is measured on (export/heads.py builds each).
HELDOUT = "held-out windows"
REPEATED = "repeated random sequences"
ABLATION = "held-out windows, the head switched off"
WEIGHTS = "the weights"


@dataclass(frozen=True)
class Role:
    label: str
    at_least: float
    group: int  # groups are checked in increasing order


@dataclass(frozen=True)
class Score:
    name: str  # the key in meta.json heads[].scores
    label: str  # the model card's column header
    hint: str  # what it measures, in a few words
    definition: str  # the full definition; {n_repeat}, {first_from}, {entropy_from} are filled in
    measured_on: str  # HELDOUT, REPEATED or ABLATION
    # HELDOUT: fn(pattern); REPEATED: fn(pattern, n_repeat); ABLATION: measured by heads.py
    # through the model's head_mask (no pattern can say what a head's output is worth);
    # WEIGHTS: fn(embedding, w_v, w_o, gamma), one head's matrices (weight_scores).
    fn: Callable | None
    role: Role | None = None

    def defined(self, n_repeat: int) -> str:
        return self.definition.format(n_repeat=n_repeat, first_from=FIRST_TOKEN_FROM, entropy_from=ENTROPY_FROM)


SCORES: list[Score] = []  # the registry, in the order the entries are defined below


def registered(name: str, label: str, hint: str, definition: str, measured_on: str, role: Role | None = None):
    """Registers the decorated pattern function as the score `name` (one entry per score)."""
    def add(fn):
        SCORES.append(Score(name, label, hint, definition, measured_on, fn, role))
        return fn
    return add


def _check(pattern: np.ndarray) -> np.ndarray:
    pattern = np.asarray(pattern, dtype=np.float64)  # float32 sums over 128 keys drift in the 7th digit
    if pattern.ndim < 2 or pattern.shape[-1] != pattern.shape[-2]:
        raise ValueError(f"expected a pattern [..., q, k] with q == k, got shape {list(pattern.shape)}")
    return pattern


def _from(start: int, T: int) -> int:
    """The first query row to average from: `start`, or row 1 when the pattern is shorter."""
    return start if T > start else min(1, T - 1)


@registered("previous_token", "previous token", "weight on the token just before",
            "mean weight on key q-1, over query positions q >= 1 of the held-out windows",
            HELDOUT, Role("previous token", 0.30, 2))
def previous_token(pattern: np.ndarray) -> np.ndarray:
    """Mean weight on key q-1, over query rows q >= 1."""
    p = _check(pattern)
    T = p.shape[-1]
    q = np.arange(1, T)
    return p[..., q, q - 1].mean(axis=-1)


@registered("self", "self", "weight on the token itself",
            "mean weight on key q (the query itself), over q >= 1 (row 0 has no choice)", HELDOUT, Role("self", 0.30, 2))
def self_attention(pattern: np.ndarray) -> np.ndarray:
    """Mean weight on key q (the query itself), over query rows q >= 1."""
    p = _check(pattern)
    q = np.arange(_from(1, p.shape[-1]), p.shape[-1])
    return p[..., q, q].mean(axis=-1)


@registered("first_token", "first token", "weight on token 0", "mean weight on key 0, over q >= {first_from}",
            HELDOUT, Role("first token", 0.30, 2))
def first_token(pattern: np.ndarray) -> np.ndarray:
    """Mean weight on key 0, over query rows q >= 32 (q >= 1 if the pattern is shorter)."""
    p = _check(pattern)
    start = _from(FIRST_TOKEN_FROM, p.shape[-1])
    return p[..., start:, 0].mean(axis=-1)


@registered("entropy_bits", "entropy (bits)", "how spread out a row is",
            "mean entropy of a row, in bits, over q >= {entropy_from}", HELDOUT)
def entropy_bits(pattern: np.ndarray) -> np.ndarray:
    """Mean row entropy in bits, over query rows q >= 16 (q >= 1 if the pattern is shorter)."""
    p = _check(pattern)
    rows = p[..., _from(ENTROPY_FROM, p.shape[-1]):, :]
    # 0 * log 0 = 0: masked keys and keys the softmax underflowed to exactly 0 contribute nothing.
    terms = np.where(rows > 0, -rows * np.log2(np.where(rows > 0, rows, 1.0)), 0.0)
    return terms.sum(axis=-1).mean(axis=-1)


@registered("row_max", "row max", "largest weight in a row", "mean largest weight in a row, over q >= 1",
            HELDOUT, Role("content", 0.25, 3))
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


@registered("duplicate_token", "duplicate token", "weight on an earlier copy of the same token",
            "repeated sequences: mean weight of query {n_repeat}+i on key i (the same token in the first copy)",
            REPEATED, Role("duplicate token", 0.20, 1))
def duplicate_token(pattern: np.ndarray, n: int) -> np.ndarray:
    """On n tokens repeated twice: mean weight of query n+i on key i (the same token, earlier)."""
    p, i = _second_copy(pattern, n)
    return p[..., n + i, i].mean(axis=-1)


@registered("induction", "induction", "weight on the token that followed an earlier copy",
            "repeated sequences: mean weight of query {n_repeat}+i on key i+1 (the token that followed it)",
            REPEATED, Role("induction", 0.20, 1))
def induction(pattern: np.ndarray, n: int) -> np.ndarray:
    """On n tokens repeated twice: mean weight of query n+i on key i+1 (what followed that token)."""
    p, i = _second_copy(pattern, n)
    return p[..., n + i, i + 1].mean(axis=-1)


def uniform_causal(T: int) -> np.ndarray:
    """Even attention: row q spreads 1/(q+1) over keys 0..q. The chance level of every score."""
    return np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]


# --- the registry ---------------------------------------------------------------------------------

# Not a pattern score: no pattern can say what a head's output is worth to the loss.
SCORES.append(Score("ablation_nats", "ablation (nats)", "loss added when the head is switched off",
                    "held-out loss (nats/token, over the windows) with this head's output zeroed before the "
                    "output projection, minus the loss without", ABLATION, None))


def copying(embedding: np.ndarray, w_v: np.ndarray, w_o: np.ndarray, gamma: np.ndarray) -> float:
    """Σ Re λ / Σ |λ| over the eigenvalues of one head's OV circuit M = E·W_vᵀ·W_oᵀ·(γ⊙E)ᵀ [V, V]
    (w_v [d_head, C]: its value rows; w_o [C, d_head]: its output columns). M = A·B has the nonzero
    eigenvalues of B·A [d_head, d_head]."""
    E = np.asarray(embedding, np.float64)
    eig = np.linalg.eigvals(np.asarray(w_o, np.float64).T @ (np.asarray(gamma, np.float64)[:, None] * E.T)
                            @ E @ np.asarray(w_v, np.float64).T)
    total = float(np.abs(eig).sum())
    return float(eig.real.sum()) / total if total > 0 else 0.0


SCORES.append(Score("copying", "copying", "whether what the head reads raises the same token's logit",
                    "the full OV circuit E·W_V·W_O·(γ⊙E)ᵀ of the weights (E the tied token table, γ the final "
                    "LayerNorm's scale, the other LayerNorms ignored; Elhage et al. 2021): the sum of its "
                    "eigenvalues' real parts over the sum of their absolute values (1: copies, −1: suppresses)",
                    WEIGHTS, copying))
SCORE_NAMES = tuple(s.name for s in SCORES)
BY_NAME = {s.name: s for s in SCORES}
# (label, score name, threshold) per group, groups in the order they are checked.
ROLE_GROUPS: tuple[tuple[tuple[str, str, float], ...], ...] = tuple(
    tuple((s.role.label, s.name, s.role.at_least) for s in SCORES if s.role and s.role.group == g)
    for g in sorted({s.role.group for s in SCORES if s.role}))
ROLES = tuple(label for group in ROLE_GROUPS for label, _, _ in group) + (FALLBACK_ROLE,)


def pattern_scores(measured_on: str, pattern: np.ndarray, n_repeat: int) -> dict[str, np.ndarray]:
    """Every registered score measured on this kind of data, on `pattern`."""
    return {s.name: s.fn(pattern) if measured_on == HELDOUT else s.fn(pattern, n_repeat)
            for s in SCORES if s.measured_on == measured_on}


def weight_scores(weights: dict, n_layer: int, n_head: int) -> dict[str, np.ndarray]:
    """Every WEIGHTS score of every head [n_layer, n_head], from a state dict of numpy arrays."""
    E, gamma = weights["tok_emb.weight"], weights["ln_final.weight"]
    C = E.shape[1]
    Dh = C // n_head
    out = {}
    for s in SCORES:
        if s.measured_on != WEIGHTS:
            continue
        table = np.zeros((n_layer, n_head))
        for layer in range(n_layer):
            qkv, proj = weights[f"blocks.{layer}.attn.qkv.weight"], weights[f"blocks.{layer}.attn.proj.weight"]
            for head in range(n_head):
                cols = slice(head * Dh, (head + 1) * Dh)
                table[layer, head] = s.fn(E, qkv[2 * C + head * Dh: 2 * C + (head + 1) * Dh], proj[:, cols], gamma)
        out[s.name] = table
    return out


def even_attention_scores(n_ctx: int = 128, n_repeat: int = 63) -> dict[str, float]:
    """What a head that attends evenly would score, under the same windows as `measure_heads`."""
    out = {**pattern_scores(HELDOUT, uniform_causal(n_ctx), n_repeat),
           **pattern_scores(REPEATED, uniform_causal(2 * n_repeat), n_repeat)}
    return {name: float(v) for name, v in out.items()}


def role(scores: dict[str, float]) -> str:
    """The label for a head's scores (see the module docstring for the order)."""
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


def score_table() -> list[dict]:
    """The registry as meta.json's `head_definitions.scores`: what the model card's columns show."""
    return [{"name": s.name, "label": s.label, "hint": s.hint, "measured_on": s.measured_on,
             "role": s.role.label if s.role else None} for s in SCORES]


# --- the docs' copy -------------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs" / "model-files.md"
DOCS_BEGIN = "<!-- head scores: written by `python -m export.head_scores --docs` -->"
DOCS_END = "<!-- end of head scores -->"


def docs_table(n_repeat: int = 63) -> str:
    rows = ["| score | measured on | definition | role (at least) |", "|---|---|---|---|"]
    for s in SCORES:
        rule = f"{s.role.label} (≥ {s.role.at_least:g}, group {s.role.group})" if s.role else ""
        rows.append(f"| `{s.name}` | {s.measured_on} | {s.defined(n_repeat)} | {rule} |")
    return "\n".join([DOCS_BEGIN, *rows, DOCS_END])


def docs_with_table(text: str) -> str:
    before, rest = text.split(DOCS_BEGIN, 1)
    _, after = rest.split(DOCS_END, 1)
    return before + docs_table() + after


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m export.head_scores", description="The head-score registry.")
    p.add_argument("--docs", action="store_true", help=f"rewrite the score table in {DOCS.name}")
    ns = p.parse_args(argv)
    if ns.docs:
        DOCS.write_text(docs_with_table(DOCS.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"wrote the score table in {DOCS}")
    else:
        print(docs_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
