"""The "Continue" controls in Debian's chromium: a clear message for every bad
setting (from generate(), a field or an attribute) with the view still working, the permalink
and embeds carrying the settings, the keyboard and a screen reader, 375 px, dark mode and
reduced motion. The model-facing tests are in test_widget_generate.py."""

from __future__ import annotations

import re

import numpy as np
import pytest
from widget_generate import (  # noqa: F401  (page: the fixture)
    MARGIN,
    SHADOW,
    generate,
    greedy,
    hash_params,
    ids_of,
    open_options,
    page,
    set_text,
    shadow,
)

from conftest import view_result, wait_live, watched_page

pytestmark = pytest.mark.browser


BAD = [
    ({"temperature": -1}, "Temperature must be a number, at least 0 (0 = always the most likely token), not -1."),
    ({"temperature": "warm"}, "Temperature must be a number, at least 0 (0 = always the most likely token), not \u201cwarm\u201d."),
    ({"temperature": float("nan")}, "Temperature must be a number, at least 0 (0 = always the most likely token), not NaN."),
    ({"topK": 0}, "Top-k must be a whole number, at least 1, not 0."),
    ({"topK": -5}, "Top-k must be a whole number, at least 1, not -5."),
    ({"topK": 2.5}, "Top-k must be a whole number, at least 1, not 2.5."),
    ({"seed": 1.5}, "The seed must be a whole number from 0 to 4294967295, not 1.5."),
    ({"seed": "lucky"}, "The seed must be a whole number from 0 to 4294967295, not \u201clucky\u201d."),
    ({"maxTokens": 0}, "The number of tokens must be a whole number, at least 1, not 0."),
]


@pytest.mark.parametrize(("options", "message"), BAD)
def test_bad_input_gets_a_clear_message_and_nothing_breaks(page, reference, options, message):
    text = "The Queen turned round and said"
    before = set_text(page, text)
    got = generate(page, {"temperature": 0, "maxTokens": 3, **options})
    assert got["error"] == ["TypeError", message]
    assert got["shown"] == ids_of(before) and got["text"] == text  # nothing written
    assert shadow(page, "s.querySelector('.gen-error').hidden") is False
    assert shadow(page, "s.querySelector('.gen-error').textContent") == message
    # The view keeps working: a new text computes, and a valid generation runs.
    other = set_text(page, "Alice was beginning to get very tired")
    ref = reference.run(reference.ids("Alice was beginning to get very tired"))
    assert np.allclose(other["attention"][1][2][-1], ref["attention"][1, 2, -1], atol=1e-5)
    assert len(generate(page, {"temperature": 0, "maxTokens": 2})["ok"]["tokens"]) == 2
    assert shadow(page, "s.querySelector('.gen-error').hidden") is True


@pytest.mark.parametrize(("field", "value", "start"), [
    ("temperature", "-1", "Temperature must be"), ("temperature", "hot", "Temperature must be"),
    ("topK", "0", "Top-k must be"), ("seed", "1.5", "The seed must be"), ("maxTokens", "0", "The number of tokens"),
])
def test_bad_fields_say_so_and_continue_writes_nothing(page, field, value, start):
    before = set_text(page, "The Queen turned round and said")
    box = page.locator(f"attention-view .gen-input[data-setting={field}]")
    box.fill(value)
    assert box.get_attribute("aria-invalid") == "true"
    error = shadow(page, "s.querySelector('.gen-error').textContent")
    assert error.startswith(start) and f"not \u201c{value}\u201d" in error
    page.locator("attention-view .gen-continue").click()
    page.wait_for_timeout(500)
    assert ids_of(view_result(page)) == ids_of(before) and page.evaluate("window.__gen.count") == 0
    # Invalid values never become attributes (so never reach the permalink).
    assert page.evaluate("['temperature', 'topk', 'seed'].map((a) => document.querySelector('attention-view').getAttribute(a))") == [None] * 3
    box.fill("3")
    assert box.get_attribute("aria-invalid") is None
    assert shadow(page, "s.querySelector('.gen-error').hidden") is True


def test_a_bad_attribute_is_shown_and_refused(page):
    set_text(page, "The Queen turned round and said")
    page.evaluate("() => document.querySelector('attention-view').setAttribute('topk', '0')")
    page.wait_for_function(f"() => !{SHADOW}.querySelector('.gen-error').hidden")
    assert shadow(page, "s.querySelector('.gen-error').textContent") == "Top-k must be a whole number, at least 1, not \u201c0\u201d."
    assert page.locator("attention-view .gen-input[data-setting=topK]").input_value() == "0"
    got = generate(page, {"maxTokens": 2})
    assert got["error"] == ["TypeError", "Top-k must be a whole number, at least 1, not \u201c0\u201d."]
    assert generate(page, {"maxTokens": 2, "topK": 3})["ok"]["reason"] == "max-tokens"  # an option overrides it


# --- the permalink, embeds ---------------------------------------------------------------------


def test_the_permalink_round_trips_the_settings_and_the_continuation(browser, site_url):
    context = browser.new_context()
    try:
        first = watched_page(context)
        first.goto(f"{site_url}/index.html")
        wait_live(first)
        text = "Alice was beginning to get very tired"
        first.locator("attention-view textarea[aria-label='Text to analyse']").fill(text)
        view_result(first)
        open_options(first)
        for field, value in (("temperature", "1.2"), ("topK", "5"), ("seed", "42")):
            first.locator(f"attention-view .gen-input[data-setting={field}]").fill(value)
        first.locator("attention-view .gen-input[data-setting=seed]").press("Tab")
        first.wait_for_function("() => location.hash.includes('seed=42')")
        params = hash_params(first)
        assert (params["temperature"], params["topk"], params["seed"]) == (["1.2"], ["5"], ["42"])
        assert "continue" not in params
        # The settings alone: a new page opens with them in the fields and the attributes, and
        # with the options open, since the link set them.
        second = watched_page(context)
        second.goto(f"{site_url}/index.html" + first.evaluate("location.hash"))
        wait_live(second)
        assert second.locator("attention-view .gen-more").get_attribute("aria-expanded") == "true"
        assert [second.locator(f"attention-view .gen-input[data-setting={f}]").input_value()
                for f in ("temperature", "topK", "seed")] == ["1.2", "5", "42"]
        assert second.evaluate("(() => { const el = document.querySelector('attention-view'); return [el.temperature, el.topK, el.seed]; })()") == ["1.2", "5", "42"]
        # A continuation: the link holds the text before it, the settings and the count.
        first.locator("attention-view .gen-input[data-setting=maxTokens]").fill("12")
        first.locator("attention-view .gen-continue").click()
        first.locator("attention-view .gen-undo").wait_for(state="visible")
        first.wait_for_function("() => location.hash.includes('continue=12')")
        written = view_result(first)
        params = hash_params(first)
        assert params["text"] == [text] and params["continue"] == ["12"]
        assert (params["temperature"], params["topk"], params["seed"]) == (["1.2"], ["5"], ["42"])
        # Opened elsewhere, the model writes the same 12 tokens again: the same ids, same text.
        third = watched_page(context)
        third.goto(f"{site_url}/index.html" + first.evaluate("location.hash"))
        wait_live(third)
        third.locator("attention-view .gen-undo").wait_for(state="visible")
        again = view_result(third)
        assert ids_of(again) == ids_of(written) and again["text"] == written["text"]
        assert third.evaluate("location.hash") == first.evaluate("location.hash")
        for pg in (first, second, third):
            assert not pg.page_errors and not pg.console_errors, (pg.page_errors, pg.console_errors)
    finally:
        context.close()


def test_continue_works_in_the_iframe_embed(page, site_url, reference):
    text = "Once upon a time"
    ids = reference.ids(text)
    want, _, margin = greedy(reference, ids, 10)
    assert margin > MARGIN
    frame_page = page.context.new_page()
    frame_page.goto(f"{site_url}/embed.html?text={text.replace(' ', '%20')}&temperature=0")
    wait_live(frame_page)
    frame_page.locator("attention-view .gen-input[data-setting=maxTokens]").fill("10")
    frame_page.locator("attention-view .gen-continue").click()
    frame_page.locator("attention-view .gen-undo").wait_for(state="visible")
    assert ids_of(view_result(frame_page)) == ids + want
    frame_page.close()


def test_embed_code_carries_the_settings(page):
    page.evaluate("() => { const el = document.querySelector('attention-view'); el.temperature = '0.5'; el.topK = '7'; el.seed = '3'; }")
    view_result(page)
    page.locator("attention-view .embed-toggle").click()
    code = {kind: page.locator(f"attention-view .embed-code[data-kind={kind}]").text_content() for kind in ("script", "iframe", "jinja")}
    assert 'temperature="0.5" topk="7" seed="3"' in code["script"]
    assert "&amp;temperature=0.5&amp;topk=7&amp;seed=3" in code["iframe"]
    assert 'temperature="0.5", topk="7", seed="3"' in code["jinja"]
    page.locator("attention-view .embed-toggle").click()


# --- keyboard, screen readers, small screens ------------------------------------------------------


def test_keyboard_and_screen_reader(page):
    set_text(page, "The Queen turned round and said")
    page.locator("attention-view .gen-input[data-setting=temperature]").fill("0")
    page.locator("attention-view .gen-input[data-setting=maxTokens]").fill("60")
    tags = shadow(page, "[...s.querySelectorAll('.gen-button')].map((b) => [b.tagName, b.type])")
    assert tags == [["BUTTON", "button"]] * 3
    page.locator("attention-view .gen-continue").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.__gen.count >= 2")
    # Focus moved to Stop, so the same key stops what it started.
    assert shadow(page, "s.activeElement?.className") == "gen-button gen-stop"
    page.keyboard.press("Enter")
    page.locator("attention-view .gen-undo").wait_for(state="visible")
    assert shadow(page, "s.activeElement?.className") == "gen-button gen-continue"
    n = page.evaluate("window.__gen.count")
    live = page.locator("attention-view .gen p.sr-only[aria-live=polite]")
    page.wait_for_function(f"() => {SHADOW}.querySelector('.gen p.sr-only').textContent.includes('Stopped after')")
    said = live.text_content()
    # Batched: one polite message names the tokens with their probabilities.
    assert re.search(r"added \u00ab[^\u00bb]+\u00bb \(\d+%\)", said) or n == 0
    assert said.endswith(f"Stopped after {n} tokens.")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_small_screen_dark_mode_and_reduced_motion(browser, site_url, scheme):
    context = browser.new_context(viewport={"width": 375, "height": 800}, color_scheme=scheme, reduced_motion="reduce")
    try:
        pg = watched_page(context)
        pg.goto(f"{site_url}/index.html")
        wait_live(pg)
        open_options(pg)
        pg.locator("attention-view .gen-input[data-setting=maxTokens]").fill("5")
        pg.locator("attention-view .gen-continue").click()
        pg.locator("attention-view .gen-undo").wait_for(state="visible")
        box = pg.evaluate(f"""() => {{
          const s = {SHADOW};
          const gen = s.querySelector(".gen");
          const rects = [...gen.querySelectorAll("button:not([hidden]), input")].map((e) => e.getBoundingClientRect());
          const style = getComputedStyle(s.querySelector(".gen-continue"));
          return {{ right: Math.max(...rects.map((r) => r.right)), minHeight: Math.min(...rects.map((r) => r.height)),
                    page: document.documentElement.scrollWidth, bg: style.backgroundColor, fg: style.color,
                    transition: style.transitionDuration, animation: style.animationName }};
        }}""")
        assert box["right"] <= 375 and box["page"] <= 375
        assert box["minHeight"] >= 24  # touch targets
        assert box["transition"] in ("0s", "") and box["animation"] == "none"
        dark = scheme == "dark"
        bg = [int(x) for x in re.findall(r"\d+", box["bg"])[:3]]
        assert (sum(bg) < 200) == dark, box
        assert not pg.page_errors and not pg.console_errors
    finally:
        context.close()
