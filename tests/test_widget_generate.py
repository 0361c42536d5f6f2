"""Let it write (issue 10, part 1): "Continue" under the text, `el.generate()` and `el.stop()`, in
Debian's chromium against onnxruntime-python on the same files.

Greedy (temperature 0) continuations are compared with Python token for token, after checking
that no step's top two logits are within 1e-3 of each other (closer than that, float32 noise
between two runtimes could legitimately flip the pick). Sampled continuations are compared
with themselves: the same seed twice, another seed, and one continuation split in two."""

from __future__ import annotations

import json
import math
import re
from urllib.parse import parse_qs

import numpy as np
import pytest
from test_sampler_js import mulberry32

from conftest import view_result, wait_live, watched_page

pytestmark = pytest.mark.browser

SHADOW = 'document.querySelector("attention-view").shadowRoot'
MARGIN = 1e-3

# Greedy sentences: every step's top-2 margin is checked below. "The Hatter", continued by 30
# tokens, ends in two "\n" tokens that the tokenizer would merge into one "\n\n" if the
# written-out text were tokenized again: the view must show the ids the model chose.
GREEDY = [
    ("The Queen turned round and said", 20),
    ("Alice was beginning to get very tired", 20),
    ("Once upon a time", 20),
    ("The Hatter", 30),
]
SAMPLED = "Alice was beginning to get very tired"


def greedy(reference, ids, n, head_mask=None):
    """Greedy decoding in onnxruntime-python: (ids, probabilities, smallest top-2 margin)."""
    out, probs, margins = [], [], []
    for _ in range(n):
        r = reference.run(ids + out, head_mask)
        z = r["logits"][-1].astype(np.float64)
        top = np.sort(z)[-2:]
        margins.append(top[1] - top[0])
        nxt = int(np.argmax(z))
        out.append(nxt)
        probs.append(float(r["probs"][-1][nxt]))
    return out, probs, min(margins)


@pytest.fixture
def page(shared_live_page):
    """The module's live page, back to a plain view: no generation running, no attributes."""
    pg = shared_live_page
    pg.evaluate(
        """() => {
          const el = document.querySelector("attention-view");
          el.stop();
          document.activeElement?.blur?.();
          el.shadowRoot.activeElement?.blur?.();
          el.shadowRoot.querySelector(".gen-input[data-setting=maxTokens]").value = "20";
          history.replaceState(null, "", location.pathname);
          for (const a of [...el.attributes]) if (!["id", "data-status"].includes(a.name)) el.removeAttribute(a.name);
          window.__gen = { count: 0, typedAt: null };
          if (!window.__genListener) {
            window.__genListener = true;
            el.addEventListener("change", (e) => { if (e.detail.action === "generate") window.__gen.count++; });
          }
        }"""
    )
    view_result(pg)
    pg.console_errors.clear()
    pg.page_errors.clear()
    yield pg
    assert not pg.page_errors, pg.page_errors
    assert not pg.console_errors, pg.console_errors


def set_text(page, text):
    page.evaluate("(t) => { document.querySelector('attention-view').text = t; }", text)
    return view_result(page)


def generate(page, options):
    """`el.generate(options)`: {"ok": result} or {"error": [name, message]}, plus what the view shows."""
    return page.evaluate(
        """async (options) => {
          const el = document.querySelector("attention-view");
          try {
            const res = await el.generate(options);
            return { ok: res, shown: el.result.tokens.map((t) => t.id), text: el.text };
          } catch (err) {
            return { error: [err.name, err.message], shown: el.result.tokens.map((t) => t.id), text: el.text };
          }
        }""",
        options,
    )


def shadow(page, js):
    return page.evaluate(f"() => {{ const s = {SHADOW}; return {js}; }}")


def ids_of(result):
    return [t["id"] for t in result["tokens"]]


# --- greedy equals onnxruntime-python ------------------------------------------------------------


@pytest.mark.parametrize(("text", "n"), GREEDY)
def test_greedy_continuation_equals_onnxruntime_python(page, reference, text, n):
    ids = reference.ids(text)
    want, probs, margin = greedy(reference, ids, n)
    assert margin > MARGIN, f"top-2 logits within {margin:.2e}: pick another sentence"
    set_text(page, text)
    got = generate(page, {"temperature": 0, "maxTokens": n})
    res = got["ok"]
    assert [t["id"] for t in res["tokens"]] == want
    assert res["reason"] == "max-tokens"
    # p: the chosen token's probability under the model's plain softmax.
    assert np.allclose([t["p"] for t in res["tokens"]], probs, atol=1e-4)
    # The view shows exactly the prefix's ids and the generated ids, and the text they spell.
    assert got["shown"] == ids + want
    assert res["text"] == got["text"] == text + "".join(t["text"] for t in res["tokens"])
    assert page.evaluate("window.__gen.count") == n  # one `change` (action "generate") per token
    result = view_result(page)
    assert result["token"] == len(ids) + n - 1  # the pin followed the newest token
    # Its row in the current layer and head is the model's row for those ids, and the top 5
    # are what the next token will be picked from.
    ref = reference.run(ids + want)
    layer, head = result["layer"] - 1, result["head"] - 1
    assert np.allclose(result["attention"][layer][head][-1], ref["attention"][layer, head, -1], atol=1e-5)
    assert [t["id"] for t in result["top"]] == list(np.argsort(-ref["probs"][-1], kind="stable")[:5])
    assert shadow(page, "s.querySelectorAll('.chip').length") == len(ids) + n


def test_the_view_keeps_the_generated_ids_until_the_text_is_edited(page, reference):
    text, n = GREEDY[-1]
    ids = reference.ids(text)
    want, _, margin = greedy(reference, ids, n)
    assert margin > MARGIN
    set_text(page, text)
    got = generate(page, {"temperature": 0, "maxTokens": n})
    # Tokenizing the written-out text again would merge the last two "\n" into one "\n\n".
    retokenized = reference.ids(got["text"])
    assert retokenized != ids + want and len(retokenized) == len(ids) + n - 1
    assert got["shown"] == ids + want
    # A pin, a head change, a scale change: still the same ids (nothing tokenized again).
    page.evaluate("() => { const el = document.querySelector('attention-view'); el.token = 3; el.head = 1; el.scale = 'relative'; }")
    assert ids_of(view_result(page)) == ids + want
    # Switching a head off runs the model again, on the same ids.
    page.evaluate("() => { document.querySelector('attention-view').ablate = '1.1'; }")
    off = view_result(page)
    assert ids_of(off) == ids + want and off["ablated"] == [[1, 1]]
    mask = np.ones((2, 4), np.float32)
    mask[0, 0] = 0
    ref = reference.run(ids + want, mask)
    assert np.allclose(off["attention"][1][0][-1], ref["attention"][1, 0, -1], atol=1e-5)
    page.evaluate("() => { document.querySelector('attention-view').ablate = null; }")
    assert ids_of(view_result(page)) == ids + want
    # Once the reader edits the text, it is tokenized like any other.
    box = page.locator("attention-view textarea[aria-label='Text to analyse']")
    box.press("Control+End")
    box.type("!")
    result = view_result(page)
    assert result["text"] == got["text"] + "!"
    assert ids_of(result) == reference.ids(got["text"] + "!")


def test_greedy_with_heads_switched_off_uses_the_same_mask(page, reference):
    text, n = "Once upon a time", 20
    mask = np.ones((2, 4), np.float32)
    mask[0, 0] = 0  # ablate="1.1"
    ids = reference.ids(text)
    want, _, margin = greedy(reference, ids, n, mask)
    plain, _, _ = greedy(reference, ids, n)
    assert margin > MARGIN and want != plain  # the switch matters, so the test can tell
    page.evaluate("(t) => { const el = document.querySelector('attention-view'); el.text = t; el.ablate = '1.1'; }", text)
    view_result(page)
    got = generate(page, {"temperature": 0, "maxTokens": n})
    assert [t["id"] for t in got["ok"]["tokens"]] == want
    assert got["shown"] == ids + want


# --- seeds ------------------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_continuation_and_another_seed_another(page):
    options = {"temperature": 1, "topK": 20, "seed": 7, "maxTokens": 16}
    runs = []
    for seed in (7, 7, 8):
        set_text(page, SAMPLED)
        runs.append(generate(page, {**options, "seed": seed}))
    a, b, c = runs
    assert a["ok"]["text"] == b["ok"]["text"] and a["shown"] == b["shown"]
    assert c["ok"]["text"] != a["ok"]["text"]  # checked for this text: seeds 7 and 8 part at once
    # The token at position n uses draw n of the seed's stream, so 6 + 10 tokens = 16 tokens.
    set_text(page, SAMPLED)
    generate(page, {**options, "maxTokens": 6})
    split = generate(page, {**options, "maxTokens": 10})
    assert split["shown"] == a["shown"] and split["text"] == a["ok"]["text"]
    # Without options, the attributes give the settings.
    set_text(page, SAMPLED)
    page.evaluate("() => { const el = document.querySelector('attention-view'); el.temperature = '1'; el.topK = '20'; el.seed = '7'; }")
    assert generate(page, {"maxTokens": 16})["shown"] == a["shown"]


def spec_sample(reference, ids, n, temperature, top_k, seed):
    """sampler.js's documented picks, in Python, on onnxruntime-python's logits: (ids, the
    smallest distance of a draw from a boundary between two candidates, over the total)."""
    out, margins = [], []
    for _ in range(n):
        z = reference.run(ids + out)["logits"][-1].astype(np.float64)
        uniform = mulberry32(seed)
        for _ in range(len(ids) + len(out)):  # position n of the window takes draw n
            uniform()
        u = uniform()
        order = sorted(range(len(z)), key=lambda i: (-z[i], i))[:top_k]
        weights = [math.exp((z[i] - z[order[0]]) / temperature) for i in order]
        total = 0.0
        for w in weights:
            total += w
        acc, cumulative = 0.0, []
        for w in weights:
            acc += w
            cumulative.append(acc)
        pick = next((i for i, c in zip(order, cumulative) if u * total < c), order[-1])
        margins.append(min(abs(c - u * total) for c in cumulative) / total)
        out.append(pick)
    return out, min(margins)


@pytest.mark.parametrize(("text", "seed"), [(SAMPLED, 8), ("The Queen turned round and said", 3)])
def test_a_sampled_continuation_follows_the_spec(page, reference, text, seed):
    ids = reference.ids(text)
    want, margin = spec_sample(reference, ids, 16, 1.0, 20, seed)
    # Float32 noise between the two runtimes moves a boundary by far less than this.
    assert margin > MARGIN, f"a draw within {margin:.1e} of a boundary: pick another seed"
    set_text(page, text)
    got = generate(page, {"temperature": 1, "topK": 20, "seed": seed, "maxTokens": 16})
    assert [t["id"] for t in got["ok"]["tokens"]] == want


# --- stop, undo, typing -------------------------------------------------------------------------


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


# --- the window, bad input ----------------------------------------------------------------------


def test_never_past_the_window(page, reference):
    words = ("The Queen turned to Alice and said that the Hatter was late again, so the March Hare "
             "poured the tea while the Dormouse slept. ") * 10
    ids = reference.ids(words)
    cut = next(k for k in range(126, 0, -1) if len(reference.ids(reference.tokenizer.decode(ids[:k]))) == 126)
    text = reference.tokenizer.decode(ids[:cut])
    assert len(set_text(page, text)["tokens"]) == 126
    got = generate(page, {"temperature": 0, "maxTokens": 20})
    assert len(got["ok"]["tokens"]) == 2 and got["ok"]["reason"] == "window" and len(got["shown"]) == 128
    full = generate(page, {"temperature": 0})
    assert full["error"][0] == "RangeError" and "fills the model's window of 128 tokens" in full["error"][1]
    assert shadow(page, "s.querySelector('.gen-error').textContent") == full["error"][1]
    assert len(full["shown"]) == 128


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


def hash_params(page):
    return parse_qs(page.evaluate("location.hash").lstrip("#"), keep_blank_values=True)


def test_the_permalink_round_trips_the_settings_and_the_continuation(browser, site_url):
    context = browser.new_context()
    try:
        first = watched_page(context)
        first.goto(f"{site_url}/index.html")
        wait_live(first)
        text = "Alice was beginning to get very tired"
        first.locator("attention-view textarea[aria-label='Text to analyse']").fill(text)
        view_result(first)
        for field, value in (("temperature", "1.2"), ("topK", "5"), ("seed", "42")):
            first.locator(f"attention-view .gen-input[data-setting={field}]").fill(value)
        first.locator("attention-view .gen-input[data-setting=seed]").press("Tab")
        first.wait_for_function("() => location.hash.includes('seed=42')")
        params = hash_params(first)
        assert (params["temperature"], params["topk"], params["seed"]) == (["1.2"], ["5"], ["42"])
        assert "continue" not in params
        # The settings alone: a new page opens with them in the fields and the attributes.
        second = watched_page(context)
        second.goto(f"{site_url}/index.html" + first.evaluate("location.hash"))
        wait_live(second)
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


def test_generate_results_are_json(page):
    set_text(page, "Once upon a time")
    got = generate(page, {"temperature": 0, "maxTokens": 3})
    assert json.loads(json.dumps(got["ok"])) == got["ok"]
    assert set(got["ok"]) == {"text", "tokens", "reason"}
    assert all(set(t) == {"id", "text", "p"} for t in got["ok"]["tokens"])
