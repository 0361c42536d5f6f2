"""docs/widget.md's "Adding a state key", followed literally: its code blocks go into a copy of the
tree at the file and list each block's first line names, `make schema` runs there, and the new key
is where the recipe's last step says: the written schema and `State` typedef, the permalink (the
page's and the model card's), the reducer, the embed code, the jinja2 macro, the offline worker's
page parameters and the notebook widget's traits. No browser: each of those is read where it is
made."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from doc_recipes import recipe as doc_recipe

from build_tree import copy_build_sources
from conftest import ROOT

DOC = ROOT / "docs" / "widget.md"
NODE = shutil.which("node")


def recipe() -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    return doc_recipe(DOC, "## Adding a state key", "js")


def insert_at_end_of(path, name: str, body: list[str]) -> None:
    """`body` before the bracket that closes `name`'s list, object or values: the first `];` or
    `};` after its declaration indented less than the body."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(rf"\b(const|function) {name}\b", line))
    indent = len(body[0]) - len(body[0].lstrip())
    end = next(i for i in range(start + 1, len(lines))
               if lines[i].strip() in ("];", "};") and len(lines[i]) - len(lines[i].lstrip()) < indent)
    lines[end:end] = body
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    if NODE is None:
        pytest.skip("node is not installed")
    tree = copy_build_sources(tmp_path_factory.mktemp("tree"))
    # What `make schema` and `make wheel` read besides the build's sources.
    for name in ("Makefile", "package.json", "package-lock.json", "pyproject.toml"):
        shutil.copy2(ROOT / name, tree / name)
    for name in ("tools", "wheel_builder"):
        shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "attention_live", tree / "attention_live", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "_assets"))
    (tree / "docs").mkdir()
    shutil.copy2(ROOT / "docs" / "model-files.md", tree / "docs" / "model-files.md")
    steps, blocks = recipe()
    for path, name, body in blocks:
        insert_at_end_of(tree / path, name, body)
    made = subprocess.run(["make", "--no-print-directory", "schema"], cwd=tree, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stdout + made.stderr
    return tree


def test_the_recipe_names_its_places():
    steps, blocks = recipe()
    assert len(steps) == 5, steps
    assert [(path, name) for path, name, _ in blocks] == [
        ("static/attention-view/features/timeline/state.js", "TIMELINE_KEYS"),
        ("static/attention-view/features/timeline/state.js", "TIMELINE_ACTIONS"),
        ("static/attention-view/share/embed-menu.js", "embedState")]
    assert "`make schema`" in steps[3]
    for place in ("permalink", "embed code", "jinja2 macro", "model card", "offline worker", "notebook widget"):
        assert place in steps[4], place


def test_make_schema_writes_the_new_key(tree):
    keys = json.loads((tree / "static" / "attention-view" / "state-schema.json").read_text(encoding="utf-8"))["keys"]
    shipped = json.loads((ROOT / "static" / "attention-view" / "state-schema.json").read_text(encoding="utf-8"))["keys"]
    names = [k["key"] for k in keys]
    # After every key links already carry (state.js LINK_ORDER): every link written before stays as it was.
    assert [k for k in keys if k["key"] != "speed"] == shipped
    assert names.index("speed") > names.index("compact")
    new = keys[names.index("speed")]
    assert {k: new[k] for k in ("key", "type", "choices")} == {
        "key": "speed", "type": "choice", "choices": ["slow", "normal", "fast"]}
    typedef = (tree / "static" / "attention-view" / "state-type.js").read_text(encoding="utf-8")
    assert ' * @property {"slow"|"normal"|"fast"} speed  how fast Play steps' in typedef
    assert " * @property {string|null} speed  how fast Play steps" in typedef  # StateProperties


PAGE_SIDE = """
import { SCHEMA, STATE_KEYS, toHash, fromHash, reduce } from "./static/attention-view/state.js";
import { snippets } from "./static/attention-view/share/embed-menu.js";
const state = { text: "The cat", token: 1, layer: 2, head: 3, view: "head", scale: "share", speed: "fast" };
const result = { text: "The cat", tokens: [], token: -1, layer: 2, head: 3, view: "head", scale: "share", speed: "fast" };
console.log(JSON.stringify({
  names: SCHEMA.names,
  hash: toHash(state),
  plain: toHash({ ...state, speed: "normal" }),
  read: fromHash("#text=a&speed=slow").speed,
  reduced: reduce({ ...state, speed: "normal" }, { type: "speed", speed: "slow" }, { count: 2, nLayer: 2, nHead: 4, labels: null }).speed,
  attributes: SCHEMA.toAttributes(state).speed,
  code: snippets(result, STATE_KEYS, "/"),
  plainCode: snippets({ ...result, speed: "normal" }, STATE_KEYS, "/").script,
}));
"""


def test_the_page_writes_and_reads_the_new_key(tree):
    proc = subprocess.run([NODE, "--input-type=module", "-e", PAGE_SIDE], cwd=tree, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["names"].index("speed") > out["names"].index("compact")
    assert out["hash"].endswith("&speed=fast") and "speed" not in out["plain"]
    assert (out["read"], out["reduced"], out["attributes"]) == ("slow", "slow", "fast")
    assert ' speed="fast">' in out["code"]["script"]
    assert "&amp;speed=fast\"" in out["code"]["iframe"]
    assert out["code"]["jinja"].endswith(', speed="fast") }}')
    assert "speed" not in out["plainCode"]  # the default is left out, as the attribute is


PYTHON_SIDE = """
import json
from site_builder import build, permalink
env = build.make_env()
html = env.from_string('{% from "_macros.html" import attention_view %}{{ attention_view(id="a", speed="fast") }}').render()
print(json.dumps({"hash": permalink.to_hash({"text": "The cat", "speed": "fast"}), "params": build.page_params(),
                  "macro": html}))
"""


def test_the_site_builder_takes_the_new_key(tree):
    proc = subprocess.run([sys.executable, "-c", PYTHON_SIDE], cwd=tree, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["hash"] == "#text=The%20cat&speed=fast"  # the model card's links
    assert "speed" in out["params"]  # the offline worker's page parameters
    assert 'speed="fast"' in out["macro"]


NOTEBOOK_SIDE = """
from attention_live import AttentionView
from attention_live.errors import ModelError
print(AttentionView.class_traits()["speed"].spec["choices"])
print(AttentionView(speed="fast").speed)
try:
    AttentionView(speed="fastest")
except ModelError as err:
    print(err)
"""


def test_the_notebook_widget_has_the_new_key_as_a_trait(tree):
    # What `make wheel` puts in the wheel, staged; the package is then imported from there.
    staged = subprocess.run([sys.executable, "-c", "from pathlib import Path; from wheel_builder.build_wheel import stage; "
                             "stage(Path('staged'))"], cwd=tree, capture_output=True, text=True, timeout=300)
    assert staged.returncode == 0, staged.stderr[-2000:]
    proc = subprocess.run([sys.executable, "-c", NOTEBOOK_SIDE], cwd=tree / "staged", capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    choices, value, refused = proc.stdout.strip().splitlines()[-3:]
    assert (choices, value) == ("['slow', 'normal', 'fast']", "fast")
    assert refused.startswith("speed must be one of 'slow', 'normal', 'fast'")
