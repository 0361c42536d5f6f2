"""The compact embed is compact: at 760 px wide, embed.html?compact=1 shows the row and the
whole grid of heads within the iframe height docs/embedding.md gives authors, in real Chromium,
both in a frame of that fixed height and in one sized by the resize listener the same page
gives (embed.html posts its height)."""

from __future__ import annotations

import re

import pytest

from conftest import view_result, wait_live
from helpers import ROOT
from platform_page import host_page

pytestmark = pytest.mark.browser

WIDTH = 760


def documented_height() -> int:
    """The height="N" of docs/embedding.md's compact iframe snippet."""
    text = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    frames = [f for f in re.findall(r"<iframe\b.*?>", text, re.S) if "compact=1" in f] or re.findall(r"<iframe\b.*?>", text, re.S)
    heights = {int(h) for f in frames for h in re.findall(r'height="(\d+)"', f)}
    assert len(heights) == 1, heights
    return heights.pop()


def resize_listener() -> str:
    """The resize listener exactly as docs/embedding.md gives it."""
    text = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    return next(b for b in re.findall(r"```js\n(.*?)```", text, re.S) if "attention-view:height" in b)


def shown_bottom(frame) -> dict:
    """Where the view's panels end, in the frame's own coordinates, and how tall its page is."""
    return frame.evaluate("""() => {
      const r = document.querySelector('attention-view').shadowRoot;
      const bottom = (s) => { const e = r.querySelector(s); return e ? e.getBoundingClientRect().bottom + scrollY : null; };
      return { row: bottom('.row-panel'), grid: bottom('.heads-panel'), selected: bottom('.mini[aria-pressed=true]'),
               page: document.documentElement.scrollHeight, compact: !!r.querySelector('.ui.compact') };
    }""")


def platform(page, site_url, listener: str) -> None:
    """A course page holding the documented compact iframe, WIDTH px wide, with or without the
    resize listener."""
    host_page(site_url, page, "compact=1", width=WIDTH, height=documented_height(),
              head="<style>body { margin: 0; } iframe { border: 0; display: block; }</style>",
              after=f"<script>{listener}</script>" if listener else "")


def frame_of(page):
    page.frame_locator("iframe").locator("attention-view[data-status=live]").wait_for(state="attached", timeout=60_000)
    frame = next(f for f in page.frames if f.url.split("?")[0].endswith("/embed.html"))
    view_result(frame)
    return frame


@pytest.mark.parametrize("listener", [False, True], ids=["fixed-height", "resize-listener"])
def test_the_compact_view_fits_the_documented_frame_at_760_px(browser, site_url, listener):
    limit = documented_height()
    context = browser.new_context(viewport={"width": WIDTH, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        platform(page, site_url, resize_listener() if listener else "")
        frame = frame_of(page)
        if listener:
            # The frame takes the height the page posts once the view has drawn.
            page.wait_for_function("() => document.querySelector('iframe').style.height !== ''")
        ends = shown_bottom(frame)
        assert ends["compact"]
        frame_height = page.evaluate("() => document.querySelector('iframe').getBoundingClientRect().height")
        assert frame_height <= limit
        # Row and grid (the selected head included) inside the frame, nothing to scroll to.
        assert ends["row"] < ends["grid"] <= frame_height, (ends, frame_height)
        assert ends["selected"] <= frame_height
        assert ends["page"] <= frame_height, (ends, frame_height)
        assert errors == []
    finally:
        context.close()


def test_the_compact_page_itself_fits_at_760_by_the_documented_height(browser, site_url):
    limit = documented_height()
    context = browser.new_context(viewport={"width": WIDTH, "height": limit})
    page = context.new_page()
    try:
        page.goto(f"{site_url}/embed.html?compact=1")
        wait_live(page)
        view_result(page)
        ends = shown_bottom(page)
        assert ends["compact"] and ends["grid"] <= limit and ends["page"] <= limit, ends
    finally:
        context.close()
