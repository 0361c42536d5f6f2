"""The induction circuit, measured: the best induction head of the last layers, and what switching
each head of an earlier layer off (the graph's `head_mask`) does to its induction score and to the
model's in-context gain. A layer-2 induction head that reads a layer-1 head's output composes
with it: switch that head off and the stripe goes, and with it the copying (Olsson et al. 2022).

Measured on the same repeated random sequences as the head scores (export/heads.py), so the
figures are comparable with meta.json's `heads`."""

from __future__ import annotations

import numpy as np

from export import head_scores as hs
from export.golden import softmax
from export.heads import DIGITS, Run, in_context_gain, n_repeat_for, repeated_sequences, seen_tokens, token_losses

# "At least halves": the composing head is the one whose removal leaves at most this share of
# the induction score.
HALVES = 0.5
# A row whose target cell holds less than this is no visible part of the stripe: the example
# (and the widget's "Repeat it", static/attention-view/readouts/induction.js) is chosen among
# the others when there are any. Written to meta.json, which the widget reads it from.
STRIPE = 0.3


def induction_threshold() -> float:
    return next(t for group in hs.ROLE_GROUPS for label, _, t in group if label == "induction")


def measure_circuit(run: Run, heads: list[dict], token_counts, n_layer: int, n_head: int, n_ctx: int,
                    seed: int = 0) -> dict | None:
    """None when no head after layer 1 has the induction role; else {"head", "induction",
    "in_context_gain", "switch_off": [{"layer", "head", "induction", "in_context_gain"}],
    "composes_with": {"layer", "head"} or None, "definition"}."""
    later = [h for h in heads if h["layer"] > 1 and h["role"] == "induction"]
    if not later:
        return None
    top = max(later, key=lambda h: h["scores"]["induction"])
    n = n_repeat_for(n_ctx)
    seqs = repeated_sequences(seen_tokens(token_counts), n=n, seed=seed)
    where = (top["layer"] - 1, top["head"] - 1)

    def figures(mask):
        logits, att = run(seqs, mask)
        score = float(hs.induction(att, n)[:, where[0], where[1]].mean())
        return round(score, DIGITS), round(in_context_gain(token_losses(logits, seqs), n), DIGITS)

    base, gain = figures(None)
    switched = []
    for layer in range(top["layer"] - 1):
        for head in range(n_head):
            mask = np.ones((n_layer, n_head), dtype=np.float32)
            mask[layer, head] = 0.0
            score, g = figures(mask)
            switched.append({"layer": layer + 1, "head": head + 1, "induction": score, "in_context_gain": g})
    weakest = min(switched, key=lambda s: s["induction"])
    composes = weakest if weakest["induction"] <= HALVES * base else None
    return {
        "head": {"layer": top["layer"], "head": top["head"]},
        "induction": base,
        "in_context_gain": gain,
        "switch_off": switched,
        "composes_with": None if composes is None else {"layer": composes["layer"], "head": composes["head"]},
        "stripe": STRIPE,  # the example's (and the widget's "Repeat it") threshold for a visible stripe cell
        "definition": (f"the last layers' head with the largest induction score (role threshold "
                       f"{induction_threshold()}), its score and the in-context gain with each earlier head switched "
                       f"off in turn (head_mask), on the repeated sequences; it composes with the earlier head whose "
                       f"removal leaves at most {HALVES:.0%} of its score"),
    }


def repeated_text(text: str, encode, n_ctx: int) -> str:
    """`text` followed by itself, first cut at a space until one copy fits half the window (the
    widget's "Repeat it" estimates the cut from the shown tokens' characters instead)."""
    room = (n_ctx - 1) // 2
    part = text.strip()
    while len(encode(part)) > room and " " in part:
        part = part.rsplit(" ", 1)[0]
    return f"{part} {part}"


def induction_targets(ids) -> list[int]:
    """For each query, the key an induction head would attend to: one past the latest earlier
    position with the same token id, when that is still before the query; -1 where there is
    none (readouts/induction.js inductionTargets, held to the same cases by
    tests/data/induction-cases.json)."""
    last: dict = {}
    out = []
    for q, token in enumerate(ids):
        seen = last.get(token)
        last[token] = q
        out.append(seen + 1 if seen is not None and seen + 1 < q else -1)
    return out


def example_row(rows: list[tuple[int, int, float]], p_next, stripe: float = STRIPE) -> tuple[int, int, float] | None:
    """The row of a repeated text that tells the induction story best: among (query, key, weight)
    rows with a visible stripe cell (all of them if none has one), the one where the probability
    of the token that comes next rose most since the query's earlier occurrence (key - 1), which
    is what the repeat taught the model; ties keep the first listed (the earliest: rows come in
    query order), as readouts/induction.js exampleRow does. `p_next(q)`: the model's
    probability at position q of the token at q + 1."""
    if not rows:
        return None
    pool = [r for r in rows if r[2] >= stripe] or rows
    return max(pool, key=lambda r: p_next(r[0]) - p_next(r[1] - 1))  # max keeps the first of equals


def circuit_example(run: Run, tokenizer, circuit: dict, text: str, n_ctx: int) -> dict | None:
    """The circuit head on `text` repeated: {"text", "token", "key", "weight"} of `example_row`,
    the last token left out (it has no next token to compare); None when no row has a target."""
    doubled = repeated_text(text, lambda t: tokenizer.encode(t).ids, n_ctx)
    ids = tokenizer.encode(doubled).ids[:n_ctx]
    logits, att = run(np.array([ids], dtype=np.int64), None)  # logits: [1, T, V]; att: [1, layer, head, T, T]
    probs = softmax(logits[0])  # [T, V]
    row = att[0, circuit["head"]["layer"] - 1, circuit["head"]["head"] - 1]  # [T, T]
    rows = [(q, key, float(row[q, key])) for q, key in enumerate(induction_targets(ids)[:-1]) if key >= 0]
    best = example_row(rows, lambda q: float(probs[q, ids[q + 1]]))
    return best and {"text": doubled, "token": best[0], "key": best[1], "weight": round(best[2], DIGITS)}
