"""meta.json keeps every field the browser and the pages read (docs/model-files.md is the
contract): the committed model's and a freshly exported second model's. A field that goes missing
fails here; nothing is skipped."""

from __future__ import annotations

import json

import pytest
from other_model import other_model

from conftest import MODEL_DIR
from export import head_scores as hs

# Paths split by "/" (file names have dots); "heads[]" is every entry of a list. What static/attention-view/ reads, what the
# templates and site/model_card.py / model_facts.py read, and what tests recompute.
REQUIRED = [
    "format_version", "n_params",
    *(f"config/{k}" for k in ("vocab_size", "n_ctx", "n_layer", "n_head", "d_model", "d_head", "d_ff", "positions")),
    "positions/scheme",
    *(f"files/{name}/{k}" for name in ("model.onnx", "tokenizer.json", "golden.json") for k in ("bytes", "sha256")),
    *(f"metrics/{k}" for k in ("heldout_bpc", "baselines_bpc", "best_step", "steps_run", "history",
                               "in_context_gain", "heldout_loss_nats")),
    *(f"corpus/{k}" for k in ("name", "description", "sha256", "chars", "heldout_chars", "companions")),
    *(f"default/{k}" for k in ("text", "layer", "head", "token", "view", "top_weight", "top_key", "query_text",
                               "top_key_text", "chosen_by", "source", "rule", "story", "switch_off")),
    *(f"heads[]/{k}" for k in ("layer", "head", "role", "example")),
    *(f"heads[]/scores/{name}" for name in hs.SCORE_NAMES),
    *(f"head_definitions/{k}" for k in (*hs.SCORE_NAMES, "scores", "roles", "role_rule", "even_attention",
                                        "windows", "repeated", "in_context_gain", "example", "example_source")),
    *(f"onnx/{k}" for k in ("opset", "axes", "inputs")),
]


def missing(meta: dict, path: str) -> bool:
    nodes = [meta]
    for part in path.split("/"):
        many = part.endswith("[]")
        key = part.removesuffix("[]")
        if not all(isinstance(n, dict) and key in n for n in nodes):
            return True
        nodes = [n[key] for n in nodes]
        if many:
            if not all(isinstance(n, list) and n for n in nodes):
                return True
            nodes = [entry for n in nodes for entry in n]
    return False


@pytest.fixture(scope="module", params=["committed", "other"])
def meta(request, tmp_path_factory):
    folder = MODEL_DIR if request.param == "committed" else other_model(tmp_path_factory.getbasetemp())["model"]
    return json.loads((folder / "meta.json").read_text(encoding="utf-8"))


def test_every_field_the_contract_names_is_there(meta):
    assert [p for p in REQUIRED if missing(meta, p)] == []
    cfg = meta["config"]
    assert len(meta["heads"]) == cfg["n_layer"] * cfg["n_head"]


def test_the_check_catches_a_lost_field(meta):
    for path in ("default/top_key_text", "heads[]/scores/induction", "head_definitions/scores"):
        broken = json.loads(json.dumps(meta))
        *parents, last = path.replace("[]", "").split("/")
        holders = [broken]
        for part in parents:
            holders = [e for h in holders for e in (h[part] if isinstance(h[part], list) else [h[part]])]
        del holders[0][last]
        assert missing(broken, path), path


def test_the_contract_doc_names_the_default_fields():
    doc = (MODEL_DIR.parent.parent / "docs" / "model-files.md").read_text(encoding="utf-8")
    for path in REQUIRED:
        if path.startswith("default/"):
            assert f'"{path.split("/")[-1]}"' in doc, path
