"""The builds the model card's tests read: the committed meta.json, and a "full" copy of it
where every format-2 field the committed one lacks is filled in with sample values (so heads,
history and companions are always exercised, with example texts full of characters that need
URL-encoding), built by the real build script."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import MODEL_DIR
from export.head_scores import SCORE_NAMES
from testbed.built_site import build_site

SCORE_KEYS = list(SCORE_NAMES)  # the registry's order: the card's columns follow it
TRICKY_TEXT = 'She said "hi" & <b>left</b> 50% + more #2, café — ok?'


def sample_v2_fields(meta: dict) -> dict:
    """`meta` with every format-2 field it lacks filled in with sample values (kept as they are
    when present, so a committed format-2 meta.json is tested as it is)."""
    full = copy.deepcopy(meta)
    cfg = full["config"]
    n_layer, n_head = cfg["n_layer"], cfg["n_head"]
    full.setdefault("positions", {"scheme": "alibi",
                                  "slopes": [[2 ** (-8 * (h + 1) / n_head) for h in range(n_head)]] * n_layer,
                                  "standard_slopes": [2 ** (-8 * (h + 1) / n_head) for h in range(n_head)]})
    cfg.setdefault("positions", full["positions"]["scheme"])
    metrics = full["metrics"]
    if "history" not in metrics:
        metrics["history"] = [[50 * (i + 1), round(3.0 - 0.8 * (1 - 0.9 ** i), 5)] for i in range(23)]
        metrics["best_step"] = min(metrics["history"], key=lambda h: h[1])[0]
    full["corpus"].setdefault("companions", [
        {"name": "one.txt", "chars": 123_456, "sha256": "ab" * 32},
        {"name": "two & three.txt", "chars": 7_890, "sha256": "cd" * 32},
    ])
    if not full.get("heads"):
        full["heads"] = []
        for layer in range(1, n_layer + 1):
            for head in range(1, n_head + 1):
                i = (layer - 1) * n_head + head
                scores = {k: round(0.0123 * i + 0.001 * j, 4) for j, k in enumerate(SCORE_KEYS)}
                full["heads"].append({
                    "layer": layer, "head": head, "role": ["previous token", "diffuse", "content", "self"][i % 4],
                    "scores": scores,
                    "example": {"text": f"{TRICKY_TEXT} {i}", "token": 3 + i, "key": 2, "weight": 0.5 + i / 100,
                                "query_text": " said", "key_text": " \""}})
    full.setdefault("head_definitions", {k: f"what {k} measures" for k in SCORE_KEYS} | {
        "roles": [{"order": 1, "role": "previous token", "score": "previous_token", "at_least": 0.3},
                  {"order": 2, "role": "diffuse", "score": None, "at_least": None}],
        "role_rule": "the first passing rule"})
    full["default"].setdefault("top_weight", 0.61)
    full["default"].setdefault("top_key", 4)
    full["default"].setdefault("story", {"name": "speaker", "definition": "what the story claims",
                                         "sentence_set": {"agree": 27, "total": 40, "share": 0.675}})
    full["format_version"] = 2
    return full


def committed_meta() -> dict:
    return json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))


def build_with_meta(out: Path | None, model_dir: Path, meta: dict) -> Path:
    """The real build script on a model folder that holds this meta.json beside the committed
    model's files (linked, not copied: the build checks each against the sizes and sha256 the
    meta.json records, which these edited copies keep), and its timeline when it points to one.
    out None: the folder alone, not built."""
    model_dir.mkdir(parents=True, exist_ok=True)
    names = list(meta.get("files") or {})
    if meta.get("timeline"):
        manifest = meta["timeline"]["manifest"]
        here = manifest.rpartition("/")[0]
        points = json.loads((MODEL_DIR / manifest).read_text(encoding="utf-8"))["points"]
        names += [manifest, *(f"{here}/{p['file']}" for p in points if p.get("file"))]
    for name in names:
        (model_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (model_dir / name).symlink_to(MODEL_DIR / name)
    (model_dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return build_site(out, "--model", str(model_dir)) if out else model_dir


@pytest.fixture(scope="session")
def full_site(tmp_path_factory) -> tuple[Path, dict]:
    meta = sample_v2_fields(committed_meta())
    tmp = tmp_path_factory.mktemp("card-full")
    return build_with_meta(tmp / "site", tmp / "model", meta), meta
