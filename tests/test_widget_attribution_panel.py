""""What pushed" on the live page (features/attribution/): its bars are result.attribution's for
the picked prediction and sum to its logit; the `target` key it sets goes into the permalink and
the embed code and comes back from them; the row's "push toward" colouring shows the viewed
head's split by key, in the chips and the screen-reader table; all of it works by keyboard."""

from __future__ import annotations

import re

import pytest

from conftest import embed_codes, set_attributes, view_result, wait_live

pytestmark = pytest.mark.browser

TEXT = "Alice stood up in the hall and said Alice stood up in the hall and said"
SHADOW = 'document.querySelector("attention-view").shadowRoot'


def panel(page) -> dict:
    return page.evaluate(f"""() => {{ const root = {SHADOW};
      const rows = [...root.querySelectorAll(".push-row:not([hidden])")];
      return {{ title: root.querySelector(".push-panel .panel-title").textContent,
        names: rows.map((r) => r.querySelector("th").textContent),
        values: rows.map((r) => r.querySelector(".push-value").textContent),
        sum: root.querySelector(".push-table tfoot .push-value").textContent,
        lens: root.querySelector(".lens-line").textContent }}; }}""")


def number(text: str) -> float:
    return float(text.replace("\u2212", "-"))


def test_the_bars_are_the_attribution_of_the_picked_prediction(reused_live_page):
    page = reused_live_page
    result = set_attributes(page, text=TEXT, token=12, layer=2, head=4, target="2")
    a = result["attribution"]
    j = 1
    shown = panel(page)
    assert shown["title"] == f"What pushed \u00ab{a['tokens'][j]['text'].strip()}\u00bb"
    parts = [a["embed"][j], a["lnBias"][j], *(h[j] for layer in a["heads"] for h in layer),
             *(b[j] for b in a["attnBias"]), *(m[j] for m in a["mlp"])]
    assert sorted((number(v) for v in shown["values"]), reverse=True) == [number(v) for v in shown["values"]]
    assert sorted(number(v) for v in shown["values"]) == pytest.approx(sorted(round(x, 2) for x in parts), abs=0.0051)
    # The sum row is the logit, and the drawn bars add up to it (each rounded to 0.01).
    assert number(shown["sum"]) == pytest.approx(a["logits"][j], abs=0.0051)
    assert sum(number(v) for v in shown["values"]) == pytest.approx(a["logits"][j], abs=0.006 * len(parts))
    # The lens line names each layer's most likely token as result.lens has it.
    for layer, top in enumerate(result["lens"], start=1):
        assert f"after layer {layer}" in shown["lens"] and f"\u00ab{top[0]['text'].strip()}\u00bb" in shown["lens"]


def test_picking_by_keyboard_and_showing_a_head(reused_live_page):
    page = reused_live_page
    result = set_attributes(page, text=TEXT, token=12, layer=1, head=1)
    page.evaluate(f"() => {SHADOW}.querySelector('.push-panel').scrollIntoView()")
    page.locator("attention-view .push-pick").nth(2).focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("attention-view[target='3']", state="attached")
    assert panel(page)["title"] == f"What pushed \u00ab{result['attribution']['tokens'][2]['text'].strip()}\u00bb"
    # A head's name in the panel shows that head in the row.
    page.locator("attention-view .push-name:not([hidden])", has_text="L2H4").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("attention-view[layer='2'][head='4']", state="attached")
    assert view_result(page)["head"] == 4


def test_the_row_colours_by_push(reused_live_page):
    page = reused_live_page
    result = set_attributes(page, text=TEXT, token=12, layer=2, head=4, scale="push", target="1")
    keys = [k[0] for k in result["attribution"]["keys"]]
    page.locator("attention-view .scale-button[data-scale='push'][aria-pressed='true']").wait_for(state="attached")
    chips = page.evaluate(f"""() => [...{SHADOW}.querySelectorAll(".chip .chip-pct")].map((p) => p.textContent)""")
    assert [number(c) for c in chips[: len(keys)]] == pytest.approx(keys, abs=0.0051)
    span = max(abs(k) for k in keys)
    legend = page.evaluate(f"() => {SHADOW}.querySelector('.legend').textContent")
    assert f"{span:.2f}" in legend
    # The screen-reader table has the same numbers, to three places.
    page.wait_for_selector("attention-view .sr-only thead th:nth-child(3)", state="attached")
    cells = page.evaluate(f"""() => [...{SHADOW}.querySelectorAll(".sr-only tbody tr:not([hidden]) td:nth-child(3)")]
      .map((td) => td.textContent)""")
    assert [float(c) for c in cells] == pytest.approx(keys, abs=0.00051)


def test_the_pick_goes_into_links_and_embed_code(reused_live_page, site_url):
    page = reused_live_page
    result = set_attributes(page, text=TEXT, token=6)
    # A reader's pick (a `change` event) writes the address bar; the text's next token here is
    # not among the top 5 (else its button would be one of them, by rank).
    assert len(result["attribution"]["tokens"]) == 6
    page.evaluate(f"() => {SHADOW}.querySelector('.push-panel').scrollIntoView()")
    page.locator("attention-view .push-pick[data-target='next']").click()
    page.wait_for_function("() => location.hash.includes('target=next')")
    link = page.evaluate("() => location.href")
    page.locator("attention-view .embed-toggle").click()
    code = embed_codes(page)
    assert 'target="next"' in code["script"] and re.search(r"(?:\?|&amp;)target=next\b", code["iframe"])
    assert 'target="next"' in code["jinja"]
    other = page.context.new_page()
    try:
        other.goto(link)
        wait_live(other)
        result = view_result(other)
        assert other.evaluate("() => document.querySelector('attention-view').target") == "next"
        next_id = result["tokens"][result["token"] + 1]["id"]
        title = other.evaluate(f"() => {SHADOW}.querySelector('.push-panel .panel-title').textContent")
        name = next(t["text"] for t in result["attribution"]["tokens"] if t["id"] == next_id)
        assert title == f"What pushed \u00ab{name.strip()}\u00bb"
    finally:
        other.close()
    # The top token is no attribute: links that never picked stay as they were.
    page.locator("attention-view .push-pick[data-target='1']").click()
    page.wait_for_function("() => !location.hash.includes('target=')")
