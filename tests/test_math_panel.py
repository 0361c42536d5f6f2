"""The math panel ("Show the math") against Python: for every key of the pinned row, its q·k/√d_head,
the ALiBi distance bias and the score are the ones computed from the shipped checkpoint's
weights and real slopes (tests/math_reference.py), not re-derived from the panel's own formula."""

from __future__ import annotations

import pytest
from math_reference import load_model, score_parts

from conftest import meta, reference, reused_live_page, set_attributes, shared_live_page, view_result

pytestmark = pytest.mark.browser

TOL = 5e-5 + 1e-6  # the panel shows 4 decimals; float32 (browser) against float64 (here) adds ~1e-6


def num(text: str) -> float:
    return float(text.replace("\u2212", "-"))


@pytest.fixture(scope="module")
def model():
    return load_model()


@pytest.mark.parametrize("attrs", [{}, {"layer": 1, "head": 1, "token": 4}, {"text": "A far, far longer line of words, with commas", "layer": 2, "head": 4}])
def test_math_panel_parts_are_the_models(reused_live_page, reference, meta, model, attrs):
    page = reused_live_page
    r = set_attributes(page, **attrs) if attrs else view_result(page)
    q, layer, head = r["token"], r["layer"], r["head"]
    page.locator("attention-view details.math summary").click()
    rows = page.locator("attention-view .math-table tbody tr:not([hidden])")
    rows.nth(len(r["tokens"]) - 1).wait_for()
    parts = score_parts(model, reference.ids(r["text"]), layer, head, q)
    alibi = meta["positions"]["scheme"] == "alibi"
    for k in range(len(r["tokens"])):
        cells = rows.nth(k).locator("td").all_text_contents()
        if k > q:
            assert cells[0] == "\u2212\u221e" and cells[-1] == "0"
            continue
        if alibi:
            assert abs(num(cells[0]) - parts["qk_scaled"][k]) <= TOL, (k, cells)
            assert abs(num(cells[1]) - parts["bias"][k]) <= TOL, (k, cells)
            assert abs(num(cells[2]) - parts["score"][k]) <= TOL, (k, cells)
        else:
            assert abs(num(cells[1]) - parts["score"][k]) <= TOL, (k, cells)
        assert abs(float(cells[-1].split()[0]) - r["attention"][layer - 1][head - 1][q][k]) <= 5e-7
