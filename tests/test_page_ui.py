"""The live page's interactions in Debian's chromium: permalinks and history, keyboard, long and
empty input, a failed load and its retry, the math and prediction panels, several widgets
sharing one model, and the narrow / dark / reduced-motion renderings."""

from __future__ import annotations

import math
import re
from urllib.parse import quote

import numpy as np
import pytest
from playwright.sync_api import expect

from conftest import view_result, wait_live
from helpers import synthetic_text

pytestmark = pytest.mark.browser

CSP_META = ('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; script-src \'self\' '
            "'wasm-unsafe-eval'; connect-src 'self'; img-src 'self'; style-src 'self'; base-uri 'none'; "
            "form-action 'none'\">")


def state_of(page):
    r = view_result(page)
    return (r["text"], r["token"], r["layer"], r["head"], r["view"])


def test_permalink_round_trip_and_history(page, site_url, reference):
    text = "Alice & the Queen: «croquet» #1 + 2 = 3?"
    frag = f"#text={quote(text)}&token=3&layer=1&head=4&view=average"
    page.goto(f"{site_url}/index.html{frag}")
    wait_live(page)
    assert state_of(page) == (text, 3, 1, 4, "average")
    result = view_result(page)
    assert [t["id"] for t in result["tokens"]] == reference.ids(text)
    assert page.locator("attention-view textarea").input_value() == text

    # A click pushes a history entry; back and forward walk through them.
    page.locator("attention-view .chip").nth(1).click()
    view_result(page)
    assert "token=1" in page.url and "view=average" in page.url
    page.locator("attention-view .mini[data-layer='2'][data-head='2']").click()
    assert state_of(page) == (text, 1, 2, 2, "head")
    linked = page.url
    page.go_back()
    assert state_of(page) == (text, 1, 1, 4, "average")
    page.go_back()
    assert state_of(page) == (text, 3, 1, 4, "average")
    page.go_forward()
    page.go_forward()
    assert state_of(page) == (text, 1, 2, 2, "head")

    # Typing reaches the URL too (once the typing pauses).
    page.locator("attention-view textarea").fill("Typed anew")
    view_result(page)
    page.wait_for_url(lambda u: "text=Typed%20anew" in u)
    page.go_back()
    assert state_of(page) == (text, 1, 2, 2, "head")
    page.go_forward()
    assert view_result(page)["text"] == "Typed anew"

    # The link opens the same view in a fresh tab.
    other = page.context.new_page()
    other.goto(linked)
    wait_live(other)
    assert state_of(other) == (text, 1, 2, 2, "head")
    other.close()
    assert page.console_errors == [] and page.page_errors == []


def test_keyboard_moves_pin_and_cycles_heads(reused_live_page, meta):
    page = reused_live_page
    start = view_result(page)
    n = len(start["tokens"])
    page.locator("attention-view textarea").focus()
    # Tab past the "Continue" controls under the text box to the row: the pinned chip is the
    # one chip in the tab order.
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.querySelector('attention-view').shadowRoot.activeElement?.classList.contains('chip')"):
            break
    focused = page.evaluate("document.querySelector('attention-view').shadowRoot.activeElement.dataset.index")
    assert focused == str(start["token"])
    outline = page.evaluate(
        "getComputedStyle(document.querySelector('attention-view').shadowRoot.activeElement).outlineStyle")
    assert outline not in ("", "none")  # focus is visible

    page.keyboard.press("ArrowLeft")
    assert view_result(page)["token"] == start["token"] - 1
    focused = page.evaluate("document.querySelector('attention-view').shadowRoot.activeElement.dataset.index")
    assert focused == str(start["token"] - 1)
    page.keyboard.press("Home")
    assert view_result(page)["token"] == 0
    page.keyboard.press("ArrowLeft")
    assert view_result(page)["token"] == 0
    page.keyboard.press("End")
    assert view_result(page)["token"] == n - 1

    n_layer, n_head = meta["config"]["n_layer"], meta["config"]["n_head"]
    seen = set()
    for _ in range(n_layer * n_head):
        page.keyboard.press("h")
        r = view_result(page)
        seen.add((r["layer"], r["head"]))
    assert len(seen) == n_layer * n_head
    page.keyboard.press("v")
    assert view_result(page)["view"] == "average"
    page.keyboard.press("l")
    assert view_result(page)["layer"] == (start["layer"] % n_layer) + 1
    assert page.console_errors == [] and page.page_errors == []


def test_over_long_input_keeps_the_last_tokens_and_says_so(reused_live_page, meta, reference):
    page = reused_live_page
    n_ctx = meta["config"]["n_ctx"]
    text = synthetic_text(60, seed=11)
    ids = reference.ids(text)
    assert len(ids) > n_ctx
    page.locator("attention-view textarea").fill(text)
    result = view_result(page)
    assert [t["id"] for t in result["tokens"]] == ids[-n_ctx:]
    assert result["truncated"] == {"total": len(ids), "start": len(ids) - n_ctx, "shown": n_ctx}
    notice = page.locator("attention-view .notice")
    assert notice.is_visible()
    words = notice.text_content()
    assert f"{len(ids)} tokens" in words and f"last {n_ctx}" in words
    assert f"tokens {len(ids) - n_ctx + 1}\u2013{len(ids)}" in words
    assert page.locator("attention-view .chip").count() == n_ctx

    page.locator("attention-view textarea").fill("Short again.")
    view_result(page)
    assert not notice.is_visible()
    assert page.console_errors == [] and page.page_errors == []


def test_empty_input_shows_a_prompt_not_an_error(reused_live_page):
    page = reused_live_page
    page.locator("attention-view textarea").fill("")
    result = view_result(page)
    assert result["tokens"] == [] and result["top"] == []
    assert page.locator("attention-view .notice").is_visible()
    assert "Type a sentence" in page.locator("attention-view .notice").text_content()
    assert page.locator("attention-view .chip").count() == 0
    assert page.get_attribute("attention-view", "data-status") == "live"
    page.locator("attention-view textarea").fill("Back")
    assert len(view_result(page)["tokens"]) >= 1
    assert page.console_errors == [] and page.page_errors == []


def test_failed_load_shows_error_and_retry_recovers(page, site_url):
    page.add_init_script("""window.__events = [];
      for (const t of ["load", "error"]) document.addEventListener(t, (e) => {
        if (e.target.localName === "attention-view") window.__events.push(t); }, true);""")
    page.route("**/model.onnx", lambda route: route.fulfill(status=503, body="down"))
    page.goto(f"{site_url}/index.html")
    page.wait_for_selector("attention-view[data-status=error]", state="attached")
    status = page.locator("attention-view .status")
    assert "Could not load the model" in status.text_content() and "503" in status.text_content()
    retry = page.locator("attention-view .retry")
    assert retry.is_visible()
    rejected = page.evaluate("document.querySelector('attention-view').ready.then(() => 'ok', (e) => 'rejected')")
    assert rejected == "rejected"
    assert page.evaluate("window.__events") == ["error"]

    page.unroute("**/model.onnx")
    retry.click()
    wait_live(page)
    assert page.get_attribute("attention-view", "data-status") == "live"
    assert view_result(page)["live"] is True
    assert not retry.is_visible()
    assert page.evaluate("window.__events") == ["error", "load"]
    assert page.page_errors == []


def test_math_and_predictions_show_the_model_numbers(reused_live_page, meta):
    page = reused_live_page
    r = view_result(page)
    q, layer, head = r["token"], r["layer"], r["head"]
    page.locator("attention-view details.math summary").click()
    rows = page.locator("attention-view .math-table tbody tr:not([hidden])")
    expect(rows).to_have_count(len(r["tokens"]))  # the table is filled by the `toggle` event
    # Each cell's parts against the checkpoint's own q·k and slopes: tests/test_math_panel.py.
    weights = r["attention"][layer - 1][head - 1][q]
    for k in range(q + 1):
        assert abs(float(rows.nth(k).locator("td").last.text_content().split()[0]) - weights[k]) <= 5e-7
    assert f"\u221a{meta['config']['d_head']}" in page.locator("attention-view .math-intro").text_content()

    shown = page.locator("attention-view .pred-p").all_text_contents()
    assert len(shown) == 5
    for item, text in zip(r["top"], shown):
        assert abs(float(text.rstrip("%")) - 100 * item["p"]) <= 0.05 + 1e-9
    assert page.locator("attention-view .pred-token").all_text_contents() == [t["text"] for t in r["top"]]
    assert page.console_errors == [] and page.page_errors == []


def test_three_widgets_share_one_model_download_and_lazy_waits(page, site_url, reference):
    """Embedding as a course author does: one module script, several elements, one lazy below the fold."""
    html = f"""<!doctype html><html><head>{CSP_META}
<script type="module" src="static/attention-view.js"></script></head><body>
<attention-view id="a" text="The cat sat." layer="1" head="1"><p>fallback a</p></attention-view>
<attention-view id="b" text="Alice said &quot;no&quot; &lt;b&gt;" head="4" token="2"></attention-view>
{"<p>spacer</p>" * 150}
<attention-view id="c" loading="lazy" text="Far below the fold"><p id="fb">still the fallback</p></attention-view>
</body></html>"""
    page.route(f"{site_url}/embed-test.html", lambda route: route.fulfill(
        status=200, content_type="text/html", body=html))
    model_requests = []
    page.on("request", lambda r: r.url.endswith("/model.onnx") and model_requests.append(r.url))
    page.goto(f"{site_url}/embed-test.html")
    wait_live(page, "#a")
    wait_live(page, "#b")
    assert page.get_attribute("#c", "data-status") is None  # lazy: not started off-screen
    assert page.locator("#fb").is_visible()
    page.locator("#c").scroll_into_view_if_needed()
    wait_live(page, "#c")
    for sel, text in [("#a", "The cat sat."), ("#b", 'Alice said "no" <b>'), ("#c", "Far below the fold")]:
        r = view_result(page, sel)
        ids = reference.ids(text)
        assert [t["id"] for t in r["tokens"]] == ids
        ref = reference.run(ids)["attention"]
        np.testing.assert_allclose(r["attention"], ref, atol=1e-5, rtol=0)
    assert view_result(page, "#b")["token"] == 2 and view_result(page, "#b")["head"] == 4
    assert not page.locator("#fb").is_visible()
    assert len(model_requests) == 1
    assert page.page_errors == []


@pytest.mark.parametrize("scheme, motion", [("light", "no-preference"), ("dark", "reduce")])
def test_narrow_screen_dark_mode_and_reduced_motion(browser, site_url, scheme, motion):
    context = browser.new_context(viewport={"width": 375, "height": 800}, color_scheme=scheme,
                                  reduced_motion=motion)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # no sideways scrolling
    box = page.locator("attention-view .heatmap").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375
    panel_bg = page.evaluate("""getComputedStyle(document.querySelector('attention-view')
        .shadowRoot.querySelector('.panel')).backgroundColor""")
    rgb = [int(v) for v in re.findall(r"\d+", panel_bg)[:3]]
    assert (sum(rgb) / 3 < 80) == (scheme == "dark")
    transition = page.evaluate("""getComputedStyle(document.querySelector('attention-view')
        .shadowRoot.querySelector('.mini')).transitionDuration""")
    assert (transition.split(",")[0].strip() in ("0s", "")) == (motion == "reduce")
    page.locator("attention-view .chip").first.click()
    assert view_result(page)["token"] == 0
    assert errors == []
    context.close()
