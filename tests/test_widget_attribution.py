"""The page's `result.attribution` and `result.lens` (features/attribution/, readouts/attribution.js)
in real Chromium: on sentences written here, with heads switched off and at a training step, they
are onnxruntime-python's through attention_live (Run.attribution, Run.lens; a snapshot's graph
through attention_live.attribution) and numpy's from the checkpoint's weights; the viewed head's
split by key sums to its contribution, and the components sum to the logit."""

from __future__ import annotations

import json

import numpy as np
import pytest
from attribution_reference import attribution as numpy_attribution
from attribution_reference import forward, weights_of

from attention_live import Model
from attention_live.attribution import attribution_at, lens_at
from attention_live.feeds import GRAPH_OUTPUTS, graph_feeds, session_for
from conftest import set_attributes
from helpers import MODEL_DIR, ROOT

pytestmark = pytest.mark.browser

# float32 in both, the same graph: only the runtime's arithmetic differs (wasm against native).
CLOSE = {"rtol": 1e-4, "atol": 2e-4}
# float32 against float64 numpy: terms of ~10 summed over 80 channels.
NUMPY = {"rtol": 1e-4, "atol": 5e-4}
SENTENCES = [
    "The old gardener watered the roses while the Duchess sang to the baby",
    "Mock Turtle sighed, and the Gryphon told the Hatter to hurry up",
]
FIELDS = {"logits": "logits", "embed": "embed", "attnBias": "attn_bias", "mlp": "mlp", "lnBias": "ln_bias", "heads": "heads"}


@pytest.fixture(scope="module")
def model():
    return Model(MODEL_DIR)


@pytest.fixture(scope="module")
def weights():
    from train.checkpoint import load_checkpoint

    return load_checkpoint(ROOT / "checkpoints" / "alice.pt")


def summed(a: dict) -> np.ndarray:
    return (np.asarray(a["embed"]) + np.asarray(a["heads"]).sum(axis=(0, 1)) + np.asarray(a["attnBias"]).sum(axis=0)
            + np.asarray(a["mlp"]).sum(axis=0) + np.asarray(a["lnBias"]))


def check(result: dict, want, lens, layer: int, head: int) -> None:
    """The page's attribution and lens at its pinned token against attention_live's `want`
    (an Attribution) and `lens` ([layer] -> Predictions) at the same position."""
    got = result["attribution"]
    t = result["token"]
    assert got["position"] == want.position == t
    ids = [tok["id"] for tok in got["tokens"]]
    assert ids == [tok.id for tok in want.tokens]
    # The top 5 as result.top has them, then the text's next token when it is not among them.
    top = [p["id"] for p in result["top"]]
    nxt = result.get("nextToken")
    assert ids == top + ([nxt["id"]] if nxt and nxt["id"] not in top else [])
    assert [tok["text"] for tok in got["tokens"]][:5] == [p["text"] for p in result["top"]]
    for js, py in FIELDS.items():
        np.testing.assert_allclose(got[js], getattr(want, py), **CLOSE, err_msg=js)
    keys = np.asarray(got["keys"])
    assert keys.shape == (t + 1, len(ids))
    np.testing.assert_allclose(keys, want.keys[layer - 1, head - 1], **CLOSE, err_msg="keys")
    # The split by key sums to the head's contribution; the parts sum to the logit.
    np.testing.assert_allclose(keys.sum(axis=0), np.asarray(got["heads"])[layer - 1][head - 1], rtol=0, atol=1e-4)
    np.testing.assert_allclose(summed(got), got["logits"], rtol=0, atol=1e-4)
    assert len(result["lens"]) == len(lens)
    for page_layer, py_layer in zip(result["lens"], lens):
        assert [p["id"] for p in page_layer] == [p.id for p in py_layer]
        np.testing.assert_allclose([p["p"] for p in page_layer], [p.p for p in py_layer], rtol=1e-4, atol=1e-5)
    # After the last layer: the prediction, its tokens named as result.top names them.
    assert [(p["id"], p["text"]) for p in result["lens"][-1]] == [(p["id"], p["text"]) for p in result["top"]]


def check_numpy(result: dict, w: dict, cfg: dict, ids: list[int], mask) -> None:
    """The page's numbers against numpy from the weights (tests/attribution_reference.py)."""
    got = result["attribution"]
    t = result["token"]
    want = numpy_attribution(w, forward(w, cfg, ids, mask), t, [tok["id"] for tok in got["tokens"]])
    for js, py in FIELDS.items():
        np.testing.assert_allclose(got[js], want[py], **NUMPY, err_msg=js)
    layer, head = result["layer"], result["head"]
    np.testing.assert_allclose(got["keys"], want["keys"][layer - 1, head - 1], **NUMPY, err_msg="keys")


def mask_of(cfg: dict, ablate: str | None):
    if not ablate:
        return None
    mask = np.ones((cfg["n_layer"], cfg["n_head"]), np.float32)
    for pair in ablate.split():
        layer, head = map(int, pair.split("."))
        mask[layer - 1, head - 1] = 0
    return mask


@pytest.mark.parametrize("text, token, layer, head, ablate", [
    (SENTENCES[0], 6, 2, 4, None),
    (SENTENCES[0], -1, 1, 2, None),  # the last token: no next token among the targets
    (SENTENCES[1], 9, 2, 4, "1.2"),
    (SENTENCES[1], 4, 1, 3, "1.1 2.2"),
])
def test_the_page_gives_what_python_gives(reused_live_page, model, weights, text, token, layer, head, ablate):
    result = set_attributes(reused_live_page, text=text, token=token, layer=layer, head=head, ablate=ablate)
    assert result["live"] and result["ablated"] == ([] if not ablate else [list(map(int, p.split("."))) for p in ablate.split()])
    mask = mask_of(model.config, ablate)
    run = model.run(text, head_mask=mask)
    assert [tok["id"] for tok in result["tokens"]] == run.ids
    t = result["token"]
    check(result, run.attribution(t), run.lens(t), layer, head)
    check_numpy(result, weights_of(weights["model"]), model.config, run.ids, mask)


def test_the_numbers_follow_the_viewed_head_the_pick_and_a_moved_pin(reused_live_page, model):
    page = reused_live_page
    run = model.run(SENTENCES[0])
    first = set_attributes(page, text=SENTENCES[0], token=3, layer=1, head=1)
    moved = set_attributes(page, layer=2, head=3)
    # Another head on view: the same attribution, split by another head's keys.
    assert moved["attribution"]["heads"] == first["attribution"]["heads"]
    check(moved, run.attribution(3), run.lens(3), 2, 3)
    # A token pinned after the text ran: its logits (and attribution) come from one more run.
    later = set_attributes(page, token=10)
    check(later, run.attribution(10), run.lens(10), 2, 3)


def test_at_a_training_step(reused_live_page, model, weights):
    """The timeline's snapshot graph, run by onnxruntime-python as attention_live reads it."""
    page = reused_live_page
    manifest = json.loads((MODEL_DIR / "timeline" / "timeline.json").read_text())
    point = next(p for p in manifest["points"] if p["file"] and p["step"] >= 500)
    session = session_for((MODEL_DIR / "timeline" / point["file"]).read_bytes())
    for ablate in (None, "1.2"):
        result = set_attributes(page, text=SENTENCES[1], token=7, layer=2, head=4, step=point["step"], ablate=ablate)
        assert result["step"] == point["step"]
        ids = [tok["id"] for tok in result["tokens"]]
        mask = mask_of(model.config, ablate)
        out = dict(zip(GRAPH_OUTPUTS, session.run(None, graph_feeds(session, ids, mask))))
        want = attribution_at(out, out["logits"][0], 7, len(ids), model.piece_text)
        check(result, want, lens_at(out, 7, 5, model.piece_text), 2, 4)
        from train.snapshots import expanded

        snapshot = next(s for s in weights["snapshots"] if s["step"] == point["step"])
        check_numpy(result, weights_of(expanded(snapshot["model"])), model.config, ids, mask)
    set_attributes(page, step=None, ablate=None)
