"""Every head's measured role and scores, as meta.json records them (export/heads.py measured
them on this very model), so that what Python says about a head is what the page says."""

from __future__ import annotations

from dataclasses import dataclass, field

from attention_live.errors import ModelError


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


def check_head(config: dict, layer, head) -> tuple[int, int]:
    """(layer, head) as ints, or ModelError naming what the model has instead."""
    L, H = config["n_layer"], config["n_head"]
    if not (isinstance(layer, int) and 1 <= layer <= L):
        raise ModelError(f"there is no layer {layer!r}: the model has layers 1 to {L}")
    if not (isinstance(head, int) and 1 <= head <= H):
        raise ModelError(f"layer {layer} has no head {head!r}: it has heads 1 to {H}")
    return layer, head


def parse_ablate(config: dict, ablate) -> list[tuple[int, int]]:
    """Heads to switch off: "1.2 2.3" (the page's `ablate` attribute) or [(1, 2), (2, 3)];
    sorted and unique. Unlike the page, which skips a bad entry and shows why, Python refuses it."""
    if ablate is None:
        return []
    entries = ablate.replace(",", " ").split() if isinstance(ablate, str) else list(ablate)
    heads = set()
    for entry in entries:
        if isinstance(entry, str):
            layer, dot, head = entry.partition(".")
            if not (dot and layer.isdigit() and head.isdigit()):
                raise ModelError(f"{entry!r} is not a layer.head pair such as 1.2")
            entry = (int(layer), int(head))
        try:
            layer, head = entry
        except (TypeError, ValueError):
            raise ModelError(f"{entry!r} is not a (layer, head) pair such as (1, 2)")
        heads.add(check_head(config, layer, head))
    return sorted(heads)


def format_ablate(heads: list[tuple[int, int]]) -> str | None:
    """[(1, 2), (2, 3)] -> "1.2 2.3" (ablation.js formatAblate); None for no heads."""
    return " ".join(f"{layer}.{head}" for layer, head in heads) or None
