"""`make serve MODEL=models/NAME` in real Chromium: the live page and chapter 1 run a second,
different model (tests/other_model.py: 3 layers x 2 heads, a 64-token context) from its own
folder, open on the view its meta.json names, and give that model's numbers."""

from __future__ import annotations

import json

import numpy as np
import pytest
from other_model import other_model

from browser import build_site, serve_dir
from conftest import view_result, wait_live
from export.heads import ort_run
from export.parity import session_for
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
