"""The jinja2 macro for chapters: a sentence full of quotes and markup goes in, and comes out
as one attribute value (and fallback text) that parses back to the same string, injects no
element, and reaches the live element unchanged in Chromium."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from conftest import WATCH_CSP, view_result, wait_live
from site_builder import build

HOSTILE = ('She wrote "<b>hi</b>" & left \'now\' </attention-view><script>window.__x=1</script>'
           '<img src=x onerror="window.__x=2"> {{ 7*7 }} {% raw %}')

TEMPLATE = """{% from "_macros.html" import attention_view, attention_view_head %}<!doctype html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ csp }}">
<link rel="icon" href="static/favicon.svg">
{{ attention_view_head("") }}
</head><body>
{{ attention_view(id="m", text=sentence, layer=2, head=3, token=4, view="average", lazy=lazy) }}
</body></html>"""


def render(sentence: str, lazy: bool = False) -> str:
    # The site's own policy, from build.py (its one copy).
    return build.make_env().from_string(TEMPLATE).render(sentence=sentence, lazy=lazy, csp=build.CSP)


class Tags(HTMLParser):
    """Start tags (name, attrs) inside <body>, and the text inside the element."""

    def __init__(self):
        super().__init__()
        self.tags, self.text, self._body = [], [], False

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self._body = True
        elif self._body:
            self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        if self._body and data.strip():
            self.text.append(data)


@pytest.mark.parametrize("lazy", [False, True])
def test_macro_output_parses_back_to_the_sentence(lazy):
    parser = Tags()
    parser.feed(render(HOSTILE, lazy))
    # Exactly the element and its fallback paragraph: nothing injected by the sentence.
    assert [t for t, _ in parser.tags] == ["attention-view", "p"]
    attrs = parser.tags[0][1]
    assert attrs["text"] == HOSTILE  # the parser's unescaping gives the exact string back
    expected = {"id": "m", "text": HOSTILE, "layer": "2", "head": "3", "token": "4", "view": "average"}
    if lazy:
        expected["loading"] = "lazy"
    assert attrs == expected
    assert HOSTILE in "".join(parser.text)  # the fallback quotes the sentence, as text


@pytest.mark.browser
def test_macro_sentence_reaches_the_element_unchanged(page, site_url, reference):
    html = render(HOSTILE)
    page.route(f"{site_url}/macro-page.html", lambda route: route.fulfill(
        status=200, content_type="text/html", body=html))
    page.add_init_script(WATCH_CSP)
    page.goto(f"{site_url}/macro-page.html")
    wait_live(page, "#m")
    assert page.evaluate("document.querySelector('#m').text") == HOSTILE
    assert page.evaluate("document.querySelector('#m').getAttribute('text')") == HOSTILE
    r = view_result(page, "#m")
    assert r["text"] == HOSTILE
    assert [t["id"] for t in r["tokens"]] == reference.ids(HOSTILE)
    assert (r["layer"], r["head"], r["token"], r["view"]) == (2, 3, 4, "average")
    counts = page.evaluate("['attention-view', 'img', 'b'].map((t) => document.querySelectorAll(t).length)")
    assert counts == [1, 0, 0]
    assert page.evaluate("window.__x") is None
    assert page.evaluate("window.__csp") == []
    assert page.page_errors == []
