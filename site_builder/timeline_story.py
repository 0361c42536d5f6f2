"""When the heads formed, in prose (the model card's and chapter 1's timeline sections), computed
from the exported numbers: timeline.json's `formed` (the first snapshot at which each head's
score passed its role's threshold, export/timeline.py) and its points (held-out bits per
character and in-context gain at every snapshot). Nothing here is written by hand; a model
without a timeline gets None, and the pages leave the sections out.

Sudden or gradual is decided by one rule, RULE below, on the snapshot interval in which each head
first passed its threshold (the interval from the snapshot before to the one where it passed).
Loss curves bend one way only while training merely improves what it has: the held-out figure
falls more slowly per step from one interval to the next. A new mechanism shows as the opposite,
the curve falling faster than just before, or as the in-context gain (how much better a
repeated sequence is predicted the second time: what an induction head buys) jumping.

Imported by site_builder/build.py.
"""

from __future__ import annotations

from site_builder.model_facts import counted, final_model
from site_builder.permalink import permalink_hash

SPEEDUP = 1.5  # "faster than just before": at least this many times the fall per step
MIN_DROP = 0.02  # ... and at least this many bits per character over the interval
GAIN_JUMP = 0.1  # an in-context gain rising by at least this many nats per token in the interval

RULE = (f"a head's arrival counts as sudden when, between the snapshot before and the one where it first "
        f"passed its threshold, held-out bits per character fell at least {SPEEDUP:g} times as fast per "
        f"step as in the interval just before (and by at least {MIN_DROP:g}), or the in-context gain rose "
        f"by at least {GAIN_JUMP:g} nats per token; otherwise it is gradual")


def grouped(n: int) -> str:
    return f"{n:,}"


def a_or_an(word: str) -> str:
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def score_labels(meta: dict) -> dict[str, str]:
    scores = (meta.get("head_definitions") or {}).get("scores") or []
    return {s["name"]: s.get("label", s["name"]) for s in scores}


def head_score(point: dict, layer: int, head: int, name: str) -> float | None:
    return next((h["scores"].get(name) for h in point["heads"] if (h["layer"], h["head"]) == (layer, head)), None)


def live_link(meta: dict, layer: int, head: int, step: int | None, shipped: int) -> str:
    """The live page on that head at that step: on the head's example sentence (or the opening
    one), at the shipped model when the step is the shipped one (an absent step)."""
    example = next((h.get("example") for h in meta.get("heads") or []
                    if (h["layer"], h["head"]) == (layer, head) and h.get("example")), None)
    d = meta.get("default") or {}
    text, token = (example["text"], example["token"]) if example else (d.get("text", ""), d.get("token", -1))
    state_hash = permalink_hash(text, token, layer, head)
    return state_hash if step is None or step >= shipped else f"{state_hash}&step={step}"


def interval(points: list[dict], step: int) -> dict | None:
    """What changed from the snapshot before `step` to `step`, and in the interval before that."""
    at = next((i for i, p in enumerate(points) if p["step"] == step), None)
    if not at:
        return None
    before, now = points[at - 1], points[at]
    span = now["step"] - before["step"]
    drop = before["heldout_bpc"] - now["heldout_bpc"]
    out = {"from": before, "to": now, "span": span, "drop": drop, "rate": drop / span,
           "gain_rise": now["in_context_gain"] - before["in_context_gain"], "rate_before": None}
    if at >= 2:
        earlier = points[at - 2]
        out["rate_before"] = (earlier["heldout_bpc"] - before["heldout_bpc"]) / (before["step"] - earlier["step"])
    return out


def is_sudden(change: dict | None) -> bool:
    """RULE, for one interval."""
    if change is None:
        return False
    faster = (change["rate_before"] is not None and change["drop"] >= MIN_DROP
              and change["rate"] >= SPEEDUP * max(change["rate_before"], 0.0))
    return faster or change["gain_rise"] >= GAIN_JUMP


def arrival(meta: dict, timeline: dict, entry: dict, labels: dict[str, str]) -> dict:
    """One head of `formed`, in words, with its numbers and its link."""
    points = timeline["points"]
    shipped = points[-1]["step"]
    layer, head, step = entry["layer"], entry["head"], entry["step"]
    label = labels.get(entry["score"], entry["score"].replace("_", " "))
    change = interval(points, step) if step is not None else None
    out = {"layer": layer, "head": head, "role": entry["role"], "role_a": a_or_an(entry["role"]), "score": label, "at_least": entry["at_least"],
           "step": step, "step_text": None if step is None else grouped(step), "value_text": None,
           "final_text": f"{head_score(points[-1], layer, head, entry['score']) or 0:.2f}",
           "hash": live_link(meta, layer, head, step, shipped), "sudden": is_sudden(change), "change": None,
           "at_start": step == points[0]["step"], "at_shipped": step == shipped}
    if step is not None:
        out["value_text"] = f"{entry['value']:.2f}"
    if change is not None:
        before = head_score(change["from"], layer, head, entry["score"]) or 0
        out["change"] = {
            "from_step": grouped(change["from"]["step"]), "score_from": f"{before:.2f}",
            "bpc_from": f"{change['from']['heldout_bpc']:.2f}", "bpc_to": f"{change['to']['heldout_bpc']:.2f}",
            "span": grouped(change["span"]),
            "speedup": (f"{change['rate'] / change['rate_before']:.1f}"
                        if change["rate_before"] and change["rate_before"] > 0 else None),
            "gain_from": f"{change['from']['in_context_gain']:+.2f}", "gain_to": f"{change['to']['in_context_gain']:+.2f}",
        }
    return out


def sudden_sentence(a: dict) -> str:
    c = a["change"]
    faster = f", {c['speedup']} times as fast per step as just before" if c["speedup"] else ""
    return (f"L{a['layer']}H{a['head']} became {a_or_an(a['role'])} head between step {c['from_step']} and {a['step_text']} "
            f"({a['score']} {c['score_from']} → {a['value_text']}); over the same {c['span']} steps held-out bits per "
            f"character fell from {c['bpc_from']} to {c['bpc_to']}{faster}, and the in-context gain went from "
            f"{c['gain_from']} to {c['gain_to']} nats per token.")


def gradual_sentence(heads: list[dict]) -> str:
    """No arrival was sudden: say so, with the interval that came closest to a faster fall."""
    text = ("It was gradual: no head arrived with a sudden change. In every interval in which a head first passed "
            f"its threshold, held-out bits per character fell less than {SPEEDUP:g} times as fast per step as just "
            f"before (or by less than {MIN_DROP:g}), and the in-context gain rose by less than {GAIN_JUMP:g} nats "
            "per token.")
    rated = [a for a in heads if a["change"] and a["change"]["speedup"]]
    if rated:
        a = max(rated, key=lambda x: float(x["change"]["speedup"]))
        c = a["change"]
        text += (f" Closest to a jump: between step {c['from_step']} and {a['step_text']}, when L{a['layer']}H{a['head']} "
                 f"passed its threshold, the figure fell from {c['bpc_from']} to {c['bpc_to']}, at {c['speedup']} times "
                 "the rate per step of the interval just before.")
    return text


def names(heads: list[tuple[int, int]]) -> str:
    """[(1, 2), (2, 4)] -> "L1H2 and L2H4"."""
    shown = [f"L{layer}H{head}" for layer, head in heads]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def without_role(meta: dict, timeline: dict, formed: list[dict]) -> dict:
    """The heads without a role in the shipped model: those that never had one at any snapshot,
    and those that had one on the way ({"head": (l, h), "role", "step"}: the first such step)."""
    rules = (meta.get("head_definitions") or {}).get("roles") or []
    none = next((r["role"] for r in rules if not r.get("score")), "diffuse")
    have = {(a["layer"], a["head"]) for a in formed}
    never, passing = [], []
    for h in timeline["points"][-1]["heads"]:
        key = (h["layer"], h["head"])
        if key in have:
            continue
        roles = [(p["step"], next(x["role"] for x in p["heads"] if (x["layer"], x["head"]) == key))
                 for p in timeline["points"][:-1]]
        on_the_way = next(((step, role) for step, role in roles if role != none), None)
        if on_the_way:
            passing.append({"head": names([key]), "step": grouped(on_the_way[0]), "role": on_the_way[1]})
        else:
            never.append(key)
    return {"never": names(never) if never else None, "never_count": len(never), "passing": passing, "none": none}


def story(meta: dict, timeline: dict | None) -> dict | None:
    """The timeline sections' content, or None without a timeline (or with nothing in it)."""
    if not timeline or not meta.get("timeline") or len(timeline.get("points") or []) < 2:
        return None
    points = timeline["points"]
    labels = score_labels(meta)
    heads = [arrival(meta, timeline, e, labels) for e in timeline.get("formed") or []]
    heads.sort(key=lambda a: (a["step"] is None, a["step"] or 0, a["layer"], a["head"]))
    sudden = [a for a in heads if a["sudden"]]
    first, last = points[0], points[-1]
    out = {
        "snapshots": len(points) - 1, "snapshots_text": counted(len(points) - 1, "snapshot"),
        "first_step": grouped(first["step"]), "last_snapshot_step": grouped(points[-2]["step"]),
        "shipped_step": grouped(last["step"]), "final_name": final_model(meta)["name"],
        "final_title": final_model(meta)["title"],
        "bpc_first": f"{first['heldout_bpc']:.2f}", "bpc_shipped": f"{last['heldout_bpc']:.2f}",
        "heads": heads, "others": without_role(meta, timeline, heads),
        "verdict": "sudden" if sudden else "gradual", "rule": RULE,
    }
    if sudden:
        out["verdict_text"] = " ".join(sudden_sentence(a) for a in sudden)
    elif heads:
        out["verdict_text"] = gradual_sentence(heads)
    else:
        out["verdict_text"] = "No head passed a role's threshold at any snapshot: every head stayed diffuse."
    return out
