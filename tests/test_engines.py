"""A reader's core journey in every engine the suite drives: Chromium, Firefox ESR and
WebKitGTK (tests/drivers). The same cases in each: the live view equals onnxruntime-python on
sentences written here, typing, pinning by click and by key, layer and head switches, a head
switched off, compare, Continue (greedy, token for token), hostile text kept as text; and no
console or window error anywhere (the pages' recorder, see drivers/recorder.js)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from widget_generate import MARGIN, greedy

from conftest import RESET_VIEW
from helpers import HOSTILE_STRINGS, SHADOW, synthetic_text
from reference import assert_top5

pytestmark = pytest.mark.browser

SENTENCES = [
    "The Queen turned to Alice and said",
    "A small bird follows the long road to the river.",
    "Ünïcödé, 日本語 and 👩‍👩‍👧‍👦 in one line",
    synthetic_text(40, seed=7),  # longer than the window: the view keeps the last n_ctx tokens
]
TYPED = "The Hatter looked at the March Hare"
SECOND = "Alice turned to the Queen and said"
CONTINUED = "The Queen turned round and said"


@pytest.fixture(scope="session")
def engine_live(engine, engine_site_url):
    """One live index page per engine, for the whole run."""
    page = engine.new_page()
    page.goto(f"{engine_site_url}/index.html")
    page.wait_live()
    yield page
    page.close()


@pytest.fixture
def view(engine_live):
    """The engine's live page in its default view; the test must end it without a problem (the
    first test also answers for the page's load)."""
    engine_live.evaluate(RESET_VIEW)
    engine_live.result()
    yield engine_live
    assert engine_live.problems() == [], engine_live.engine


def set_text(page, text: str) -> dict:
    page.evaluate("(t) => { document.querySelector('attention-view').text = t; }", text)
    return page.result()


def wait_result(page, condition: str) -> dict:
    """The view's result once `condition` (JavaScript on `r`, the element's result) holds."""
    page.wait_for(f"() => {{ const r = document.querySelector('attention-view').result; return r && r.live && ({condition}); }}")
    return page.result()


def assert_view_equals(result, reference, n_ctx, mask=None):
    """Every number of the view (attention, finite scores, top 5 at the pin) is the reference's."""
    ids = [t["id"] for t in result["tokens"]]
    assert ids == reference.ids(result["text"])[-n_ctx:]
    want = reference.run(ids, mask)
    np.testing.assert_allclose(np.array(result["attention"]), want["attention"], atol=1e-5, rtol=0)
    scores = np.array(result["scores"], dtype=np.float64)
    finite = np.isfinite(want["scores"])
    assert (np.isfinite(scores) == finite).all()
    np.testing.assert_allclose(scores[finite], want["scores"][finite], atol=1e-4, rtol=0)
    assert_top5(result["top"], want["probs"][result["token"]])


def test_the_live_view_equals_onnxruntime(view, reference, meta):
    n_ctx = meta["config"]["n_ctx"]
    d = meta["default"]
    first = view.result()
    assert first["live"] and first["text"] == d["text"]
    assert (first["layer"], first["head"], first["token"]) == (d["layer"], d["head"], d["token"])
    assert_view_equals(first, reference, n_ctx)
    assert len(reference.ids(SENTENCES[-1])) > n_ctx
    for text in SENTENCES:
        result = set_text(view, text)
        assert result["text"] == text
        assert_view_equals(result, reference, n_ctx)


def test_typing_pinning_and_switching_heads(view, reference, meta):
    n_ctx = meta["config"]["n_ctx"]
    view.focus("textarea")
    view.evaluate(f"() => {SHADOW}.querySelector('textarea').select()")
    view.type(TYPED)
    result = wait_result(view, f"r.text === {json.dumps(TYPED)}")
    assert_view_equals(result, reference, n_ctx)

    view.click(".chip", 2)  # pin the third token
    result = wait_result(view, "r.token === 2")
    assert_view_equals(result, reference, n_ctx)
    assert view.evaluate(f"() => {SHADOW}.querySelectorAll('.chip')[2].getAttribute('aria-pressed')") == "true"
    for key, token in [("ArrowRight", 3), ("ArrowLeft", 2), ("Home", 0), ("End", len(result["tokens"]) - 1)]:
        view.press(key)
        assert_view_equals(wait_result(view, f"r.token === {token}"), reference, n_ctx)

    view.click(".mini[data-layer='1'][data-head='2']")
    result = wait_result(view, "r.layer === 1 && r.head === 2 && r.view === 'head'")
    assert view.evaluate(f"() => {SHADOW}.querySelectorAll(\".mini[aria-pressed='true']\").length") == 1
    view.press("h")
    wait_result(view, "r.layer === 1 && r.head === 3")
    view.press("l")
    result = wait_result(view, "r.layer === 2")
    q, layer, head = result["token"], result["layer"], result["head"]
    row = reference.run([t["id"] for t in result["tokens"]])["attention"][layer - 1, head - 1, q]
    np.testing.assert_allclose(result["attention"][layer - 1][head - 1][q], row, atol=1e-5)


def test_a_head_switched_off_and_compare(view, reference, meta):
    cfg = meta["config"]
    set_text(view, SENTENCES[0])
    view.click(".mini-cell .head-switch[data-layer='1'][data-head='2']")
    result = wait_result(view, "r.ablated.length === 1")
    assert result["ablated"] == [[1, 2]]
    assert view.evaluate("() => document.querySelector('attention-view').getAttribute('ablate')") == "1.2"
    mask = np.ones((cfg["n_layer"], cfg["n_head"]), np.float32)
    mask[0, 1] = 0
    assert_view_equals(result, reference, cfg["n_ctx"], mask)
    ids = [t["id"] for t in result["tokens"]]
    assert_top5(result["topBaseline"], reference.run(ids)["probs"][result["token"]])

    view.click(".compare-toggle")  # opens the second box with the first text in it, focused
    view.evaluate(f"() => {SHADOW}.querySelector('.compare-input').select()")
    view.type(SECOND)
    result = wait_result(view, f"r.compare && r.compare.text === {json.dumps(SECOND)}")
    c = result["compare"]
    assert [t["id"] for t in c["tokens"]] == reference.ids(SECOND)
    assert c["found"], c
    layer, head = result["layer"] - 1, result["head"] - 1
    np.testing.assert_allclose(c["row"], reference.run(reference.ids(SECOND), mask)["attention"][layer, head, c["token"]],
                               atol=1e-5)


def test_continue_writes_the_greedy_tokens_of_onnxruntime(view, reference):
    n = 12
    ids = reference.ids(CONTINUED)
    want, _, margin = greedy(reference, ids, n)
    assert margin > MARGIN, f"top-2 logits within {margin:.2e}: pick another sentence"
    set_text(view, CONTINUED)
    view.evaluate("""(n) => { const el = document.querySelector("attention-view");
      el.setAttribute("temperature", "0");
      const field = el.shadowRoot.querySelector(".gen-input[data-setting=maxTokens]");
      field.value = String(n); field.dispatchEvent(new Event("input", { bubbles: true })); }""", n)
    view.click(".gen-continue")
    result = wait_result(view, f"r.tokens.length === {len(ids) + n} && {SHADOW}.querySelector('.gen-stop').hidden")
    assert [t["id"] for t in result["tokens"]] == ids + want
    assert result["token"] == len(ids) + n - 1


def test_hostile_text_stays_text(view, meta):
    n_ctx = meta["config"]["n_ctx"]
    count = f"""() => {{
      const roots = [document, {SHADOW}];
      return ["img", "script", "iframe", "object", "embed", "svg", "b", "style"]
        .map((tag) => roots.reduce((n, r) => n + r.querySelectorAll(tag).length, 0));
    }}"""
    before = view.evaluate(count)
    payloads = [*HOSTILE_STRINGS, '"><svg onload="window.__xss=1"><style>*{display:none}</style>',
                "<img src=x onerror=\"window.__xss=2\"><script>window.__xss=3</script>"]
    for pasted in payloads:
        # As a paste into the text box: its value is the text (a textarea keeps "\r\n" as "\n").
        text = view.evaluate(f"""(t) => {{ const field = {SHADOW}.querySelector("textarea");
          field.value = t; field.dispatchEvent(new Event("input", {{ bubbles: true }})); return field.value; }}""", pasted)
        assert text == pasted.replace("\r\n", "\n")
        result = wait_result(view, f"r.text === {json.dumps(text)}")
        shown = "".join(t["text"] for t in result["tokens"])
        assert shown == text or (len(result["tokens"]) == n_ctx and text.endswith(shown)), (view.engine, text[:40])
        chips = view.evaluate(f"() => {SHADOW}.querySelectorAll('.chip').length")
        assert chips == len(result["tokens"])
    assert view.evaluate(count) == before
    assert view.evaluate("() => window.__xss ?? null") is None
