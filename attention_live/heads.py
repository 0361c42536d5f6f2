"""Every head's measured role and scores, as meta.json records them (export/heads.py measured
them on this very model), so that what Python says about a head is what the page says; and
the heads switched off, read by the page's rule (static/attention-view/model/head-set.js)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from numbers import Integral

from attention_live.errors import ModelError

# head-set.js splits entries on /[\s,]+/u and matches each with /^(\d+)\.(\d+)$/: JavaScript's
# \s is this set (not Python's: no U+001C-U+001F or U+0085, but U+FEFF), and its \d (no u flag
# on that pattern) is ASCII 0-9 only, so "１.２" and "².1" are no pairs on either side.
JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
SEPARATORS = re.compile(f"[{JS_WHITESPACE},]+")
PAIR = re.compile(r"([0-9]+)\.([0-9]+)")
# head-set.js quotes at most this many characters of a bad entry, so a message stays a sentence.
QUOTED = 24


@dataclass(frozen=True)
class Head:
    layer: int  # 1-based, as the page names heads ("2.3")
    head: int
    role: str | None
    scores: dict = field(default_factory=dict)
    example: dict | None = None

    @property
    def name(self) -> str:
        return f"{self.layer}.{self.head}"


def heads_of(meta: dict) -> list[Head]:
    return [Head(h["layer"], h["head"], h.get("role"), dict(h.get("scores") or {}), h.get("example"))
            for h in meta.get("heads") or []]


def quoted(value) -> str:
    """A caller's value as a message quotes it: its repr, cut to QUOTED characters."""
    text = repr(value)
    return text if len(text) <= QUOTED else f"{text[:QUOTED - 1]}…"


def whole(value) -> bool:
    """An integer, numpy's included; never a bool (True is no layer)."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_layer(config: dict, layer) -> int:
    L = config["n_layer"]
    if not (whole(layer) and 1 <= layer <= L):
        raise ModelError(f"there is no layer {quoted(layer)}: the model has layers 1 to {L}")
    return int(layer)


def check_head_number(config: dict, head) -> int:
    """A head number with no layer named: every layer has the same heads."""
    H = config["n_head"]
    if not (whole(head) and 1 <= head <= H):
        raise ModelError(f"there is no head {quoted(head)}: each layer has heads 1 to {H}")
    return int(head)


def check_head(config: dict, layer, head) -> tuple[int, int]:
    """(layer, head) as ints, or ModelError naming what the model has instead."""
    layer = check_layer(config, layer)
    H = config["n_head"]
    if not (whole(head) and 1 <= head <= H):
        raise ModelError(f"layer {layer} has no head {quoted(head)}: it has heads 1 to {H}")
    return layer, int(head)


def _pair(entry) -> tuple:
    if isinstance(entry, str):
        m = PAIR.fullmatch(entry)
        if not m:
            raise ModelError(f"{quoted(entry)} is not a layer.head pair such as 1.2")
        return int(m[1]), int(m[2])
    if isinstance(entry, (tuple, list)) and len(entry) == 2:
        return tuple(entry)
    raise ModelError(f"{quoted(entry)} is not a (layer, head) pair such as (1, 2)")


def parse_ablate(config: dict, ablate) -> list[tuple[int, int]]:
    """Heads to switch off: "1.2 2.3" (the page's `ablate` attribute, entries apart by spaces or
    commas) or [(1, 2), (2, 3)]; sorted and unique. Unlike the page, which skips a bad entry and
    shows why, Python refuses it."""
    if ablate is None:
        return []
    if isinstance(ablate, str):
        entries = [e for e in SEPARATORS.split(ablate) if e]
    elif isinstance(ablate, (list, tuple, set, frozenset)):
        entries = list(ablate)
    else:
        raise ModelError(f"ablate must be heads such as \"1.2 2.3\" or [(1, 2), (2, 3)], not {type(ablate).__name__}")
    return sorted({check_head(config, *_pair(entry)) for entry in entries})


def format_ablate(heads: list[tuple[int, int]]) -> str | None:
    """[(1, 2), (2, 3)] -> "1.2 2.3" (head-set.js formatAblate); None for no heads."""
    return " ".join(f"{layer}.{head}" for layer, head in heads) or None
