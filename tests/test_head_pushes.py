"""meta.json's `direct_contribution` (export/mean_contribution.py): each head's mean direct
contribution to the model's own top-1 prediction on the held-out windows equals what
attention_live's Run.attribution gives, position by position, on the same windows; the means add
up to the mean top-1 logit; and the model card shows them beside the copying scores."""

from __future__ import annotations

import json

import numpy as np
import pytest
from html_tree import parse, squash

from attention_live import Model
from export.heads import heldout_windows
from export.mean_contribution import mean_direct_contributions
from helpers import MODEL_DIR, ROOT, synthetic_text

CORPUS = ROOT.parent / "shared" / "corpus" / "alice.txt"
# meta.json rounds to 4 decimals; float32 sums over thousands of positions differ further down.
TOLERANCE = 2e-4


def independent_means(model: Model, windows: np.ndarray) -> dict:
    """The same means through the package's public API: one run per window, Run.attribution at
    every position, the top-1 token taken from the run's own logits."""
    heads, logit, count = 0.0, 0.0, 0
    for window in windows:
        run = model.run_ids(window.tolist())
        for position in range(len(window)):
            a = run.attribution(position)
            assert a.tokens[0].id == int(np.argmax(run.logits[position]))  # the model's own top-1
            heads = heads + a.heads[:, :, 0].astype(np.float64)
            logit += float(a.logits[0])
            count += 1
    return {"heads": heads / count, "logit": logit / count, "positions": count}


@pytest.fixture(scope="module")
def shipped():
    return Model(MODEL_DIR), json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def heldout(shipped):
    """The held-out windows the shipped model's head scores use, and the means on them (needs
    the training text: the project's books are never committed)."""
    if not CORPUS.is_file():
        pytest.skip(f"{CORPUS} is not here: the shipped model's held-out text cannot be read")
    from train.data import read_corpus

    model, meta = shipped
    ids = model.tokenizer.encode(read_corpus(CORPUS).heldout_text).ids
    windows = heldout_windows(ids, meta["config"]["n_ctx"])
    return windows, independent_means(model, windows)


def test_export_means_equal_the_package_on_the_same_windows(shipped):
    from attention_live.feeds import session_for

    model, meta = shipped
    ids = model.tokenizer.encode(synthetic_text(120)).ids
    windows = heldout_windows(ids, meta["config"]["n_ctx"])[:3]
    got = mean_direct_contributions(session_for((MODEL_DIR / "model.onnx").read_bytes()), windows)
    want = independent_means(model, windows)
    assert got["positions"] == want["positions"] == windows.size
    np.testing.assert_allclose(got["heads"], want["heads"], atol=TOLERANCE)
    assert got["logit"] == pytest.approx(want["logit"], abs=TOLERANCE)


def test_shipped_meta_records_the_means_on_its_heldout_windows(shipped, heldout):
    _, meta = shipped
    _, want = heldout
    d = meta["direct_contribution"]
    assert d["positions"] == want["positions"]
    np.testing.assert_allclose(d["heads"], want["heads"], atol=TOLERANCE)
    assert d["logit"] == pytest.approx(want["logit"], abs=TOLERANCE)
    # The sum rule, on the means: every part's mean adds up to the mean top-1 logit.
    parts = np.sum(d["heads"]) + d["embed"] + np.sum(d["attn_bias"]) + np.sum(d["mlp"]) + d["ln_bias"]
    assert parts == pytest.approx(d["logit"], abs=20 * TOLERANCE)
    assert len({round(v, 2) for v in np.ravel(d["heads"])}) > 1  # heads differ: not a constant written in


def test_model_card_shows_each_heads_push_and_copying_score(built_site, shipped, heldout):
    _, meta = shipped
    _, want = heldout
    doc = parse((built_site / "model.html").read_text(encoding="utf-8"))
    rows = doc.find_all("tr", data_push=True)
    n_layer, n_head = meta["config"]["n_layer"], meta["config"]["n_head"]
    assert [r.attrs["data-push"] for r in rows] == [f"{l}-{h}" for l in range(1, n_layer + 1) for h in range(1, n_head + 1)]
    copying = {(h["layer"], h["head"]): h["scores"]["copying"] for h in meta["heads"]}
    for row in rows:
        layer, head = map(int, row.attrs["data-push"].split("-"))
        shown = squash(row.find(data_figure="push").text()).replace("\u2212", "-")
        assert float(shown) == pytest.approx(want["heads"][layer - 1, head - 1], abs=0.005 + TOLERANCE)
        assert squash(row.find(data_figure="copying").text()).replace("\u2212", "-") == f"{copying[(layer, head)]:.3f}"
    summary = squash(doc.find(data_pushes_summary=True).text())
    assert f"top-1 logit is {want['logit']:.2f}" in summary
    strongest = np.unravel_index(np.argmax(want["heads"]), want["heads"].shape)
    assert f"Layer {strongest[0] + 1} head {strongest[1] + 1} pushes the model's own prediction hardest" in summary
    assert squash(doc.find(data_pushes_definition=True).text()).startswith("Definition: at every position")
