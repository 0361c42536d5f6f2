"""Compare mode: two sentences, the same layer, head, view and heads off, the
pinned token found by word in both, rows equal to two single runs, the difference word by
word, and a permalink that keeps both texts. Real Chromium; numbers from onnxruntime-python."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import embed_codes, run_node, set_attributes, view_result, wait_live
from helpers import SHADOW

pytestmark = pytest.mark.browser

FIRST = "The Queen turned to Alice and said"
SECOND = "Alice turned to the Queen and said"


@pytest.fixture
def view(reused_live_page):
    return reused_live_page


show = set_attributes


def reference_row(reference, text, layer, head, view, q, mask=None):
    att = reference.run(reference.ids(text), mask)["attention"].astype(np.float64)
    if view == "average":
        return att[layer - 1].mean(axis=0)[q]
    return att[layer - 1, head - 1, q]


@pytest.mark.parametrize("layer, head, view_name", [(2, 3, "head"), (1, 2, "head"), (2, 1, "average")])
def test_the_two_rows_equal_two_single_runs(view, reference, layer, head, view_name):
    r = show(view, text=FIRST, compare=SECOND, token="said", layer=layer, head=head, view=view_name)
    c = r["compare"]
    assert c["text"] == SECOND and [t["id"] for t in c["tokens"]] == reference.ids(SECOND)
    assert c["found"] and c["word"] == "said" and c["token"] == len(c["tokens"]) - 1
    q1, q2 = r["token"], c["token"]
    np.testing.assert_allclose(c["firstRow"], reference_row(reference, FIRST, layer, head, view_name, q1), atol=1e-5)
    np.testing.assert_allclose(c["row"], reference_row(reference, SECOND, layer, head, view_name, q2), atol=1e-5)
    np.testing.assert_allclose(np.array(c["attention"]), reference.run(reference.ids(SECOND))["attention"], atol=1e-5)
    # The same numbers as a plain view of each sentence on its own.
    single = show(view, compare=None, text=SECOND)
    assert single["compare"] is None
    if view_name == "head":
        np.testing.assert_allclose(c["row"], single["attention"][layer - 1][head - 1][q2], atol=1e-5)
    single = show(view, text=FIRST)
    np.testing.assert_allclose(np.array(r["attention"]), np.array(single["attention"]), atol=1e-5)
    # The word-by-word difference: each word's weights (pieces summed), both texts.
    for w in c["words"]:
        assert w["first"] is not None and w["second"] is not None  # the same seven words
    by_word = {w["text"].lower(): w for w in c["words"]}
    queen1 = reference.ids(FIRST).index(reference.ids(" Queen")[0])
    queen2 = reference.ids(SECOND).index(reference.ids(" Queen")[0])
    assert abs(by_word["queen"]["first"] - c["firstRow"][queen1]) < 1e-9
    assert abs(by_word["queen"]["second"] - c["row"][queen2]) < 1e-9


def test_compare_runs_with_the_same_heads_off(view, reference, meta):
    mask = np.ones((2, 4), np.float32)
    mask[0, 0] = 0
    r = show(view, text=FIRST, compare=SECOND, token="said", ablate="1.1")
    c = r["compare"]
    np.testing.assert_allclose(np.array(c["attention"]), reference.run(reference.ids(SECOND), mask)["attention"], atol=1e-5)
    plain = reference.run(reference.ids(SECOND))["attention"]
    assert np.abs(np.array(c["attention"]) - plain).max() > 1e-3  # the switch really reached the second run


def test_the_pinned_token_is_found_by_word_in_the_second_text(view):
    # A number pins a token of the first text; the second text's row is the same word's.
    r = show(view, text=FIRST, compare=SECOND, token=4)  # «Alice»
    c = r["compare"]
    assert c["word"] == "Alice" and c["found"] and c["tokens"][c["token"]]["text"] == "Alice"
    r = show(view, text="the cat saw the dog", compare="the dog saw the cat", token="the#2")
    c = r["compare"]
    assert c["word"] == "the#2" and c["found"] and c["token"] == 3
    # The second occurrence by index, too.
    r = show(view, token=3)
    assert r["compare"]["word"] == "the#2" and r["compare"]["token"] == 3
    # Without that word: the second text's last token, and the panel says so.
    r = show(view, text=FIRST, compare="The cat sat on the mat", token="Queen")
    c = r["compare"]
    assert not c["found"] and c["token"] == len(c["tokens"]) - 1 and c["word"] == "Queen"
    note = view.locator("attention-view .compare-note").text_content()
    assert "has no \u00abQueen\u00bb" in note and "last token" in note
    r = show(view, token=1)  # the same word, pinned by its index
    c = r["compare"]
    assert not c["found"] and c["token"] == len(c["tokens"]) - 1 and c["word"] == "Queen"
    # An empty second text: compare mode stays on, with a prompt.
    r = show(view, compare="")
    assert r["compare"]["tokens"] == [] and r["compare"]["token"] == -1
    assert "Type a second sentence" in view.locator("attention-view .compare-note").text_content()


def test_the_toggle_the_second_box_and_the_difference_table(view):
    show(view, text=FIRST, token="said")
    toggle = view.locator("attention-view .compare-toggle")
    assert toggle.get_attribute("aria-pressed") == "false"
    assert not view.locator("attention-view .compare-panel").is_visible()
    toggle.click()
    r = view_result(view)
    assert toggle.get_attribute("aria-pressed") == "true"
    assert view.get_attribute("attention-view", "compare") == FIRST and r["compare"]["text"] == FIRST
    box = view.locator("attention-view .compare-input")
    assert box.evaluate("(b) => b === b.getRootNode().activeElement")  # focus goes to the second box
    box.fill(SECOND)
    view.wait_for_function(f"() => document.querySelector('attention-view').getAttribute('compare') === {SECOND!r}")
    r = view_result(view)
    c = r["compare"]
    rows = view.evaluate(f"""() => [...{SHADOW}.querySelectorAll(".compare-diff tbody tr")].filter((tr) => !tr.hidden)
      .map((tr) => [tr.querySelector("th").textContent, tr.className, tr.querySelector(".diff-value").textContent])""")
    assert [w for w, _, _ in rows] == [w["text"] for w in c["words"]]
    for (_, cls, value), w in zip(rows, c["words"]):
        delta = 100 * (w["second"] - w["first"])
        shown = float(value.split()[0].replace("\u2212", "-").replace("+", "").replace("\u00b1", ""))
        assert abs(shown - delta) <= 0.05 + 1e-6
        assert cls == ("diff-more" if delta > 0.05 else "diff-less" if delta < -0.05 else cls)
        assert (value[0] == "+") == (cls == "diff-more") and (value[0] == "\u2212") == (cls == "diff-less")
    # Two chip rows, each with its own text, the matched tokens ringed.
    chips = view.evaluate(f"""() => [...{SHADOW}.querySelectorAll(".cchips")].map((row) =>
      [...row.querySelectorAll(".cchip")].filter((c) => !c.hidden).map((c) => c.className.includes("pinned")))""")
    assert [len(x) for x in chips] == [len(r["tokens"]), len(c["tokens"])]
    assert chips[0].index(True) == r["token"] and chips[1].index(True) == c["token"]
    toggle.click()
    r = view_result(view)
    assert r["compare"] is None and view.get_attribute("attention-view", "compare") is None
    assert not view.locator("attention-view .compare-panel").is_visible()


def test_the_permalink_keeps_both_texts(view, site_url):
    show(view, text=FIRST)
    view.locator("attention-view .compare-toggle").click()
    view.locator("attention-view .compare-input").fill(SECOND)
    view.wait_for_function("() => new URLSearchParams(location.hash.slice(1)).get('compare') === " + repr(SECOND))
    link = view.evaluate("location.href")
    other = view.context.new_page()
    try:
        other.goto(link)
        wait_live(other)
        r = view_result(other)
        assert r["text"] == FIRST and r["compare"]["text"] == SECOND
        assert other.locator("attention-view .compare-input").input_value() == SECOND
        other.goto(f"{site_url}/embed.html?text=The%20cat%20sat&compare=The%20dog%20sat&token=sat")
        wait_live(other)
        r = view_result(other)
        assert r["compare"]["text"] == "The dog sat" and r["compare"]["found"]
        assert "compare=The%20dog%20sat" in other.get_attribute(".embed-full", "href")
    finally:
        other.close()
    view.locator("attention-view .embed-toggle").click()
    code = embed_codes(view)
    assert f'compare="{SECOND}"' in code["script"] and f'compare="{SECOND}"' in code["jinja"]
    assert "compare=Alice%20turned" in code["iframe"]
    view.locator("attention-view .embed-toggle").click()


COMPARE_JS = """
const C = await import(process.cwd() + "/static/attention-view/readouts/compare.js");
const L = (texts) => texts.map((text) => ({ text }));
const a = L(["The", " Dor", "mouse", " said", ",", " said"]);
const b = L(["Then", " the", " Dor", "mouse", " said"]);
const out = {};
out.match = [C.matchToken(null, a, 2, b), C.matchToken(null, a, 1, b), C.matchToken(null, a, 5, b),
             C.matchToken("said", a, 3, b), C.matchToken(null, a, 4, b)];
const wa = C.wordWeights([0.1, 0.2, 0.3, 0.4, 0, 0], 3, a);
const wb = C.wordWeights([0.5, 0.1, 0.1, 0.1, 0.2], 4, b);
out.aligned = C.alignWords(wa, wb);
process.stdout.write(JSON.stringify(out));
"""


def test_matching_and_alignment_as_pure_functions():
    got = run_node(COMPARE_JS)
    match = [(m["index"], m["word"], m["found"]) for m in got["match"]]
    assert match == [(3, "Dormouse", True), (2, "Dormouse", True), (1 + 3, "said#2", False),
                     (4, "said", True), (4, ",", False)]
    aligned = [(w["text"], w["first"], w["second"]) for w in got["aligned"]]
    assert aligned == [("The", 0.1, 0.1), ("Dormouse", pytest.approx(0.5), pytest.approx(0.2)),
                       ("said", 0.4, 0.2), ("Then", None, 0.5)]
