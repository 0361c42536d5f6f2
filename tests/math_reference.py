"""The math panel's parts computed in Python from the shipped checkpoint's weights: each key's
q·k/√d_head from the layer's own query and key projections, and the ALiBi distance bias from the
slopes the model really uses (its `alibi_slopes` buffer, not meta.json's copy)."""

from __future__ import annotations

import math

import numpy as np
import torch

from helpers import ROOT
from train.checkpoint import load_checkpoint, model_from_checkpoint

CKPT = ROOT / "checkpoints" / "alice.pt"


def load_model():
    return model_from_checkpoint(load_checkpoint(CKPT), CKPT).eval()


def score_parts(model, ids: list[int], layer: int, head: int, query: int) -> dict[str, np.ndarray]:
    """{"qk_scaled", "bias", "score"} for keys 0..query of one head (layer, head 1-based)."""
    block = model.blocks[layer - 1]
    seen = {}
    hook = block.attn.register_forward_pre_hook(lambda _m, args: seen.setdefault("x", args[0]))
    try:
        with torch.no_grad():
            model(torch.tensor([ids]))
    finally:
        hook.remove()
    attn, d_head = block.attn, model.cfg.d_head
    C = model.cfg.d_model
    with torch.no_grad():
        q, k, _ = attn.qkv(seen["x"]).split(C, dim=2)
    cols = slice((head - 1) * d_head, head * d_head)
    qk = (k[0, : query + 1, cols] @ q[0, query, cols]).double().numpy() / math.sqrt(d_head)
    if model.cfg.positions == "alibi":
        bias = -float(attn.alibi_slopes[head - 1]) * (query - np.arange(query + 1))
    else:
        bias = np.zeros(query + 1)
    return {"qk_scaled": qk, "bias": bias, "score": qk + bias}
