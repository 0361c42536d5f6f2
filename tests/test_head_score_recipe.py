"""docs/model.md's "Adding a head score", followed literally: its two code blocks go into a copy of
export/ and tests/ where their first lines say, the registry's own tests run in that copy (a known
answer for every score, the docs table after `python -m export.head_scores --docs`, what
measure_heads measures), and a small model exported with the copy carries the new score in
meta.json (every head's scores, `head_definitions`), passes meta.json's schema, and gets a model
card column for it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from doc_recipes import recipe as doc_recipe
from other_model import other_model

from conftest import ROOT

DOC = ROOT / "docs" / "model.md"
NAME, LABEL = "two_back", "two back"


def recipe() -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    return doc_recipe(DOC, "### Adding a head score", "python")


def add_pattern_score(path, before: str, body: list[str]) -> None:
    """Step 1: the block just before `def <before>(`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    at = lines.index(next(line for line in lines if line.startswith(f"def {before}(")))
    lines[at:at] = body
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def add_known_answer(path, table: str, body: list[str], registry: list[str]) -> None:
    """Step 2: the block's entry in `table`, after the entry of the score registered before it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{table} = "))
    name = re.match(r'\s*"(\w+)"', body[0]).group(1)
    previous = registry[registry.index(name) - 1]
    at = next(i for i in range(start, len(lines)) if lines[i].lstrip().startswith(f'"{previous}":'))
    lines[at + 1:at + 1] = body
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run(args, cwd, **kwargs):
    return subprocess.run([sys.executable, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600,
                          **kwargs)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    tree = tmp_path_factory.mktemp("tree")
    skip = shutil.ignore_patterns("__pycache__", "_assets")
    for name in ("export", "tests", "train", "attention_live", "testbed", "site_builder"):
        shutil.copytree(ROOT / name, tree / name, ignore=skip)
    shutil.copy2(ROOT / "pyproject.toml", tree / "pyproject.toml")
    (tree / "docs").mkdir()
    shutil.copy2(ROOT / "docs" / "model-files.md", tree / "docs" / "model-files.md")
    (tree / "static").symlink_to(ROOT / "static", target_is_directory=True)  # the committed model, read only
    (score_file, before, score), (answers_file, table, answer) = [(tree / p, n, b) for p, n, b in recipe()[1]]
    add_pattern_score(score_file, before, score)
    registry = run(["-c", "from export.head_scores import SCORE_NAMES; print(' '.join(SCORE_NAMES))"], tree)
    assert registry.returncode == 0, registry.stderr[-2000:]
    add_known_answer(answers_file, table, answer, registry.stdout.split())
    docs = run(["-m", "export.head_scores", "--docs"], tree)  # step 3
    assert docs.returncode == 0, docs.stderr[-2000:]
    return tree


def test_the_recipe_names_its_places():
    steps, blocks = recipe()
    assert len(steps) == 4, steps
    assert [(path, name) for path, name, _ in blocks] == [("export/head_scores.py", "uniform_causal"),
                                                          ("tests/test_head_registry.py", "KNOWN_ANSWERS")]
    assert "`python -m export.head_scores --docs`" in steps[2] and "`python -m export`" in steps[3]


def test_the_registrys_tests_pass_with_the_new_score(tree):
    proc = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_head_registry.py", "-k",
                "known_answer or docs_table or measure_heads_measures or roles_come"], tree)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "4 passed" in proc.stdout
    table = (tree / "docs" / "model-files.md").read_text(encoding="utf-8")
    assert f"| `{NAME}` | held-out windows | mean weight on key q-2" in table


def test_the_new_score_without_its_known_answer_fails_the_registrys_test(tree, tmp_path):
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy, symlinks=True)
    answers = copy / "tests" / "test_head_registry.py"
    answers.write_text("\n".join(line for line in answers.read_text(encoding="utf-8").splitlines()
                                 if not line.lstrip().startswith(f'"{NAME}":')) + "\n", encoding="utf-8")
    proc = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_head_registry.py", "-k", "known_answer"], copy)
    assert proc.returncode == 1 and "1 failed" in proc.stdout, proc.stdout[-3000:]


def test_an_export_carries_the_new_score(tree, tmp_path_factory):
    model = other_model(tmp_path_factory.getbasetemp())
    out = tree / "exported"
    proc = run(["-m", "export", "--checkpoint", model["checkpoint"], "--corpus", model["corpus"], "--out", out], tree)
    assert proc.returncode == 0, proc.stderr[-3000:]
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    for head in meta["heads"]:
        assert 0 <= head["scores"][NAME] <= 1, head
    rows = {row["name"]: row for row in meta["head_definitions"]["scores"]}
    assert (rows[NAME]["label"], rows[NAME]["measured_on"]) == (LABEL, "held-out windows")
    assert meta["head_definitions"][NAME].startswith("mean weight on key q-2")

    from attention_live.meta_schema import check_meta
    from site_builder import model_card

    check_meta(meta)
    assert (NAME, LABEL, "weight on the token two before") in model_card.score_columns(meta)
    card = model_card.heads(meta)[0]
    assert NAME in [score["key"] for score in card["scores"]]
