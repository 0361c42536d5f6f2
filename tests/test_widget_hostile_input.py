"""What a script or a link may hand the element, however odd: the `ablate` property answers its
canonical form whatever was written, a malformed `ablate` of any length is reported in one
sentence, "Copy embed code" copes with any string a script can set (a lone surrogate included)
and its snippets follow the view on screen however it changed (the Back button included). In
Debian's chromium, on the built site."""

from __future__ import annotations

import pytest

from conftest import embed_codes, set_attributes, view_result, wait_live
from helpers import SHADOW

pytestmark = pytest.mark.browser

TEXT = "The Queen turned to Alice and said"
PROPERTY = "() => document.querySelector('attention-view').ablate"


@pytest.mark.parametrize("written, canonical", [("0.0", ""), ("x", ""), ("", ""), ("2.3,1.2 1.2", "1.2 2.3"),
                                                ("3.1 x 1.2", "1.2")])
def test_the_ablate_property_answers_the_canonical_form(reused_live_page, written, canonical):
    set_attributes(reused_live_page, text=TEXT, ablate=written)
    assert reused_live_page.evaluate(PROPERTY) == canonical


def test_the_ablate_property_is_canonical_before_the_model_loads(page, site_url):
    # An element never connected never starts: the property cannot know the model's size, but
    # still drops what names no head of any model.
    page.goto(f"{site_url}/index.html")
    got = page.evaluate("""() => {
      const el = document.createElement("attention-view");
      const answers = [];
      for (const v of ["0.0", "x", "2.3,1.2 x 1.2"]) { el.setAttribute("ablate", v); answers.push(el.ablate); }
      return answers;
    }""")
    assert got == ["", "", "1.2 2.3"]


@pytest.mark.parametrize("written", [" ".join(["x"] * 3000), "x" * 3000, " ".join(f"x{i}" for i in range(3000))],
                         ids=["3000 times x", "one entry of 3000 x", "3000 different entries"])
def test_a_huge_malformed_ablate_is_reported_in_one_sentence(reused_live_page, written):
    view = reused_live_page
    r = set_attributes(view, text=TEXT, ablate=written)
    assert r["ablated"] == []
    error = view.locator("attention-view .ablate-error")
    assert error.is_visible()
    text = error.text_content()
    assert len(text) < 600, text[:200]
    if written.startswith("x x"):
        assert text.count("\u201cx\u201d") == 1 and "(3,000 times)" in text
    if written.startswith("x0"):
        assert "and 2,995 more like these" in text
    assert text.endswith("Every head stays on.")


def open_embed_menu(page):
    page.locator("attention-view .embed-toggle").click()
    page.wait_for_selector("attention-view .embed-code[data-kind=script]:not(:empty)", state="attached")


def test_copy_embed_code_copes_with_a_lone_surrogate(reused_live_page):
    view = reused_live_page
    # A script can set any string of UTF-16 units; encodeURIComponent throws on half a pair.
    view.evaluate("() => { document.querySelector('attention-view').text = 'Alice said \\uD800 hello'; }")
    view_result(view)
    open_embed_menu(view)
    code = embed_codes(view)
    assert all(code.values()), code
    # Half a pair cannot travel in a URL or a copied snippet: it becomes U+FFFD in all three.
    assert "Alice%20said%20%EF%BF%BD%20hello" in code["iframe"]
    assert 'text="Alice said \ufffd hello"' in code["script"]
    assert '"Alice said \ufffd hello"' in code["jinja"]
    view.locator("attention-view .embed-toggle").click()


def test_an_open_embed_panel_follows_the_back_button(page, site_url):
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    open_embed_menu(page)
    before = embed_codes(page)["script"]
    page.locator("attention-view button.thumb[data-layer='1'][data-head='2']").click()
    page.wait_for_function("() => location.hash.includes('head=2')")
    page.wait_for_function(f"() => {SHADOW}.querySelector('.embed-code[data-kind=script]').textContent.includes('head=\"2\"')")
    page.go_back()
    r = view_result(page)
    page.wait_for_function(f"(want) => {SHADOW}.querySelector('.embed-code[data-kind=script]').textContent === want",
                           arg=before, timeout=10_000)
    assert f'head="{r["head"]}"' in embed_codes(page)["script"]
    assert page.page_errors == []
