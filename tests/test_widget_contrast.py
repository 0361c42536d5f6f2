"""The colour scales and the marks around them, in Debian's chromium.

Expected numbers come from static/model/ through onnxruntime-python (the `reference` fixture);
the relative scale's mapping (weight × (q+1), log scale from 1/16× to 16× even) is written out
again here, so a change to palette.js's `level` shows up as a test failure.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import open_view

pytestmark = pytest.mark.browser

TEXT = "The Hatter poured tea for the March Hare and the Dormouse"
LAYER, HEAD, QUERY = 2, 3, 8
SPAN = 16


def relative_level(w: float, q: int) -> float:
    if w <= 0:
        return 0.0
    return min(1.0, max(0.0, (math.log(w * (q + 1)) + math.log(SPAN)) / (2 * math.log(SPAN))))


def table(page) -> np.ndarray:
    return np.array(page.evaluate('async () => (await import("/static/attention-view/readouts/palette.js")).TABLE'))


def stepped_candidates(tab, t: float) -> set:
    """The chips' 32-step colour for palette position t, and its neighbours (float32 rounding)."""
    level = round(t * 31)
    return {tuple(tab[round(j * 255 / 31)]) for j in range(max(0, level - 1), min(31, level + 1) + 1)}


def chips(page):
    return page.evaluate("""() => [...document.querySelector("attention-view").shadowRoot.querySelectorAll(".chip")]
      .map((c) => ({ cls: c.className, bg: getComputedStyle(c).backgroundColor,
                     mark: getComputedStyle(c, "::after").visibility === "visible" ? getComputedStyle(c, "::after").content : "none",
                     label: c.getAttribute("aria-label") }))""")


def rgb(css: str) -> tuple:
    return tuple(int(float(x)) for x in css[css.index("(") + 1 : css.index(")")].split(",")[:3])


def test_relative_scale_colours_a_known_row(reused_live_page, reference):
    page = reused_live_page
    result = open_view(page, text=TEXT, layer=LAYER, head=HEAD, token=QUERY, scale="relative")
    assert result["scale"] == "relative" and result["token"] == QUERY
    row = reference.run(reference.ids(TEXT))["attention"][LAYER - 1, HEAD - 1, QUERY].astype(np.float64)
    tab = table(page)
    shown = chips(page)
    for k in range(QUERY + 1):
        t = relative_level(float(row[k]), QUERY)
        assert rgb(shown[k]["bg"]) in stepped_candidates(tab, t), (k, shown[k]["bg"], row[k], t)
    # The share scale would colour the same row differently: the test tells the two apart.
    assert any(rgb(shown[k]["bg"]) not in stepped_candidates(tab, float(row[k])) for k in range(QUERY + 1))
    # The heatmap's row QUERY: one pixel per key, on the same relative scale (256 levels).
    px = np.array(page.evaluate("""(q) => {
      const c = document.querySelector("attention-view").shadowRoot.querySelector("canvas.heatmap");
      return [...c.getContext("2d").getImageData(0, q, c.width, 1).data];
    }""", QUERY)).reshape(-1, 4)
    for k in range(QUERY + 1):
        i = round(relative_level(float(row[k]), QUERY) * 255)
        ok = {tuple(tab[j]) for j in range(max(0, i - 1), min(255, i + 1) + 1)}
        assert tuple(px[k, :3]) in ok, (k, px[k], row[k])
    legend = page.evaluate("""() => document.querySelector("attention-view").shadowRoot.querySelector(".legend").textContent""")
    assert "\u00d7 even" in legend
    pressed = page.evaluate("""() => [...document.querySelector("attention-view").shadowRoot
      .querySelectorAll(".scale-button[aria-pressed=true]")].map((b) => b.dataset.scale)""")
    assert pressed == ["relative"]


@pytest.mark.parametrize("scale", ["share", "relative"])
def test_chips_above_the_even_share_are_marked(reused_live_page, reference, scale):
    page = reused_live_page
    open_view(page, text=TEXT, layer=LAYER, head=HEAD, token=QUERY, scale=scale)
    row = reference.run(reference.ids(TEXT))["attention"][LAYER - 1, HEAD - 1, QUERY].astype(np.float64)
    shown = chips(page)
    even = 1 / (QUERY + 1)
    above = [k for k in range(QUERY + 1) if row[k] > even]
    assert above and len(above) < QUERY + 1
    for k, chip in enumerate(shown):
        if k <= QUERY and abs(row[k] - even) < 1e-5:
            continue  # too close to call in float32
        marked = " above" in f"{chip['cls']} "
        assert marked == (k in above), (k, row[k], even, chip)
        # The mark is drawn (a ▲), not a colour alone, and named for screen readers.
        assert (chip["mark"] == '"\u25b2"') == marked, chip
        assert ("above the even share" in chip["label"]) == marked


def test_sentence_names_the_top_three_and_row_zero_is_explained(reused_live_page, reference):
    page = reused_live_page
    result = open_view(page, text=TEXT, layer=LAYER, head=HEAD, token=QUERY)
    row = reference.run(reference.ids(TEXT))["attention"][LAYER - 1, HEAD - 1, QUERY]
    explain = page.evaluate("""() => document.querySelector("attention-view").shadowRoot.querySelector(".explain").textContent""")
    for k in np.argsort(-row[: QUERY + 1], kind="stable")[:3]:
        name = result["tokens"][k]["text"].strip()
        assert f"{round(100 * float(row[k]))}% on \u00ab{name}\u00bb" in explain, (k, explain)
    veil = page.evaluate("""() => {
      const r = document.querySelector("attention-view").shadowRoot;
      const v = r.querySelector(".heatmap-row0"), c = r.querySelector("canvas.heatmap");
      return { title: v.title, h: v.getBoundingClientRect().height, ch: c.getBoundingClientRect().height,
               caption: r.querySelector(".map-panel .caption").textContent };
    }""")
    assert "100%" in veil["title"] and "Row 0" in veil["caption"]
    assert veil["h"] == pytest.approx(veil["ch"] / len(result["tokens"]), abs=1.5)
