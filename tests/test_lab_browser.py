"""Each panel of the lab page responds to its controls in real Chromium.

Expected figures come from examples/attention_demo.py on the same inputs, so a
panel that moves but shows wrong numbers fails too. Sliders are driven with
the keyboard, as a reader would; waits use locators (the page's CSP blocks the
eval that page.wait_for_function needs).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

from examples import attention_demo as demo

pytestmark = pytest.mark.browser


REF = demo.reference_data()
NAMES = REF["names"]


def f4(x):
    return f"{x:.4f}"


def vec(v):
    return "[" + ", ".join(f4(x) for x in v) + "]"


@pytest.fixture
def lab(page, site_url):
    failed = []
    page.on("response", lambda r: r.status >= 400 and failed.append(r.url))
    page.goto(f"{site_url}/lab.html")
    page.wait_for_selector("html.lab-ready", state="attached")
    yield page
    assert page.page_errors == []
    # Chromium asks for /favicon.ico on its own; any other failed load is ours.
    assert [u for u in failed if not u.endswith("/favicon.ico")] == []
    assert [m for m in page.console_errors if not m.startswith("Failed to load resource")] == []


def top3_text(q):
    s1 = REF["section1"]
    return ", ".join(f"{NAMES[j]} {f4(s1['A'][q][j])}" for j in s1["top3"][q])


def text(page, id_):
    return page.locator(f"#{id_}").text_content().strip()


def num(page, id_):
    return float(text(page, id_))


def press(page, selector, key, times=1):
    page.locator(selector).focus()
    for _ in range(times):
        page.keyboard.press(key)


def test_build_time_numbers_are_the_python_reference(lab):
    s1, q = REF["section1"], REF["default_query"]
    assert text(lab, "world-top3") == top3_text(q)
    assert text(lab, "world-output") == vec(s1["O"][q])
    assert text(lab, "scale-var") == f4(REF["section2"]["variance"][-1]["var"])
    assert text(lab, "scale-max-unscaled") == f4(REF["section2"]["saturation"]["max_unscaled"])
    assert text(lab, "jac-fd-diff") == f"{REF['section3']['max_diff']:.2e}"
    assert text(lab, "ret-p2") == "0.8700"
    tops = [NAMES[h["top1"][q]] for h in REF["section5"]["heads"]]
    assert [text(lab, "head-1-top"), text(lab, "head-2-top")] == tops


def test_page_obeys_the_csp_rules(lab):
    # No inline styles and no inline executable scripts: only the JSON block.
    assert lab.locator("[style]").count() == 0
    inline = lab.locator("script:not([src])")
    assert inline.count() == 1
    assert inline.get_attribute("type") == "application/json"


def test_page_reads_without_javascript(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    try:
        pg = context.new_page()
        pg.goto(f"{site_url}/lab.html")
        assert text(pg, "ret-p2") == "0.8700"
        assert pg.locator("#jac-matrix td").count() == 25
    finally:
        context.close()


def test_world_panel_follows_the_query_picker(lab):
    s1 = REF["section1"]
    initial = lab.locator("#world-rows").inner_text()
    q = NAMES.index("graphs24")
    lab.select_option("#world-query", str(q))
    weights = lab.locator("#world-rows tr td:nth-child(5)").all_text_contents()
    assert weights == [f4(x) for x in s1["A"][q]]
    assert text(lab, "world-top3") == top3_text(q)
    assert text(lab, "world-output") == vec(s1["O"][q])
    assert lab.locator("#world-rows tr.is-top").count() == 3
    # Back to the default: the browser's redraw is identical to the build's.
    lab.select_option("#world-query", str(REF["default_query"]))
    assert lab.locator("#world-rows").inner_text() == initial


def test_scale_panel_slider_and_draw_again(lab):
    press(lab, "#scale-dk", "End")
    expect(lab.locator("#scale-source")).to_contain_text("d_k = 512")
    assert text(lab, "scale-dk-value") == "512"
    assert abs(num(lab, "scale-ratio") - 1) < 0.05
    assert num(lab, "scale-max-unscaled") > num(lab, "scale-max-scaled")

    press(lab, "#scale-dk", "ArrowLeft", 3)  # 512 -> 64
    expect(lab.locator("#scale-source")).to_contain_text("d_k = 64")
    first = text(lab, "scale-var")
    lab.click("#scale-draw")
    expect(lab.locator("#scale-var")).not_to_have_text(first)
    assert abs(num(lab, "scale-var") / 64 - 1) < 0.05

    # Narrow keys: scaling by sqrt(1) changes nothing, so both maxima agree.
    press(lab, "#scale-dk", "Home")
    expect(lab.locator("#scale-source")).to_contain_text("d_k = 1")
    assert text(lab, "scale-max-unscaled") == text(lab, "scale-max-scaled")


def test_jacobian_shrinks_as_temperature_falls(lab):
    readings = [num(lab, "jac-max-entry")]
    press(lab, "#jac-temp", "ArrowLeft", 20)  # T = 10^(-20/20) = 0.1
    assert text(lab, "jac-temp-value") == "0.10"
    readings.append(num(lab, "jac-max-entry"))
    press(lab, "#jac-temp", "Home")  # T = 0.01
    readings.append(num(lab, "jac-max-entry"))
    assert readings[0] > readings[1] > readings[2], readings
    assert num(lab, "jac-max-p") > 0.999
    assert num(lab, "jac-fd-diff") < 1e-6


def test_jacobian_follows_edited_logits(lab):
    z = np.asarray(REF["section3"]["z"], dtype=float)
    lab.fill("#jac-z-3", "2.5")
    z[3] = 2.5
    p = demo.softmax(z)
    assert text(lab, "jac-p") == vec(p)
    cells = lab.locator("#jac-matrix td").all_text_contents()
    assert cells == [f"{x:.5f}" for x in demo.softmax_jacobian(p).ravel()]
    lab.fill("#jac-z-3", "")
    assert lab.locator("#jac-z-3").get_attribute("aria-invalid") == "true"
    assert text(lab, "jac-p") == vec(p)  # a bad entry leaves the last good state


def test_retrieval_sharpness_and_tilt(lab):
    V = np.asarray(REF["section4"]["V"])
    press(lab, "#ret-c", "ArrowRight", 50)  # 3.0 -> 8.0 in steps of 0.1
    assert text(lab, "ret-c-value") == "8.0"
    assert text(lab, "ret-p2") == "0.9990" == text(lab, "ret-closed")
    straight = num(lab, "ret-cos")
    assert straight >= 0.99
    assert text(lab, "ret-cos") == f4(demo.lookup(V, 8.0)["cos"])

    press(lab, "#ret-tilt", "ArrowRight", 30)  # keys now 60 degrees apart
    assert text(lab, "ret-angle") == "60"
    tilted = demo.lookup(V, 8.0, math.sin(math.radians(30)))
    assert text(lab, "ret-p2") == f4(tilted["p_slot"])
    assert num(lab, "ret-leak") > 0.01
    assert num(lab, "ret-cos") < straight
    assert text(lab, "ret-needed") == f"{demo.required_sharpness(0.5):.2f}"

    press(lab, "#ret-tilt", "End")  # identical keys: nothing can be told apart
    assert text(lab, "ret-p2") == "0.2500"
    assert "identical" in text(lab, "ret-needed")


def test_heads_panel_query_and_redraw(lab):
    heads = REF["section5"]["heads"]
    q = NAMES.index("learning")
    lab.select_option("#heads-query", str(q))
    for i, h in enumerate(heads, start=1):
        assert text(lab, f"head-{i}-top") == NAMES[h["top1"][q]]
        values = lab.locator(f"#head-{i}-bars .slot-value").all_text_contents()
        assert values == [f4(x) for x in h["A"][q]]
    assert text(lab, "heads-out-row") == vec(REF["section5"]["out"][q])
    assert text(lab, "heads-out-shape") == "(13, 8)"
    assert NAMES[q] in text(lab, "heads-verdict")

    reference_values = lab.locator("#head-1-bars .slot-value").all_text_contents()
    lab.click("#heads-redraw")
    expect(lab.locator("#heads-source")).to_contain_text("Browser draw #1")
    assert lab.locator("#head-1-bars .slot-value").all_text_contents() != reference_values
    assert text(lab, "heads-out-shape") == "(13, 8)"
    lab.click("#heads-reset")
    assert lab.locator("#head-1-bars .slot-value").all_text_contents() == reference_values
