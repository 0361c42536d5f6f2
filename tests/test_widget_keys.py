"""Keys everywhere: ←/→, Home/End, H, L, V act on the view from anywhere on the page
except text fields — on the only view, or on the one last clicked or focused when there are
several — and the key help gives way to a tap guide on touch-only devices."""

from __future__ import annotations

import pytest

from conftest import view_result, wait_live, watched_page

pytestmark = pytest.mark.browser


def state(page, selector="attention-view"):
    r = view_result(page, selector)
    return r["token"], r["layer"], r["head"], r["view"]


def test_keys_work_from_the_page_but_not_in_text_fields(reused_live_page, meta):
    page = reused_live_page
    token, layer, head, view = state(page)
    page.locator("h2", has_text="About these numbers").click()  # focus on the page, outside the view
    page.keyboard.press("ArrowLeft")
    assert state(page)[0] == token - 1
    page.keyboard.press("Home")
    assert state(page)[0] == 0
    page.keyboard.press("End")
    n = len(view_result(page)["tokens"])
    assert state(page)[0] == n - 1
    page.keyboard.press("h")
    nh = meta["config"]["n_head"]
    assert state(page)[1:3] == ((layer, head + 1) if head < nh else (layer % meta["config"]["n_layer"] + 1, 1))
    page.keyboard.press("v")
    assert state(page)[3] == "average"
    # A text field of the page keeps its keys.
    page.evaluate("""() => { const i = document.createElement("input"); i.id = "outside"; document.body.prepend(i); }""")
    before = state(page)
    page.locator("#outside").focus()
    for key in ["ArrowLeft", "Home", "h", "v"]:
        page.keyboard.press(key)
    assert state(page) == before
    page.evaluate("() => document.getElementById('outside').remove()")


def test_several_views_keys_go_to_the_last_one_used(browser, site_url):
    context = browser.new_context()
    page = watched_page(context)
    try:
        page.goto(f"{site_url}/attention.html")
        page.locator("#view-2").scroll_into_view_if_needed()
        wait_live(page, "#view-1")
        wait_live(page, "#view-2")
        one, two = state(page, "#view-1"), state(page, "#view-2")
        page.locator("h1").first.click()
        page.keyboard.press("ArrowLeft")
        assert (state(page, "#view-1"), state(page, "#view-2")) == (one, two)  # two views, none chosen
        page.locator("#view-2 .panel-title").first.click()  # a click inside view 2 chooses it
        page.locator("h1").first.click()
        page.keyboard.press("ArrowLeft")
        assert state(page, "#view-2")[0] == two[0] - 1 and state(page, "#view-1") == one
        assert not page.page_errors
    finally:
        context.close()


@pytest.mark.parametrize("touch", [False, True])
def test_key_help_or_tap_guide(browser, site_url, touch):
    context = browser.new_context(has_touch=touch, is_mobile=touch, viewport={"width": 375, "height": 800})
    page = context.new_page()
    try:
        page.goto(f"{site_url}/index.html")
        assert page.locator(".key-help").is_visible() == (not touch)
        assert page.locator(".tap-guide").is_visible() == touch
    finally:
        context.close()
