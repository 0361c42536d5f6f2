"""embed.html in an iframe, as a platform that allows iframes but no scripts would show it:
it honours its query parameters, shows only the widget (no page chrome) at the frame's
width, links to the same view on the full page, and treats hostile text as text."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

import numpy as np
import pytest

from conftest import WATCH_CSP, assert_chips_show, chip_label, view_result, wait_live
from platform_page import host_page

pytestmark = pytest.mark.browser


def embedded(page):
    frame = page.frame_locator("iframe")
    frame.locator("attention-view[data-status=live], attention-view[data-status=error]").wait_for(state="attached")
    return next(f for f in page.frames if f.url.split("?")[0].endswith("/embed.html"))


def test_query_parameters_choose_the_view(page, site_url, reference):
    text = "The Queen turned to the Hatter and shouted"
    host_page(site_url, page, f"text={quote(text)}&layer=1&head=2&token=3&view=average", width=360)
    frame = embedded(page)
    wait_live(frame)
    r = view_result(frame)
    assert (r["text"], r["layer"], r["head"], r["token"], r["view"]) == (text, 1, 2, 3, "average")
    ids = reference.ids(text)
    assert [t["id"] for t in r["tokens"]] == ids
    att = reference.run(ids)["attention"]
    np.testing.assert_allclose(np.array(r["attention"]), att, atol=1e-5, rtol=0)
    assert_chips_show(frame, "attention-view", att[0].mean(axis=0)[3], 3)

    # Only the widget: no site header, nav or chapter footer; it fills the frame's width.
    assert frame.locator(".site-header, .site-nav, .site-footer, .chapter-nav").count() == 0
    inner = frame.evaluate("document.documentElement.clientWidth")
    assert frame.evaluate("document.documentElement.scrollWidth") <= inner  # no sideways scroll
    assert 300 <= inner <= 360  # the frame's 360 px, less a scroll bar if it has one
    box = frame.locator("attention-view").bounding_box()
    assert box["width"] >= inner - 24  # a few px of padding, nothing more

    # The small link opens the same view on the live page, in a new tab.
    link = frame.locator("a.embed-full")
    assert link.get_attribute("target") == "_blank"
    href = urlparse(link.evaluate("a => a.href"))
    assert href.path.endswith("/index.html")
    state = {k: v[0] for k, v in parse_qs(href.fragment).items()}
    assert state == {"text": text, "token": "3", "layer": "1", "head": "2", "view": "average"}
    # ... and follows the reader: pin another token in the frame.
    frame.locator("attention-view .chip").nth(1).click()
    assert view_result(frame)["token"] == 1
    state = {k: v[0] for k, v in parse_qs(urlparse(link.evaluate("a => a.href")).fragment).items()}
    assert state["token"] == "1"
    assert page.page_errors == []


HOSTILE = "\"><img src=x onerror=\"window.__xss=1\"><script>window.__xss=2</script> & </attention-view> «ü» 日本"


def test_hostile_text_stays_text_and_bad_numbers_are_clamped(page, site_url, built_site, reference, meta):
    page.add_init_script(WATCH_CSP)  # runs in every frame, the iframe included
    host_page(site_url, page, f"text={quote(HOSTILE)}&layer=7&head=0&token=nope&view=%3Cb%3E")
    frame = embedded(page)
    wait_live(frame)
    r = view_result(frame)
    assert r["text"] == HOSTILE
    assert [t["id"] for t in r["tokens"]] == reference.ids(HOSTILE)
    assert "".join(t["text"] for t in r["tokens"]) == HOSTILE
    # Out-of-range layer/head are clamped, a non-number token follows the last token, an
    # unknown view falls back to the default one.
    n_layer = meta["config"]["n_layer"]
    assert (r["layer"], r["head"], r["token"], r["view"]) == (n_layer, 1, len(r["tokens"]) - 1, "head")
    assert frame.locator("attention-view textarea").input_value() == HOSTILE
    chips = frame.locator("attention-view .chip .chip-text").all_text_contents()
    assert chips == [chip_label(t["text"]) for t in r["tokens"]]
    counts = frame.evaluate("""() => ['img', 'script', 'b'].map((t) => document.querySelectorAll(t).length)""")
    own_scripts = (built_site / "embed.html").read_text(encoding="utf-8").count("<script")
    assert counts == [0, own_scripts, 0]  # the page's own module scripts, nothing injected
    assert frame.evaluate("window.__xss") is None
    assert frame.evaluate("window.__csp") == []
    assert page.page_errors == []
