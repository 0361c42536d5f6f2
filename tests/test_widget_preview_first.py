"""A page without preload.js (embed.html, a course author's page) paints its view's preview from
golden.json before it asks for the model's bytes or starts the runtime (core/load-folder.js): the
model and the runtime's wasm would otherwise share the reader's link with the few kB the preview
needs, and Lighthouse's simulated phone counted their download in the page's largest paint. A
view given its own text has no preview, and asks at once."""

from __future__ import annotations

import pytest

from conftest import wait_live

pytestmark = pytest.mark.browser

# The page's clock: when the first row was marked, and when each model file was asked for.
TIMES = """() => ({
  firstRow: performance.getEntriesByName("attention-view:first-row")[0]?.startTime ?? null,
  asked: Object.fromEntries(performance.getEntriesByType("resource")
    .filter((e) => /\\/(model\\.onnx|session-worker\\.js)$/.test(e.name.split("?")[0]))
    .map((e) => [e.name.split("?")[0].split("/").pop(), e.startTime])),
})"""


def load(browser, url):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(url)
        wait_live(page)
        assert page.get_attribute("attention-view", "data-status") == "live"
        return page.evaluate(TIMES)
    finally:
        context.close()


def test_embed_html_asks_for_the_model_once_its_preview_is_on_screen(browser, site_url):
    times = load(browser, f"{site_url}/embed.html")
    assert times["firstRow"] is not None
    # The runtime's worker and the model (the tokenizer's 14 kB may come sooner: it names the
    # preview's predicted tokens).
    assert set(times["asked"]) == {"model.onnx", "session-worker.js"}, times
    for name, at in times["asked"].items():
        assert at > times["firstRow"], f"{name} asked for at {at:.0f} ms, before the preview ({times['firstRow']:.0f} ms)"


def test_a_view_with_its_own_text_asks_at_once(browser, site_url):
    """No golden.json preview to wait for: the model is asked for before any row is drawn."""
    times = load(browser, f"{site_url}/embed.html?text=The%20cat%20sat")
    assert times["firstRow"] is not None and times["asked"]["model.onnx"] < times["firstRow"], times
