"""Where the heads' example sentences come from (export --examples-from) and `measure_model`,
`measure_heads` as export runs it with them: the held-out text, the model's own, or the sample
text export/probe_text.txt."""

from __future__ import annotations

import numpy as np

from export.heads import (
    HELDOUT_SOURCE,
    PROBE_TEXT,
    SAMPLE_SOURCE,
    Run,
    example_texts,
    measure_heads,
    seen_tokens,
)

# export --examples-from: where the heads' example sentences (and a fallback opening view) are
# searched. "sample" keeps every sentence of a text that must not be published out of the model's
# files: the project's own training books are never committed, so the shipped model uses it.
EXAMPLES_FROM = ("held-out", "sample")


def example_source(tokenizer, heldout_text: str, n_ctx: int, examples_from: str = "held-out") -> tuple[str, list[int]]:
    """(source name, ids) of the text the examples are searched in: the held-out text, the
    model's own, unless it has no span long enough to be an example or `examples_from` is
    "sample"; then the sample text."""
    decode, encode = (lambda ids: tokenizer.decode(ids)), (lambda text: tokenizer.encode(text).ids)
    if examples_from == "held-out":
        ids = encode(heldout_text)
        if example_texts(np.asarray(ids), decode, encode, n_ctx):
            return HELDOUT_SOURCE, ids
    return SAMPLE_SOURCE, encode(PROBE_TEXT.read_text(encoding="utf-8"))


def examples_from_meta(meta: dict) -> str:
    """The --examples-from value a model folder was exported with (its meta.json records the source)."""
    source = (meta.get("head_definitions") or {}).get("example_source")
    return "sample" if source == SAMPLE_SOURCE else "held-out"


def measure_model(run: Run, tokenizer, token_counts, heldout_text: str, n_layer: int, n_head: int,
                  n_ctx: int, examples_from: str = "held-out", weights: dict | None = None) -> dict:
    """`measure_heads` as export runs it (and the tests re-run it): held-out scores, repeated
    sequences from the tokens seen >= 3 times in training, examples from `example_source`."""
    source, example_ids = example_source(tokenizer, heldout_text, n_ctx, examples_from)
    return measure_heads(
        run, tokenizer.encode(heldout_text).ids, seen_tokens(token_counts), n_layer, n_head, n_ctx,
        decode=lambda ids: tokenizer.decode(ids), encode=lambda text: tokenizer.encode(text).ids,
        example_ids=example_ids, example_source=source, weights=weights)
