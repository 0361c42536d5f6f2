"""The induction rules are one rule on the page and in export: every case of
tests/data/induction-cases.json is answered the same by static/attention-view/readouts/induction.js
(under Node: inductionTargets, exampleRow) and by export/circuit.py (induction_targets,
example_row), the chapter's example and the widget's "Repeat it" pin included."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, run_node
from export.circuit import example_row, induction_targets

CASES = json.loads((ROOT / "tests" / "data" / "induction-cases.json").read_text(encoding="utf-8"))
TARGETS, ROWS = CASES["targets"], CASES["example_rows"]

INDUCTION_JS = """
import { readFileSync } from "node:fs";
const R = await import(process.cwd() + "/static/attention-view/readouts/induction.js");
const { targets, rows } = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify({
  targets: targets.map((c) => R.inductionTargets(c.ids)),
  rows: rows.map((c) => {
    const best = R.exampleRow(c.rows.map(([query, key, weight]) => ({ query, key, weight })), (q) => c.p[q], c.stripe);
    return [best.query, best.key, best.weight];
  }),
}));
"""


@pytest.fixture(scope="module")
def page():
    return run_node(INDUCTION_JS, {"targets": TARGETS, "rows": ROWS})


@pytest.mark.parametrize("n", range(len(TARGETS)), ids=[c["why"] for c in TARGETS])
def test_induction_targets_on_both_sides(page, n):
    case = TARGETS[n]
    assert page["targets"][n] == case["targets"]
    assert induction_targets(case["ids"]) == case["targets"]


@pytest.mark.parametrize("n", range(len(ROWS)), ids=[c["why"] for c in ROWS])
def test_the_example_row_on_both_sides(page, n):
    case = ROWS[n]
    assert page["rows"][n] == case["best"]
    got = example_row([tuple(r) for r in case["rows"]], lambda q: case["p"][q], case["stripe"])
    assert list(got) == case["best"]
