"""The model card's table of what each head writes (site_builder/templates/_card_pushes.html):
meta.json's `direct_contribution` (export/mean_contribution.py), each head's mean direct
contribution to the model's own top-1 prediction on the held-out text beside its copying score,
and the rest of the sum that makes the mean top-1 logit. An older export has none: None."""

from __future__ import annotations

from site_builder.model_charts import grouped


def signed(x: float) -> str:
    """Two decimals with a real minus sign, as the circuit's table writes its gains."""
    return f"{x:.2f}".replace("-", "\u2212")


def pushes(meta: dict) -> dict | None:
    d = meta.get("direct_contribution")
    if not d:
        return None
    scores = {(h["layer"], h["head"]): h.get("scores") or {} for h in meta.get("heads") or []}
    rows = []
    for layer, row in enumerate(d["heads"], start=1):
        for head, value in enumerate(row, start=1):
            copying = scores.get((layer, head), {}).get("copying")
            rows.append({"layer": layer, "head": head, "value": value, "text": signed(value),
                         "copying": None if copying is None else f"{copying:.3f}".replace("-", "\u2212")})
    rest = [("embedding", d["embed"])]
    rest += [(f"MLP {layer}", value) for layer, value in enumerate(d["mlp"], start=1)]
    rest += [("attention output biases", sum(d["attn_bias"])), ("final LayerNorm bias", d["ln_bias"])]
    strongest = max(rows, key=lambda r: r["value"])
    weakest = min(rows, key=lambda r: r["value"])
    return {
        "rows": rows, "definition": d["definition"], "logit": signed(d["logit"]), "positions": grouped(d["positions"]),
        "heads_total": signed(sum(r["value"] for r in rows)),
        "rest": [{"name": name, "text": signed(value)} for name, value in rest],
        "strongest": strongest, "against": weakest if weakest["value"] < 0 else None,
        "has_copying": any(r["copying"] is not None for r in rows),
    }
