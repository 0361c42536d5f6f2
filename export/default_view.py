"""The view the page opens on (meta.json `default`), chosen by what the model does: export never
needs a particular word, and what it cannot measure it leaves out instead of asserting.

1. The speaker story, when it measures true: the vocabulary has «said» as a token, and the
   speaker head (the head with the largest mean weight on the speaker at «said» over
   export/data/speaker_sentences.tsv) has its largest weight on the speaker in at least
   STORY_MIN_SHARE of those sentences. The page then opens on the first sentence of that set, in
   file order, where the head does so with at least DECISIVE of the row.
2. Otherwise the most decisive row of the strongest head on the examples' text: of every head's
   example (export/heads.py: one-line spans of the held-out text, or of the sample text
   export/probe_text.txt when the held-out text has none long enough), the one with the largest
   weight on an earlier token that is neither the query nor token 0. Without any example, the
   first line of the examples' text.
3. `--text/--layer/--head` pin what they name; the rest is chosen as above (a given text is
   pinned at its last token). The story stays attached only when it is still the story's head
   on a sentence of the set where the head agrees.

`source` records where the opening sentence comes from, for the pages to say.

With the view chosen, `switch_off` measures composition: the view's top weight with each head of
an earlier layer switched off in turn (head_mask), so a page can say how much the view depends on
what earlier layers wrote.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from export.story import load_sentences, said_evidence

DATA = Path(__file__).resolve().parent / "data"
SPEAKER_SENTENCES = DATA / "speaker_sentences.tsv"  # «said» -> the speaker
NEARER_NAME_SENTENCES = DATA / "nearer_name_sentences.tsv"  # a second name stands nearer to «said»
STORY_MIN_SHARE = 0.6  # most of the set, not a lucky few
DECISIVE = 0.6  # the opening row puts most of its budget on the speaker
DIGITS = 4

RULE = ("the speaker story when the vocabulary has «said» and the speaker head (largest mean weight on the "
        f"speaker at «said» over the speaker sentences) puts its largest weight on the speaker in >= {STORY_MIN_SHARE:.0%} "
        f"of them: the first of those sentences where that weight is >= {DECISIVE}; else the most decisive example row "
        "of any head on the examples' text (largest weight on an earlier token that is neither the query nor token 0)")
# meta.json default.source: where the opening sentence comes from (the examples' source, from
# export/heads.py, is the third possibility).
STORY_SOURCE = "speaker sentence set export/data/speaker_sentences.tsv"
HELDOUT_SOURCE = "held-out text"
GIVEN_SOURCE = "given with --text"
SWITCH_OFF_RULE = ("the default view's weight on its top key with each head of an earlier layer switched off "
                   "(head_mask 0), one at a time")


def has_said(tokenizer) -> bool:
    return "Ġsaid" in tokenizer.get_vocab()


def speaker_head(run, tokenizer, n_layer: int, n_head: int) -> dict | None:
    """The head that best finds the speaker at «said» on the sentence set, with its evidence (rows
    included); None when the vocabulary cannot tell the story (no «said», or a name it splits so
    that the set cannot be measured)."""
    if not has_said(tokenizer):
        return None
    sentences = load_sentences(SPEAKER_SENTENCES)
    try:
        scored = [said_evidence(run, tokenizer, sentences, layer + 1, head + 1)
                  for layer in range(n_layer) for head in range(n_head)]
    except ValueError:  # a sentence whose «said» is not one token in this vocabulary
        return None
    # Ranked by the mean weight on the speaker: a head whose top key is the speaker at 20% is
    # not telling that story (the share alone would pick it).
    for s in scored:
        s["mean_weight_on_speaker"] = round(float(np.mean([r["weight_on_expected"] for r in s["rows"]])), DIGITS)
    return max(scored, key=lambda s: s["mean_weight_on_speaker"])


def story(run, tokenizer, n_layer: int, n_head: int) -> dict | None:
    """The speaker story when it measures true, else None."""
    best = speaker_head(run, tokenizer, n_layer, n_head)
    if best is None or best["share"] < STORY_MIN_SHARE:
        return None
    opening = next((r for r in best["rows"] if r["agrees"] and r["weight_on_expected"] >= DECISIVE), None)
    if opening is None:
        return None
    nearer = said_evidence(run, tokenizer, load_sentences(NEARER_NAME_SENTENCES), best["layer"], best["head"])
    return {"layer": best["layer"], "head": best["head"], "text": opening["text"], "speaker": opening["expected"],
            "agreeing_texts": {r["text"] for r in best["rows"] if r["agrees"]},
            "record": {
                "name": "speaker",
                "definition": "at «said», the head's largest weight lands on a token of the speaker's name, "
                              "the name before «and said»",
                "sentence_set": {k: best[k] for k in ("agree", "total", "share")},
                "mean_weight_on_speaker": best["mean_weight_on_speaker"],
                # the same head when another name stands between the speaker and «said»: how
                # often its top key is that nearer name (the texture, not the story)
                "nearer_name_set": {k: nearer[k] for k in ("agree", "total", "share")},
            }}


def strongest_example(heads: list[dict]) -> dict | None:
    """The example row with the largest weight on a real choice (an earlier token, not token 0)."""
    choices = [h for h in heads if h.get("example") and 0 < h["example"]["key"] < h["example"]["token"]]
    pool = choices or [h for h in heads if h.get("example")]
    return max(pool, key=lambda h: h["example"]["weight"], default=None)


def switch_off(run, ids: list[int], view: dict, n_layer: int, n_head: int) -> list[dict]:
    """The view's weight on its top key with each head of an earlier layer off, one at a time."""
    out = []
    for earlier in range(view["layer"] - 1):
        for h in range(n_head):
            mask = np.ones((n_layer, n_head), np.float32)
            mask[earlier, h] = 0.0
            _, att = run(np.array([ids], dtype=np.int64), mask)
            weight = att[0, view["layer"] - 1, view["head"] - 1, view["token"], view["top_key"]]
            out.append({"layer": earlier + 1, "head": h + 1, "weight": round(float(weight), DIGITS)})
    return out


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), text.strip())


def choose(run, tokenizer, heads: list[dict], examples_text: str, n_layer: int, n_head: int, n_ctx: int,
           text: str | None = None, layer: int | None = None, head: int | None = None,
           example_source: str = HELDOUT_SOURCE) -> dict:
    """meta.json `default`: the view, how it was chosen, where its sentence comes from, its story
    (or None) and its switch-off figures (None in layer 1). `heads` is measure_heads' list (with
    examples, searched in `example_source`)."""
    told = story(run, tokenizer, n_layer, n_head)
    example = strongest_example(heads)
    if told is not None:
        auto = {"text": told["text"], "layer": told["layer"], "head": told["head"], "token": None}
        chosen_by, source = "speaker story", STORY_SOURCE
    elif example is not None:
        ex = example["example"]
        auto = {"text": ex["text"], "layer": example["layer"], "head": example["head"], "token": ex["token"]}
        chosen_by, source = "most decisive example", example_source
    else:  # no example could be measured (a context too short for an example span)
        ids = tokenizer.encode(first_line(examples_text)).ids[:n_ctx]
        auto = {"text": tokenizer.decode(ids).strip(), "layer": 1, "head": 1, "token": None}
        chosen_by, source = "first line of the examples' text", example_source
    given = {k: v for k, v in (("text", text), ("layer", layer), ("head", head)) if v is not None}
    view = {**auto, **given}
    if "text" in given:
        view["token"] = None
        source = GIVEN_SOURCE
    if given:
        chosen_by = "given: " + ", ".join(f"--{k}" for k in given)
    ids = tokenizer.encode(view["text"]).ids
    if view["token"] is None:
        view["token"] = len(ids) - 1
    _, att = run(np.array([ids], dtype=np.int64), None)
    row = att[0, view["layer"] - 1, view["head"] - 1, view["token"], : view["token"] + 1].astype(np.float64)
    top = int(np.argmax(row))
    keeps_story = (told is not None and (view["layer"], view["head"]) == (told["layer"], told["head"])
                   and view["text"] in told["agreeing_texts"] and view["token"] == len(ids) - 1)
    out = {**view, "view": "head", "top_weight": round(float(row[top]), DIGITS), "top_key": top,
           "query_text": tokenizer.decode([ids[view["token"]]]), "top_key_text": tokenizer.decode([ids[top]]),
           "chosen_by": chosen_by, "source": source, "rule": RULE,
           "story": told["record"] if keeps_story else None}
    out["switch_off"] = ({"rule": SWITCH_OFF_RULE, "heads": switch_off(run, ids, out, n_layer, n_head)}
                         if out["layer"] > 1 else None)
    return out
