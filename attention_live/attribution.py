"""A run's direct logit attribution and logit lens, read from the graph's attribution outputs
(docs/model-files.md "Attribution outputs" has their definitions): which part of the model pushed
each of the top tokens (and the text's next token) up or down at a position, through which keys,
and what the model would predict after each layer. Nothing is recomputed here: every number is
the graph's, picked out for one position."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_live import sampler
from attention_live.errors import ModelError
from attention_live.feeds import ATTRIBUTION_OUTPUTS


@dataclass(frozen=True)
class Target:
    id: int
    text: str  # the vocabulary entry as one chip shows it


@dataclass(frozen=True)
class Attribution:
    """Direct contributions to the logits of `tokens` at `position` (0-based), k = len(tokens):
    the top 5 next tokens, then the text's next token when there is one and it is not among them.
    Arrays are float32 as the graph gives them, layer and head axes 0-based; `embed`, `heads`,
    `attn_bias`, `mlp` and `ln_bias` sum to `logits` (the sum rule), and `keys` summed over its
    key axis gives `heads`."""

    position: int
    tokens: list[Target]
    logits: np.ndarray  # [k]
    heads: np.ndarray  # [layer, head, k]
    embed: np.ndarray  # [k]: the token row (plus the position row for a learned-position model)
    attn_bias: np.ndarray  # [layer, k]
    mlp: np.ndarray  # [layer, k]; 0 in an attention-only layer
    ln_bias: np.ndarray  # [k]: the final LayerNorm's β · E[v]
    keys: np.ndarray  # [layer, head, key, k] over keys 0..position: each head's contribution split by key

    def __getitem__(self, name: str):
        """attribution["heads"] as well as attribution.heads: the fields read as a dict too."""
        if name not in self.__dataclass_fields__:
            raise KeyError(name)
        return getattr(self, name)


def missing(outputs: dict) -> bool:
    return any(name not in outputs for name in ATTRIBUTION_OUTPUTS)


def _need(outputs: dict) -> None:
    if missing(outputs):
        raise ModelError("this model's graph has no attribution outputs (it was exported before they existed): "
                         "re-export it with the current exporter")


def attribution_at(outputs: dict, logits: np.ndarray, position: int, T: int, piece_text) -> Attribution:
    """`outputs`: the graph's attribution outputs at every position; `logits` [T, V]."""
    _need(outputs)
    ids = outputs["attribution_ids"][position]
    K = len(ids) - 1
    columns = list(range(K))
    if position < T - 1 and ids[K] not in ids[:K]:  # the last position has no next token
        columns.append(K)
    picked = [int(ids[c]) for c in columns]
    keys = outputs["attribution_keys"][position][:, :, : position + 1]  # later keys are 0: the model is causal
    return Attribution(
        position=position,
        tokens=[Target(i, piece_text(i)) for i in picked],
        logits=logits[position, picked],
        heads=outputs["attribution_heads"][position][..., columns],
        embed=outputs["attribution_embed"][position][columns],
        attn_bias=outputs["attribution_attn_bias"][position][..., columns],
        mlp=outputs["attribution_mlp"][position][..., columns],
        ln_bias=outputs["attribution_ln_bias"][position][columns],
        keys=keys[..., columns],
    )


def lens_at(outputs: dict, position: int, k: int, piece_text) -> list[list]:
    """[layer] -> the k most likely next tokens after that layer, as Run.top gives them."""
    from attention_live.model import Prediction  # model.py imports this module

    _need(outputs)
    return [[Prediction(i, piece_text(i), sampler.plain_p(row, i)) for i in sampler.candidates(row, k)]
            for row in np.asarray(outputs["lens_logits"][position])]
