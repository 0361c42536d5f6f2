"""meta.json has one definition, attention_live/meta.schema.json: what export writes today passes
it (the committed models and a fresh export), every reader refuses a file with one required field
removed by naming it (export before it writes, site_builder/build.py, attention_live.Model; the widget in
tests/test_widget_messages.py), a file of another format_version is refused in one sentence, and
what the schema writes (the widget's required fields and Meta typedef, docs/model-files.md's
table) is current."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
import torch
from other_model import other_model

from attention_live import Model, ModelError
from attention_live.meta_schema import KEYWORDS, SCHEMA, MetaInvalid, check_meta
from conftest import MODEL_DIR, ROOT
from testbed.built_site import BUILD
from tools import meta_schema_outputs

CIRCUIT_MODEL = ROOT / "tests" / "data" / "circuit-model"
OLD_FORMAT = "meta.json has format_version 1, and this version reads format 2 only: export the model again with `python -m export`"


@pytest.fixture(scope="module")
def harbour(tmp_path_factory):
    return other_model(tmp_path_factory.getbasetemp())


def read(folder) -> dict:
    return json.loads((folder / "meta.json").read_text(encoding="utf-8"))


def model_copy(tmp_path, edit):
    """The shipped model's folder with its meta.json edited."""
    folder = tmp_path / "model"
    shutil.copytree(MODEL_DIR, folder)
    meta = read(folder)
    edit(meta)
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def without_top_key_text(meta):
    del meta["default"]["top_key_text"]


def old_format(meta):
    meta["format_version"] = 1


def build(tmp_path, model):
    return subprocess.run([*BUILD, "--out", str(tmp_path / "site"), "--model", str(model)],
                          capture_output=True, text=True, check=False, timeout=300, cwd=ROOT)


def test_what_export_writes_today_is_what_the_schema_defines(harbour):
    for folder in (MODEL_DIR, CIRCUIT_MODEL, harbour["model"]):
        check_meta(read(folder))


def test_the_schema_uses_only_what_the_validator_knows():
    def keywords(node):
        if isinstance(node, dict):
            yield from node
            for key, value in node.items():
                if key in ("properties", "$defs"):
                    for child in value.values():
                        yield from keywords(child)
                elif isinstance(value, dict):
                    yield from keywords(value)
    assert set(keywords(SCHEMA)) <= KEYWORDS
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path, edit", [
    ("default.top_key_text", without_top_key_text),
    ("heads[5].role", lambda m: m["heads"][5].pop("role")),
    ('files["golden.json"].sha256', lambda m: m["files"]["golden.json"].pop("sha256")),
    ("circuit.stripe", lambda m: m["circuit"].pop("stripe")),
])
def test_one_required_field_removed_is_named(path, edit):
    meta = read(MODEL_DIR)
    edit(meta)
    with pytest.raises(MetaInvalid) as err:
        check_meta(meta)
    assert str(err.value) == f"meta.json has no {path}"


def test_a_field_of_the_wrong_kind_says_what_it_must_be():
    meta = read(MODEL_DIR)
    meta["config"]["n_head"] = "4"
    with pytest.raises(MetaInvalid, match=r'^meta.json\'s config.n_head must be a whole number, not "4"$'):
        check_meta(meta)


def test_another_format_version_is_refused_in_one_sentence():
    for version, said in ((1, "format_version 1"), (3, "format_version 3"), (None, "no format_version")):
        meta = read(MODEL_DIR)
        meta.pop("format_version") if version is None else meta.update(format_version=version)
        meta.pop("config")  # what else is wrong is not named: the version says it all
        with pytest.raises(MetaInvalid) as err:
            check_meta(meta)
        assert str(err.value) == OLD_FORMAT.replace("format_version 1", said)


def test_export_refuses_to_write_a_meta_json_the_schema_refuses(harbour, tmp_path):
    # A checkpoint that records no held-out size of its text (its corpus record is copied into meta.json).
    ckpt = torch.load(harbour["checkpoint"], map_location="cpu", weights_only=True)
    del ckpt["corpus"]["heldout_chars"]
    broken = tmp_path / "broken.pt"
    torch.save(ckpt, broken)
    out = tmp_path / "model"
    proc = subprocess.run([sys.executable, "-m", "export", "--checkpoint", str(broken), "--corpus", str(harbour["corpus"]),
                           "--out", str(out)], cwd=ROOT, capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 2, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last == "error: refusing to write: meta.json has no corpus.heldout_chars (attention_live/meta.schema.json).", last
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.pt"]


@pytest.mark.parametrize("edit, says", [(without_top_key_text, "meta.json has no default.top_key_text"),
                                        (old_format, OLD_FORMAT)])
def test_site_build_refuses_it_by_name(tmp_path, edit, says):
    model = model_copy(tmp_path, edit)
    proc = build(tmp_path, model)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: the site was not built: {model / 'meta.json'}: {says}"]
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("edit, says", [(without_top_key_text, "meta.json has no default.top_key_text"),
                                        (old_format, OLD_FORMAT)])
def test_the_package_refuses_it_by_name(tmp_path, edit, says):
    model = model_copy(tmp_path, edit)
    with pytest.raises(ModelError) as err:
        Model(model)
    assert str(err.value) == f"{model / 'meta.json'}: {says}"


def test_what_the_schema_writes_is_current():
    # Out of date after the schema changed: run `make schema`.
    stale = [path for path, text in meta_schema_outputs.outputs().items() if path.read_text(encoding="utf-8") != text]
    assert stale == []


def test_the_widget_checks_the_schemas_required_fields():
    metas = [read(MODEL_DIR), read(MODEL_DIR), read(MODEL_DIR), read(CIRCUIT_MODEL)]
    without_top_key_text(metas[1])
    metas[2]["circuit"] = None  # a model without the circuit: nothing under it is required
    del metas[3]["heads"][5]["role"]
    proc = subprocess.run(["node", "--input-type=module", "-e",
                           "import { checkMeta } from './static/attention-view/model/meta-check.js';"
                           "for (const m of JSON.parse(process.argv[1])) {"
                           " try { checkMeta(m); console.log('ok') } catch (e) { console.log(e.message) } }", json.dumps(metas)],
                          cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)
    assert proc.stdout.splitlines() == ["ok", "meta.json has no default.top_key_text", "ok", "meta.json has no heads[5].role"]
