"""Nothing moves when the model goes live: the view's box, and every panel in it, stand where the
preview (golden.json) put them, on a phone and on a desktop, in Chromium. The runtime's wasm is
held back until the preview is measured, so the two states are compared, not raced; and the
page's text after the view starts below the screen (the view holds a screen's height from the
start: site.css), so the view filling in pushes nothing a reader sees."""

from __future__ import annotations

import pytest

from conftest import wait_live

pytestmark = pytest.mark.browser

# The view's box and each of its panels' (and the status line's), page coordinates.
BOXES = """() => { const el = document.querySelector('attention-view');
  const box = (n) => { const r = n.getBoundingClientRect(); return [r.x, r.y + scrollY, r.width, r.height].map((v) => Math.round(v * 2) / 2); };
  const parts = [...el.shadowRoot.querySelectorAll('.status, .panel, .field')].filter((n) => n.getClientRects().length);
  return { view: box(el), parts: parts.map((n) => [n.className, box(n)]) }; }"""


@pytest.mark.parametrize("width", [375, 1280])
def test_the_view_does_not_move_when_the_model_goes_live(browser, site_url, width):
    phone = width < 500  # a touch screen, as a phone's
    context = browser.new_context(viewport={"width": width, "height": 800}, has_touch=phone, is_mobile=phone)
    page = context.new_page()
    held = []
    page.route("**/ort-wasm-simd-threaded.wasm", lambda route: held.append(route))
    try:
        page.goto(f"{site_url}/index.html")
        page.wait_for_selector("attention-view[data-status=preview]", state="attached")
        # The preview's panels are in once the predictions show golden.json's numbers.
        page.wait_for_selector("attention-view .pred-p:not(:empty)", state="attached")
        preview = page.evaluate(BOXES)
        after = page.evaluate("() => document.querySelector('.about').getBoundingClientRect().top")
        assert after >= page.viewport_size["height"], "the text after the view starts on screen"
        for _ in range(400):  # the wasm request may come just after the preview
            if held:
                break
            page.wait_for_timeout(25)
        held[0].continue_()
        wait_live(page)
        page.wait_for_selector("attention-view[data-status=live]", state="attached")
        live = page.evaluate(BOXES)
        assert live["view"] == preview["view"]
        assert live["parts"] == preview["parts"]
    finally:
        context.close()
