"""The graph's optional inputs (head_mask, logit_positions) are one rule on the page and in
Python: every case of tests/data/graph-input-cases.json is fed the same by
static/attention-view/model/graph-inputs.js optionalFeeds (under Node, as model/loader.js runs
it) and by attention_live/feeds.py optional_feeds (as graph_feeds runs it), except that what the
page drops (a repeated or out-of-range position) Python refuses."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attention_live.feeds import HEAD_MASK, LOGIT_POSITIONS, optional_feeds
from conftest import ROOT, run_node

DATA = json.loads((ROOT / "tests" / "data" / "graph-input-cases.json").read_text(encoding="utf-8"))
L, H = DATA["model"]["n_layer"], DATA["model"]["n_head"]
CASES = DATA["cases"]
IDS = [c["why"] for c in CASES]

PAGE_JS = """
import { readFileSync } from "node:fs";
const { optionalFeeds } = await import(process.cwd() + "/static/attention-view/model/graph-inputs.js");
const { L, H, cases } = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map((c) => {
  try {
    const mask = c.head_mask === null ? null : Float32Array.from(c.head_mask);
    const fed = optionalFeeds(c.inputs, c.T, L, H, mask, c.positions);
    return { head_mask: fed.headMask && Array.from(fed.headMask), logit_positions: fed.logitPositions, at: fed.at };
  } catch (err) {
    return { error: String(err.message) };
  }
})));
"""


@pytest.fixture(scope="module")
def page_feeds():
    return run_node(PAGE_JS, {"L": L, "H": H, "cases": CASES})


@pytest.mark.parametrize("n", range(len(CASES)), ids=IDS)
def test_the_page_feeds_each_case(page_feeds, n):
    case, got = CASES[n], page_feeds[n]
    if "error" in case:
        assert case["error"] in got["error"] and "head_mask" in got["error"]
    else:
        assert got == {**case["fed"], "at": case["at"]}


@pytest.mark.parametrize("n", range(len(CASES)), ids=IDS)
def test_python_feeds_each_case_as_the_page_does(n):
    case = CASES[n]
    mask = None if case["head_mask"] is None else np.reshape(case["head_mask"], (L, H))
    feed = lambda: optional_feeds(case["inputs"], case["T"], [L, H], mask, case["positions"])  # noqa: E731
    refused = case.get("error") or case.get("python_error")
    if refused:
        with pytest.raises(ValueError) as err:
            feed()
        assert refused in str(err.value)
        return
    fed = feed()
    assert set(fed) == {k for k, v in case["fed"].items() if v is not None}
    if case["fed"]["head_mask"] is not None:
        assert fed[HEAD_MASK].dtype == np.float32 and fed[HEAD_MASK].reshape(-1).tolist() == case["fed"]["head_mask"]
    if case["fed"]["logit_positions"] is not None:
        assert fed[LOGIT_POSITIONS].dtype == np.int64 and fed[LOGIT_POSITIONS].tolist() == case["fed"]["logit_positions"]
