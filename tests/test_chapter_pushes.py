"""Chapter 1's "What the heads write" (site_builder/templates/_chapter_writes.html, its live
sentences in static/pages/chapter-pushes.js): built only for a graph with attribution outputs,
and every number in its sentences is the views' `result.attribution` (itself held to
onnxruntime-python by tests/test_widget_attribution.py): the head that pushes the copied token
hardest, the induction head's push and its part through the stripe's key, the same with the
earlier head switched off, and on the speaker sentence the head that writes the top prediction."""

from __future__ import annotations

import json

import pytest
from circuit_model import CIRCUIT_MODEL
from test_chapter_attention import parse

from conftest import view_result, wait_live

pytestmark = pytest.mark.browser


MINUS = "\u2212"


def signed(x: float) -> str:
    return f"{MINUS if x < 0 else '+'}{abs(x):.2f}"


def strongest(a: dict, j: int) -> tuple[int, int, float]:
    return max(((l + 1, h + 1, push[j]) for l, heads in enumerate(a["heads"]) for h, push in enumerate(heads)),
               key=lambda x: x[2])


def sentences(page) -> dict:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll("#writes .live")]
      .map((s) => [s.dataset.claim, s.textContent]))""")


def test_only_for_a_graph_with_attribution(built_site, meta):
    claims = {c for c, v in parse(built_site, "attention.html").claims}
    assert {"writes", "writes-off", "writes-name"} <= claims
    assert "lens_logits" not in json.loads((CIRCUIT_MODEL / "meta.json").read_text())["onnx"]["axes"]
    # tests/test_chapter_induction.py builds on that older graph: its view-3 claims stay two.


def test_the_sentences_are_the_views_numbers(page, site_url, meta):
    circuit = meta["circuit"]
    page.goto(f"{site_url}/attention.html")
    page.locator("#view-3").scroll_into_view_if_needed()
    wait_live(page, "#view-3")
    wait_live(page, "#view-1")
    r = view_result(page, "#view-3")
    a = r["attribution"]
    t = r["token"]
    copied = r["tokens"][t + 1]["id"]
    j = [tok["id"] for tok in a["tokens"]].index(copied)
    layer, head, value = strongest(a, j)
    own = a["heads"][circuit["head"]["layer"] - 1][circuit["head"]["head"] - 1][j]
    key = r["induction"]["pinned"]["key"]
    page.wait_for_function("() => document.querySelector('#writes .live[data-claim=writes]').dataset.state")
    said = sentences(page)
    assert f"layer {layer} head {head} ({signed(value)})" in said["writes"] or f"itself, layer {layer} head {head}" in said["writes"]
    assert signed(own) in said["writes"] and signed(a["keys"][key][j]) in said["writes"]

    first = view_result(page, "#view-1")
    b = first["attribution"]
    top = strongest(b, 0)
    assert f"layer {top[0]} head {top[1]} ({signed(top[2])})" in said["writes-name"] or \
        any(tok["id"] == first["tokens"][0]["id"] for tok in b["tokens"])

    # The earlier head off, as a reader switches it (the button beside "Repeat it").
    reads = circuit["composes_with"]
    page.locator(f"#view-3 .mini-cell .head-switch[data-layer='{reads['layer']}'][data-head='{reads['head']}']").click()
    page.wait_for_function(f"() => document.querySelector('#view-3').getAttribute('ablate') === '{reads['layer']}.{reads['head']}'")
    off = view_result(page, "#view-3")
    page.wait_for_function("() => document.querySelector('#writes .live[data-claim=\"writes-off\"]').textContent.startsWith('with')")
    said = sentences(page)["writes-off"]
    ids = [tok["id"] for tok in off["attribution"]["tokens"]]
    if copied in ids:
        now = off["attribution"]["heads"][circuit["head"]["layer"] - 1][circuit["head"]["head"] - 1][ids.index(copied)]
        assert "pushes" in said and signed(now) in said and f"({signed(own)} with every head on)" in said
    else:
        assert "no longer among the model's top 5" in said
