"""Every `path/file.ext name` pointer in the repository's comments and docs resolves
(tools/check_pointers.py, run by `make lint`), and the check notices one that does not: each
broken pointer below is planted in a copy of the tree, which passes without it."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
from tools.check_pointers import Tree, check


def test_every_pointer_in_the_tree_resolves():
    assert [str(b) for b in check(ROOT)] == []


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """The files the check reads (binary ones empty: only their names matter)."""
    dest = tmp_path_factory.mktemp("tree")
    for rel in Tree(ROOT).files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith((".onnx", ".pt", ".png", ".wasm")):
            (dest / rel).touch()
        else:
            shutil.copyfile(ROOT / rel, dest / rel)
    return dest


@pytest.fixture(scope="module")
def baseline(copy):
    """What the copy's check says before anything is planted (nothing, once the tree resolves:
    the first test holds that; these hold that the check sees what is planted either way)."""
    return {str(b) for b in check(copy)}


def planted(copy, rel: str, line: str, baseline: set):
    """The check's new complaints about `copy` with `line` added to the end of `rel`."""
    path = copy / rel
    before = path.read_text(encoding="utf-8") if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((before or "") + line + "\n", encoding="utf-8")
    try:
        return [b for b in check(copy) if str(b) not in baseline]
    finally:
        if before is None:
            path.unlink()
        else:
            path.write_text(before, encoding="utf-8")


BROKEN = [
    # (file, line planted at its end, what the complaint says)
    ("static/attention-view/core/controller.js", "// The result is built by runs.js toResult.",
     "runs.js defines no toResult"),
    ("export/heads.py", "# fed as to_onnx.graph_feeds feeds the graph", "export/to_onnx.py defines no graph_feeds"),
    ("tests/helpers.py", "# the token strip of av-tokens.js", "no such file in the repository"),
    ("docs/widget.md", "See static/attention-view/model/result.js `toResults`.", "result.js defines no toResults"),
    ("site_builder/build.py", "# the schema (core/state.js `SCHEMAS`)", "state.js defines no SCHEMAS"),
    ("README.md", "The page's parser is head-set.js `parse_ablate`.", "head-set.js defines no parse_ablate"),
]


@pytest.mark.parametrize(("rel", "line", "why"), BROKEN, ids=[b[2] for b in BROKEN])
def test_a_planted_broken_pointer_fails(copy, baseline, rel, line, why):
    broken = planted(copy, rel, line, baseline)
    assert len(broken) == 1 and broken[0].where.startswith(f"{rel}:") and why in broken[0].why


RESOLVING = [
    ("static/attention-view/core/controller.js", "// The result is built by result.js toResult."),
    ("export/heads.py", "# fed as attention_live.feeds.graph_feeds feeds the graph"),
    ("docs/widget.md", "See static/attention-view/model/result.js `toResult`."),
    ("site_builder/build.py", "# site_builder/build.py copies the runtime files; site_builder/doc_numbers.py writes the numbers"),
    ("tests/helpers.py", "# the `Result` of result.js, and the heading of docs/widget.md `Module map`"),
]


@pytest.mark.parametrize(("rel", "line"), RESOLVING)
def test_a_pointer_that_resolves_or_prose_passes(copy, baseline, rel, line):
    assert planted(copy, rel, line, baseline) == []


def test_a_file_name_two_files_define_the_name_in_is_ambiguous(copy, baseline):
    (copy / "tests" / "one").mkdir()
    (copy / "tests" / "two").mkdir()
    (copy / "tests" / "one" / "twin.py").write_text("def shared_rule():\n    pass\n", encoding="utf-8")
    (copy / "tests" / "two" / "twin.py").write_text("def shared_rule():\n    pass\n", encoding="utf-8")
    try:
        broken = planted(copy, "site_builder/build.py", "# the rule (twin.py shared_rule)", baseline)
        assert len(broken) == 1 and "ambiguous" in broken[0].why
        assert planted(copy, "site_builder/build.py", "# the rule (one/twin.py shared_rule)", baseline) == []
    finally:
        shutil.rmtree(copy / "tests" / "one")
        shutil.rmtree(copy / "tests" / "two")


def test_the_command_says_error_and_exits_1_on_a_broken_pointer(copy, baseline):
    run = lambda: subprocess.run([sys.executable, str(ROOT / "tools" / "check_pointers.py"), str(copy)],  # noqa: E731
                                 capture_output=True, text=True, check=False)
    assert run().returncode == (1 if baseline else 0)
    path = copy / "export" / "heads.py"
    before = path.read_text(encoding="utf-8")
    path.write_text(before + "# see to_onnx.graph_feeds\n", encoding="utf-8")
    try:
        out = run()
    finally:
        path.write_text(before, encoding="utf-8")
    assert out.returncode == 1 and "export/heads.py:" in out.stderr and out.stderr.splitlines()[-1].startswith("error: ")
