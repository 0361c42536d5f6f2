"""The model card's two charts (held-out bits per character beside the compressors, and the
training curve), drawn as plain numbers: coordinates in each SVG's viewBox, so that model.html only
writes elements (their look comes from static/pages/model-card.css). From meta.json's `metrics`.
"""

from __future__ import annotations

import math

BASELINE_NAMES = {"gzip-9": "gzip -9", "xz": "xz", "bzip2": "bzip2"}


def grouped(n: int | float) -> str:
    return f"{int(n):,}"


def bpc_text(x: float) -> str:
    return f"{x:.3f}"


def nice_step(span: float, target: int) -> float:
    """A 1/2/2.5/5 × 10^k tick spacing giving about `target` intervals over `span`."""
    raw = span / max(target, 1)
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def ticks(lo: float, hi: float, step: float) -> list[float]:
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return [round(i * step, 10) for i in range(first, last + 1)]


def tick_label(value: float, step: float) -> str:
    """A tick value with as many decimals as the spacing needs (0.25 -> 2, 0.5 -> 1, 500 -> 0)."""
    decimals = max(0, -math.floor(math.log10(step)))
    while round(step, decimals) != step and decimals < 6:
        decimals += 1
    return f"{value:,.{decimals}f}"


def quality(meta: dict) -> dict | None:
    """The bar chart of held-out bits/char: this model and the compressors, best first."""
    m = meta.get("metrics", {})
    if "heldout_bpc" not in m:
        return None
    baselines = m.get("baselines_bpc") or {}
    bars = [{"name": "this model", "key": "model", "bpc": m["heldout_bpc"], "model": True}]
    bars += [{"name": BASELINE_NAMES.get(k, k), "key": k, "bpc": v, "model": False} for k, v in baselines.items()]
    bars.sort(key=lambda b: b["bpc"])
    hi = max(b["bpc"] for b in bars)
    step = nice_step(hi, 6)
    top = math.ceil(hi / step - 1e-9) * step
    # viewBox geometry: labels on the left, bars to the right, value at each bar's end.
    width, left, right, bar_h, gap, top_pad = 420, 100, 56, 26, 12, 8
    plot_w = width - left - right
    for i, b in enumerate(bars):
        b["text"] = bpc_text(b["bpc"])
        b["y"] = top_pad + i * (bar_h + gap)
        b["w"] = round(plot_w * b["bpc"] / top, 2)
        b["x_end"] = round(left + b["w"], 2)
        b["text_y"] = b["y"] + bar_h / 2
    axis_y = top_pad + len(bars) * (bar_h + gap) - gap / 2
    grid = [{"x": round(left + plot_w * t / top, 2), "label": tick_label(t, step)} for t in ticks(0, top, step)]
    bzip2 = baselines.get("bzip2")
    return {
        "bars": bars,
        "width": width, "height": axis_y + 34, "left": left, "bar_h": bar_h,
        "axis_y": axis_y, "grid": grid, "axis_label_x": left + plot_w / 2,
        "model_text": bpc_text(m["heldout_bpc"]),
        "bzip2_text": bpc_text(bzip2) if bzip2 else None,
        "ratio_text": f"{m['heldout_bpc'] / bzip2:.3f}" if bzip2 else None,
        "saving_text": f"{1 - m['heldout_bpc'] / bzip2:.0%}" if bzip2 and m["heldout_bpc"] < bzip2 else None,
        "label": ", ".join(f"{b['name']} {b['text']}" for b in bars),
    }


def curve(meta: dict) -> dict | None:
    """The training curve: held-out bits/char against step, with the best step marked and the
    compressors as dashed reference lines where they fall inside the plotted range."""
    m = meta.get("metrics", {})
    history = m.get("history") or []
    if not history:
        return None
    steps = [h[0] for h in history]
    bpcs = [h[1] for h in history]
    baselines = m.get("baselines_bpc") or {}
    lo, hi = min(bpcs), max(bpcs)
    ystep = nice_step(max(hi - lo, 0.05), 5)
    y0 = math.floor(lo / ystep - 1e-9) * ystep
    y1 = math.ceil(hi / ystep + 1e-9) * ystep if hi > y0 else y0 + ystep
    x1 = max(steps)
    xstep = nice_step(x1, 5)
    x1 = math.ceil(x1 / xstep - 1e-9) * xstep
    width, height = 520, 320
    left, right, top, bottom = 72, 70, 16, 58
    pw, ph = width - left - right, height - top - bottom

    def sx(step: float) -> float:
        return round(left + pw * step / x1, 2)

    def sy(v: float) -> float:
        return round(top + ph * (y1 - v) / (y1 - y0), 2)

    points = [(sx(s), sy(v)) for s, v in history]
    best_step = m.get("best_step")
    best = next((h for h in history if h[0] == best_step), None)
    if best is None:  # no exact match recorded: mark the lowest point instead
        best = min(history, key=lambda h: h[1])
        best_step = best[0]
    bx, by = sx(best[0]), sy(best[1])
    # The label sits above the curve over the whole stretch it covers (up to ~250 viewBox units
    # wide at the phone font size), on the side of the point with more room.
    right_side = bx > left + pw * 0.6
    span = (bx - 250, bx) if right_side else (bx, bx + 250)
    over = [y for x, y in points if span[0] <= x <= span[1]] + [by]
    label_y = max(min(over) - 12, top + 14)
    refs = [{"name": BASELINE_NAMES.get(k, k), "y": sy(v), "text": bpc_text(v)}
            for k, v in sorted(baselines.items(), key=lambda kv: kv[1]) if y0 <= v <= y1]
    return {
        "width": width, "height": height, "left": left, "right_x": left + pw, "top": top, "bottom_y": top + ph,
        "points": " ".join(f"{x},{y}" for x, y in points),
        "n_points": len(points),
        "xticks": [{"x": sx(t), "label": tick_label(t, xstep)} for t in ticks(0, x1, xstep)],
        "yticks": [{"y": sy(t), "label": tick_label(t, ystep)} for t in ticks(y0, y1, ystep)],
        "x_label_x": left + pw / 2, "x_label_y": height - 10, "y_label_x": 14, "y_label_y": top + ph / 2,
        "best": {"step": best_step, "step_text": grouped(best_step), "bpc_text": bpc_text(best[1]),
                 "x": bx, "y": by, "label_anchor": "end" if right_side else "start",
                 "label_x": bx if right_side else bx, "label_y": label_y},
        "refs": refs,
        "rows": [{"step": grouped(s), "bpc": bpc_text(v), "best": s == best_step} for s, v in history],
        "first_text": bpc_text(bpcs[0]), "first_step": grouped(steps[0]), "last_step": grouped(steps[-1]),
        "label": curve_label(history, best_step, best[1]),
    }


def curve_label(history: list, best_step: int, best_bpc: float) -> str:
    """The curve in one sentence that fits it: one evaluation, no fall, or a fall."""
    (first_step, first_bpc), last_step = history[0][:2], history[-1][0]
    if len(history) == 1:
        return f"Held-out bits per character was measured once: {bpc_text(first_bpc)} at step {grouped(first_step)}"
    if bpc_text(best_bpc) == bpc_text(first_bpc):
        return (f"Held-out bits per character did not fall below {bpc_text(first_bpc)}, its value at step "
                f"{grouped(first_step)}, in the evaluations up to step {grouped(last_step)}")
    return (f"Held-out bits per character fell from {bpc_text(first_bpc)} at step {grouped(first_step)} "
            f"to {bpc_text(best_bpc)} at step {grouped(best_step)}, the best step")
