"""The state schema (static/attention-view/state.js SCHEMA: core's keys and every feature's) is
the one list of state keys: the JSON the Python side reads and the `State` typedef are what the
schema writes today, and the build, the macro and the model card's links take their keys from it."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import ROOT
from site_builder import build, model_card

SCHEMA_JSON = ROOT / "static" / "attention-view" / "state-schema.json"
STATE_TYPE = ROOT / "static" / "attention-view" / "state-type.js"


def written_by_the_schema(*args: str) -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    proc = subprocess.run([node, str(ROOT / "site_builder" / "state_schema.mjs"), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, check=True)
    return proc.stdout


def test_the_json_is_what_the_schema_writes_now():
    # Out of date after a state key changed (core/state.js or a feature's): run `make schema`.
    assert json.loads(SCHEMA_JSON.read_text(encoding="utf-8")) == json.loads(written_by_the_schema())


def test_the_state_typedef_is_what_the_schema_writes_now():
    # Out of date after a state key changed: run `make schema`.
    assert STATE_TYPE.read_text(encoding="utf-8") == written_by_the_schema("--typedef")


def test_build_and_model_card_take_their_keys_from_the_schema():
    keys = [k["key"] for k in json.loads(written_by_the_schema())["keys"]]
    assert build.page_params() == keys
    # Every key with a value, in the schema's order; the default colour scale is left out.
    state = {k: "x" for k in reversed(keys)} | {"scale": "share", "layer": 2}
    assert model_card.to_hash(state) == "#" + "&".join(f"{k}={'2' if k == 'layer' else 'x'}" for k in keys if k != "scale")
    assert model_card.to_hash({"scale": "relative"}) == "#scale=relative"


def test_the_macro_writes_every_state_key_and_refuses_others():
    keys = build.state_keys()
    env = build.make_env()
    args = ", ".join(f'{k}="v-{k}"' for k in reversed(keys))
    html = env.from_string('{% from "_macros.html" import attention_view %}'
                           f'{{{{ attention_view(id="a", src="m/", {args}) }}}}').render()
    names = [part.split("=")[0] for part in html.split("<attention-view", 1)[1].split(">", 1)[0].split()]
    assert names == ["id", *keys, "src"]
    with pytest.raises(build.BuildError, match="colour"):
        env.from_string('{% from "_macros.html" import attention_view %}{{ attention_view(colour="red") }}').render()
