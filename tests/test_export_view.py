"""The element's export toolbar in Chromium: PNG, SVG and JSON downloads of the current view.

The JSON must carry exactly the numbers of `element.result`; the SVG must parse as XML and
hold the tokens as text (hostile ones included) and the view's weights; the PNG must decode
and be the same drawing as the SVG (its size, and heatmap cells of the SVG's colours).
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from conftest import WATCH_CSP, chip_label, view_result, wait_live

pytestmark = pytest.mark.browser

SVG = "{http://www.w3.org/2000/svg}"
# Quotes, markup and a character XML 1.0 forbids (U+FFFE), next to ordinary words.
TEXT = 'The Queen said "<b>&amp;</b>" to Alice \ufffe and left'


def download(page, kind):
    with page.expect_download() as info:
        page.locator(f"attention-view button[data-export={kind}]").click()
    d = info.value
    assert d.failure() is None
    return d.suggested_filename, d.path().read_bytes()


def svg_label(text: str) -> str:
    return chip_label(text).replace("\ufffe", "\ufffd")


@pytest.fixture
def exporting(page, site_url):
    page.add_init_script(WATCH_CSP)
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    page.evaluate("(t) => { document.querySelector('attention-view').text = t; }", TEXT)
    page.locator("attention-view .chip").nth(4).click()
    yield page
    assert page.evaluate("window.__csp") == []  # blob: downloads need nothing the CSP forbids
    assert page.console_errors == [] and page.page_errors == []


def test_json_svg_and_png_of_a_head_view(exporting, reference):
    page = exporting
    r = view_result(page)
    q, layer, head = r["token"], r["layer"], r["head"]
    assert q == 4 and r["view"] == "head"
    T = len(r["tokens"])
    assert [t["id"] for t in r["tokens"]] == reference.ids(TEXT)

    name, body = download(page, "json")
    assert name == f"attention-L{layer}H{head}-token4.json"
    doc = json.loads(body)
    for key in ("text", "tokens", "token", "layer", "head", "view", "top", "attention", "live", "truncated"):
        assert doc[key] == r[key], key
    # Masked scores are -Infinity in `result` and null in JSON; every other score is equal.
    assert json.loads(json.dumps(r["scores"]).replace("-Infinity", "null")) == doc["scores"]
    assert doc["matrix"] == r["attention"][layer - 1][head - 1]
    assert doc["row"] == r["attention"][layer - 1][head - 1][q]

    name, body = download(page, "svg")
    assert name.endswith(".svg")
    root = ET.fromstring(body)
    assert root.tag == f"{SVG}svg"
    width, height = float(root.get("width")), float(root.get("height"))
    tokens = root.findall(f".//{SVG}text[@class='token']")
    assert [t.text for t in tokens] == [svg_label(t["text"]) for t in r["tokens"]]
    all_text = "".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert '"<b>&amp;</b>"' in all_text  # the sentence's markup survives as text
    cells = root.findall(f".//{SVG}rect[@data-w]")
    assert len(cells) == T * (T + 1) // 2  # the lower triangle; masked cells are not drawn
    weights = {(int(c.get("data-q")), int(c.get("data-k"))): float(c.get("data-w")) for c in cells}
    for k in range(q + 1):
        assert weights[(q, k)] == r["attention"][layer - 1][head - 1][q][k]

    name, body = download(page, "png")
    assert name.endswith(".png")
    image = Image.open(io.BytesIO(body))
    assert image.format == "PNG"
    assert image.size == (round(2 * width), round(2 * height))
    rgb = image.convert("RGB")
    assert len(rgb.getcolors(1 << 24)) > 20  # a drawing, not a blank canvas
    # Heatmap cells in the PNG have the SVG's colours: the same drawing in two formats.
    for cell in (cells[0], cells[len(cells) // 2], cells[-1]):
        x, y = float(cell.get("x")), float(cell.get("y"))
        w, h = float(cell.get("width")), float(cell.get("height"))
        centre = (int(2 * (x + w / 2)), int(2 * (y + h / 2)))
        expected = tuple(int(v) for v in re.findall(r"\d+", cell.get("fill")))
        assert all(abs(a - b) <= 2 for a, b in zip(rgb.getpixel(centre), expected)), (centre, expected)


def test_json_of_the_average_view_and_no_toolbar_without_text(exporting):
    page = exporting
    page.locator("attention-view .mini[data-layer='1'][data-view='average']").click()
    r = view_result(page)
    assert (r["view"], r["layer"]) == ("average", 1)
    name, body = download(page, "json")
    assert name == "attention-L1-average-token4.json"
    doc = json.loads(body)
    mean = np.array(r["attention"][0]).mean(axis=0)
    np.testing.assert_allclose(np.array(doc["matrix"]), mean, atol=1e-12, rtol=0)
    assert doc["row"] == doc["matrix"][4]
    assert doc["view_name"] == "The average of layer 1's heads"

    # With no text there is nothing to export, and the toolbar goes away with the row.
    page.locator("attention-view textarea").fill("")
    assert view_result(page)["tokens"] == []
    assert page.locator("attention-view button[data-export]").count() == 3
    assert not any(b.is_visible() for b in page.locator("attention-view button[data-export]").all())
