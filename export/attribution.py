"""What every part of the model writes toward a prediction, computed in the browser graph at the
logit positions only: direct logit attribution (per component and, for each head, per key) and
the logit lens (docs/model-files.md, "Attribution outputs", has the definitions and shapes).

The parts are read off the model's own forward pass with forward hooks (the embedding sum, each
attention layer's values and per-head outputs, each MLP's output, each layer's residual, the final
LayerNorm's input), so the graph runs the model once and nothing here re-implements it: the
tests' sum rule (the parts plus the LayerNorm bias term give the logit) and a numpy computation
from the weights check that the hooks read what the definitions say."""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F

from attention_live.feeds import attribution_width
from train.model import TinyTransformer


@contextlib.contextmanager
def captured(model: TinyTransformer):
    """Yields a dict the hooks fill during one forward pass: "embed" [B, T, C], and per layer
    "values" [B, T, C], "heads" (the projection's input: per-head outputs, switched-off heads
    zeroed) [B, T, C], "mlp" [B, T, C] (absent in an attention-only layer), "residual" [B, T, C];
    "final" [B, P, C], what the final LayerNorm reads."""
    seen: dict = {"layers": [{} for _ in model.blocks]}
    hooks = [model.drop.register_forward_pre_hook(lambda _m, args: seen.__setitem__("embed", args[0])),
             model.ln_final.register_forward_pre_hook(lambda _m, args: seen.__setitem__("final", args[0]))]
    for block, layer in zip(model.blocks, seen["layers"]):
        C = block.attn.qkv.in_features
        hooks += [
            block.attn.qkv.register_forward_hook(lambda _m, _a, out, d=layer, C=C: d.__setitem__("values", out[..., 2 * C:])),
            block.attn.proj.register_forward_pre_hook(lambda _m, args, d=layer: d.__setitem__("heads", args[0])),
            block.register_forward_hook(lambda _m, _a, out, d=layer: d.__setitem__("residual", out[0])),
        ]
        if block.mlp is not None:
            hooks.append(block.mlp.register_forward_hook(lambda _m, _a, out, d=layer: d.__setitem__("mlp", out)))
    try:
        yield seen
    finally:
        for hook in hooks:
            hook.remove()


def attribution_outputs(model: TinyTransformer, seen: dict, input_ids: torch.Tensor, head_mask: torch.Tensor,
                        logit_positions: torch.Tensor, logits: torch.Tensor, pattern: torch.Tensor,
                        targets: torch.Tensor | None = None) -> tuple[torch.Tensor, ...]:
    """The eight outputs of feeds.ATTRIBUTION_OUTPUTS, in that order, from one forward pass's
    `seen` (captured), its logits [1, P, V] and attention pattern [L, H, T, T]. `targets` [P, J]
    replaces the chosen ones: the parity check gives the graph's, since two logits a rounding
    apart may come out of TopK in either order."""
    cfg = model.cfg
    H, Dh = cfg.n_head, cfg.d_head
    ln = model.ln_final
    E = model.tok_emb.weight  # [V, C], tied: the output layer's rows
    x = seen["final"][0]  # [P, C]
    sigma = torch.sqrt(x.var(dim=-1, unbiased=False, keepdim=True) + ln.eps)  # [P, 1], this run's

    # Targets: the top k of each position's logits (ties to the lower id, as ONNX's TopK and the
    # page's sampler.candidates order them), then the text's next token: input_ids[t + 1], and at
    # the last position (which has none) input_ids[t] again, to be ignored.
    top = torch.topk(logits[0], attribution_width(cfg.vocab_size) - 1, dim=-1).indices  # [P, K]
    ids = input_ids[0]
    following = torch.cat([ids[1:], ids[-1:]])  # [T]: following[t] = ids[t + 1]
    if targets is None:
        targets = torch.cat([top, following[logit_positions].unsqueeze(-1)], dim=-1)  # [P, K + 1]

    # (γ ⊙ (c − mean c) / σ) · E[v] = c · (w − mean w) / σ with w = γ ⊙ E[v]: one reader per target.
    w = ln.weight * E[targets]  # [P, K + 1, C]
    readers = (w - w.mean(dim=-1, keepdim=True)) / sigma.unsqueeze(-1)  # [P, K + 1, C]

    def direct(part: torch.Tensor) -> torch.Tensor:  # [P, C] -> [P, K + 1]
        return torch.einsum("pc,pjc->pj", part, readers)

    embed = direct(seen["embed"][0, logit_positions])
    heads, attn_bias, mlp, keys, lens = [], [], [], [], []
    for layer, (block, got) in enumerate(zip(model.blocks, seen["layers"])):
        W_O = block.attn.proj.weight.view(-1, H, Dh)  # [C, H, Dh]: head h's columns of the output projection
        through = torch.einsum("pjc,chd->pjhd", readers, W_O)  # each reader pulled back through each head's W_O
        per_head = got["heads"][0, logit_positions].view(-1, H, Dh)  # [P, H, Dh], off heads already zero
        heads.append(torch.einsum("phd,pjhd->phj", per_head, through))
        attn_bias.append(torch.einsum("c,pjc->pj", block.attn.proj.bias, readers))
        mlp.append(direct(got["mlp"][0, logit_positions]) if "mlp" in got else torch.zeros_like(embed))
        values = got["values"][0].view(-1, H, Dh) * head_mask[layer].view(1, H, 1)  # [T, H, Dh]
        weights = pattern[layer][:, logit_positions].transpose(0, 1)  # [H, P, T] -> [P, H, T]
        keys.append(weights.unsqueeze(-1) * torch.einsum("shd,pjhd->phsj", values, through))  # [P, H, T, K + 1]
        if layer < cfg.n_layer - 1:  # after the last layer the lens is the model's own logits
            lens.append(F.layer_norm(got["residual"][0, logit_positions], (cfg.d_model,), ln.weight, ln.bias, ln.eps) @ E.T)
    lens.append(logits[0])
    ln_bias = torch.einsum("c,pjc->pj", ln.bias, E[targets])
    return (targets, embed, torch.stack(heads, dim=1), torch.stack(attn_bias, dim=1), torch.stack(mlp, dim=1),
            ln_bias, torch.stack(keys, dim=1), torch.stack(lens, dim=1))
