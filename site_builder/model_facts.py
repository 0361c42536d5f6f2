"""What the pages say about the model in prose (the live page, chapter 1, every page's footer),
derived from meta.json at build time, so that the sentences stay true after a retrain or vanish.

Each function returns None where meta.json does not record what its sentence needs; the
templates then leave that sentence out. Imported by site_builder/build.py (and site_builder/model_card.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# The model this repository ships: a site built on any other calls its model "the exported
# model", never "the shipped model".
SHIPPED_META = Path(__file__).resolve().parent.parent / "static" / "model" / "meta.json"
# A view "barely depends" on the earlier heads when no single one of them, switched off, moves
# its top weight by more than this (in share of the row).
BARELY = 0.10
NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve")


def counted(n: int, word: str) -> str:
    """3, "text" -> "three texts"; words up to twelve, digits beyond."""
    number = NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else f"{n:,}"
    return f"{number} {word}{'' if n == 1 else 's'}"


def percent(x: float) -> str:
    return f"{x:.0%}"


def token_text(text: str | None) -> str:
    """A token's text for «…» quotes: surrounding spaces dropped, a blank token shown as ␣."""
    if text is None:
        return "?"
    return text.strip() or "\u2423" * max(len(text), 1)


def asked_vocab(meta: dict) -> int | None:
    """The vocabulary size training asked for, when the tokenizer ended smaller (a short text runs
    out of merges before it): the trainer's recorded flag, else None."""
    args = meta.get("train_args") or {}
    asked = (args.get("model") or {}).get("vocab_size", args.get("vocab_size"))
    real = (meta.get("config") or {}).get("vocab_size")
    return asked if isinstance(asked, int) and isinstance(real, int) and asked > real else None


def training_texts(meta: dict) -> dict:
    """{"main", "companions", "count", "phrase"}: "alice.txt and eleven companion texts"."""
    corpus = meta.get("corpus") or {}
    main = corpus.get("name", "its corpus")
    companions = len(corpus.get("companions") or [])
    phrase = main if not companions else f"{main} and {counted(companions, 'companion text')}"
    return {"main": main, "companions": companions, "count": 1 + companions, "phrase": phrase,
            "count_text": counted(1 + companions, "text")}


def switch_off(meta: dict) -> dict | None:
    """The opening view with each earlier head switched off (meta.json default.switch_off)."""
    d = meta.get("default") or {}
    heads = (d.get("switch_off") or {}).get("heads") or []
    if not heads or "top_weight" not in d:
        return None
    weights = [h["weight"] for h in heads]
    lo, hi = min(weights), max(weights)
    moved = max(heads, key=lambda h: abs(h["weight"] - d["top_weight"]))
    earlier = "layer-1" if d["layer"] == 2 else "earlier-layer"
    return {
        "layer": d["layer"], "head": d["head"], "key": token_text(d.get("top_key_text")),
        "range_text": percent(lo) if percent(lo) == percent(hi) else f"{percent(lo)[:-1]}–{percent(hi)}",
        "top_text": percent(d["top_weight"]), "earlier": earlier,
        "barely": all(abs(w - d["top_weight"]) <= BARELY for w in weights),
        "moved": {"layer": moved["layer"], "head": moved["head"], "text": percent(moved["weight"])},
    }


def circuit_reads(meta: dict) -> dict | None:
    """The induction circuit's figures with the head it composes with switched off (its entry of
    meta.json circuit.switch_off), or None when export measured no composing head."""
    c = meta.get("circuit") or {}
    w = c.get("composes_with")
    return w and next((s for s in c.get("switch_off") or [] if (s["layer"], s["head"]) == (w["layer"], w["head"])), None)


def circuit_view(meta: dict) -> dict | None:
    """meta.json's circuit when the pages can show it live (a composing head and an example row):
    chapter 1's "Attention on attention" and its third view; else None."""
    c = meta.get("circuit") or {}
    return c if circuit_reads(meta) and c.get("example") else None


def circuit_reader(meta: dict) -> dict | None:
    """The layer-1 head the induction circuit reads, as export measured it: {"layer", "head",
    "role", "previous_token", "clean"} (clean: its role is "previous token", the textbook
    partner), or None without a composing circuit."""
    w = (meta.get("circuit") or {}).get("composes_with")
    head = w and next((h for h in meta.get("heads") or [] if (h["layer"], h["head"]) == (w["layer"], w["head"])), None)
    if not head:
        return None
    prev = head["scores"].get("previous_token")
    return {"layer": head["layer"], "head": head["head"], "role": head["role"],
            "previous_token": None if prev is None else f"{prev:.2f}", "clean": head["role"] == "previous token"}


def head_names(spec: str) -> str:
    """A recorded head setting ("2.4,1.1") as the card names heads: "L1H1, L2H4". Training
    refused anything but the page's head syntax (attention_live/heads.py parse_ablate), so its
    pairs are the ASCII digit.digit runs and everything else separates them; the heads come as
    the parser gives them, sorted and each once (tests/test_head_syntax_everywhere.py)."""
    pairs = sorted({(int(layer), int(head)) for layer, head in re.findall(r"([0-9]+)\.([0-9]+)", spec)})
    return ", ".join(f"L{layer}H{head}" for layer, head in pairs)


def curriculum(meta: dict) -> str | None:
    """The induction curriculum a model was trained with, in a phrase ("300 warm-up steps of
    repeated random sequences with only L2H4 on in its layer, then 2 of 32 rows of each batch,
    L2H4 off in 90% of the text rows"), or None for a text-only run."""
    args = meta.get("train_args") or {}
    steps, frac, batch = args.get("synthetic_steps") or 0, args.get("repeat_frac") or 0, args.get("batch_size") or 0
    if not steps and not frac:
        return None

    parts = []
    if steps:
        heads = args.get("synthetic_heads") and head_names(args["synthetic_heads"])
        parts.append(f"{steps:,} warm-up steps of repeated random sequences" + (f" with only {heads} on in its layer" if heads else ""))
    if frac and batch:
        parts.append(f"then {round(frac * batch)} of {batch} rows of each batch")
    if args.get("text_heads_off") and args.get("text_heads_off_frac"):
        parts.append(f"{head_names(args['text_heads_off'])} off in {args['text_heads_off_frac']:.0%} of the text rows")
    return ", ".join(parts)


def second_view(meta: dict) -> dict:
    """Chapter 1's second live view: the most decisive example of a head other than the opening
    view's, preferring another layer; without examples, the opening sentence in another head."""
    d = meta.get("default") or {}
    here = (d.get("layer", 1), d.get("head", 1))
    cfg = meta.get("config") or {}
    others = [h for h in meta.get("heads") or [] if h.get("example") and (h["layer"], h["head"]) != here]
    if others:
        best = max(others, key=lambda h: (h["layer"] != here[0], h["example"]["weight"]))
        ex = best["example"]
        return {"text": ex["text"], "layer": best["layer"], "head": best["head"], "token": ex["token"],
                "query": token_text(ex.get("query_text")), "pinned": "where that head puts its largest weight",
                "where": example_span(meta)}
    head = 1 if here[1] != 1 else cfg.get("n_head", 1)
    return {"text": d.get("text", ""), "layer": here[0], "head": head, "token": -1, "query": None,
            "pinned": "on its last token", "where": "the opening sentence"}


def example_span(meta: dict) -> str:
    """What a head's example sentence is, in a phrase: "a span of the model's held-out text"."""
    source = (meta.get("head_definitions") or {}).get("example_source") or ""
    if source.startswith("held-out text"):
        return "a span of the model's held-out text"
    if source.startswith("sample text"):
        return f"a span of the sample text {source.removeprefix('sample text').strip()}"
    return "another sentence"


def slopes(meta: dict) -> dict | None:
    """ALiBi's steepest and gentlest slope over every head, as the model has them."""
    pos = meta.get("positions") or {}
    values = [s for row in pos.get("slopes") or [] for s in row]
    if pos.get("scheme") != "alibi" or not values:
        return None
    return {"steepest": f"{max(values):.3g}", "gentlest": f"{min(values):.3g}"}


def is_shipped(meta: dict) -> bool:
    """Whether `meta` is the shipped model's (static/model/meta.json), by content."""
    try:
        return json.loads(SHIPPED_META.read_text(encoding="utf-8")) == meta
    except (OSError, ValueError):
        return False


def final_model(meta: dict) -> dict:
    """What the pages call the model the folder holds (the last point of its training):
    {"name": "the shipped model" | "the exported model", "title": "Shipped" | "Exported"}."""
    shipped = is_shipped(meta)
    return {"shipped": shipped, "name": "the shipped model" if shipped else "the exported model",
            "title": "Shipped" if shipped else "Exported"}


def source_phrase(source: str | None, meta: dict) -> str | None:
    """A sentence source recorded at export (meta.json default.source,
    head_definitions.example_source), in words; None when meta.json records none."""
    if not source:
        return None
    corpus = meta.get("corpus") or {}
    if source.startswith("held-out text"):
        name, chars, held = corpus.get("name"), corpus.get("chars"), corpus.get("heldout_chars")
        where = f" (the last {held / chars:.0%} of {name}, which the model never trained on)" if name and chars and held else ""
        return f"the model's own held-out text{where}"
    if source.startswith("sample text"):
        path = source.removeprefix("sample text").strip()
        return (f"the sample text {path}, prose written for this project, not the model's own text "
                "(its held-out text has no span long enough to be an example)")
    if source.startswith("speaker sentence set"):
        path = source.removeprefix("speaker sentence set").strip()
        s = ((meta.get("default") or {}).get("story") or {}).get("sentence_set") or {}
        size = f" of {s['total']} sentences" if s.get("total") else ""
        return f"the speaker sentence set ({path}), a fixed test set{size} written for this project"
    if source.startswith("given"):
        return "a sentence given at export (--text)"
    return source


def sources(meta: dict) -> dict:
    """{"default", "examples"}: where the opening sentence and the heads' example sentences come
    from, in words (None where meta.json does not record it)."""
    return {"default": source_phrase((meta.get("default") or {}).get("source"), meta),
            "examples": source_phrase((meta.get("head_definitions") or {}).get("example_source"), meta)}


def facts(meta: dict) -> dict:
    return {"texts": training_texts(meta), "switch_off": switch_off(meta), "second_view": second_view(meta),
            "final": final_model(meta), "sources": sources(meta),
            "slopes": slopes(meta), "story": (meta.get("default") or {}).get("story"), "circuit_reads": circuit_reads(meta),
            "circuit_reader": circuit_reader(meta), "circuit_view": circuit_view(meta)}

