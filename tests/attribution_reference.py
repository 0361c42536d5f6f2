"""Direct logit attribution, per-key contributions and the logit lens computed in numpy (float64)
straight from a checkpoint's weights, by the definitions in docs/model-files.md ("Attribution
outputs"): the model's forward pass written out again here, so that nothing of the graph or of
train/model.py is trusted by the tests that compare against it."""

from __future__ import annotations

import math

import numpy as np

_erf = np.vectorize(math.erf)


def weights_of(state_dict) -> dict[str, np.ndarray]:
    """A PyTorch state dict (the checkpoint's, or a snapshot's expanded one) as float64 arrays."""
    return {name: value.detach().cpu().double().numpy() for name, value in state_dict.items()}


def _layer_norm(x, gamma, beta, eps=1e-5):
    centred = x - x.mean(axis=-1, keepdims=True)
    return gamma * centred / np.sqrt((centred ** 2).mean(axis=-1, keepdims=True) + eps) + beta


def forward(w: dict, cfg: dict, ids, head_mask=None) -> dict:
    """Every component of the residual stream at every position: "embed" [T, C]; per layer
    "heads" [T, H, C], "attn_bias" [C], "mlp" [T, C] (zeros without an MLP), "values" [T, H, C]
    (each key's value through its head's output projection, switched-off heads zeroed), "pattern"
    [H, T, T] and "residual" [T, C] (after the layer); "final" [T, C]."""
    L, H, C = cfg["n_layer"], cfg["n_head"], cfg["d_model"]
    Dh = C // H
    ids = np.asarray(ids)
    T = len(ids)
    mask = np.ones((L, H)) if head_mask is None else np.asarray(head_mask, dtype=np.float64)
    x = w["tok_emb.weight"][ids]
    if "pos_emb.weight" in w:
        x = x + w["pos_emb.weight"][:T]
    out = {"embed": x.copy(), "layers": []}
    for layer in range(L):
        p = f"blocks.{layer}."
        h = _layer_norm(x, w[p + "ln_attn.weight"], w[p + "ln_attn.bias"])
        q, k, v = np.split(h @ w[p + "attn.qkv.weight"].T + w[p + "attn.qkv.bias"], 3, axis=-1)
        q, k, v = (a.reshape(T, H, Dh) for a in (q, k, v))
        scores = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(Dh)
        if p + "attn.alibi_slopes" in w:
            distance = np.arange(T)[:, None] - np.arange(T)[None, :]
            scores = scores - w[p + "attn.alibi_slopes"][:, None, None] * distance
        scores = np.where(np.tril(np.ones((T, T), bool)), scores, -np.inf)
        pattern = np.exp(scores - scores.max(axis=-1, keepdims=True))
        pattern /= pattern.sum(axis=-1, keepdims=True)
        W_O = w[p + "attn.proj.weight"].reshape(C, H, Dh)
        values = np.einsum("khd,chd->khc", v, W_O) * mask[layer][None, :, None]  # [T, H, C]
        heads = np.einsum("hqk,khc->qhc", pattern, values)
        x = x + heads.sum(axis=1) + w[p + "attn.proj.bias"]
        mlp = np.zeros_like(x)
        if p + "mlp.fc.weight" in w:
            hidden = _layer_norm(x, w[p + "ln_mlp.weight"], w[p + "ln_mlp.bias"]) @ w[p + "mlp.fc.weight"].T + w[p + "mlp.fc.bias"]
            hidden = 0.5 * hidden * (1 + _erf(hidden / math.sqrt(2)))  # exact GELU, as torch's default
            mlp = hidden @ w[p + "mlp.proj.weight"].T + w[p + "mlp.proj.bias"]
            x = x + mlp
        out["layers"].append({"heads": heads, "attn_bias": w[p + "attn.proj.bias"], "mlp": mlp, "values": values,
                              "pattern": pattern, "residual": x.copy()})
    out["final"] = x
    return out


def logits(w: dict, run: dict) -> np.ndarray:
    """[T, V]: the final LayerNorm and the tied output layer."""
    return _layer_norm(run["final"], w["ln_final.weight"], w["ln_final.bias"]) @ w["tok_emb.weight"].T


def attribution(w: dict, run: dict, t: int, targets) -> dict:
    """Direct contributions at position t to the logits of `targets` (J ids): "logits" [J], "embed"
    [J], "heads" [L, H, J], "attn_bias" [L, J], "mlp" [L, J], "ln_bias" [J], "keys" [L, H, t+1, J],
    and "lens" [L, V] (the logit lens after each layer)."""
    gamma, beta, E = w["ln_final.weight"], w["ln_final.bias"], w["tok_emb.weight"]
    x = run["final"][t]
    sigma = math.sqrt(((x - x.mean()) ** 2).mean() + 1e-5)
    rows = E[np.asarray(targets)]  # [J, C]

    def direct(c):  # (γ ⊙ (c − mean c) / σ) · E[v], for c [..., C]
        return (gamma * (c - c.mean(axis=-1, keepdims=True)) / sigma) @ rows.T

    layers = run["layers"]
    return {
        "logits": (_layer_norm(x, gamma, beta) @ rows.T),
        "embed": direct(run["embed"][t]),
        "heads": np.stack([direct(layer["heads"][t]) for layer in layers]),
        "attn_bias": np.stack([direct(layer["attn_bias"]) for layer in layers]),
        "mlp": np.stack([direct(layer["mlp"][t]) for layer in layers]),
        "ln_bias": beta @ rows.T,
        # A[t, s] · (γ ⊙ (u_s − mean u_s) / σ) · E[v], u_s [s, h, C]
        "keys": np.stack([layer["pattern"][:, t, : t + 1, None] * direct(layer["values"][: t + 1]).transpose(1, 0, 2)
                          for layer in layers]),
        "lens": np.stack([_layer_norm(layer["residual"][t], gamma, beta) @ E.T for layer in layers]),
    }
