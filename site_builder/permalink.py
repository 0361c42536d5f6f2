"""The live page's permalink fragment, written in Python for the pages the site build writes
(model card, timeline story): the same fragment static/attention-view/state.js toHash
writes, held to the cases of tests/data/permalink-cases.json."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

# The widget's state keys (its schema, static/attention-view/state.js SCHEMA, written out by
# `make schema`): the live page's permalink writes them in this order.
STATE_SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "static" / "attention-view" / "state-schema.json")
                          .read_text(encoding="utf-8"))["keys"]


def js_string(value) -> str:
    """`value` as JavaScript's String() writes it, for the values a state holds."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def form_encoded(text: str) -> str:
    """`text` as the page's URLSearchParams writes a value: UTF-8 (a lone surrogate as U+FFFD),
    every byte escaped but letters, digits and * - . _ (Python's quote keeps ~ and escapes *)."""
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return quote(text, safe="*").replace("~", "%7E")


def to_hash(state: dict) -> str:
    """The live page's fragment for a state, as state.js toHash writes it (the cases of
    tests/data/permalink-cases.json hold both): the keys that have a value, in the schema's
    order, a choice left at its default left out, spaces as %20."""
    parts = []
    for k in STATE_SCHEMA:
        value = state.get(k["key"])
        if value is None or (k["type"] == "choice" and value == k["omitted"]):
            continue
        parts.append(f"{k['key']}={form_encoded(js_string(value))}")
    return "#" + "&".join(parts)


def permalink_hash(text: str, token: int, layer: int, head: int, view: str = "head") -> str:
    """The live page's fragment for one head's view of a sentence:
    "#text=The%20Queen&token=6&layer=2&head=3&view=head"."""
    return to_hash({"text": text, "token": token, "layer": layer, "head": head, "view": view})
