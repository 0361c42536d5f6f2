"""meta.json's `direct_contribution`: each head's mean direct contribution to the model's own
top-1 prediction on the held-out windows the heads' scores are measured on (export/heads.py), with
the other parts of the sum (embedding, attention biases, MLPs, the final LayerNorm's bias) and
the mean top-1 logit they add up to. A head's pattern says where it looks; this says whether, on
ordinary text, what it writes helps the model say what it says or works against it.

Read from the browser graph's own attribution outputs (docs/model-files.md "Attribution
outputs"): their first target at each position is the top-1 token (TopK's order), so nothing
here re-implements the model."""

from __future__ import annotations

import numpy as np

from attention_live.feeds import graph_feeds

DIGITS = 4
PARTS = ("attribution_heads", "attribution_embed", "attribution_attn_bias", "attribution_mlp", "attribution_ln_bias")

DEFINITION = ("at every position of the held-out windows, each part's direct contribution to the logit of the "
              "model's own top-1 next token (the final LayerNorm's scale and this run's σ applied to the part, "
              "dotted with the token's row of the tied embedding), averaged; with the LayerNorm bias term the "
              "parts' means add up to the mean top-1 logit")


def mean_direct_contributions(session, windows: np.ndarray) -> dict:
    """`session`: onnxruntime over the full browser graph (with its attribution outputs);
    `windows` [W, T]: heads.heldout_windows. Means over all W x T positions, rounded."""
    names = ["logits", "attribution_ids", *PARTS]
    sums: dict[str, np.ndarray] = {}
    positions = 0
    for row in np.asarray(windows, dtype=np.int64):
        out = dict(zip(names, session.run(names, graph_feeds(session, row))))
        top1 = out["attribution_ids"][:, 0]  # [T]
        picked = {"logit": out["logits"][0, np.arange(len(top1)), top1]}
        picked.update({name.removeprefix("attribution_"): out[name][..., 0] for name in PARTS})
        for name, value in picked.items():
            sums[name] = sums.get(name, 0.0) + value.astype(np.float64).sum(axis=0)
        positions += len(top1)

    def mean(name: str):
        return np.round(sums[name] / positions, DIGITS).tolist()

    return {"definition": DEFINITION, "positions": positions, "logit": mean("logit"), "heads": mean("heads"),
            "embed": mean("embed"), "attn_bias": mean("attn_bias"), "mlp": mean("mlp"), "ln_bias": mean("ln_bias")}
