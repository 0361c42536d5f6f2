"""The view's headings follow the page around it (static/attention-view/core/heading.js): one level
below the host's last heading before the element, so a page's outline never skips a level
(after the live page's h1 the panels are level 2; after a chapter's h2, level 3), and their
parts one further."""

from __future__ import annotations

import pytest

from conftest import wait_live
from testbed.static_server import serve

pytestmark = pytest.mark.browser

# Every heading in the view, by the accessibility tree's terms: role and level.
LEVELS = """() => [...document.querySelector('attention-view').shadowRoot.querySelectorAll('h1, h2, h3, h4, h5, h6, [role=heading]')]
  .map((n) => [n.className, n.tagName.toLowerCase(), n.getAttribute('aria-level')])"""


def panel_levels(page) -> dict[str, set]:
    found = page.evaluate(LEVELS)
    assert found and all(tag == "div" for _, tag, _ in found), found  # no tag that fixes a level
    return {cls: {level for c, _, level in found if c == cls} for cls, _, _ in found}


def test_after_the_pages_h1_the_panels_are_level_2(page, site_url):
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    levels = panel_levels(page)
    assert levels.pop("panel-title") == {"2"}
    assert set().union(*levels.values()) <= {"3"}, levels


def test_after_a_hosts_h2_the_panels_are_level_3(page, built_site, tmp_path):
    (tmp_path / "chapter.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A chapter</title>'
        '<script type="module" src="/static/attention-view.js"></script></head><body>'
        '<h1>A course</h1><section><h2>A chapter</h2><p>Text.</p></section>'
        '<attention-view text="The cat sat"></attention-view><h2>After</h2></body></html>', encoding="utf-8")
    server = serve({"/": built_site, "/blog/": tmp_path})
    try:
        page.goto(f"{server.url}/blog/chapter.html")
        wait_live(page)
        levels = panel_levels(page)
        assert levels.pop("panel-title") == {"3"}
        assert set().union(*levels.values()) <= {"4"}, levels
    finally:
        server.shutdown()
