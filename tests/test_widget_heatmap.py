"""The labelled heatmap: token labels on both axes (every n-th
at long texts), the crosshair readout on hover and on keyboard focus, and pinning from the map.
Every expected string is written from `el.result`, whose numbers test_page.py already checks
against onnxruntime-python."""

from __future__ import annotations

import pytest

from conftest import open_view, view_result
from helpers import SHADOW, synthetic_text

pytestmark = pytest.mark.browser



def axis_labels(page, axis: str):
    return page.evaluate(f"""() => [...{SHADOW}.querySelectorAll(".axis-{axis} .axis-label:not([hidden])")]
      .map((s) => ({{ text: s.textContent, title: s.title }}))""")


def readout(page) -> str:
    return page.evaluate(f"() => {SHADOW}.querySelector('.readout').textContent")


def name(result, i) -> str:
    return result["tokens"][i]["text"].strip()


def expected(result, q, k) -> str:
    w = result["attention"][result["layer"] - 1][result["head"] - 1][q][k]
    pct = "<1%" if 0 < w < 0.005 else f"{round(100 * w)}%"
    return f"\u00ab{name(result, q)}\u00bb \u2192 \u00ab{name(result, k)}\u00bb {pct}"


@pytest.mark.parametrize("long", [False, True])
def test_axis_labels_name_the_tokens(reused_live_page, long):
    text = synthetic_text(40, seed=5) if long else "The Hatter poured tea for the March Hare"
    result = open_view(reused_live_page, text=text)
    T = len(result["tokens"])
    step = 8 if long else 1
    assert (T == 128) == long
    for axis in ("top", "left"):
        labels = axis_labels(reused_live_page, axis)
        indices = list(range(0, T, step))
        assert len(labels) == len(indices) <= 16
        for i, label in zip(indices, labels, strict=True):
            assert label["text"] == name(result, i) and label["title"] == f"{i}: {name(result, i)}"


def test_hover_readout_and_crosshair_match_result(reused_live_page):
    page = reused_live_page
    result = open_view(page, text="The Queen turned to Alice and said", layer=1, head=2, token=6)
    T = len(result["tokens"])
    page.locator("attention-view canvas.heatmap").scroll_into_view_if_needed()
    box = page.locator("attention-view canvas.heatmap").bounding_box()
    for q, k in [(6, 4), (3, 0), (5, 5), (2, 6)]:
        page.mouse.move(box["x"] + (k + 0.5) * box["width"] / T, box["y"] + (q + 0.5) * box["height"] / T)
        want = expected(result, q, k) if k <= q else f"\u00ab{name(result, q)}\u00bb \u2192 \u00ab{name(result, k)}\u00bb: a later token, masked"
        assert readout(page) == want
        cross = page.evaluate(f"""() => [...{SHADOW}.querySelectorAll(".cross")].map((c) => ({{
          hidden: c.hidden, t: c.style.transform }}))""")
        assert cross == [{"hidden": False, "t": f"translateY({100 * q}%)"}, {"hidden": False, "t": f"translateX({100 * k}%)"}]
    page.mouse.move(0, 0)
    assert "point at a cell" in readout(page)
    # A click pins the row under the pointer, as before.
    page.mouse.click(box["x"] + 0.5 * box["width"] / T, box["y"] + 3.5 * box["height"] / T)
    assert view_result(page)["token"] == 3


def test_keyboard_walks_cells_and_enter_pins(reused_live_page):
    page = reused_live_page
    result = open_view(page, text="The Queen turned to Alice and said", layer=2, head=3, token=6)
    row = result["attention"][1][2][6]
    start = max(range(7), key=lambda k: (row[k], -k))
    page.evaluate(f"() => {SHADOW}.querySelector('canvas.heatmap').focus()")
    assert readout(page) == expected(result, 6, start)
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    q, k = 4, min(start, 4)
    assert readout(page) == expected(result, q, k)
    page.keyboard.press("ArrowLeft")
    assert readout(page) == expected(result, q, max(0, k - 1))
    # Arrows on the map walk cells: the pinned token has not moved.
    assert view_result(page)["token"] == 6
    page.keyboard.press("Enter")
    assert view_result(page)["token"] == 4
    label = page.evaluate(f"() => {SHADOW}.querySelector('canvas.heatmap').getAttribute('aria-label')")
    assert expected(result, q, max(0, k - 1)) in label
