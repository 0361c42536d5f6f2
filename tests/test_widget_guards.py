"""What the reader sees, checked against numbers computed independently: the attention-rollout row (from onnxruntime-python's attention, with
the rollout written out again here), the heatmap's pixels and the per-head strips against
`el.result`. In real Chromium; nothing is mocked.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from widget_faults import (  # noqa: F401  (fixtures)
    click_retry,
    fault_server,
    faults,
    page_html,
    view_result,
    wait_status,
    wpage,
)

pytestmark = pytest.mark.browser

TEXT = "The Queen turned to Alice and said"
PAGE = "/t/guards.html"


def rollout(attention: np.ndarray, layer: int) -> np.ndarray:
    """Attention rollout through 0-based `layer` (Abnar & Zuidema 2020), as the README and the
    page describe it: each layer's head average mixed half-and-half with the identity (the
    residual path), chained by matrix products from the first layer up."""
    T = attention.shape[-1]
    acc = np.eye(T)
    for l in range(layer + 1):
        acc = (0.5 * attention[l].astype(np.float64).mean(axis=0) + 0.5 * np.eye(T)) @ acc
    return acc


def open_view(page, faults, attrs):
    faults.files[PAGE] = page_html(f'text="{TEXT}" {attrs}')
    page.goto(faults.url + PAGE)
    wait_status(page, "live")
    return view_result(page)


def sr_rows(page) -> tuple[str, list[float]]:
    """The screen-reader table of the shown row: its caption and percents."""
    data = page.evaluate("""() => {
      const root = document.querySelector("attention-view").shadowRoot;
      const rows = [...root.querySelectorAll(".sr-only tbody tr")].filter((tr) => !tr.hidden);
      return { caption: root.querySelector(".sr-only caption").textContent,
               values: rows.map((tr) => tr.querySelector("td").textContent) };
    }""")
    return data["caption"], [float(v.rstrip("%")) for v in data["values"]]


def whole_percent_ok(text: str, w: float) -> bool:
    if text == "<1%":
        return 0 < 100 * w < 0.5 + 1e-6
    return abs(int(text.rstrip("%")) - 100 * w) <= 0.5 + 1e-4


@pytest.mark.parametrize("layer", [1, 2])
def test_rollout_row_matches_an_independent_rollout(wpage, faults, reference, layer):
    q = 5
    result = open_view(wpage, faults, f'view="rollout" layer="{layer}" token="{q}"')
    ids = reference.ids(TEXT)
    expected = rollout(reference.attention(ids), layer - 1)
    row = expected[q]
    assert row[: q + 1].sum() == pytest.approx(1.0, abs=1e-5)

    # The chips (whole percents) and the screen-reader table (one decimal) of the row.
    chips = wpage.locator("attention-view .chip .chip-pct").all_text_contents()
    for k, text in enumerate(chips):
        assert whole_percent_ok(text, row[k]) if k <= q else text == "\u00b7", (k, text, row[k])
    wpage.wait_for_selector(f"attention-view .sr-only caption:text('rollout through layer {layer}')", state="attached")
    caption, values = sr_rows(wpage)
    assert len(values) == q + 1
    np.testing.assert_allclose(values, 100 * row[: q + 1], atol=0.05 + 1e-6)

    # The JSON download: the full rollout matrix and the row, to float32 precision.
    with wpage.expect_download() as info:
        wpage.locator("attention-view button[data-export=json]").click()
    doc = json.loads(open(info.value.path(), encoding="utf-8").read())
    assert doc["view"] == "rollout" and doc["layer"] == layer and doc["token"] == q
    np.testing.assert_allclose(np.array(doc["matrix"]), expected, atol=1e-5, rtol=0)
    np.testing.assert_allclose(np.array(doc["row"]), row, atol=1e-5, rtol=0)
    assert result["view"] == "rollout"


def palette(page) -> np.ndarray:
    return np.array(page.evaluate('async () => (await import("/static/attention-view/readouts/palette.js")).TABLE'))


def colour_ok(table: np.ndarray, rgb, w: float) -> bool:
    """The palette's colour for weight w, allowing one step either way (float32 rounding)."""
    i = int(round(min(1.0, max(0.0, w)) * 255))
    return any(tuple(table[j]) == tuple(rgb) for j in range(max(0, i - 1), min(255, i + 1) + 1))


def view_matrix(result: dict, view: str, layer: int, head: int) -> np.ndarray:
    att = np.array(result["attention"], dtype=np.float64)
    if view == "head":
        return att[layer - 1, head - 1]
    if view == "average":
        return att[layer - 1].mean(axis=0)
    return rollout(att, layer - 1)


@pytest.mark.parametrize("view,layer,head", [("head", 2, 3), ("average", 1, 1), ("rollout", 2, 1)])
def test_heatmap_cells_are_the_views_weights(wpage, faults, view, layer, head):
    result = open_view(wpage, faults, f'view="{view}" layer="{layer}" head="{head}"')
    m = view_matrix(result, view, layer, head)
    T = m.shape[0]
    pixels = wpage.evaluate("""() => {
      const c = document.querySelector("attention-view").shadowRoot.querySelector("canvas.heatmap");
      return { w: c.width, h: c.height, data: [...c.getContext("2d").getImageData(0, 0, c.width, c.height).data] };
    }""")
    assert (pixels["w"], pixels["h"]) == (T, T)
    px = np.array(pixels["data"]).reshape(T, T, 4)
    table = palette(wpage)
    for qi in range(T):
        for k in range(T):
            if k > qi:
                assert px[qi, k, 3] == 0, (qi, k)  # masked: clear, the hatching shows through
            else:
                assert px[qi, k, 3] == 255 and colour_ok(table, px[qi, k, :3], m[qi, k]), (qi, k, px[qi, k], m[qi, k])


def strip_colours(style: str) -> list:
    """The colour of each stop pair of a strip's hard-stop gradient, in order; None = clear."""
    out = []
    for match in re.finditer(r"rgba?\(([^)]*)\)|transparent", style):
        if match.group(0) == "transparent":
            out.append(None)
            continue
        parts = [float(x) for x in match.group(1).split(",")]
        out.append(None if len(parts) == 4 and parts[3] == 0 else tuple(int(x) for x in parts[:3]))
    return out[::2] if len(out) and len(out) % 2 == 0 and out[::2] == out[1::2] else out


def test_head_strips_show_each_heads_row(wpage, faults):
    q = 4
    result = open_view(wpage, faults, f'token="{q}"')
    T = len(result["tokens"])
    table = palette(wpage)
    minis = wpage.evaluate("""() => [...document.querySelector("attention-view").shadowRoot.querySelectorAll(".mini")]
      .map((b) => ({ layer: Number(b.dataset.layer), head: Number(b.dataset.head), view: b.dataset.view,
                     style: b.querySelector(".mini-fill").style.backgroundImage,
                     top: b.querySelector(".mini-top").textContent }))""")
    assert len(minis) == 2 * (4 + 2)
    for mini in minis:
        row = view_matrix(result, mini["view"], mini["layer"], max(1, mini["head"]))[q]
        colours = strip_colours(mini["style"])
        assert len(colours) == T, (mini, colours)
        for k, rgb in enumerate(colours):
            if k > q:
                assert rgb is None, (mini, k)
            else:
                assert rgb is not None and colour_ok(table, rgb, row[k]), (mini["view"], mini["layer"], mini["head"], k, rgb, row[k])
        best = int(np.argmax(row[: q + 1]))
        assert mini["top"].endswith(f"{round(100 * row[best])}%") or mini["top"].endswith("<1%"), (mini, row)
