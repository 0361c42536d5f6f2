"""The held-out figure every part reports: the trainer's evaluations and early stopping, its
snapshots, `python -m train.evaluate`, export's measurements."""

from __future__ import annotations

import torch
import torch.nn.functional as F

from train.model import TinyTransformer


def heldout_nats(model: TinyTransformer, context: list[int], heldout: list[int], stride: int) -> float:
    """Total nats for the held-out tokens, each predicted with at least n_ctx - stride tokens of
    context (sliding windows); the first ones are conditioned on the end of the training text."""
    n_ctx = model.cfg.n_ctx
    ids = torch.tensor(context[-(n_ctx - 1):] + heldout)
    first = len(ids) - len(heldout)
    by_length: dict[int, list[tuple[int, int]]] = {}  # window length -> [(lo, first scored index)]
    for end in range(first + stride, len(ids) + stride, stride):
        end = min(end, len(ids))  # targets ids[end - stride : end]
        lo = max(0, end - 1 - n_ctx)
        by_length.setdefault(end - 1 - lo, []).append((lo, max(first, end - stride) - (lo + 1)))
    total = 0.0
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for length, windows in by_length.items():  # equal lengths batch into one forward pass
            x = torch.stack([ids[lo : lo + length] for lo, _ in windows])  # [W, length]
            y = torch.stack([ids[lo + 1 : lo + 1 + length] for lo, _ in windows])  # [W, length]
            logits, _ = model(x)
            nll = F.cross_entropy(logits.transpose(1, 2), y, reduction="none")  # [W, length]
            total += sum(nll[i, scored:].sum().item() for i, (_, scored) in enumerate(windows))
    model.train(was_training)
    return total
