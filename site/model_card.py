"""The model card's figures (model.html), derived from meta.json at build time.

Every number on the page comes from here, and everything here comes from `meta` (the dict read
from the model folder's meta.json): nothing is typed in by hand. Fields that an older or custom
meta.json lacks (format 1 has no `heads`, `history`, `positions` or companions) come back as
None / empty lists, and `missing` names them so the page can say what is not recorded.

The two charts are drawn here as plain numbers (coordinates in the SVG's viewBox) so that the
template only writes elements; their look comes from static/pages/model-card.css.

Imported by site/build.py through its file path (build.py is a script, not a package).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from urllib.parse import quote

# The widget's state keys (its schema, static/attention-view/core/state.js SCHEMA, written out by
# `make schema`): the live page's permalink writes them in this order.
STATE_SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "static" / "attention-view" / "state-schema.json")
                          .read_text(encoding="utf-8"))["keys"]

# The head scores in the table's column order: (key, column header, what it measures in short).
SCORE_COLUMNS = [
    ("previous_token", "previous token", "weight on the token just before"),
    ("self", "self", "weight on the token itself"),
    ("first_token", "first token", "weight on token 0"),
    ("entropy_bits", "entropy (bits)", "how spread out a row is"),
    ("row_max", "row max", "largest weight in a row"),
    ("duplicate_token", "duplicate token", "weight on an earlier copy of the same token"),
    ("induction", "induction", "weight on the token that followed an earlier copy"),
    ("ablation_nats", "ablation (nats)", "loss added when the head is switched off"),
]
BASELINE_NAMES = {"gzip-9": "gzip -9", "xz": "xz", "bzip2": "bzip2"}
SHA_PREFIX = 12


def grouped(n: int | float) -> str:
    return f"{int(n):,}"


def human_bytes(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.2f} MB"
    if n >= 1_000:
        return f"{n / 1_000:.1f} kB"
    return f"{n} bytes"


def sha_prefix(sha: str | None) -> str | None:
    return sha[:SHA_PREFIX] if sha else None


def bpc_text(x: float) -> str:
    return f"{x:.3f}"


def to_hash(state: dict) -> str:
    """The live page's fragment for a state, as state.js toHash writes it: the keys that have a
    value, in the schema's order, a choice left at its default left out, spaces as %20."""
    parts = []
    for k in STATE_SCHEMA:
        value = state.get(k["key"])
        if value is None or (k["type"] == "choice" and value == k["omitted"]):
            continue
        parts.append(f"{k['key']}={quote(str(value), safe='')}")
    return "#" + "&".join(parts)


def permalink_hash(text: str, token: int, layer: int, head: int, view: str = "head") -> str:
    """The live page's fragment for one head's view of a sentence:
    "#text=The%20Queen&token=6&layer=2&head=3&view=head"."""
    return to_hash({"text": text, "token": token, "layer": layer, "head": head, "view": view})


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


# --- the parts of the card ------------------------------------------------------------------


def architecture(meta: dict) -> list[dict]:
    cfg = meta.get("config", {})
    rows = [{"label": "Parameters", "value": grouped(meta["n_params"]), "id": "n_params",
             "note": "the token embedding is tied to the output layer and stored once"}]
    for key, label, note in [
        ("n_layer", "Layers", "transformer blocks"),
        ("n_head", "Heads per layer", None),
        ("d_model", "d_model", "width of the residual stream"),
        ("d_head", "d_head", "width of each head's queries, keys and values"),
        ("d_ff", "d_ff", "hidden width of each MLP"),
        ("n_ctx", "Context", "tokens the model sees at once"),
        ("vocab_size", "Vocabulary", "byte-level BPE tokens"),
    ]:
        if key in cfg:
            rows.append({"label": label, "value": grouped(cfg[key]), "id": key, "note": note})
    if cfg.get("attn_only_layers"):
        rows.append({"label": "Attention-only layers", "value": grouped(cfg["attn_only_layers"]),
                     "id": "attn_only_layers", "note": "layers without an MLP"})
    return rows


def positions(meta: dict) -> dict:
    """{"scheme": "alibi" | "learned" | None, "slopes": [{"layer", "values": [str]}], "standard"}."""
    pos = meta.get("positions") or {}
    scheme = pos.get("scheme") or meta.get("config", {}).get("positions")
    out = {"scheme": scheme, "slopes": [], "standard": None, "n_head": meta.get("config", {}).get("n_head", 0)}
    if scheme == "alibi" and pos.get("slopes"):
        out["slopes"] = [{"layer": i + 1, "values": [f"{s:g}" for s in row]} for i, row in enumerate(pos["slopes"])]
        if pos.get("standard_slopes"):
            std = list(pos["standard_slopes"])
            out["standard"] = all(list(row) == std for row in pos["slopes"])
    return out


def files(meta: dict) -> list[dict]:
    return [{"name": name, "bytes": info["bytes"], "bytes_text": grouped(info["bytes"]),
             "size_text": human_bytes(info["bytes"]), "sha": sha_prefix(info.get("sha256"))}
            for name, info in meta.get("files", {}).items()]


def texts(meta: dict) -> dict:
    corpus = meta.get("corpus", {})
    heldout = corpus.get("heldout_chars")
    main = {"name": corpus.get("name", "?"), "chars": corpus.get("chars"), "sha": sha_prefix(corpus.get("sha256")),
            "use": "trains (first 90%), held out (last 10%)" if heldout else "trains", "main": True}
    rows = [main]
    for c in corpus.get("companions") or []:
        rows.append({"name": c["name"], "chars": c["chars"], "sha": sha_prefix(c.get("sha256")),
                     "use": "trains only", "main": False})
    for r in rows:
        r["chars_text"] = grouped(r["chars"]) if r["chars"] is not None else "not recorded"
    known = [r["chars"] for r in rows if r["chars"] is not None]
    total = sum(known)
    return {
        "rows": rows,
        "total_text": grouped(total),
        "trained_text": grouped(total - (heldout or 0)),
        "heldout": heldout,
        "heldout_text": grouped(heldout) if heldout else None,
        "heldout_of": main["name"],
        "heldout_share": f"{heldout / main['chars']:.0%}" if heldout and main["chars"] else None,
        "description": corpus.get("description"),
        "companions": len(rows) - 1,
        "has_companions": "companions" in corpus,
    }


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
        "label": (f"Held-out bits per character fell from {bpc_text(bpcs[0])} at step {grouped(steps[0])} "
                  f"to {bpc_text(best[1])} at step {grouped(best_step)}, the best step"),
    }


def training(meta: dict) -> list[dict]:
    m = meta.get("metrics", {})
    args = meta.get("train_args") or {}
    rows = []

    def add(label, value, note=None):
        rows.append({"label": label, "value": value, "note": note})

    if "steps_run" in m:
        add("Steps run", grouped(m["steps_run"]), "optimizer steps")
    if "best_step" in m:
        add("Best step", grouped(m["best_step"]), "the checkpoint kept: lowest held-out bits/char")
    if "batch_size" in args and "n_ctx" in meta.get("config", {}):
        add("Batch", f"{args['batch_size']} × {meta['config']['n_ctx']} tokens")
    if "lr" in args:
        add("Peak learning rate", f"{args['lr']:g}", "cosine schedule with warmup" if "warmup_frac" in args else None)
    if "weight_decay" in args:
        add("Weight decay", f"{args['weight_decay']:g}")
    if "dropout" in meta.get("config", {}):
        add("Dropout", f"{meta['config']['dropout']:g}")
    if "seed" in args:
        add("Seed", str(args["seed"]), "training is deterministic for a given seed and thread count")
    if "train_tokens" in m:
        add("Training tokens", grouped(m["train_tokens"]), "tokens of training text (one pass)")
    if "tokens_per_char" in m:
        add("Tokens per character", f"{m['tokens_per_char']:.3f}", "on the held-out text")
    if "train_seconds" in m:
        add("Training time", f"{m['train_seconds'] / 60:.1f} min", "training loop, on the machine that trained it")
    return rows


def heads(meta: dict) -> list[dict]:
    definitions = meta.get("head_definitions") or {}
    role_score = {r["role"]: r.get("score") for r in definitions.get("roles", [])}
    rows = []
    for h in meta.get("heads") or []:
        ex = h.get("example")
        link = None
        if ex:
            link = {
                "hash": permalink_hash(ex["text"], ex["token"], h["layer"], h["head"]),
                "query": show_token(ex.get("query_text")), "key": show_token(ex.get("key_text")),
                "weight": f"{ex['weight']:.0%}" if "weight" in ex else None,
                "text": ex["text"], "token": ex["token"],
            }
        decider = role_score.get(h.get("role"))
        rows.append({
            "layer": h["layer"], "head": h["head"], "role": h.get("role") or "none",
            "scores": [{"key": k, "text": score_text(k, h["scores"][k]) if k in h.get("scores", {}) else "–",
                        "decides": k == decider} for k, _, _ in SCORE_COLUMNS],
            "example": link,
        })
    return rows


def score_text(key: str, value: float) -> str:
    return f"{value:.3f}"


def show_token(text: str | None) -> str:
    """A token's text for «…» quotes: surrounding spaces dropped, a blank token shown as ␣."""
    if text is None:
        return "?"
    return text.strip() or "\u2423" * max(len(text), 1)


def definitions(meta: dict) -> dict | None:
    d = meta.get("head_definitions")
    if not d:
        return None
    even = d.get("even_attention") or {}
    scores = [{"key": k, "name": name, "text": d[k]} for k, name, _ in SCORE_COLUMNS if k in d]
    roles = []
    for r in d.get("roles", []):
        score_name = next((name for k, name, _ in SCORE_COLUMNS if k == r.get("score")), r.get("score"))
        rule = f"{score_name} ≥ {r['at_least']:g}" if r.get("score") and r.get("at_least") is not None else "no score passes"
        roles.append({"role": r["role"], "rule": rule, "order": r.get("order")})
    return {
        "scores": scores,
        "roles": roles,
        "rule": d.get("role_rule"),
        "windows": d.get("windows"),
        "repeated": d.get("repeated"),
        "example": d.get("example"),
        "in_context_gain": d.get("in_context_gain"),
        "even": [{"key": k, "text": score_text(k, even[k]) if k in even else "–"} for k, _, _ in SCORE_COLUMNS],
        "has_even": bool(even),
    }


def default_view(meta: dict) -> dict:
    d = meta.get("default", {})
    out = {"text": d.get("text"), "layer": d.get("layer"), "head": d.get("head"), "token": d.get("token"),
           "hash": None, "top_weight": None, "top_key": d.get("top_key"), "set": None}
    if d.get("text") is not None and d.get("token") is not None:
        out["hash"] = permalink_hash(d["text"], d["token"], d.get("layer", 1), d.get("head", 1), d.get("view", "head"))
    if "top_weight" in d:
        out["top_weight"] = f"{d['top_weight']:.0%}"
    s = d.get("sentence_set")
    if s and s.get("total"):
        out["set"] = {"agree": s["agree"], "total": s["total"], "share": f"{s['agree'] / s['total']:.0%}"}
    return out


def card(meta: dict) -> dict:
    m = meta.get("metrics", {})
    c = {
        "format_version": meta.get("format_version"),
        "architecture": architecture(meta),
        "positions": positions(meta),
        "files": files(meta),
        "texts": texts(meta),
        "quality": quality(meta),
        "curve": curve(meta),
        "training": training(meta),
        "heads": heads(meta),
        "definitions": definitions(meta),
        "default": default_view(meta),
        "head_order": {k: v for k, v in (meta.get("head_order") or {}).items() if v},
        "in_context_gain": f"{m['in_context_gain']:.3f}" if "in_context_gain" in m else None,
        "score_columns": [{"key": k, "name": name, "hint": hint} for k, name, hint in SCORE_COLUMNS],
    }
    missing = []
    if not c["positions"]["scheme"]:
        missing.append("the position scheme")
    if not c["texts"]["has_companions"]:
        missing.append("companion texts")
    if not c["curve"]:
        missing.append("the training history")
    if not c["heads"]:
        missing.append("the head scores and roles")
    if c["default"]["top_weight"] is None:
        missing.append("the default view's evidence")
    c["missing"] = missing
    c["missing_text"] = (", ".join(missing[:-1]) + " or " + missing[-1]) if len(missing) > 1 else "".join(missing)
    return c
