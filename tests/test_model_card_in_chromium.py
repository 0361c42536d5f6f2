"""The model card in real Chromium: it loads clean under the CSP and fits 375 px, for the
committed build and the "full" one (tests/model_card_builds.py)."""

from __future__ import annotations

import pytest
from model_card_builds import committed_meta, full_site

from conftest import WATCH_CSP, watched_page
from testbed.static_server import serve_dir


@pytest.fixture(scope="module")
def full_site_url(full_site):
    url, server = serve_dir(full_site[0])
    yield url
    server.shutdown()


@pytest.mark.browser
@pytest.mark.parametrize("which", ["committed", "full"])
def test_model_card_in_chromium_at_375px(browser, site_url, full_site_url, full_site, which):
    """Loads with no console error and no CSP violation; at 375 px the document does not scroll
    sideways (wide tables scroll inside their own containers); each example link's hash reads
    back, through the live page's own state.js, as the example's text/token/layer/head."""
    base = site_url if which == "committed" else full_site_url
    meta = committed_meta() if which == "committed" else full_site[1]
    context = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        page = watched_page(context)
        page.add_init_script(WATCH_CSP)
        page.goto(f"{base}/model.html")
        page.wait_for_load_state("load")
        layout = page.evaluate("""() => ({
          doc: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
          boxes: [...document.querySelectorAll(".mc-scroll")].map((el) => ({
            overflow: getComputedStyle(el).overflowX, right: el.getBoundingClientRect().right,
            inner: el.scrollWidth, outer: el.clientWidth})),
          svgs: [...document.querySelectorAll("svg.mc-chart")].map((el) => el.getBoundingClientRect().right),
          css: [...document.styleSheets].map((s) => s.href && s.href.split("/").pop()),
        })""")
        assert layout["doc"][0] <= layout["doc"][1] == 375, layout["doc"]
        assert "model-card.css" in layout["css"]
        assert layout["boxes"] and all(b["overflow"] == "auto" and b["right"] <= 375 for b in layout["boxes"])
        assert all(right <= 375 for right in layout["svgs"])
        if meta.get("heads"):
            assert any(b["inner"] > b["outer"] for b in layout["boxes"]), "the heads table scrolls in its box"
            decoded = page.evaluate("""async () => {
              const { fromHash } = await import("./static/attention-view/state.js");
              return [...document.querySelectorAll("a.mc-example")].map((a) => fromHash(new URL(a.href).hash));
            }""")
            expected = [{"text": h["example"]["text"], "token": str(h["example"]["token"]),
                         "layer": str(h["layer"]), "head": str(h["head"]), "view": "head"} for h in meta["heads"]]
            # Keys the live page may add later (a colour scale, say) stay unset: the page's defaults.
            assert [{k: v for k, v in d.items() if k in e or v is not None} for d, e in zip(decoded, expected)] \
                == expected
        # Keyboard: Tab reaches the scrolling regions (and the links).
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.tagName") == "A"
        assert page.evaluate("window.__csp") == []
        assert page.console_errors == [] and page.page_errors == []
    finally:
        context.close()
