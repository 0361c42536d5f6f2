"""Stopping a continuation in Debian's chromium: `el.stop()` and the Stop button halt it at once,
Undo walks back one Continue at a time to the exact text and ids, and typing or any other change
of the text cancels a running one. The model-facing tests are in test_widget_generate.py."""

from __future__ import annotations

import pytest
from widget_generate import (  # noqa: F401  (page: the fixture)
    SHADOW,
    ids_of,
    page,
    set_text,
    shadow,
)

from conftest import view_result

pytestmark = pytest.mark.browser


def test_stop_leaves_no_further_tokens(page):
    set_text(page, "The Queen turned round and said")
    got = page.evaluate(
        """async () => {
          const el = document.querySelector("attention-view");
          let atStop = null;
          const third = (e) => {
            if (e.detail.action === "generate" && window.__gen.count === 3) {
              el.stop();
              atStop = el.result.tokens.length;
            }
          };
          el.addEventListener("change", third);
          const res = await el.generate({ temperature: 0, maxTokens: 60 });
          el.removeEventListener("change", third);
          const resolved = el.result.tokens.length;
          await new Promise((r) => setTimeout(r, 1500));
          return { res, atStop, resolved, later: el.result.tokens.length, events: window.__gen.count };
        }"""
    )
    assert got["atStop"] == got["resolved"] == got["later"] == 6 + 3
    assert got["events"] == 3 and len(got["res"]["tokens"]) == 3 and got["res"]["reason"] == "stop"
    assert shadow(page, "s.querySelector('.gen-stop').hidden && !s.querySelector('.gen-continue').hidden")
    assert shadow(page, "s.querySelector('.gen-status').textContent").startswith("Stopped after 3 tokens.")


def test_the_stop_button_halts_at_once(page):
    set_text(page, "The Queen turned round and said")
    page.evaluate(
        f"""() => {{
          const s = {SHADOW};
          s.querySelector(".gen-stop").addEventListener("click", () => {{
            window.__gen.atClick = document.querySelector("attention-view").result.tokens.length;
          }}, {{ capture: true }});
        }}"""
    )
    page.locator("attention-view .gen-input[data-setting=maxTokens]").fill("100")
    page.locator("attention-view .gen-continue").click()
    page.wait_for_function("() => window.__gen.count >= 2")
    page.locator("attention-view .gen-stop").click()
    page.wait_for_timeout(1500)
    at_click = page.evaluate("window.__gen.atClick")
    assert at_click >= 6 + 2
    assert len(view_result(page)["tokens"]) == at_click
    assert page.evaluate("window.__gen.count") == at_click - 6
    assert shadow(page, "s.querySelector('.gen-status').textContent").startswith(f"Stopped after {at_click - 6} token")


def test_undo_restores_the_text_exactly(page, reference):
    text = "Alice said \u201chi\u201d to the Queen \U0001f642 and said "
    page.evaluate("(t) => { const el = document.querySelector('attention-view'); el.text = t; el.token = 'said#1'; }", text)
    before = view_result(page)
    assert ids_of(before) == reference.ids(text)
    undo = page.locator("attention-view .gen-undo")
    assert undo.is_hidden()
    for n in (8, 16):  # twice: Undo walks back one Continue at a time
        page.locator("attention-view .gen-input[data-setting=maxTokens]").fill("8")
        page.locator("attention-view .gen-continue").click()
        page.wait_for_function(f"() => window.__gen.count === {n} && {SHADOW}.querySelector('.gen-stop').hidden")
    twice = view_result(page)
    assert len(twice["tokens"]) == len(before["tokens"]) + 16
    undo.click()
    once = view_result(page)
    # Back to the first continuation, with the ids the model chose (nothing tokenized again).
    assert ids_of(once) == ids_of(twice)[: len(before["tokens"]) + 8]
    undo.click()
    after = view_result(page)
    assert page.evaluate("document.querySelector('attention-view').getAttribute('text')") == text
    assert after["text"] == text and ids_of(after) == ids_of(before)
    assert page.evaluate("document.querySelector('attention-view').getAttribute('token')") == "said#1"
    assert after["token"] == before["token"]
    assert undo.is_hidden()


def test_typing_cancels_a_running_generation(page, reference):
    set_text(page, "The Queen turned round and said")
    page.evaluate(
        """() => {
          const el = document.querySelector("attention-view");
          el.shadowRoot.querySelector("textarea").addEventListener("input", () => {
            window.__gen.typedAt ??= window.__gen.count;
          });
          window.__gen.promise = el.generate({ temperature: 0, maxTokens: 100 });
        }"""
    )
    page.wait_for_function("() => window.__gen.count >= 2")
    box = page.locator("attention-view textarea[aria-label='Text to analyse']")
    box.press("Control+End")
    box.type(" Hello")
    res = page.evaluate("window.__gen.promise")
    assert res["reason"] == "edit"
    page.wait_for_timeout(1000)
    typed_at = page.evaluate("window.__gen.typedAt")
    assert page.evaluate("window.__gen.count") == typed_at == len(res["tokens"])  # nothing after the first key
    result = view_result(page)
    assert result["text"].endswith(" Hello") and result["text"] == box.input_value()
    assert ids_of(result) == reference.ids(result["text"])  # tokenized as typed text again
    assert shadow(page, "s.querySelector('.gen-status').textContent").startswith(f"Stopped after {typed_at} token")


def test_any_change_of_the_text_cancels(page):
    """A script setting the text, and an input event that leaves it as it was (a keystroke
    undone at once, an input method), stop a running generation as typing does."""
    for change in ("el.text = 'Alice'", "el.shadowRoot.querySelector('textarea').dispatchEvent(new Event('input'))"):
        set_text(page, "The Queen turned round and said")
        page.evaluate("() => { window.__gen.count = 0; window.__gen.promise = document.querySelector('attention-view').generate({ temperature: 0, maxTokens: 100 }); }")
        page.wait_for_function("() => window.__gen.count >= 2")
        at = page.evaluate(f"() => {{ const el = document.querySelector('attention-view'); {change}; return window.__gen.count; }}")
        res = page.evaluate("window.__gen.promise")
        page.wait_for_timeout(500)
        assert res["reason"] == "edit" and len(res["tokens"]) == at == page.evaluate("window.__gen.count"), change
    assert view_result(page)["text"].startswith("The Queen turned round and said")
    set_text(page, "Alice")
