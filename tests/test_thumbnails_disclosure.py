"""The thumbnails' disclosure ("Every head's whole pattern") starts as the reader left it, in
Debian's chromium: open on a wide view and closed on a narrow one until the reader opens or closes
it, then as they left it, after a reload and at any width, on this browser."""

from __future__ import annotations

import pytest

from conftest import wait_live

pytestmark = pytest.mark.browser


def expanded(page) -> str:
    return page.locator("attention-view .thumbs-toggle").get_attribute("aria-expanded")


def load(page, url: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url)
    wait_live(page)


def test_the_thumbnails_start_as_the_reader_left_them(browser, site_url):
    context = browser.new_context()
    page = context.new_page()
    url = f"{site_url}/index.html"
    try:
        load(page, url, 1280)
        assert expanded(page) == "true"  # never touched: the width decides
        page.locator("attention-view .thumbs-toggle").click()
        assert expanded(page) == "false"
        load(page, url, 1280)
        assert expanded(page) == "false" and page.locator("attention-view .thumbs-body").is_hidden()
        page.locator("attention-view .thumbs-toggle").click()
        load(page, url, 375)
        assert expanded(page) == "true" and page.locator("attention-view .thumbs-body").is_visible()
    finally:
        context.close()

    fresh = browser.new_context()
    try:
        other = fresh.new_page()
        load(other, url, 375)
        assert expanded(other) == "false"  # another browser's reader: the width decides again
    finally:
        fresh.close()
