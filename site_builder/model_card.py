"""The model card's figures (model.html), derived from meta.json at build time.

Every number on the page comes from here, and everything here comes from `meta` (the dict read
from the model folder's meta.json): nothing is typed in by hand. Fields that an older or custom
meta.json lacks (format 1 has no `heads`, `history`, `positions` or companions) come back as
None / empty lists, and `missing` names them so the page can say what is not recorded.

The two charts are site_builder/model_charts.py; the sentences other pages share are site_builder/model_facts.py.

Imported by site_builder/build.py.
"""

from __future__ import annotations

from site_builder.model_charts import curve, grouped, quality
from site_builder.model_facts import asked_vocab, circuit_reads, counted, curriculum, token_text
from site_builder.model_pushes import pushes
from site_builder.permalink import permalink_hash, to_hash  # noqa: F401  (to_hash: the card's callers read it here)

SHA_PREFIX = 12


def human_bytes(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.2f} MB"
    if n >= 1_000:
        return f"{n / 1_000:.1f} kB"
    return f"{n} bytes"


def sha_prefix(sha: str | None) -> str | None:
    return sha[:SHA_PREFIX] if sha else None


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
            if key == "vocab_size" and (asked := asked_vocab(meta)):
                note = f"{note}; asked {grouped(asked)}, the text supports {grouped(cfg[key])}"
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
        "companions_text": counted(len(rows) - 1, "companion text"),
        "has_companions": "companions" in corpus,
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
    if curriculum(meta):
        add("Induction curriculum", curriculum(meta), "training settings that grow an induction head (docs/experiments.md)")
    if "threads" in args:
        add("Threads", str(args["threads"]), "part of the seed: one and two threads round differently")
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


def score_columns(meta: dict) -> list[tuple[str, str, str]]:
    """(key, column header, hint) in the registry's order, as meta.json's `head_definitions.scores`
    records it (export/head_scores.py); an older meta.json without it gets its scores' own keys."""
    rows = (meta.get("head_definitions") or {}).get("scores")
    if rows:
        return [(r["name"], r["label"], r["hint"]) for r in rows]
    first = (meta.get("heads") or [{}])[0].get("scores") or {}
    return [(k, k.replace("_", " "), "") for k in first]


def heads(meta: dict) -> list[dict]:
    columns = score_columns(meta)
    definitions = meta.get("head_definitions") or {}
    role_score = {r["role"]: r.get("score") for r in definitions.get("roles", [])}
    rows = []
    for h in meta.get("heads") or []:
        ex = h.get("example")
        link = None
        if ex:
            link = {
                "hash": permalink_hash(ex["text"], ex["token"], h["layer"], h["head"]),
                "query": token_text(ex.get("query_text")), "key": token_text(ex.get("key_text")),
                "weight": f"{ex['weight']:.0%}" if "weight" in ex else None,
                "text": ex["text"], "token": ex["token"],
            }
        decider = role_score.get(h.get("role"))
        rows.append({
            "layer": h["layer"], "head": h["head"], "role": h.get("role") or "none",
            "hint": copying_hint((h.get("scores") or {}).get("copying")),
            "scores": [{"key": k, "text": score_text(k, h["scores"][k]) if k in h.get("scores", {}) else "–",
                        "decides": k == decider} for k, _, _ in columns],
            "example": link,
        })
    return rows


# A copying score this far from 0 says what the head writes, whatever its attention does: most of
# its OV circuit's eigenvalues have one sign (export/head_scores.py `copying`).
DECISIVE_COPYING = 0.5


def copying_hint(score: float | None) -> str | None:
    """"copies" or "suppresses" beside a head's role where its copying score is decisive."""
    if score is None or abs(score) < DECISIVE_COPYING:
        return None
    return "copies" if score > 0 else "suppresses"


def score_text(key: str, value: float) -> str:
    return f"{value:.3f}"


def definitions(meta: dict) -> dict | None:
    columns = score_columns(meta)
    d = meta.get("head_definitions")
    if not d:
        return None
    even = d.get("even_attention") or {}
    scores = [{"key": k, "name": name, "text": d[k]} for k, name, _ in columns if k in d]
    roles = []
    for r in d.get("roles", []):
        score_name = next((name for k, name, _ in columns if k == r.get("score")), r.get("score"))
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
        "even": [{"key": k, "text": score_text(k, even[k]) if k in even else "–"} for k, _, _ in columns],
        "has_even": bool(even),
    }


def default_view(meta: dict) -> dict:
    d = meta.get("default", {})
    out = {"text": d.get("text"), "layer": d.get("layer"), "head": d.get("head"), "token": d.get("token"),
           "hash": None, "top_weight": None, "top_key": d.get("top_key"), "key": token_text(d.get("top_key_text")),
           "query": token_text(d.get("query_text")), "chosen_by": d.get("chosen_by"), "story": None}
    if d.get("text") is not None and d.get("token") is not None:
        out["hash"] = permalink_hash(d["text"], d["token"], d.get("layer", 1), d.get("head", 1), d.get("view", "head"))
    if "top_weight" in d:
        out["top_weight"] = f"{d['top_weight']:.0%}"
    story = d.get("story") or {}
    s = story.get("sentence_set")
    if s and s.get("total"):
        out["story"] = {"name": story.get("name"), "definition": story.get("definition"),
                        "agree": s["agree"], "total": s["total"], "share": f"{s['agree'] / s['total']:.0%}"}
    return out


def circuit(meta: dict) -> dict | None:
    """The induction circuit export measured (export/circuit.py), or None without one."""
    c = meta.get("circuit")
    if not c or not c.get("head"):
        return None
    reads = c.get("composes_with")
    read_off = circuit_reads(meta)
    signed = lambda x: f"{x:.2f}".replace("-", "\u2212")  # noqa: E731
    return {"layer": c["head"]["layer"], "head": c["head"]["head"], "induction": f"{c['induction']:.2f}",
            "gain": signed(c["in_context_gain"]), "definition": c.get("definition"),
            "reads": reads and {"layer": reads["layer"], "head": reads["head"]},
            "switch_off": [{"layer": s["layer"], "head": s["head"], "induction": f"{s['induction']:.2f}",
                            "gain": signed(s["in_context_gain"]),
                            "reads": s is read_off}
                           for s in c.get("switch_off", [])]}


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
        "circuit": circuit(meta),
        "pushes": pushes(meta),
        "default": default_view(meta),
        "head_order": {k: v for k, v in (meta.get("head_order") or {}).items() if v},
        "in_context_gain": f"{m['in_context_gain']:.3f}" if "in_context_gain" in m else None,
        "score_columns": [{"key": k, "name": name, "hint": hint} for k, name, hint in score_columns(meta)],
        "has_copying": any(k == "copying" for k, _, _ in score_columns(meta)), "decisive_copying": f"{DECISIVE_COPYING:g}",
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
