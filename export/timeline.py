"""The training timeline: one ONNX graph per snapshot the trainer kept (train/snapshots.py), with
what every head did at that step, written beside the model as `timeline/`.

Each snapshot's graph is the browser graph of the shipped model (same inputs, outputs and
operators) holding that step's float16-rounded weights as float16 initializers, each expanded
to float32 by a Cast at the top of the graph: half the bytes, and exactly the model the snapshot
is (its float16 weights, computed in float32), so the parity check compares it with PyTorch
running those same weights. A reader who never opens the timeline downloads none of it: the
page fetches `timeline/timeline.json` (and a snapshot's graph) only when the control is opened.
"""

from __future__ import annotations

import json

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from attention_live.feeds import graph_feeds
from export import head_scores as hs
from export.heads import measure_heads, ort_run, seen_tokens
from export.parity import ParityError, check_parity, session_for
from export.to_onnx import export_onnx_bytes, measuring_graph
from train.files import UserError, sha256_bytes
from train.model import permute_heads
from train.snapshots import snapshot_model

FOLDER = "timeline"
MANIFEST = f"{FOLDER}/timeline.json"
DIGITS = 4


def half_precision(onnx_bytes: bytes) -> bytes:
    """The same graph with every float32 initializer that float16 holds exactly stored as
    float16 and Cast back to float32 before use (others are left as they are)."""
    proto = onnx.load_from_string(onnx_bytes)
    graph = proto.graph
    casts, kept = [], []
    for init in graph.initializer:
        array = numpy_helper.to_array(init)
        half = array.astype(np.float16)
        if init.data_type != TensorProto.FLOAT or not np.array_equal(half.astype(np.float32), array):
            kept.append(init)
            continue
        stored = init.name + ".f16"
        kept.append(numpy_helper.from_array(half, stored))
        casts.append(helper.make_node("Cast", [stored], [init.name], to=TensorProto.FLOAT, name=f"expand {init.name}"))
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = casts + list(graph.node)  # the casts first: every later node may read their outputs
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(proto, full_check=True)
    return proto.SerializeToString()


def snapshot_graph(template, snapshot: dict, orders: dict[int, list[int]]) -> tuple[bytes, object]:
    """(graph bytes, the PyTorch model it must match) for one snapshot, heads renumbered as the
    shipped model's were."""
    model = snapshot_model(template, snapshot)
    for index, order in orders.items():
        permute_heads(model, index, order)
    graph = half_precision(export_onnx_bytes(model))
    try:
        check_parity(graph, model)
    except ParityError as exc:
        raise UserError(f"refusing to write the timeline: the graph of step {snapshot['step']} "
                        f"does not match PyTorch ({exc}).")
    return graph, model


def state_arrays(model) -> dict[str, np.ndarray]:
    """A model's weights as numpy arrays by state-dict name (the heads' weight scores read them)."""
    return {name: value.detach().cpu().numpy() for name, value in model.state_dict().items()}


def view_weight(session, tokenizer, default: dict) -> dict:
    """The default view's row at this step: its largest weight and which key holds it."""
    ids = tokenizer.encode(default["text"]).ids
    attention = session.run(["attention"], graph_feeds(session, ids))[0]
    row = attention[default["layer"] - 1, default["head"] - 1, default["token"], : default["token"] + 1]
    return {"top_weight": round(float(row.max()), DIGITS), "top_key": int(row.argmax())}


def point(session, tokenizer, counts, heldout_text: str, cfg, default: dict, weights: dict | None = None) -> dict:
    """What every head does at one step, by the shipped heads' definitions (no examples: those
    are searched for the shipped model only); `weights`: that step's (state_arrays)."""
    measured = measure_heads(ort_run(session), tokenizer.encode(heldout_text).ids, seen_tokens(counts),
                             cfg.n_layer, cfg.n_head, cfg.n_ctx, weights=weights)
    return {
        "heads": [{k: h[k] for k in ("layer", "head", "role", "scores")} for h in measured["heads"]],
        "in_context_gain": measured["in_context_gain"],
        "default_view": view_weight(session, tokenizer, default),
    }


def formed(points: list[dict], final_heads: list[dict]) -> list[dict]:
    """For each head with a role, the first step whose score passed that role's threshold (and
    the score there), or None if it never did before the shipped step."""
    thresholds = {label: (name, at_least) for group in hs.ROLE_GROUPS for label, name, at_least in group}
    out = []
    for head in final_heads:
        if head["role"] not in thresholds:
            continue
        name, at_least = thresholds[head["role"]]
        first = next((p for p in points
                      if next(h for h in p["heads"] if (h["layer"], h["head"]) == (head["layer"], head["head"]))
                      ["scores"][name] >= at_least), None)
        score = None if first is None else next(
            h for h in first["heads"] if (h["layer"], h["head"]) == (head["layer"], head["head"]))["scores"][name]
        out.append({"layer": head["layer"], "head": head["head"], "role": head["role"], "score": name,
                    "at_least": at_least, "step": None if first is None else first["step"], "value": score})
    return out


def timeline_files(ckpt: dict, template, tokenizer, heldout_text: str, default: dict, shipped: dict,
                   orders: dict[int, list[int]] | None = None, progress=lambda snaps: snaps) -> dict[str, bytes]:
    """{"timeline/step-NNNNN.onnx": bytes, ..., "timeline/timeline.json": bytes}, or {} for a
    checkpoint without snapshots. `template`: the shipped model (its config, heads renumbered);
    `default`: meta.json's default view; `shipped`: {"step", "heldout_bpc", "heads",
    "in_context_gain", "file"} of the shipped model, the timeline's last point; `progress` wraps the
    snapshots' iteration (a progress bar)."""
    orders = orders or {}
    best = shipped["step"]
    snaps = [s for s in ckpt.get("snapshots") or [] if s["step"] < best]
    if not snaps:
        return {}
    files, points = {}, []
    cfg = template.cfg
    for snap in progress(snaps):
        graph, model = snapshot_graph(template, snap, orders)
        name = f"{FOLDER}/step-{snap['step']:05d}.onnx"
        files[name] = graph
        measured = point(session_for(measuring_graph(graph)), tokenizer, ckpt["token_counts"], heldout_text, cfg, default, state_arrays(model))
        points.append({"step": snap["step"], "file": name.removeprefix(FOLDER + "/"), "bytes": len(graph),
                       "sha256": sha256_bytes(graph), "heldout_bpc": snap["heldout_bpc"], **measured})
    points.append({"step": best, "file": None, "shipped": True, **shipped})
    manifest = {
        "format_version": 1,
        "steps_run": ckpt["metrics"]["steps_run"],
        "snapshot_precision": "float16 weights, computed in float32 (the shipped model: float32)",
        "points": points,
        "formed": formed(points, shipped["heads"]),
        "total_bytes": sum(len(b) for b in files.values()),
    }
    files[MANIFEST] = (json.dumps(manifest, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    return files
