"""Snapshots: the weights at fixed steps of a run, for the timeline a reader can scrub.

A snapshot is stored rounded to float16 and *is* that rounded model: its held-out figure is
measured on the rounded weights, and export checks its graph against PyTorch running exactly
those weights. Rounding halves the timeline's download and moves no head visibly (a weight
changes by at most 2^-11 of itself)."""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch

from train.model import TinyTransformer


def rounded_state(model: TinyTransformer) -> dict[str, torch.Tensor]:
    """The model's floating-point weights rounded to float16 (other buffers as they are)."""
    return {k: v.detach().to(torch.float16) if v.is_floating_point() else v.detach().clone()
            for k, v in model.state_dict().items()}


def expanded(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """A snapshot's weights back in float32, ready for `load_state_dict`."""
    return {k: v.to(torch.float32) if v.is_floating_point() else v for k, v in state.items()}


def take(model: TinyTransformer, step: int, measure: Callable[[TinyTransformer], float]) -> dict:
    """{"step", "heldout_bpc", "model"} for the model as it is now. `measure` runs on a copy
    holding the rounded weights: no random number is drawn and the training model is untouched,
    so a run with snapshots reaches the same weights as one without."""
    state = rounded_state(model)
    probe = copy.deepcopy(model)  # a deepcopy draws no random numbers (a fresh model would)
    probe.load_state_dict(expanded(state))
    return {"step": step, "heldout_bpc": round(measure(probe), 5), "model": state}


def snapshot_model(template: TinyTransformer, snapshot: dict) -> TinyTransformer:
    """A model with a snapshot's (rounded) weights, in eval mode."""
    model = copy.deepcopy(template)
    model.load_state_dict(expanded(snapshot["model"]))
    return model.eval()
