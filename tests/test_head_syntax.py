"""The `ablate` head syntax is one rule on the page and in Python: every case of
tests/data/head-syntax-cases.json is read the same by static/attention-view/model/head-set.js
(under Node) and by attention_live.heads.parse_ablate, which differ only in what they do with
a bad entry (the page skips it and says why; Python refuses the value)."""

from __future__ import annotations

import json

import pytest

from attention_live import ModelError
from attention_live.heads import parse_ablate
from conftest import ROOT, run_node

CASES = json.loads((ROOT / "tests" / "data" / "head-syntax-cases.json").read_text(encoding="utf-8"))
MODEL = CASES["model"]
IDS = [f"{n}: {c['why']}" for n, c in enumerate(CASES["cases"])]

HEAD_SET_JS = """
import { readFileSync } from "node:fs";
const { parseAblate } = await import(process.cwd() + "/static/attention-view/model/head-set.js");
const { model, cases } = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => parseAblate(c.ablate, model))));
"""


@pytest.fixture(scope="module")
def page_reads():
    return run_node(HEAD_SET_JS, {"model": MODEL, "cases": CASES["cases"]})


@pytest.mark.parametrize("n", range(len(CASES["cases"])), ids=IDS)
def test_the_page_reads_each_case_as_written(page_reads, n):
    case, got = CASES["cases"][n], page_reads[n]
    if "heads" in case:
        assert got["errors"] == [] and got["heads"] == case["heads"]
    else:
        assert len(got["errors"]) >= 1 and case["error"] in got["errors"][0]


@pytest.mark.parametrize("n", range(len(CASES["cases"])), ids=IDS)
def test_python_reads_each_case_as_the_page_does(n):
    case = CASES["cases"][n]
    if "heads" in case:
        assert parse_ablate(MODEL, case["ablate"]) == [tuple(h) for h in case["heads"]]
    else:
        with pytest.raises(ModelError) as err:
            parse_ablate(MODEL, case["ablate"])
        assert case["error"] in str(err.value) and "\n" not in str(err.value)
