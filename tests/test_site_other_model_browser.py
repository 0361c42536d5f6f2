"""`make serve MODEL=models/NAME` in real Chromium: the live page and chapter 1 run a second,
different model (tests/other_model.py: 3 layers x 2 heads, a 64-token context) from its own
folder, open on the view its meta.json names, and give that model's numbers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from other_model import one_layer_model, other_model

from conftest import view_result, wait_live
from export.heads import ort_run
from export.parity import session_for
from testbed.built_site import build_site
from testbed.static_server import serve_dir
from train.tokenizer import load_tokenizer_json

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    model = other_model(tmp_path_factory.getbasetemp())["model"]
    site = build_site(tmp_path_factory.mktemp("other-served"), "--model", str(model))
    url, server = serve_dir(site)
    yield url, model, json.loads((model / "meta.json").read_text(encoding="utf-8"))
    server.shutdown()


@pytest.mark.parametrize("page_name, selector", [("index.html", "attention-view"), ("attention.html", "#view-1")])
def test_the_page_runs_the_other_model_on_its_own_default_view(page, served, page_name, selector):
    url, model, meta = served
    page.goto(f"{url}/{page_name}")
    wait_live(page, selector)
    assert page.get_attribute(selector, "data-status") == "live"
    r = view_result(page, selector)
    d = meta["default"]
    assert (r["text"], r["layer"], r["head"], r["token"]) == (d["text"], d["layer"], d["head"], d["token"])
    att = np.array(r["attention"], dtype=np.float64)
    assert att.shape[:2] == (meta["config"]["n_layer"], meta["config"]["n_head"]) == (3, 2)
    tok = load_tokenizer_json((model / "tokenizer.json").read_text(encoding="utf-8"))
    _, want = ort_run(session_for((model / "model.onnx").read_bytes()))(np.array([tok.encode(d["text"]).ids]))
    np.testing.assert_allclose(att, want[0], atol=1e-5)
    assert att[d["layer"] - 1, d["head"] - 1, d["token"], d["top_key"]] == pytest.approx(d["top_weight"], abs=1e-4)
    assert page.console_errors == [] and page.page_errors == []


@pytest.fixture(scope="module")
def one_layer_served(tmp_path_factory):
    model = one_layer_model(tmp_path_factory.getbasetemp(), "alibi")["model"]
    site = build_site(tmp_path_factory.mktemp("one-layer-served"), "--model", str(model))
    url, server = serve_dir(site)
    yield url, json.loads((model / "meta.json").read_text(encoding="utf-8"))
    server.shutdown()


@pytest.mark.parametrize("page_name, selector", [("index.html", "attention-view"), ("attention.html", "#view-1")])
def test_a_one_layer_model_gets_its_own_grid_and_sentences(page, one_layer_served, page_name, selector):
    """One layer of 4 heads: one row of 4 strips and of 4 thumbnails, and the sentences around them
    speak of one layer (no "each" layer, no later layers that read a switched-off head)."""
    url, meta = one_layer_served
    page.goto(f"{url}/{page_name}")
    wait_live(page, selector)
    assert page.get_attribute(selector, "data-status") == "live"
    view = page.locator(selector)
    heads = [(1, h) for h in range(1, meta["config"]["n_head"] + 1)]
    strips = view.locator("button.mini-head")
    assert [(int(strips.nth(i).get_attribute("data-layer")), int(strips.nth(i).get_attribute("data-head")))
            for i in range(strips.count())] == heads
    assert view.locator(".thumb").count() == len(heads)
    intro = view.locator(".heads-intro").text_content()
    assert intro.startswith("One layer reads your text; it has 4 heads"), intro
    switch_help = view.locator(".switch-help").text_content()
    assert "later layers" not in switch_help and "top 5 next tokens are compared" in switch_help, switch_help
    shown = view.text_content()
    assert "NaN" not in shown and "undefined" not in shown
    assert page.console_errors == [] and page.page_errors == []
