"""What a learner sees of a head switched off, of a word split into pieces, and of a head's part
in the model's circuit, in real Chromium on the built site (the shipped model):

- a head switched off is marked "off" on its strip, its thumbnail and its heatmap (greyed, with
  the badge and the caption saying so), and switching one off brings the paired bars into view;
- the row's header names the word and the piece («dragon», piece «on»), and an emoji or any
  other character split over several tokens shows as itself, never as an empty « (part 3 of 3)»;
- the grid's role labels carry each head's part in the circuit meta.json records, in words
  written here from meta.json."""

from __future__ import annotations

import pytest
from test_widget_words import words

from conftest import chip_label, set_attributes, view_result, wait_live, watched_page
from helpers import SHADOW, expected_labels

pytestmark = pytest.mark.browser


def shadow(page, expr: str):
    return page.evaluate(f"() => {{ const r = {SHADOW}; return {expr}; }}")


def badge_shown(page, selector: str) -> bool:
    """Whether the "off" badge inside `selector` is displayed."""
    return shadow(page, f"""(() => {{ const b = r.querySelector('{selector} .off-badge');
      return !!b && getComputedStyle(b).display !== 'none' && b.textContent.trim().toLowerCase() === 'off'; }})()""")


def test_a_head_switched_off_is_marked_off_wherever_it_is_drawn(reused_live_page):
    page = reused_live_page
    page.locator("attention-view .thumbs-toggle").evaluate(
        "b => { if (b.getAttribute('aria-expanded') !== 'true') b.click(); }")
    set_attributes(page, layer=1, head=3, view="head")
    strip = '.mini-cell:has(.mini[data-layer="1"][data-head="3"])'
    thumb = '.thumb-cell:has(.thumb[data-layer="1"][data-head="3"])'
    for where in (strip, thumb, ".map-panel"):
        assert not badge_shown(page, where), where
    assert "switched off" not in shadow(page, "r.querySelector('.map-panel').textContent")
    assert shadow(page, "getComputedStyle(r.querySelector('canvas.heatmap')).filter") == "none"

    assert set_attributes(page, ablate="1.3")["ablated"] == [[1, 3]]
    for where in (strip, thumb, ".map-panel"):
        assert badge_shown(page, where), where
    assert "grayscale" in shadow(page, "getComputedStyle(r.querySelector('canvas.heatmap')).filter")
    assert "(switched off)" in shadow(page, "r.querySelector('.map-panel .panel-title').textContent")
    assert "(switched off)" in shadow(page, "r.querySelector('.row-panel .panel-title').textContent")
    note = shadow(page, "r.querySelector('.map-off-note')")
    assert note is not None
    assert "layer 1 head 3" in shadow(page, "r.querySelector('.map-off-note').textContent")
    # The exported picture of that head says so too.
    with page.expect_download() as info:
        page.locator("attention-view button[data-export=svg]").click()
    svg = open(info.value.path(), encoding="utf-8").read()
    assert "Layer 1, head 3 (switched off): attention from" in svg
    # Another head on screen: its heatmap is not marked, the switched-off strip still is.
    set_attributes(page, head=2)
    assert not badge_shown(page, ".map-panel") and badge_shown(page, strip)
    assert "switched off" not in shadow(page, "r.querySelector('.map-panel .panel-title').textContent")


def settled(page) -> None:
    """Wait until the page has stopped scrolling (a smooth scroll and its correction have ended)."""
    last = None
    for _ in range(40):
        now = page.evaluate("scrollY")
        if now == last:
            return
        last = now
        page.wait_for_timeout(250)


def bars_in_view(page) -> bool:
    return shadow(page, """(() => { const b = r.querySelector('.ablation-panel .table-scroll').getBoundingClientRect();
      return b.height > 0 && b.top >= -1 && b.top + Math.min(b.height, 120) <= innerHeight + 1; })()""")


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_switching_a_head_off_brings_the_paired_bars_into_view(browser, site_url, motion):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion=motion)
    page = watched_page(context)
    try:
        page.goto(f"{site_url}/index.html")
        wait_live(page)
        view_result(page)
        assert page.evaluate("scrollY") == 0
        page.locator('attention-view .mini-cell:has(.mini[data-layer="1"][data-head="2"]) .head-switch').click()
        page.wait_for_function("() => document.querySelector('attention-view').result?.ablated?.length === 1")
        # With or without smooth scrolling, the bars end up on screen (their top and first rows:
        # panels laid out late above them can still move their bottom edge by a few pixels); how many frames that takes
        # depends on the machine's load (the bars' panel is laid out only once scrolled to), so
        # the test waits for the outcome instead of counting frames.
        page.wait_for_function(f"""() => {{ const r = {SHADOW};
          const b = r.querySelector('.ablation-panel .table-scroll').getBoundingClientRect();
          return b.height > 0 && b.top >= -1 && b.top + Math.min(b.height, 120) <= innerHeight + 1; }}""", timeout=20_000)
        assert bars_in_view(page)
        assert page.evaluate("scrollY") > 0
        settled(page)
        # Switching it back on moves nothing (clicked from a script: Playwright's click would
        # scroll to the button first).
        at = page.evaluate("scrollY")
        page.locator('attention-view .mini-cell:has(.mini[data-layer="1"][data-head="2"]) .head-switch').evaluate(
            "b => b.click()")
        page.wait_for_function("() => document.querySelector('attention-view').result?.ablated?.length === 0")
        assert page.evaluate("scrollY") == at
        assert page.console_errors == [] and page.page_errors == []
    finally:
        context.close()


def header(page) -> tuple[str, str, str]:
    """The row's title, the heads panel's title and the screen-reader table's caption, once the
    caption (it trails a paint) names the token the title names."""
    page.wait_for_function(f"""() => {{ const r = {SHADOW};
      const who = r.querySelector('.row-panel .panel-title').textContent.split('attention from ')[1];
      return !!who && r.querySelector('.sr-only caption').textContent.includes(`attention from ${{who}} to each`); }}""")
    return shadow(page, """[r.querySelector('.row-panel .panel-title').textContent,
      r.querySelector('.heads-panel .panel-title').textContent, r.querySelector('.sr-only caption').textContent]""")


def test_the_row_header_names_the_word_and_the_piece(reused_live_page):
    page = reused_live_page
    r = set_attributes(page, text="I saw a dragon", token=-1)
    texts = [t["text"] for t in r["tokens"]]
    first, last, word = words(texts)[-1]
    assert word == "dragon" and last > first  # the tokenizer splits it (else this test says nothing)
    piece = texts[-1].strip()
    row, heads, caption = header(page)
    assert row.endswith(f"attention from \u00abdragon\u00bb, piece \u00ab{piece}\u00bb"), row
    assert heads.endswith(f"\u00abdragon\u00bb, piece \u00ab{piece}\u00bb"), heads
    assert f"attention from \u00abdragon\u00bb, piece \u00ab{piece}\u00bb to each earlier token" in caption
    # A word of one token is named as before.
    set_attributes(page, token=1)
    row, _, _ = header(page)
    assert row.endswith("attention from \u00absaw\u00bb"), row


@pytest.mark.parametrize("text,word", [("I like \U0001F642", "\U0001F642"), ("caf\u00e9 \u2764\ufe0f", "\u2764\ufe0f"),
                                       ("a \U0001F409 flew", "\U0001F409")])
def test_a_multi_byte_character_shows_as_itself(reused_live_page, text, word):
    page = reused_live_page
    r = set_attributes(page, text=text, token=0)
    texts = [t["text"] for t in r["tokens"]]
    spans = [(a, b) for a, b, w in words(texts) if w == word]
    assert spans and spans[0][1] > spans[0][0], texts  # split over several tokens
    a, b = spans[0]
    for t in range(a, b + 1):
        set_attributes(page, token=t)
        row, heads, caption = header(page)
        assert f"\u00ab{word}\u00bb" in row, (t, row)
        assert "\u00ab (part" not in row and "\u00ab\ufe0f" not in row and "\u00ab\u00bb" not in row, (t, row)
        assert f"\u00ab{word}\u00bb" in heads and f"\u00ab{word}\u00bb" in caption
        # The chip's own name (screen readers) shows the character too, not an invisible mark alone.
        label = shadow(page, f"r.querySelectorAll('.chip')[{t}].getAttribute('aria-label')")
        assert label.startswith(word.replace("\ufe0f", "")) and not label.startswith(("\ufe0f", " (part")), (t, label)
        # Every chip of it shows something: a variation selector alone sits on a dotted circle.
        chip = shadow(page, f"r.querySelectorAll('.chip .chip-text')[{t}].textContent")
        assert chip == chip_label(texts[t]) and any(visible(ch) for ch in chip), (t, chip)


def visible(ch: str) -> bool:
    import unicodedata

    return not ch.isspace() and unicodedata.category(ch)[0] != "M" and unicodedata.category(ch) != "Cf"


def test_role_labels_carry_each_heads_part_in_the_circuit(reused_live_page, meta):
    assert meta.get("circuit"), "the shipped model records a circuit"
    page = reused_live_page
    want = expected_labels(meta)
    shown = shadow(page, """[...r.querySelectorAll('.mini-head')].map((b) => [+b.dataset.layer, +b.dataset.head,
      b.querySelector('.mini-role').textContent, b.title])""")
    assert len(shown) == len(want)
    for layer, head, label, _ in shown:
        assert label == want[(layer, head)], (layer, head, label)
    c = meta["circuit"]
    ek = (c["composes_with"]["layer"], c["composes_with"]["head"])
    title = next(t for l, h, _, t in shown if (l, h) == ek)
    off = next(x for x in c["switch_off"] if (x["layer"], x["head"]) == ek)
    assert f"from {c['induction']:.2f} to {off['induction']:.2f}" in title, title
