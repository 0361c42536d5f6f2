"""The suite's one reference model: a model's files through Python `tokenizers` and
onnxruntime, fed the way the browser graph is fed (attention_live.feeds.graph_feeds). Whatever a page
shows is checked against this; nothing in it is hard-coded."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from helpers import MODEL_DIR


class Reference:
    """model: a folder with model.onnx and tokenizer.json (default static/model/), or the bytes
    of an ONNX graph with `tokenizer` the tokenizer.json to read its texts with."""

    def __init__(self, model: Path | bytes = MODEL_DIR, tokenizer: Path | None = None):
        import onnxruntime
        from tokenizers import Tokenizer

        if isinstance(model, Path):
            tokenizer = tokenizer or model / "tokenizer.json"
            model = str(model / "model.onnx")
        self.tokenizer = Tokenizer.from_file(str(tokenizer))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(model, options)

    def ids(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids if text else []

    def run(self, ids: list[int], head_mask=None) -> dict:
        """{"logits" [T, V], "attention"/"scores" [layer, head, T, T], "probs" [T, V] (float64)}.

        head_mask [layer, head] (1 = on, 0 = off); None = every head on. Logits at every position."""
        from export.to_onnx import graph_feeds

        logits, attention, scores = self.session.run(
            ["logits", "attention", "scores"], graph_feeds(self.session, ids, head_mask))
        z = logits[0].astype(np.float64)
        p = np.exp(z - z.max(axis=-1, keepdims=True))
        return {"logits": logits[0], "attention": attention, "scores": scores, "probs": p / p.sum(-1, keepdims=True)}

    def attention(self, ids: list[int]) -> np.ndarray:
        return self.run(ids)["attention"]

    def scores(self, ids: list[int]) -> np.ndarray:
        return self.run(ids)["scores"]


def assert_top5(top: list[dict], probs) -> None:
    """`top` (a page's top 5: [{id, p}, …], most likely first) names the five most probable
    tokens of `probs` (one position's reference probabilities), each with its probability.
    Ties closer than float noise between two runtimes may swap places."""
    order = np.sort(probs)[::-1]
    assert len(top) == 5 and len({t["id"] for t in top}) == 5, top
    for item in top:
        assert abs(item["p"] - probs[item["id"]]) <= 1e-5, item
    assert [t["p"] for t in top] == sorted((t["p"] for t in top), reverse=True), top
    assert min(item["p"] for item in top) >= order[4] - 1e-5, (top, order[:6])
    assert min(probs[item["id"]] for item in top) >= order[5] - 1e-6, (top, order[:6])
