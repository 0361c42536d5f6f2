"""The live page with the keyboard alone, in Debian's chromium: from the top of the page, type a
sentence, pin a token by the arrow keys, pick another head, switch a head off, open the training
timeline and step it, let the model Continue, and compare with a second sentence. Every Tab stop
on the way, and every control used, shows a focus ring. And the live region says a new pinned
row in one sentence, not the whole row."""

from __future__ import annotations

import re

import pytest

from conftest import view_result, wait_live, watched_page

pytestmark = pytest.mark.browser

# How many Tab presses any one stop may take (the page has ~70 stops; a loop is a failure).
MAX_TABS = 120

# The focused element, through shadow roots, and whether its focus ring can be seen: an outline
# of at least 2 px in a colour that is not transparent (the pages' :focus-visible style).
FOCUSED = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  const clear = /rgba\\(.*, 0\\)$|transparent/.test(style.outlineColor);
  const ring = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2 && !clear;
  const box = el.getBoundingClientRect();
  return { tag: el.tagName.toLowerCase(), cls: String(el.className), label: el.getAttribute("aria-label") ?? el.textContent.slice(0, 40),
           ring, seen: box.width > 0 && box.height > 0, outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}` };
}"""


def focused(page) -> dict:
    stop = page.evaluate(FOCUSED)
    assert stop is not None, "the focus left the page"
    assert stop["ring"] and stop["seen"], f"no visible focus ring on {stop}"
    return stop


def matches(page, selector: str) -> bool:
    """Whether the focused element (inside the view's shadow root, or the page) matches SELECTOR."""
    return page.evaluate("""(sel) => {
      let el = document.activeElement;
      while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
      return !!el && el.matches(sel);
    }""", selector)


def tab_to(page, selector: str, backwards: bool = False) -> dict:
    """Tab (or Shift+Tab) until the focus is on SELECTOR, checking the ring at every stop. Past
    the page's last stop the focus leaves the page once, and the next Tab brings it back to the top."""
    for _ in range(MAX_TABS):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        if page.evaluate(FOCUSED) is None:
            continue
        stop = focused(page)
        if matches(page, selector):
            return stop
    raise AssertionError(f"{selector} is not reachable with the keyboard")


def pin_note(page) -> str:
    return page.evaluate("() => document.querySelector('attention-view').shadowRoot.querySelector('.pin-note').textContent")


def is_one_sentence_about(note: str, result: dict, others: int) -> None:
    """One sentence (one full stop, at its end) that names the pinned token and not the row."""
    pinned = result["tokens"][result["token"]]["text"].strip()
    assert note.endswith(".") and note.count(". ") == 0 and note.count(".") == 1, note
    assert f"\u00ab{pinned}\u00bb pinned" in note, (pinned, note)
    assert f"token {result['token'] + 1} of {len(result['tokens'])}" in note, note
    # At most the pinned token and the one it attends to most: never the row's list of tokens.
    assert len(re.findall("\u00ab", note)) <= 2 < others, note


def test_the_whole_journey_by_keyboard_with_a_focus_ring_at_every_stop(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = watched_page(context)
    try:
        page.goto(f"{site_url}/index.html")
        wait_live(page)
        view_result(page)

        # Type: from the top of the page to the text box, every stop on the way ringed.
        tab_to(page, "textarea.input")
        page.keyboard.press("Control+A")
        page.keyboard.type("Alice stood up in the hall and said")
        page.wait_for_selector("attention-view[text='Alice stood up in the hall and said']", state="attached")
        typed = view_result(page)
        focused(page)
        assert pin_note(page) == ""  # typing is not a choice of row: the live region keeps quiet

        # Pin by the arrow keys: the pinned chip is the row's one stop.
        tab_to(page, ".chip")
        page.keyboard.press("ArrowLeft")
        pinned = view_result(page)
        assert pinned["token"] == typed["token"] - 1
        assert matches(page, f".chip[data-index='{pinned['token']}']")
        focused(page)
        is_one_sentence_about(pin_note(page), pinned, len(pinned["tokens"]))

        # Another head, from the grid of strips.
        tab_to(page, ".mini-head[aria-pressed=false]")
        page.keyboard.press("Enter")
        headed = view_result(page)
        assert (headed["layer"], headed["head"]) != (pinned["layer"], pinned["head"])
        focused(page)
        assert f"head {headed['head']}" in pin_note(page)

        # Switch a head off.
        tab_to(page, ".head-switch")
        page.keyboard.press("Enter")
        assert view_result(page)["ablated"], "a head is switched off"
        focused(page)

        # The training timeline: open it, then step back one snapshot with the slider.
        tab_to(page, ".tl-toggle")
        page.keyboard.press("Enter")
        page.locator("attention-view .tl-slider").wait_for(state="visible", timeout=60_000)
        focused(page)
        tab_to(page, ".tl-slider")
        page.keyboard.press("ArrowLeft")
        page.wait_for_selector("attention-view[step]", state="attached")
        stepped = view_result(page)
        assert stepped["step"] is not None
        focused(page)

        # Continue: the button sits under the text box, back up the page.
        tab_to(page, ".gen-continue", backwards=True)
        page.keyboard.press("Enter")
        page.locator("attention-view .gen-undo").wait_for(state="visible", timeout=60_000)
        assert len(view_result(page)["tokens"]) > len(stepped["tokens"])

        # Compare: the toggle hands the focus to the second sentence's box.
        tab_to(page, ".compare-toggle")
        page.keyboard.press("Enter")
        assert matches(page, ".compare-input")
        focused(page)
        page.keyboard.press("Control+A")  # the box starts with the first sentence
        page.keyboard.type("The Queen stood up and said")
        page.wait_for_selector("attention-view[compare='The Queen stood up and said']", state="attached")
        assert view_result(page)["compare"]["text"] == "The Queen stood up and said"
        focused(page)
        assert page.console_errors == [] and page.page_errors == []
    finally:
        context.close()
