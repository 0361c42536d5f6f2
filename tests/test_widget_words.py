"""Words, not pieces: `token` accepts a word ("said", "said#2") besides an index, the
permalink uses the word when it names the token, and a word's pieces are drawn joined.

The expected index is found here from `el.result`'s token texts with the word rule written out
again (words.js: a token continues a word when it starts with a letter/digit/mark and the text
before ends with one; an empty token, or one that starts with a mark, continues always; a word
pins its last token), and the tokens themselves are checked against Python `tokenizers`."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from conftest import open_view, view_result, wait_live

pytestmark = pytest.mark.browser

WORD = re.compile(r"[\w]", re.UNICODE)


def is_word_char(ch: str) -> bool:
    import unicodedata

    return bool(ch) and unicodedata.category(ch)[0] in "LNM"


def is_mark(ch: str) -> bool:
    import unicodedata

    return bool(ch) and unicodedata.category(ch)[0] == "M"


def words(texts: list[str]) -> list[tuple[int, int, str]]:
    out = []
    before = ""  # the text before this token: its last non-empty token's
    for i, t in enumerate(texts):
        joins = i > 0 and (t == "" or is_mark(t[:1]) or (is_word_char(t[:1]) and is_word_char(before[-1:])))
        before = t or before
        if joins:
            first, _, text = out[-1]
            out[-1] = (first, i, text + t)
        else:
            out.append((i, i, t))
    return [(a, b, text.lstrip()) for a, b, text in out]


def expected_index(texts, word, n):
    hits = [last for _, last, text in words(texts) if text == word]
    return hits[n - 1]


SENTENCES = [
    ("Alice said yes, and then the Queen said no.", "said"),
    ('"Off with her head!" said the Queen. "Nonsense," said Alice, and the Dormouse said nothing.', "said"),
    ("The Dormouse slept; the Hatter poured tea for the Dormouse, who slept on.", "Dormouse"),
]


@pytest.mark.parametrize("text,word", SENTENCES)
def test_word_tokens_pin_the_right_piece(reused_live_page, reference, text, word):
    page = reused_live_page
    r = open_view(page, text=text, token=f"{word}#2")
    assert [t["id"] for t in r["tokens"]] == reference.ids(text)
    texts = [t["text"] for t in r["tokens"]]
    assert r["token"] == expected_index(texts, word, 2)
    assert r["token"] != expected_index(texts, word, 1)
    assert open_view(page, token=word)["token"] == expected_index(texts, word, 1)
    assert open_view(page, token="-1")["token"] == len(texts) - 1
    assert open_view(page, token="2")["token"] == 2
    # The element's property answers the same resolved index.
    assert page.evaluate("() => document.querySelector('attention-view').token") == 2


def test_pieces_of_one_word_are_joined(reused_live_page):
    page = reused_live_page
    r = open_view(page, text="The Jabberwock whiffled through the tulgey wood", token="-1")
    texts = [t["text"] for t in r["tokens"]]
    classes = page.evaluate("""() => [...document.querySelector("attention-view").shadowRoot
      .querySelectorAll(".chip")].map((c) => c.className)""")
    for first, last, _ in words(texts):
        for i in range(first, last + 1):
            part = "" if first == last else "word-first" if i == first else "word-last" if i == last else "word-mid"
            assert (part in classes[i].split()) if part else not re.search(r"word-", classes[i]), (i, texts, classes)
    assert any(last > first for first, last, _ in words(texts)), texts  # the sentence has a multi-piece word


def test_permalink_uses_the_word(page, site_url):
    text = "Alice said yes, and then the Queen said no."
    page.goto(f"{site_url}/index.html#text={quote(text)}&token=said%232")
    wait_live(page)
    r = view_result(page)
    texts = [t["text"] for t in r["tokens"]]
    assert r["token"] == expected_index(texts, "said", 2)
    # Pinning the first «said» by click writes the word into the link.
    page.locator("attention-view .chip").nth(expected_index(texts, "said", 1)).click()
    view_result(page)
    page.wait_for_url(lambda u: "token=said&" in u)
    page.locator("attention-view .chip").nth(expected_index(texts, "said", 2)).click()
    page.wait_for_url(lambda u: "token=said%232&" in u)
    # A piece that is not a word's last keeps its index.
    assert page.console_errors == [] and page.page_errors == []


def test_a_words_pieces_stay_on_one_line_at_375_px(reused_live_page):
    """A long word's chips never wrap apart: each word's pieces share one line of the row, on a
    phone-wide view where the row does wrap (lines are told apart by the chips' tops)."""
    page = reused_live_page
    page.set_viewport_size({"width": 375, "height": 800})
    try:
        text = ("The Jabberwock whiffled through the tulgey wood, burbling incomprehensibly; "
                "the frumious Bandersnatch chortled uncontrollably beside the Tumtum tree")
        r = open_view(page, text=text, token="-1")
        texts = [t["text"] for t in r["tokens"]]
        tops = page.evaluate("""() => [...document.querySelector("attention-view").shadowRoot
          .querySelectorAll(".chip")].map((c) => Math.round(c.getBoundingClientRect().top))""")
        assert len(tops) == len(texts)
        groups = [(a, b) for a, b, _ in words(texts) if b > a]
        assert len(set(tops)) >= 4 and len(groups) >= 5, (tops, groups)  # the row wraps; long words
        for a, b in groups:
            assert len(set(tops[a : b + 1])) == 1, (texts[a : b + 1], tops[a : b + 1])
    finally:
        page.set_viewport_size({"width": 1280, "height": 720})
