""""Show the math" in real Chromium for a model whose meta.json names its position scheme: with
ALiBi the table splits each score into q·k ÷ √d and the distance bias; with learned positions it
is the raw and scaled score as before. The model is the shipped one behind the fault-injecting
server (tests/widget_faults.py), its meta.json edited; the scores come from onnxruntime-python."""

from __future__ import annotations

import json

import pytest

from widget_faults import (  # noqa: F401  (fixtures)
    MODEL_DIR,
    fault_server,
    faults,
    page_html,
    wait_status,
    wpage,
)

pytestmark = pytest.mark.browser

TEXT = "The Queen turned to Alice and said"
PAGE = "/t/page.html"


def math_table(page):
    # The table is filled on the <details> `toggle` event, after the click returns: wait for it.
    page.wait_for_selector("attention-view .math-table tbody tr:not([hidden])", state="attached")
    return page.evaluate("""() => {
      const root = document.querySelector("attention-view").shadowRoot;
      const head = [...root.querySelectorAll(".math-table thead th")].map((th) => th.textContent);
      const rows = [...root.querySelectorAll(".math-table tbody tr")].filter((tr) => !tr.hidden)
        .map((tr) => [...tr.children].map((c) => c.textContent));
      return { head, rows };
    }""")


def math_table_with_positions(page, faults, positions: dict):
    """The math table of layer 2, head 3 at token 4, with meta.json's `positions` replaced."""
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    meta["positions"] = positions
    faults.files["/static/model/meta.json"] = json.dumps(meta).encode()
    faults.files[PAGE] = page_html(f'text="{TEXT}" layer="2" head="3" token="4"')
    page.goto(faults.url + PAGE)
    wait_status(page, "live")
    page.locator("attention-view summary").click()
    return math_table(page)


def num(cell: str) -> float:
    return float(cell.replace("\u2212", "-").split(" ")[0])


def test_show_the_math_splits_an_alibi_score_into_its_bias(wpage, faults, reference):
    slopes = [[0.5, 0.25, 0.125, 0.0625], [0.7, 0.35, 0.3, 0.1]]
    table = math_table_with_positions(wpage, faults, {"scheme": "alibi", "slopes": slopes})
    assert table["head"] == ["key", "q\u00b7k \u00f7 \u221ad", "distance bias", "score", "softmax weight"]
    ids = reference.ids(TEXT)
    scores = reference.scores(ids)[1, 2, 4]
    q, slope = 4, slopes[1][2]
    for k, row in enumerate(table["rows"]):
        if k > q:
            assert row[3] == "\u2212\u221e"
            continue
        raw, bias, score = num(row[1]), num(row[2]), num(row[3])
        assert bias == pytest.approx(-slope * (q - k), abs=1e-4)
        assert score == pytest.approx(float(scores[k]), abs=1e-4)
        assert raw + bias == pytest.approx(score, abs=2e-4)
    assert "ALiBi" in wpage.locator("attention-view .math-intro").text_content()


def test_show_the_math_for_learned_positions_is_unchanged(wpage, faults, reference):
    table = math_table_with_positions(wpage, faults, {"scheme": "learned"})
    assert table["head"] == ["key", "raw score q\u00b7k", "scaled \u00f7 \u221ad", "softmax weight"]
    scores = reference.scores(reference.ids(TEXT))[1, 2, 4]
    root = (json.loads((MODEL_DIR / "meta.json").read_text())["config"]["d_head"]) ** 0.5
    for k, row in enumerate(table["rows"][:5]):
        assert num(row[2]) == pytest.approx(float(scores[k]), abs=1e-4)
        assert num(row[1]) == pytest.approx(float(scores[k]) * root, abs=1e-3)
