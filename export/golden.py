"""golden.json: the ONNX model's exact outputs for the default sentence (first paint + tests)."""

from __future__ import annotations

import numpy as np

from attention_live.feeds import OUTPUTS, graph_feeds

TOP_K = 5


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits.astype(np.float64) - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def _nested(array: np.ndarray) -> list:
    """float32 -> shortest decimal that round-trips to the same float32; -inf -> null (JSON has no inf)."""
    if array.ndim == 0:
        value = float(array)
        return None if np.isneginf(value) else float(np.format_float_positional(np.float32(value), unique=True, trim="-"))
    return [_nested(a) for a in array]


def golden_outputs(session, tokenizer, text: str) -> dict:
    """`session`: an onnxruntime session of model.onnx (attention_live/feeds.py `session_for`)."""
    ids = tokenizer.encode(text).ids
    got = dict(zip(OUTPUTS, session.run(None, graph_feeds(session, ids))))  # every head, every position
    probs = softmax(got["logits"][0])  # [T, V]
    top = []
    for row in probs:
        best = np.argsort(-row, kind="stable")[:TOP_K]
        top.append([{"id": int(i), "p": round(float(row[i]), 6)} for i in best])
    return {
        "text": text,
        "ids": ids,
        "pieces": [tokenizer.id_to_token(i) for i in ids],
        "attention": _nested(got["attention"]),
        "scores": _nested(got["scores"]),
        "top": top,
    }
