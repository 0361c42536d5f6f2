"""The permalink is one rule on the page and in the site build: every case of
tests/data/permalink-cases.json is written the same by static/attention-view/state.js toHash
(under Node: the element's assembled schema) and by site_builder/permalink.py to_hash (the model
card's and the timeline story's links)."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, run_node
from site_builder import permalink

CASES = json.loads((ROOT / "tests" / "data" / "permalink-cases.json").read_text(encoding="utf-8"))["cases"]
IDS = [c["why"] for c in CASES]

STATE_JS = """
import { readFileSync } from "node:fs";
const { toHash } = await import(process.cwd() + "/static/attention-view/state.js");
const cases = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => toHash(c.state))));
"""


@pytest.fixture(scope="module")
def page_hashes():
    return run_node(STATE_JS, CASES)


@pytest.mark.parametrize("n", range(len(CASES)), ids=IDS)
def test_the_page_writes_each_case(page_hashes, n):
    assert page_hashes[n] == CASES[n]["hash"]


@pytest.mark.parametrize("n", range(len(CASES)), ids=IDS)
def test_the_site_build_writes_each_case_as_the_page_does(n):
    assert permalink.to_hash(CASES[n]["state"]) == CASES[n]["hash"]
