"""What every head does, measured on the exported model: `measure_heads` -> meta.json's `heads`.

The model is reached only through a `Run` callable, so the same code measures the ONNX graph
(`ort_run`) or a PyTorch model. The scores, their definitions and the role thresholds are the
registry in `export/head_scores.py`; this module builds the data each kind is measured on:

- held-out windows: non-overlapping `n_ctx`-token windows of the held-out ids (the tail that does
  not fill a window is dropped, so every window has the same length and the same chance levels;
  a held-out text shorter than one window is measured as one window of all of it);
- repeated random sequences: 64 sequences of 63 tokens (fewer when the context is shorter than
  126: half of it) drawn uniformly, with a seeded numpy Generator, from `candidate_ids`, each
  repeated twice (126 tokens, within the 128 context);
- examples: one-line spans of the held-out text (export/examples' source: the sample text
  export/probe_text.txt instead when the held-out text has no span long enough), each measured
  on that short text itself so that the figures the page shows for it are exactly these.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np

from attention_live.feeds import HEAD_MASK, graph_feeds
from export import head_scores as hs

Run = Callable[[np.ndarray, np.ndarray | None], tuple[np.ndarray, np.ndarray]]
"""run(ids [W, T] int64, head_mask [n_layer, n_head] float32 or None)
-> (logits [W, T, V] float32, attention [W, n_layer, n_head, T, T] float32)"""

# Prose written for this project: the examples' text when the held-out text has no span long
# enough to be one (a very short text, or a context shorter than a span), and then named as such.
PROBE_TEXT = Path(__file__).resolve().parent / "probe_text.txt"
HELDOUT_SOURCE = "held-out text"
SAMPLE_SOURCE = "sample text export/probe_text.txt"
N_SEQUENCES = 64
N_REPEAT = 63  # 2 x 63 = 126 tokens fit the 128-token context
MIN_SEEN = 3  # a token seen fewer times in training has an embedding too rough to say anything
EXAMPLE_SPAN = 40  # tokens measured per candidate span
EXAMPLE_MIN_TOKENS = 24  # the example text is at least this long, so the head sees real context
EXAMPLE_MIN_QUERY = 8  # at least 8 earlier keys compete, so a large weight is not just few choices
EXAMPLE_STRIDE = 4  # spans start at a word at least this many tokens after the previous start
DIGITS = 4

SCORE_NAMES = hs.SCORE_NAMES


def n_repeat_for(n_ctx: int) -> int:
    """The length of one copy in the repeated sequences: two copies must fit the context."""
    return min(N_REPEAT, n_ctx // 2)


def ort_run(session) -> Run:
    """A Run over an onnxruntime session of the browser graph (batch 1: loops over the windows).

    head_mask None means every head on; logits come at every position (attention_live/feeds.py graph_feeds)."""
    outputs = ["logits", "attention"]

    def run(ids: np.ndarray, head_mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        logits, attention = [], []
        for row in np.asarray(ids, dtype=np.int64):
            lg, att = session.run(outputs, graph_feeds(session, row, head_mask))
            logits.append(lg[0])
            attention.append(att)
        return np.stack(logits), np.stack(attention)

    return run


def has_head_mask(session) -> bool:
    return HEAD_MASK in {i.name for i in session.get_inputs()}


def seen_tokens(token_counts, min_count: int = MIN_SEEN) -> np.ndarray:
    """The ids seen at least `min_count` times in training (the checkpoint's `token_counts`)."""
    return np.nonzero(np.asarray(token_counts) >= min_count)[0]


def heldout_windows(heldout_ids, n_ctx: int) -> np.ndarray:
    ids = np.asarray(heldout_ids, dtype=np.int64)
    if len(ids) < 2:
        raise ValueError(f"held-out text has {len(ids)} tokens: too few to measure a head on")
    width = min(n_ctx, len(ids))
    n = len(ids) // width
    return ids[: n * width].reshape(n, width)


def repeated_sequences(candidate_ids, n_sequences: int = N_SEQUENCES, n: int = N_REPEAT, seed: int = 0) -> np.ndarray:
    """[n_sequences, 2n]: n tokens drawn uniformly from candidate_ids, then the same n again."""
    candidates = np.asarray(candidate_ids, dtype=np.int64)
    if candidates.size == 0:
        raise ValueError("no candidate ids to draw repeated sequences from")
    first = np.random.default_rng(seed).choice(candidates, size=(n_sequences, n), replace=True)
    return np.concatenate([first, first], axis=1)


def token_losses(logits: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """[W, T-1]: nats to predict ids[:, t+1] from position t, computed in float64."""
    z = logits[:, :-1].astype(np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    log_norm = np.log(np.exp(z).sum(axis=-1))
    target = np.take_along_axis(z, ids[:, 1:, None], axis=-1)[..., 0]
    return log_norm - target


def in_context_gain(losses: np.ndarray, n: int) -> float:
    """First copy minus second copy, over the same within-copy positions i = 1..n-1 (position 0 of
    either copy cannot be predicted from the copy before it)."""
    first = losses[:, 0 : n - 1]  # predicts tokens 1..n-1
    second = losses[:, n : 2 * n - 1]  # predicts tokens n+1..2n-1, the same tokens again
    return float(first.mean() - second.mean())


def _ablation(run: Run, windows: np.ndarray, n_layer: int, n_head: int, base_loss: float) -> np.ndarray:
    out = np.zeros((n_layer, n_head))
    for layer in range(n_layer):
        for head in range(n_head):
            mask = np.ones((n_layer, n_head), dtype=np.float32)
            mask[layer, head] = 0.0
            logits, _ = run(windows, mask)
            out[layer, head] = token_losses(logits, windows).mean() - base_loss
    return out


# --- examples -------------------------------------------------------------------------------------

def _one_line(text: str) -> str:
    # The book is hard-wrapped: its line breaks are layout, not content, and a one-line example
    # reads like what a reader would type.
    return re.sub(r"[ \t]*\n\s*", " ", text).strip()


def example_texts(heldout_ids: np.ndarray, decode, encode, n_ctx: int) -> list[tuple[str, list[int]]]:
    """Candidate (text, ids) spans of held-out text, starting at a word, one line, each text's ids
    round-tripping exactly (encode(decode(ids)) == ids), so the page re-tokenizes to the same ids."""
    ids = [int(i) for i in heldout_ids]
    pieces = [decode([i]) for i in ids]
    out, seen, last = [], set(), -EXAMPLE_STRIDE
    for s in range(len(ids) - EXAMPLE_MIN_TOKENS):
        at_word = s > 0 and (pieces[s][:1].isspace() or pieces[s - 1][-1:].isspace())
        if not at_word or s - last < EXAMPLE_STRIDE:
            continue
        text = _one_line(decode(ids[s : s + EXAMPLE_SPAN]))
        if "\ufffd" in text or not text[:1].isalnum() and text[:1] not in "'\"(":
            continue  # a split multi-byte character, or a start inside punctuation
        span = encode(text)
        if not (EXAMPLE_MIN_TOKENS <= len(span) <= n_ctx) or encode(decode(span)) != span or tuple(span) in seen:
            continue
        last = s
        seen.add(tuple(span))
        out.append((text, span))
    return out


def _cut(text_ids: list[int], q: int, decode, encode) -> tuple[str, list[int]]:
    """The shortest prefix (>= EXAMPLE_MIN_TOKENS tokens, ending at a word end if it can) that still
    contains the query and round-trips; a causal model gives it the same attention rows up to q."""
    ends = range(max(EXAMPLE_MIN_TOKENS, q + 1), len(text_ids) + 1)
    # Prefer ending where a word ends (the next token starts with a space), not inside "Gryph|on".
    at_word_end = [e for e in ends if e == len(text_ids) or decode([text_ids[e]])[:1].isspace()]
    for end in at_word_end + list(ends):
        ids = text_ids[:end]
        text = decode(ids)
        if text == text.strip() and encode(text) == ids:
            return text, ids
    return decode(text_ids), text_ids


def find_examples(run: Run, heldout_ids, roles: list[list[str]], decode, encode, n_ctx: int) -> list[list[dict | None]]:
    """For each head, the span and query where it puts its largest single weight on one key.

    That key must be neither the query itself nor key 0 (a resting place, not a choice) unless the
    head's role is exactly that ("self", "first token")."""
    spans = example_texts(np.asarray(heldout_ids), decode, encode, n_ctx)
    n_layer, n_head = len(roles), len(roles[0])
    best = [[(-1.0, None) for _ in range(n_head)] for _ in range(n_layer)]
    for _text, ids in spans:
        _, att = run(np.array([ids], dtype=np.int64), None)
        att = att[0].astype(np.float64)  # [L, H, T, T]
        T = att.shape[-1]
        q = np.arange(T)
        for layer in range(n_layer):
            for head in range(n_head):
                a = att[layer, head].copy()
                a[:EXAMPLE_MIN_QUERY] = -1.0
                if roles[layer][head] != "self":
                    a[q, q] = -1.0
                if roles[layer][head] != "first token":
                    a[:, 0] = -1.0
                flat = int(np.argmax(a))
                if a.flat[flat] > best[layer][head][0]:
                    best[layer][head] = (float(a.flat[flat]), (ids, *divmod(flat, T)))
    examples = []
    for layer in range(n_layer):
        row = []
        for head in range(n_head):
            _, found = best[layer][head]
            if found is None:
                row.append(None)
                continue
            ids, qi, ki = found
            text, ids = _cut(ids, qi, decode, encode)
            # Measured again on exactly the text the page will be given.
            _, att = run(np.array([ids], dtype=np.int64), None)
            row.append({
                "text": text, "token": qi, "key": ki,
                "weight": round(float(att[0, layer, head, qi, ki]), DIGITS),
                "query_text": decode([ids[qi]]), "key_text": decode([ids[ki]]),
            })
        examples.append(row)
    return examples


# --- everything -----------------------------------------------------------------------------------

def definitions(window: int, n_windows: int, n_repeat: int, seed: int, example_source: str = HELDOUT_SOURCE) -> dict:
    """meta.json's `head_definitions`: each registered score's definition under its own name (the
    browser reads them there), the registry as a table (`scores`), the data and the roles."""
    return {
        "windows": (f"{n_windows} non-overlapping {window}-token windows" if n_windows != 1 else f"one {window}-token window")
        + " of the held-out text (the tail shorter than a window is dropped)",
        "repeated": f"{N_SEQUENCES} sequences of {n_repeat} tokens drawn uniformly (numpy default_rng({seed})) "
                    f"from tokens seen >= {MIN_SEEN} times in training, each repeated twice ({2 * n_repeat} tokens)",
        **{s.name: s.defined(n_repeat) for s in hs.SCORES},
        "scores": hs.score_table(),
        "in_context_gain": f"repeated sequences: mean loss (nats/token) on the first copy minus the second, positions 1..{n_repeat - 1} of each copy",
        "even_attention": {k: round(v, DIGITS) for k, v in hs.even_attention_scores(window, n_repeat).items()},
        "roles": hs.role_table(),
        "role_rule": "groups in order; the first group with a passing score gives the role, the largest passing score within it; else 'diffuse'",
        "example": f"over one-line spans of the {example_source} ({EXAMPLE_MIN_TOKENS}+ tokens, measured on that text "
                   f"alone): the query (q >= {EXAMPLE_MIN_QUERY}) and key with the largest weight, the key being neither "
                   "the query nor key 0 unless the role is 'self' or 'first token'",
        # Where the example sentences come from, for the pages to say (HELDOUT_SOURCE or SAMPLE_SOURCE).
        "example_source": example_source,
    }


def measure_heads(run: Run, heldout_ids, candidate_ids, n_layer: int, n_head: int, n_ctx: int = 128,
                  seed: int = 0, decode=None, encode=None, ablation: bool = True, example_ids=None,
                  example_source: str = HELDOUT_SOURCE, weights: dict | None = None) -> dict:
    """Every head's scores, role and example; in_context_gain; the definitions. Figures rounded to 4
    decimals. `example` is None without decode/encode; `ablation_nats` is None with ablation=False
    (for a graph without head_mask), the weights' scores (`copying`) without `weights` (the model's
    state dict as numpy arrays). Examples are searched in `example_ids` when given (named by
    `example_source`), else in the held-out ids."""
    windows = heldout_windows(heldout_ids, n_ctx)
    n_repeat = n_repeat_for(n_ctx)
    logits, att = run(windows, None)
    base_loss = float(token_losses(logits, windows).mean())
    natural = hs.pattern_scores(hs.HELDOUT, att, n_repeat)
    del logits, att
    repeated = repeated_sequences(candidate_ids, n=n_repeat, seed=seed)
    r_logits, r_att = run(repeated, None)
    gain = in_context_gain(token_losses(r_logits, repeated), n_repeat)
    natural.update(hs.pattern_scores(hs.REPEATED, r_att, n_repeat))
    del r_logits, r_att
    ablated = _ablation(run, windows, n_layer, n_head, base_loss) if ablation else None
    from_weights = {} if weights is None else hs.weight_scores(weights, n_layer, n_head)

    heads, roles = [], [[None] * n_head for _ in range(n_layer)]
    for layer in range(n_layer):
        for head in range(n_head):
            # Per-head figures: average over windows / sequences (axis 0) at this layer and head.
            scores = {name: round(float(v[:, layer, head].mean()), DIGITS) for name, v in natural.items()}
            for s in hs.SCORES:
                if s.measured_on == hs.ABLATION:
                    scores[s.name] = None if ablated is None else round(float(ablated[layer, head]), DIGITS)
                if s.measured_on == hs.WEIGHTS:
                    found = from_weights.get(s.name)
                    scores[s.name] = None if found is None else round(float(found[layer, head]), DIGITS)
            scores = {name: scores[name] for name in SCORE_NAMES}
            roles[layer][head] = hs.role(scores)
            heads.append({"layer": layer + 1, "head": head + 1, "scores": scores, "role": roles[layer][head], "example": None})
    if decode is not None and encode is not None:
        source = heldout_ids if example_ids is None else example_ids
        examples = find_examples(run, source, roles, decode, encode, n_ctx)
        for entry in heads:
            entry["example"] = examples[entry["layer"] - 1][entry["head"] - 1]
    return {
        "heads": heads,
        "in_context_gain": round(gain, DIGITS),
        "heldout_loss_nats": round(base_loss, DIGITS),
        "definitions": definitions(windows.shape[1], len(windows), n_repeat, seed, example_source),
    }
