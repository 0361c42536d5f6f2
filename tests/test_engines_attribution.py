"""What pushed the prediction, in every engine the suite drives (tests/drivers: Chromium, Firefox
ESR, WebKitGTK): `result.attribution` and `result.lens` equal onnxruntime-python's through
attention_live, with a head switched off too; the viewed head's split by key sums to its push;
picking another prediction with a real click sets the `target` key and retitles the panel; no
console or window error."""

from __future__ import annotations

import numpy as np
import pytest

from attention_live import Model
from conftest import RESET_VIEW
from helpers import MODEL_DIR

pytestmark = pytest.mark.browser

TEXT = "The Duchess gave the baby to Alice and the cook threw a plate"
CLOSE = {"rtol": 1e-4, "atol": 2e-4}


@pytest.fixture(scope="module")
def model():
    return Model(MODEL_DIR)


@pytest.fixture
def view(engine, engine_site_url):
    page = engine.new_page()
    page.goto(f"{engine_site_url}/index.html")
    page.wait_live()
    page.evaluate(RESET_VIEW)
    yield page
    assert page.problems() == [], engine
    page.close()


def set_view(page, **attrs) -> dict:
    page.evaluate("""(attrs) => { const el = document.querySelector("attention-view");
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null) el.removeAttribute(k); else el.setAttribute(k, String(v));
      } }""", attrs)
    return page.result()


def assert_attribution(result, run, layer, head):
    t = result["token"]
    got, want = result["attribution"], run.attribution(t)
    assert [tok["id"] for tok in got["tokens"]] == [tok.id for tok in want.tokens]
    for js, py in (("logits", "logits"), ("heads", "heads"), ("embed", "embed"), ("attnBias", "attn_bias"),
                   ("mlp", "mlp"), ("lnBias", "ln_bias")):
        np.testing.assert_allclose(got[js], getattr(want, py), **CLOSE, err_msg=js)
    np.testing.assert_allclose(got["keys"], want.keys[layer - 1, head - 1], **CLOSE)
    np.testing.assert_allclose(np.sum(got["keys"], axis=0), got["heads"][layer - 1][head - 1], rtol=0, atol=1e-4)
    lens = run.lens(t)
    assert [[p["id"] for p in layer_top] for layer_top in result["lens"]] == [[p.id for p in top] for top in lens]


def test_what_pushed_the_prediction(view, model):
    result = set_view(view, text=TEXT, token=6, layer=2, head=4)
    assert_attribution(result, model.run(TEXT), 2, 4)
    result = set_view(view, ablate="1.2")
    assert result["ablated"] == [[1, 2]]
    assert_attribution(result, model.run(TEXT, ablate=[(1, 2)]), 2, 4)

    second = result["attribution"]["tokens"][1]["text"].strip()
    # On screen first, as a reader scrolls to it: off screen a panel's content is not laid out
    # (content-visibility: auto), and Firefox's driver then finds no box to click in.
    view.evaluate("""() => document.querySelector("attention-view").shadowRoot.querySelector(".push-panel").scrollIntoView()""")
    view.click(".push-pick", nth=1)
    view.wait_for("""() => document.querySelector("attention-view").getAttribute("target") === "2" """)
    title = view.evaluate("""() => document.querySelector("attention-view").shadowRoot
      .querySelector(".push-panel .panel-title").textContent""")
    assert title == f"What pushed \u00ab{second}\u00bb"
