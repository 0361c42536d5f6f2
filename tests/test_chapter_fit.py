"""Pages that fit: chapter 1 shows a view in its compact form (the row and the grid of heads) where
its text discusses that one row, with the whole view one click away; and a wide view stacks its
heatmap, top 5 and what pushed it beside the grid of heads, leaving no empty column."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from conftest import wait_live

# The claims about one row of one view (static/pages/chapter-attention.js): a view whose
# sentences are only these needs no more than the row and the heads.
ROW_CLAIMS = {"distance", "spread"}


class Chapter(HTMLParser):
    def __init__(self):
        super().__init__()
        self.views, self.claims, self.buttons = {}, {}, {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "attention-view":
            self.views[a["id"]] = a
        if "data-claim" in a:
            self.claims.setdefault(a["data-for"], set()).add(a["data-claim"])
        if tag == "button" and "full-view" in (a.get("class") or "").split():
            self.buttons[a["data-for"]] = a


def test_views_about_one_row_are_compact_with_a_way_to_the_full_view(built_site):
    ch = Chapter()
    ch.feed((built_site / "attention.html").read_text(encoding="utf-8"))
    row_only = {v for v, claims in ch.claims.items() if claims <= ROW_CLAIMS}
    assert row_only, "chapter 1 should discuss at least one view's row alone"
    for vid, attrs in ch.views.items():
        if vid in row_only:
            assert attrs.get("compact") == "1", vid
            assert vid in ch.buttons and ch.buttons[vid].get("aria-controls") == vid, vid
        else:  # its text asks for the heatmap, the math or the switches
            assert attrs.get("compact") in (None, "0"), vid
            assert vid not in ch.buttons, vid


@pytest.mark.browser
def test_the_full_view_is_one_click_away_and_back(page, site_url):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site_url}/attention.html")
    page.locator("#view-2").scroll_into_view_if_needed()
    wait_live(page, "#view-2")
    assert page.get_attribute("#view-2", "data-status") == "live"
    button = page.locator("button.full-view[data-for=view-2]")
    assert button.is_visible() and button.inner_text() == "Show the full view"
    assert page.locator("#view-2 .chip").count() > 0  # the row is there
    assert page.locator("#view-2 .map-panel").count() == 0  # and no heatmap
    button.click()
    page.wait_for_selector("#view-2 .map-panel", state="visible")
    assert page.get_attribute("#view-2", "compact") == "0"
    assert button.inner_text() == "Back to the compact view"
    button.click()
    page.wait_for_selector("#view-2 .map-panel", state="detached")
    assert page.get_attribute("#view-2", "compact") == "1"
    assert not page.page_errors


@pytest.mark.browser
def test_a_wide_view_leaves_no_empty_column(page, site_url):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    box = {name: page.locator(f"attention-view .{name}").bounding_box()
           for name in ("heads-panel", "map-panel", "pred-panel")}
    heads, heatmap, top5 = box["heads-panel"], box["map-panel"], box["pred-panel"]
    right = heads["x"] + heads["width"]
    # The heatmap and the top 5 share the right column, the top 5 right under the heatmap...
    assert heatmap["x"] >= right and top5["x"] >= right
    assert 0 <= top5["y"] - (heatmap["y"] + heatmap["height"]) < 40
    # ...and the heatmap's panel is as tall as what it shows, not stretched beside the heads.
    inner = page.locator("attention-view .map-panel .heatmap-grid").bounding_box()
    assert heatmap["y"] + heatmap["height"] - (inner["y"] + inner["height"]) < 200
