"""Switching heads off: the `ablate` attribute, the off switches, the paired
bars and the bad inputs, in Debian's chromium. Every number is checked against
onnxruntime-python fed the same `head_mask` (conftest `reference`); nothing is mocked."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import embed_codes, run_node, set_attributes, view_result, wait_live
from helpers import SHADOW
from reference import assert_top5

pytestmark = pytest.mark.browser

TEXT = "The Queen turned to Alice and said"
ALL = [(layer, head) for layer in (1, 2) for head in (1, 2, 3, 4)]


def mask_of(pairs, meta):
    cfg = meta["config"]
    mask = np.ones((cfg["n_layer"], cfg["n_head"]), np.float32)
    for layer, head in pairs:
        mask[layer - 1, head - 1] = 0
    return mask


@pytest.fixture
def view(reused_live_page):
    return reused_live_page


show = set_attributes


MASKS = [[(1, 2)], [(2, 3)], [(1, 1), (2, 3)], [(1, 1), (1, 2), (1, 3), (1, 4)]]


@pytest.mark.parametrize("pairs", MASKS, ids=lambda p: " ".join(f"{a}.{b}" for a, b in p))
def test_ablated_numbers_equal_onnxruntime_with_the_same_head_mask(view, reference, meta, pairs):
    ablate = " ".join(f"{a}.{b}" for a, b in pairs)
    r = show(view, text=TEXT, token="turned", ablate=ablate)
    assert r["ablated"] == [list(p) for p in pairs]
    ids = reference.ids(TEXT)
    want = reference.run(ids, mask_of(pairs, meta))
    base = reference.run(ids)
    q = r["token"]
    assert q == 2
    np.testing.assert_allclose(np.array(r["attention"]), want["attention"], atol=1e-5)
    finite = np.isfinite(want["scores"])
    got_scores = np.array(r["scores"])
    assert (np.isfinite(got_scores) == finite).all()
    np.testing.assert_allclose(got_scores[finite], want["scores"][finite], atol=1e-4)
    assert_top5(r["top"], want["probs"][q])
    assert_top5(r["topBaseline"], base["probs"][q])
    nxt = r["nextToken"]
    assert nxt["id"] == ids[q + 1]
    assert abs(nxt["p"] - want["probs"][q, ids[q + 1]]) < 1e-5
    assert abs(nxt["pBaseline"] - base["probs"][q, ids[q + 1]]) < 1e-5
    assert view.evaluate("() => document.querySelector('attention-view').ablate") == ablate


def test_a_layer_one_head_changes_layer_two_rows(view, reference, meta):
    ids = reference.ids(TEXT)
    base = reference.run(ids)["attention"]
    r = show(view, text=TEXT, ablate="1.1")
    got = np.array(r["attention"])
    want = reference.run(ids, mask_of([(1, 1)], meta))["attention"]
    np.testing.assert_allclose(got, want, atol=1e-5)
    # Layer 1's own rows are computed before any head's output is used: unchanged.
    np.testing.assert_allclose(got[0], base[0], atol=1e-5)
    # Layer 2 reads what layer 1 wrote: its rows really move.
    assert np.abs(got[1] - base[1]).max() > 1e-3
    note = view.locator("attention-view .ablate-composition")
    assert note.is_visible() and "layer 2 change too" in note.text_content()
    # A layer-2 head alone leaves every row as it was, and says nothing about composition.
    r = show(view, ablate="2.2")
    np.testing.assert_allclose(np.array(r["attention"]), base, atol=1e-5)
    assert not note.is_visible()


def switch(page, kind, layer, head):
    cell = ".mini-cell" if kind == "mini" else ".thumb-cell"
    return page.locator(f'attention-view {cell} .head-switch[data-layer="{layer}"][data-head="{head}"]')


def switched_off(page):
    """The switches of heads that are off: they offer to switch the head back on."""
    return page.evaluate(f"""() => [...{SHADOW}.querySelectorAll(".head-switch")]
      .filter((b) => b.textContent === "switch on" && b.getAttribute("aria-label").startsWith("switch on layer"))
      .map((b) => `${{b.closest(".mini-cell") ? "mini" : "thumb"}} ${{b.dataset.layer}}.${{b.dataset.head}}`)
      .sort()""")


def test_off_switches_are_buttons_that_say_what_they_do_and_toggle_the_attribute(view, reference, meta):
    show(view, text=TEXT)
    view.evaluate("""() => { window.__changes = [];
      document.querySelector("attention-view").addEventListener("change", (e) => window.__changes.push(e.detail)); }""")
    sw = switch(view, "mini", 1, 2)
    assert sw.get_attribute("aria-label") == "switch off layer 1 head 2"
    assert sw.evaluate("(b) => b.tagName") == "BUTTON" and sw.text_content() == "switch off"
    # A name that changes with the state: no aria-pressed, which would say "pressed" about "switch on".
    assert sw.get_attribute("aria-pressed") is None
    sw.click()
    r = view_result(view)
    assert sw.text_content() == "switch on" and sw.get_attribute("aria-label") == "switch on layer 1 head 2"
    assert view.get_attribute("attention-view", "ablate") == "1.2" and r["ablated"] == [[1, 2]]
    assert switched_off(view) == ["mini 1.2", "thumb 1.2"]
    assert view.evaluate(f"""() => [...{SHADOW}.querySelectorAll(".head-off")].length""") == 2
    assert view.locator("attention-view .mini-cell.head-off .off-badge").is_visible()
    # The keyboard alone: focus the thumbnail's switch of layer 2, head 3 and press Space.
    switch(view, "thumb", 2, 3).focus()
    view.keyboard.press("Space")
    r = view_result(view)
    assert view.get_attribute("attention-view", "ablate") == "1.2 2.3"
    assert switched_off(view) == ["mini 1.2", "mini 2.3", "thumb 1.2", "thumb 2.3"]
    np.testing.assert_allclose(np.array(r["attention"]),
                               reference.run(reference.ids(TEXT), mask_of([(1, 2), (2, 3)], meta))["attention"], atol=1e-5)
    view.keyboard.press("Enter")  # the same switch again: layer 2, head 3 back on
    view_result(view)
    assert view.get_attribute("attention-view", "ablate") == "1.2"
    changes = view.evaluate("window.__changes")
    assert [(c["action"], c["ablate"]) for c in changes] == [("ablate", "1.2"), ("ablate", "1.2 2.3"), ("ablate", "1.2")]
    # The screen-reader table says which heads are off.
    foot = view.evaluate(f"() => {SHADOW}.querySelector('.sr-only tfoot').textContent")
    assert foot.startswith("Switched off: layer 1 head 2.")
    view.locator("attention-view .ablate-reset").click()
    r = view_result(view)
    assert view.get_attribute("attention-view", "ablate") is None and r["ablated"] == []
    assert switched_off(view) == [] and not view.locator("attention-view .ablation-panel").is_visible()
    assert view.evaluate(f"() => {SHADOW}.querySelector('.sr-only tfoot').textContent") == "Every head is on."


def pct(text: str) -> float:
    return float(text.rstrip("%")) / 100


def test_paired_bars_show_both_runs_at_the_pinned_token(view, reference, meta):
    pairs = [(1, 1), (2, 3)]
    r = show(view, text=TEXT, token="Queen", ablate="1.1 2.3")
    ids = reference.ids(TEXT)
    q = r["token"]
    want = reference.run(ids, mask_of(pairs, meta))["probs"][q]
    base = reference.run(ids)["probs"][q]
    rows = view.evaluate(f"""() => [...{SHADOW}.querySelectorAll(".pair-row")].filter((tr) => !tr.hidden)
      .map((tr) => [+tr.dataset.id, tr.querySelector(".pair-token").textContent, tr.querySelector(".pair-base-p").textContent,
                    tr.querySelector(".pair-off-p").textContent, tr.querySelector(".pair-change").textContent])""")
    # The union of both top-5 lists, each token once, the most likely under either run first.
    union = {int(i) for i in np.argsort(-want)[:5]} | {int(i) for i in np.argsort(-base)[:5]}
    assert sorted(row[0] for row in rows) == sorted(union)
    peaks = [max(base[row[0]], want[row[0]]) for row in rows]
    assert all(a >= b - 1e-6 for a, b in zip(peaks, peaks[1:]))
    for i, token, b, a, change in rows:
        assert token.strip() != ""
        assert abs(pct(b) - base[i]) <= 0.0005 + 1e-9 and abs(pct(a) - want[i]) <= 0.0005 + 1e-9, (token, b, a)
        delta = float(change.split()[0].replace("\u2212", "-").replace("+", "").replace("\u00b1", ""))
        assert abs(delta - 100 * (want[i] - base[i])) <= 0.05 + 1e-6
    nxt = view.locator("attention-view .ablate-next").text_content()
    follower = ids[q + 1]
    assert f"{100 * base[follower]:.1f}% with every head on" in nxt and f"{100 * want[follower]:.1f}% with" in nxt
    # At the last token there is no next token in the text, and the panel says so.
    show(view, token="said")
    assert "is the last token" in view.locator("attention-view .ablate-next").text_content()
    assert view_result(view)["nextToken"] is None


@pytest.mark.parametrize("bad, kept", [("3.1", []), ("1.9", []), ("x", []), ("0.1 1.0 2.-1", []),
                                       ("3.1 1.9 x 1.2", [(1, 2)]), ("1.2,2.3  2.3", [(1, 2), (2, 3)])])
def test_heads_that_do_not_exist_are_ignored_with_a_message(view, reference, meta, bad, kept):
    r = show(view, text=TEXT, ablate=bad)
    assert r["ablated"] == [list(p) for p in kept]
    np.testing.assert_allclose(np.array(r["attention"]),
                               reference.run(reference.ids(TEXT), mask_of(kept, meta))["attention"], atol=1e-5)
    error = view.locator("attention-view .ablate-error")
    if bad in ("1.2,2.3  2.3",):
        assert not error.is_visible()  # commas and repeats are fine
    else:
        assert error.is_visible()
        text = error.text_content()
        assert "does not have" in text
        for entry in bad.split():
            if (entry.split(".")[0], entry.split(".")[-1]) not in {(str(a), str(b)) for a, b in kept}:
                assert f"\u201c{entry}\u201d" in text, (entry, text)
        assert ("Every head stays on." in text) == (not kept)
    assert view.evaluate("() => document.querySelector('attention-view').status") == "live"
    # The view keeps working: another head, another token.
    r = show(view, layer=1, head=4, token=1)
    assert (r["layer"], r["head"], r["token"]) == (1, 4, 1)


def test_every_head_off_still_runs_and_says_so(view, reference, meta):
    ablate = " ".join(f"{a}.{b}" for a, b in ALL)
    r = show(view, text=TEXT, ablate=ablate)
    assert r["ablated"] == [list(p) for p in ALL]
    ids = reference.ids(TEXT)
    want = reference.run(ids, mask_of(ALL, meta))
    np.testing.assert_allclose(np.array(r["attention"]), want["attention"], atol=1e-5)
    assert_top5(r["top"], want["probs"][r["token"]])
    note = view.locator("attention-view .ablate-all")
    assert note.is_visible() and "Every head is off (all 8)" in note.text_content()
    assert "depends on its own token alone" in note.text_content()
    # With no head's output reaching the model, the last position's prediction is that of its
    # token alone (ALiBi: no position embedding), which the graph confirms.
    alone = reference.run([ids[-1]], mask_of(ALL, meta))["probs"][0]
    assert_top5(r["top"], alone)
    # One switch back on and the note goes; the view still answers.
    switch(view, "mini", 2, 3).click()
    r = view_result(view)
    assert len(r["ablated"]) == 7 and not note.is_visible()


def test_ablate_rides_in_the_permalink_the_embed_params_and_the_embed_code(view, site_url, reference, meta):
    show(view, text=TEXT)
    switch(view, "mini", 1, 3).click()
    view.wait_for_function("() => location.hash.includes('ablate=1.3')")
    hash_ = view.evaluate("location.hash")
    other = view.context.new_page()
    try:
        other.goto(f"{site_url}/index.html{hash_}")
        wait_live(other)
        r = view_result(other)
        assert r["ablated"] == [[1, 3]] and r["text"] == TEXT
        other.goto(f"{site_url}/embed.html?text=The%20cat%20sat&ablate=2.1%202.4")
        wait_live(other)
        r = view_result(other)
        assert r["ablated"] == [[2, 1], [2, 4]]
        np.testing.assert_allclose(np.array(r["attention"]),
                                   reference.run(reference.ids("The cat sat"), mask_of([(2, 1), (2, 4)], meta))["attention"],
                                   atol=1e-5)
        assert "ablate=2.1%202.4" in other.get_attribute(".embed-full", "href")
    finally:
        other.close()
    view.locator("attention-view .embed-toggle").click()
    code = embed_codes(view)
    assert 'ablate="1.3"' in code["script"] and "ablate=1.3" in code["iframe"] and 'ablate="1.3"' in code["jinja"]
    view.locator("attention-view .embed-toggle").click()


ABLATION_JS = """
import { readFileSync } from "node:fs";
const A = await import(process.cwd() + "/static/attention-view/model/head-set.js");
const cfg = { n_layer: 2, n_head: 4 };
const meta = { config: cfg };
const out = {};
out.parsed = ["1.2 2.3", "2.3,1.2 1.2", "", null, "3.1 1.9 x 1.2", "01.2"].map((v) => A.parseAblate(v, cfg));
out.toggles = [A.toggleHead(null, 1, 2, cfg), A.toggleHead("1.2", 1, 2, cfg), A.toggleHead("2.4", 1, 1, cfg)];
out.masks = [null, "1.2 2.3", "9.9"].map((a) => { const m = A.maskFor(A.parseAblate(a, meta.config).heads, meta.config); return m && Array.from(m); });
out.format = [A.formatAblate([]), A.formatAblate([[1, 1], [2, 4]])];
process.stdout.write(JSON.stringify(out));
"""


def test_the_attribute_the_mask_and_the_switches_as_pure_functions():
    got = run_node(ABLATION_JS)
    texts = [p["text"] for p in got["parsed"]]
    assert texts == ["1.2 2.3", "1.2 2.3", None, None, "1.2", "1.2"]
    assert [len(p["errors"]) for p in got["parsed"]] == [0, 0, 0, 0, 3, 0]
    assert got["toggles"] == ["1.2", None, "1.1 2.4"]
    assert got["masks"] == [None, [1, 0, 1, 1, 1, 1, 0, 1], None]
    assert got["format"] == [None, "1.1 2.4"]
