"""A number in a state key is read only when it is written as a plain decimal integer: a blank
value, a space, hex ("0x64"), an exponent ("1e3"), a sign ("+2"), a fraction ("1.0") or digits
other than ASCII are ignored like any other malformed value, the same way wherever the value
comes from: the element's attributes, its properties, the live page's permalink and the iframe's
query. An ignored `step` fetches nothing of the training timeline.

The expected view for an ignored value is the one with the key absent, asked of the same page."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from conftest import set_attributes, view_result, wait_live

pytestmark = pytest.mark.browser

TEXT = "Alice stood up in the hall and said"
MALFORMED = [" ", "", "0x3", "1e0", "+2", "1.0", "\u0662", " 2", "2 "]
KEYS = ["token", "layer", "head", "step"]


def fields(result: dict) -> tuple:
    return result["token"], result["layer"], result["head"], result["step"]


@pytest.fixture(scope="module")
def timeline_requests(shared_live_page):
    """The URLs of the training timeline the shared page has asked for (none may be)."""
    seen: list[str] = []
    shared_live_page.on("request", lambda r: "/timeline/" in r.url and seen.append(r.url))
    return seen


@pytest.mark.parametrize("key", KEYS)
def test_attributes_and_properties_ignore_non_decimal_numbers(reused_live_page, timeline_requests, key):
    page = reused_live_page
    absent = fields(set_attributes(page, text=TEXT))
    # A well-formed value of the same key does change the view (so the check below can fail).
    well = {"token": "2", "layer": "2", "head": "1", "step": "100"}[key]
    if key != "step":  # a step loads a snapshot: that is the timeline test's business
        assert fields(set_attributes(page, **{key: well})) != absent
    for value in MALFORMED:
        assert fields(set_attributes(page, **{key: value})) == absent, (key, value)
        set_attributes(page, **{key: None})
        # The element's property writes the attribute: the same value is ignored the same way.
        page.evaluate("([k, v]) => { document.querySelector('attention-view')[k] = v; }", [key, value])
        assert fields(view_result(page)) == absent, (key, value, "property")
        set_attributes(page, **{key: None})
    assert timeline_requests == []


@pytest.mark.parametrize("query", ["step=%20", "step=0x64", "step=1e3", "token=%20", "head=%20", "layer=%20",
                                   "token=0x2", "head=%2B2"])
def test_permalink_and_iframe_query_ignore_non_decimal_numbers(page, site_url, query):
    requests: list[str] = []
    page.on("request", lambda r: "/timeline/" in r.url and requests.append(r.url))
    page.goto(f"{site_url}/index.html#text={quote(TEXT)}")
    wait_live(page)
    absent = fields(view_result(page))
    assert absent[3] is None
    page.goto(f"{site_url}/index.html#text={quote(TEXT)}&{query}")
    page.reload()  # a new fragment alone does not reload the page
    wait_live(page)
    assert fields(view_result(page)) == absent, ("permalink", query)
    page.goto(f"{site_url}/embed.html?text={quote(TEXT)}&{query}")
    wait_live(page)
    assert fields(view_result(page)) == absent, ("iframe", query)
    assert requests == [], query
