"""Predictions come from logits the graph computes only where the view reads them.

At T = 128 the tied output layer is about a third of a wasm run, and a view shows one
position's top 5 (the pinned or hovered token) and "Continue" picks from the last: so each run
asks the graph (input `logit_positions`) for those positions only, and pinning or hovering a
token whose logits were not computed runs the model once more for them. Everything shown is
checked against onnxruntime-python with logits at every position (conftest `reference`)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import set_attributes, view_result
from helpers import synthetic_text
from reference import assert_top5

pytestmark = pytest.mark.browser

LONG = synthetic_text(40, seed=5)  # more than n_ctx tokens: the view keeps the last 128

# The element's own model (loadModel shares one per folder), asked for logits directly.
MODEL_RUN_JS = """async ([ids, positions]) => {
  const { loadModel } = await import("./static/attention-view/model/loader.js");
  const model = await loadModel(document.querySelector("attention-view").src);
  const out = await model.run(ids, null, positions);
  return { inputs: model.session.inputNames,
           rows: [...out.rows].map(([q, row]) => [q, Array.from(row)]) };
}"""

# The predictions panel's percentages as drawn, top row first.
PREDICTIONS_JS = """() => [...document.querySelector("attention-view").shadowRoot
  .querySelectorAll("li.pred:not([hidden]) .pred-p")].map((p) => parseFloat(p.textContent))"""


def test_a_run_computes_logits_only_where_asked(reused_live_page, reference):
    ids = reference.ids("The Queen said to the Hatter that the tea was cold and the cups were empty")
    want = reference.run(ids)["logits"]
    got = reused_live_page.evaluate(MODEL_RUN_JS, [ids, [5, 0, 5, len(ids), -1]])
    assert "logit_positions" in got["inputs"]
    # Repeats and positions outside the text are dropped; the rest come in the order asked.
    assert [q for q, _ in got["rows"]] == [5, 0]
    for q, row in got["rows"]:
        np.testing.assert_allclose(row, want[q], rtol=1e-5, atol=1e-4)
    every = reused_live_page.evaluate(MODEL_RUN_JS, [ids, None])
    assert [q for q, _ in every["rows"]] == list(range(len(ids)))


def test_pinning_and_hovering_other_tokens_show_their_own_predictions(reused_live_page, reference, meta):
    page = reused_live_page
    n_ctx = meta["config"]["n_ctx"]
    ids = reference.ids(LONG)[-n_ctx:]
    probs = reference.run(ids)["probs"]
    result = set_attributes(page, text=LONG)
    assert [t["id"] for t in result["tokens"]] == ids
    assert_top5(result["top"], probs[result["token"]])
    # Tokens whose logits the typing run did not compute: each pin is one more run.
    for q in (3, 70, n_ctx - 2, 0):
        result = set_attributes(page, token=q)
        assert result["token"] == q
        assert_top5(result["top"], probs[q])
    # Hovering shows the hovered token's predictions (and leaves the pin and `result.top`).
    chip = page.locator("attention-view .chip").nth(40)
    chip.scroll_into_view_if_needed()
    chip.hover()
    page.wait_for_selector("attention-view .chip.query[data-index='40']", state="attached")
    want = np.sort(probs[40])[::-1][:5] * 100
    page.wait_for_function(f"""() => {{ const got = ({PREDICTIONS_JS})();
      return got.length === 5 && Math.abs(got[0] - {want[0]}) < 0.051; }}""")
    np.testing.assert_allclose(page.evaluate(PREDICTIONS_JS), want, atol=0.05 + 1e-6)
    assert view_result(page)["token"] == 0
