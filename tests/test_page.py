"""The live page in Debian's chromium: default view, parity with onnxruntime-python, the row
on screen, injection, origins and the CSP.

Expected numbers always come from the committed static/model/ files through Python
`tokenizers` + onnxruntime (the `reference` fixture): nothing here is hard-coded.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from conftest import view_result, wait_live
from export.parity import ATOL as PARITY_ATOL
from export.parity import RTOL as PARITY_RTOL
from helpers import MODEL_DIR, synthetic_text
from reference import assert_top5

pytestmark = pytest.mark.browser

# Collects CSP violations from the first moment of the page (init scripts run outside the CSP).
WATCH_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
window.__events = [];
for (const type of ["load", "error", "change"]) {
  document.addEventListener(type, (e) => {
    if (e.target.localName === "attention-view") window.__events.push(type);
  }, true);
}
"""

SENTENCES = [
    "<img src=x onerror=alert(1)> and then",
    "<script>alert('x')</script> & <b>bold</b>",
    "👩‍👩‍👧‍👦 family, 🏳️‍🌈 flag, 👍🏽 thumbs",
    "日本語のテキストと中文文本",
    "مرحبا بالعالم שלום עולם",
    "   leading   and    runs\t\tof\n\n whitespace  ",
    "Ünïcödé e\u0301 n\u0303 \ufeffBOM",
    "a",
    "mixed 123 numbers 4.56e-7 and $%^&*() punctuation!!!",
    "line one\nline two\r\nline three",
    synthetic_text(40, seed=3),  # longer than the context: the page keeps the last n_ctx tokens
]


def chip_texts(page) -> list[str]:
    return page.locator("attention-view .chip .chip-text").all_text_contents()


def chip_percents(page) -> list[str]:
    return page.locator("attention-view .chip .chip-pct").all_text_contents()


def assert_percent(text: str, weight: float):
    """A chip's whole percent ("43%", or "<1%" for a small nonzero weight) matches a weight."""
    if text == "<1%":
        assert 0 < 100 * weight < 0.5 + 1e-9, (text, weight)
    else:
        assert abs(int(text.rstrip("%")) - 100 * weight) <= 0.5 + 1e-9, (text, weight)


def assert_row_on_screen(page, attention_row, query):
    """Chips up to the query show the row's percentages; later chips are masked."""
    shown = chip_percents(page)
    assert len(shown) == len(attention_row)
    for k, text in enumerate(shown):
        if k <= query:
            assert_percent(text, attention_row[k])
        else:
            assert text == "\u00b7"
    masked = page.locator("attention-view .chip.masked").count()
    assert masked == len(attention_row) - query - 1


def compare_with_reference(result, text, reference, n_ctx):
    ids = reference.ids(text)[-n_ctx:]
    assert [t["id"] for t in result["tokens"]] == ids
    ref = reference.run(ids)
    # Within export's parity bound (1e-5 + 1e-5 x the largest value): wasm and the CPU build of
    # onnxruntime may sum in another order, and a score of ~40 moves by more than 1e-5.
    np.testing.assert_allclose(np.array(result["attention"]), ref["attention"], atol=PARITY_ATOL + PARITY_RTOL, rtol=0)
    got_scores = np.array(result["scores"], dtype=np.float64)
    assert np.array_equal(np.isneginf(got_scores), np.isneginf(ref["scores"]))
    finite = np.isfinite(ref["scores"])
    bound = PARITY_ATOL + PARITY_RTOL * np.abs(ref["scores"][finite]).max()
    np.testing.assert_allclose(got_scores[finite], ref["scores"][finite], atol=bound, rtol=0)
    assert_top5(result["top"], ref["probs"][result["token"]])


def test_default_view_from_golden_then_live(page, site_url, meta, reference):
    """First paint comes from golden.json while the runtime is held back; then the live model."""
    golden = json.loads((MODEL_DIR / "golden.json").read_text(encoding="utf-8"))
    d = meta["default"]
    held = []
    page.route("**/ort-wasm-simd-threaded.wasm", lambda route: held.append(route))
    page.add_init_script(WATCH_CSP)
    page.goto(f"{site_url}/index.html")
    page.wait_for_selector("attention-view[data-status=preview]", state="attached")

    mb = (meta["files"]["model.onnx"]["bytes"] + meta["files"]["tokenizer.json"]["bytes"]) / 1e6
    # The percentage shows while the model's bytes arrive (tests/test_widget_faults.py).
    assert re.fullmatch(f"loading the model \\(\u2248{mb:.1f} MB\\)\u2026( \\d{{1,2}}%)?",
                        page.locator("attention-view .status-text").text_content())
    assert "".join(chip_texts(page)) == golden["text"] == d["text"]
    preview = page.evaluate("document.querySelector('attention-view').result")
    assert preview["live"] is False and preview["token"] == d["token"]
    assert_row_on_screen(page, golden["attention"][d["layer"] - 1][d["head"] - 1][d["token"]], d["token"])

    for _ in range(200):  # the wasm request may come just after the first paint
        if held:
            break
        page.wait_for_timeout(25)
    assert held, "the page never asked for the wasm"
    held[0].continue_()
    wait_live(page)
    result = view_result(page)
    assert result["live"] is True
    assert (result["layer"], result["head"], result["token"], result["view"]) == (
        d["layer"], d["head"], d["token"], d["view"])
    assert "".join(t["text"] for t in result["tokens"]) == d["text"]
    compare_with_reference(result, d["text"], reference, meta["config"]["n_ctx"])
    ref = reference.run(reference.ids(d["text"]))["attention"][d["layer"] - 1, d["head"] - 1, d["token"]]
    assert_row_on_screen(page, ref.tolist(), d["token"])

    pinned = page.locator("attention-view .chip.pinned")
    assert pinned.count() == 1 and pinned.get_attribute("data-index") == str(d["token"])
    title = page.locator("attention-view .row-panel .panel-title").text_content()
    assert title.startswith(f"Layer {d['layer']}, head {d['head']}")
    # The explanation quotes the live numbers: the heaviest key and its rounded share.
    top_key = int(np.argmax(ref[: d["token"] + 1]))
    explain = page.locator("attention-view .explain").text_content()
    assert f"{round(100 * ref[top_key])}% on \u00ab{result['tokens'][top_key]['text'].strip()}\u00bb" in explain
    assert page.locator("attention-view .status-text").text_content().startswith("live")
    assert page.evaluate("window.__events") == ["load"]  # once, and no `change` without a user
    assert page.evaluate("window.__csp") == []
    assert page.console_errors == [] and page.page_errors == []


def test_sentences_match_onnxruntime_python(reused_live_page, meta, reference):
    live_page = reused_live_page
    n_ctx = meta["config"]["n_ctx"]
    assert len(SENTENCES) >= 10
    assert len(reference.ids(SENTENCES[-1])) > n_ctx
    for text in SENTENCES:
        live_page.evaluate("(t) => { document.querySelector('attention-view').text = t; }", text)
        result = view_result(live_page)
        assert result["text"] == text
        compare_with_reference(result, text, reference, n_ctx)
        if len(reference.ids(text)) <= n_ctx:
            assert "".join(t["text"] for t in result["tokens"]) == text
    # Predictions at another position than the last one.
    live_page.evaluate("document.querySelector('attention-view').token = 0")
    result = view_result(live_page)
    assert result["token"] == 0
    compare_with_reference(result, SENTENCES[-1], reference, n_ctx)
    assert live_page.console_errors == [] and live_page.page_errors == []


def test_click_hover_and_head_choice_update_the_row(reused_live_page, meta, reference):
    live_page = reused_live_page
    text = meta["default"]["text"]
    att = reference.run(reference.ids(text))["attention"]
    chips = live_page.locator("attention-view .chip")
    q = 2
    chips.nth(q).click()
    result = view_result(live_page)
    layer, head = result["layer"], result["head"]
    assert result["token"] == q
    np.testing.assert_allclose(result["attention"][layer - 1][head - 1][q], att[layer - 1, head - 1, q], atol=1e-5)
    assert_row_on_screen(live_page, result["attention"][layer - 1][head - 1][q], q)
    assert chips.nth(q).get_attribute("aria-pressed") == "true"
    assert "Row sum 100.0%" in live_page.locator("attention-view .sum").text_content()
    # Screen readers get the same row as a table: one row per visible key.
    cells = live_page.locator("attention-view .sr-only tbody tr:not([hidden]) td")
    row = result["attention"][layer - 1][head - 1][q]
    expect(cells).to_have_text([f"{100 * w:.1f}%" for w in row[: q + 1]])  # it trails the chips briefly

    # Hover previews another row without moving the pin.
    chips.nth(0).hover()
    live_page.wait_for_selector("attention-view .chip.query[data-index='0']", state="attached")
    assert "hover preview" in live_page.locator("attention-view .row-panel .panel-title").text_content()
    assert chip_percents(live_page)[0] == "100%"
    assert view_result(live_page)["token"] == q
    live_page.mouse.move(1, 1)
    live_page.wait_for_selector(f"attention-view .chip.query[data-index='{q}']", state="attached")

    # Another head from the grid: the row follows it.
    live_page.locator("attention-view .mini[data-layer='1'][data-head='2']").click()
    result = view_result(live_page)
    assert (result["layer"], result["head"], result["view"]) == (1, 2, "head")
    assert_row_on_screen(live_page, att[0, 1, q].tolist(), q)
    assert live_page.locator("attention-view .mini[aria-pressed='true']").count() == 1

    # The head average: the chips show the mean of the layer's heads.
    live_page.locator("attention-view .mini[data-layer='2'][data-view='average']").click()
    result = view_result(live_page)
    assert (result["layer"], result["view"]) == (2, "average")
    assert_row_on_screen(live_page, att[1, :, q].mean(axis=0).tolist(), q)
    assert live_page.console_errors == [] and live_page.page_errors == []


def test_typed_markup_executes_nothing_and_injects_nothing(page, site_url):
    page.add_init_script(WATCH_CSP)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    count_js = """() => {
      const roots = [document];
      for (const el of document.querySelectorAll('*')) if (el.shadowRoot) roots.push(el.shadowRoot);
      const n = {};
      for (const tag of ['img', 'script', 'iframe', 'object', 'embed', 'svg', 'b', 'style']) {
        n[tag] = roots.reduce((s, r) => s + r.querySelectorAll(tag).length, 0);
      }
      return n;
    }"""
    before = page.evaluate(count_js)
    payloads = [
        '<img src=x onerror="window.__xss=1">',
        "<script>window.__xss=2</script><b>bold</b>",
        '"><svg onload="window.__xss=3"><style>*{display:none}</style>',
    ]
    field = page.locator("attention-view textarea")
    for payload in payloads:
        field.fill(payload)
        result = view_result(page)
        assert "".join(t["text"] for t in result["tokens"]) == payload
        assert "".join(chip_texts(page)) == payload  # shown as text, character for character
    page.locator("attention-view details.math summary").click()
    assert page.evaluate(count_js) == before
    assert page.evaluate("window.__xss") is None
    assert page.evaluate("window.__csp") == []
    assert not [u for u in requests if u.rstrip("/").endswith("/x")]
    assert page.console_errors == [] and page.page_errors == []


def test_same_origin_only_and_csp_holds(page, site_url, site_csp):
    page.add_init_script(WATCH_CSP)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    page.locator("attention-view textarea").fill("Every request stays at home.")
    view_result(page)
    page.locator("attention-view details.math summary").click()
    page.locator("attention-view .mini[data-view='rollout']").first.click()
    view_result(page)
    csp = page.locator("meta[http-equiv='Content-Security-Policy']").get_attribute("content")
    assert csp == site_csp  # the build's one copy
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["default-src"] == "'none'" and directives["script-src"] == "'self' 'wasm-unsafe-eval'"
    assert "unsafe-inline" not in csp and "unsafe-eval'" not in csp.replace("wasm-unsafe-eval'", "")
    assert requests and all(u.startswith(site_url + "/") for u in requests), requests
    # The runtime came from the site itself: the vendor copies and the model folder.
    assert any(u.endswith("/static/vendor/ort-wasm-simd-threaded.wasm") for u in requests)
    assert sum(u.endswith("/static/model/model.onnx") for u in requests) == 1
    assert page.evaluate("window.__csp") == []
    assert not [m for m in page.console_errors if "Content Security Policy" in m]
    assert page.console_errors == [] and page.page_errors == []
