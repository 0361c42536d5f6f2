"""meta.json keeps every field the browser and the pages read (docs/model-files.md is the
contract): the committed model's and a freshly exported second model's. A field that goes missing
fails here; nothing is skipped."""

from __future__ import annotations

import json

import pytest
from other_model import other_model

from attention_live.meta_schema import SCHEMA
from conftest import MODEL_DIR
from export import head_scores as hs
from tools.meta_schema_outputs import required_paths, shown

# Paths split by "/" (file names have dots); "heads[]" is every entry of a list. Every field meta.json's
# schema requires (attention_live/meta.schema.json: what static/attention-view/, the templates,
# site_builder/model_card.py / model_facts.py and the tests read), and every registered head score.
REQUIRED = [
    *("/".join(keys).replace("/[]", "[]") for keys in required_paths(SCHEMA)),
    *(f"heads[]/scores/{name}" for name in hs.SCORE_NAMES),
    *(f"head_definitions/{name}" for name in hs.SCORE_NAMES),
]


def missing(meta: dict, path: str) -> bool:
    nodes = [meta]
    for part in path.split("/"):
        many = part.endswith("[]")
        key = part.removesuffix("[]")
        nodes = [n for n in nodes if n is not None]  # a null (where the schema allows one) holds nothing
        if not all(isinstance(n, dict) and key in n for n in nodes):
            return True
        nodes = [n[key] for n in nodes]
        if many:
            if not all(isinstance(n, list) for n in nodes):  # empty: no companions, no head before layer 2
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


def test_the_contract_doc_names_every_required_field():
    doc = (MODEL_DIR.parent.parent / "docs" / "model-files.md").read_text(encoding="utf-8")
    for keys in required_paths(SCHEMA):
        assert f"| `{shown(keys)}` |" in doc, keys
