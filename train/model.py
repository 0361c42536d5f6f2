"""A two-layer causal transformer small enough to run in a browser tab.

Attention is written out by hand (scale, mask, softmax, weights @ values) instead of
calling a fused kernel, because the whole point of this model is to hand its attention
weights to a visualizer: `forward` returns them as data next to the logits.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

POSITION_SCHEMES = ("alibi", "learned")


def alibi_slopes(n_head: int) -> list[float]:
    """ALiBi's geometric slopes (Press et al. 2022): head h penalises distance by 2^(-8h/n).
    Steep heads can only look a few tokens back; shallow ones see the whole window."""
    return [2.0 ** (-8.0 * (h + 1) / n_head) for h in range(n_head)]


# The settings that list a layer's ALiBi slopes, one per head, by layer (0-based).
SLOPE_LISTS = ("layer1_slopes", "layer2_slopes")


def listed_slopes(name: str, text: str, n_head: int) -> list[float]:
    """Setting `name`'s slopes, `text` being one positive number per head separated by commas;
    a ValueError that names the setting otherwise."""
    said = f"{name}={text!r}"
    try:
        values = [float(s) for s in text.split(",")]
    except ValueError:
        raise ValueError(f"{said} must be numbers separated by commas") from None
    if len(values) != n_head or not all(math.isfinite(v) and v > 0 for v in values):
        raise ValueError(f"{said} must be {n_head} positive numbers, one per head")
    return values


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int = 2048  # byte-level BPE size; picked by held-out bits per character (README)
    n_ctx: int = 128  # longest input the browser may send (and the learned position table's size)
    n_layer: int = 2  # two layers: enough for attention to compose, few enough to read every head
    n_head: int = 4  # four heads per layer: a 2 x 4 grid fits a phone screen
    d_model: int = 80  # residual width; with the tied embedding this keeps fp32 weights near 1.2 MB
    d_ff: int = 256  # MLP hidden width (~3.2 x d_model): the rest of the parameter budget
    dropout: float = 0.1  # on embeddings and residual branches; 19x more text than Alice alone needs less
    attn_dropout: float = 0.0  # none on the weights we display, and it costs ~30% of a CPU step
    # "alibi": no position table; each head adds -slope * distance to its scores, which gave the
    # most decisive heads and the best held-out figure (README). "learned": a GPT-2 position table.
    positions: str = "alibi"
    # Layers (from the first) with attention only, no MLP: an induction-head experiment.
    attn_only_layers: int = 0
    # Layer 1's ALiBi slopes times this. Steeper slopes (4: 1, 1/4, 1/16, 1/64) keep layer-1
    # heads near their query, where the previous-token head an induction circuit needs lives;
    # they also gave the best held-out figure seen (docs/experiments.md).
    layer1_slope_scale: float = 1.0
    # Layer 1's ALiBi slopes, one per head, comma-separated ("": layer1_slope_scale times
    # ALiBi's own). A list, not the scale, to keep the circuit's steep heads (1 and 1/4 under the
    # scale 4) while the others are flatter: the speaker heads of the text-only runs were layer
    # 1's flatter heads, and at 1/16 L1H3 held at most 35% of the set beside a circuit
    # (docs/experiments.md). It says every layer-1 slope itself, so a scale other than 1 beside
    # it is refused; given as a flag beside a recipe, the recipe's scale gives way to it
    # (train/__main__.py), and the run records the list with the scale 1.
    layer1_slopes: str = ""
    # Layer 2's ALiBi slopes, one per head, comma-separated ("": ALiBi's own). A list, not a
    # scale like layer 1's: a scale keeps the slopes' ratios, so it cannot make two heads as flat
    # as the flattest, and the induction head forms only in layer 2's flattest head while the
    # speaker head took that head whenever it was free (docs/experiments.md): with two such heads
    # each story may have one, the other heads' slopes unchanged.
    layer2_slopes: str = ""

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_head

    def to_dict(self) -> dict:
        # The slope lists are recorded only when set, so that a model without them records
        # exactly what it did before they existed (the shipped checkpoint and meta.json).
        values = asdict(self)
        for name in SLOPE_LISTS:
            if not values[name]:
                del values[name]
        return values

    def layer_slopes(self, layer: int) -> list[float]:
        """The ALiBi slopes of `layer` (0-based), one per head."""
        if layer < len(SLOPE_LISTS) and getattr(self, SLOPE_LISTS[layer]):
            name = SLOPE_LISTS[layer]
            return listed_slopes(name, getattr(self, name), self.n_head)
        scale = self.layer1_slope_scale if layer == 0 else 1.0
        return [s * scale for s in alibi_slopes(self.n_head)]

    @classmethod
    def from_dict(cls, values: dict) -> ModelConfig:
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown model config fields: {sorted(unknown)}")
        # Checkpoints written before the field existed all used a learned position table.
        return cls(**{"positions": "learned", **values})

    def __post_init__(self):
        if self.d_model % self.n_head:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_head={self.n_head}")
        if self.positions not in POSITION_SCHEMES:
            raise ValueError(f"positions={self.positions!r} is not one of {POSITION_SCHEMES}")
        for name in ("vocab_size", "n_ctx", "n_layer", "n_head", "d_model", "d_ff"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} must be at least 1")
        if not 0 <= self.attn_only_layers <= self.n_layer:
            raise ValueError(f"attn_only_layers={self.attn_only_layers} must be between 0 and n_layer={self.n_layer}")
        if not (0.0 <= self.dropout < 1.0 and 0.0 <= self.attn_dropout < 1.0):
            raise ValueError("dropout and attn_dropout must be in [0, 1)")
        if not (math.isfinite(self.layer1_slope_scale) and self.layer1_slope_scale > 0):
            raise ValueError(f"layer1_slope_scale={self.layer1_slope_scale} must be a positive number")
        if self.layer1_slope_scale != 1.0 and self.positions != "alibi":
            raise ValueError("layer1_slope_scale needs positions='alibi'")
        for layer, name in enumerate(SLOPE_LISTS):
            if getattr(self, name):
                self._check_slope_list(layer, name)

    def _check_slope_list(self, layer: int, name: str):
        said = f"{name}={getattr(self, name)!r}"
        if self.positions != "alibi" or self.n_layer <= layer:
            raise ValueError(f"{said} needs positions='alibi' and at least {layer + 1} layer{'s' * (layer > 0)}")
        if layer == 0 and self.layer1_slope_scale != 1.0:
            raise ValueError(f"{said} lists every layer-1 slope itself: layer1_slope_scale must be 1, "
                             f"not {self.layer1_slope_scale}")
        listed_slopes(name, getattr(self, name), self.n_head)


class MLP(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.fc = nn.Linear(cfg.d_model, cfg.d_ff)
        self.proj = nn.Linear(cfg.d_ff, cfg.d_model)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.proj(F.gelu(self.fc(x))))


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: ModelConfig, slopes: list[float]):
        super().__init__()
        self.n_head, self.d_head = cfg.n_head, cfg.d_head
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.attn_drop = nn.Dropout(cfg.attn_dropout)
        self.resid_drop = nn.Dropout(cfg.dropout)
        # A buffer, not a parameter: it must not be trained, but must follow .to(device).
        mask = torch.tril(torch.ones(cfg.n_ctx, cfg.n_ctx, dtype=torch.bool))
        self.register_buffer("causal", mask.view(1, 1, cfg.n_ctx, cfg.n_ctx), persistent=False)
        self.alibi = cfg.positions == "alibi"
        if self.alibi:
            # Persistent: renumbering heads permutes the slopes with them, and export reads them.
            self.register_buffer("alibi_slopes", torch.tensor(slopes))

    def forward(self, x: torch.Tensor, head_mask: torch.Tensor | None = None):
        """head_mask [n_head]: 1 keeps a head, 0 zeroes its output before the projection."""
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)  # each [B, T, C]
        # [B, T, C] -> [B, T, H, Dh] -> [B, H, T, Dh]
        q = q.view(B, T, self.n_head, self.d_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, self.d_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, self.d_head).transpose(1, 2)

        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)  # [B, H, T, T]
        if self.alibi:
            # distance[q, k] = q - k (future keys are masked below). Computed, not stored: a
            # [n_ctx, n_ctx] table would add 64 KB of constants to the browser's download.
            pos = torch.arange(T, device=x.device, dtype=scores.dtype)
            distance = pos.view(-1, 1) - pos.view(1, -1)  # [T, T]
            # [H] -> [1, H, 1, 1] times [T, T]: part of `scores`, so the page shows the exact softmax input.
            scores = scores - self.alibi_slopes.view(1, -1, 1, 1) * distance
        # -inf marks "this key is in the future": softmax turns it into an exact 0.
        scores = scores.masked_fill(~self.causal[:, :, :T, :T], float("-inf"))
        pattern = F.softmax(scores, dim=-1)  # [B, H, T, T], rows sum to 1
        y = self.attn_drop(pattern) @ v  # [B, H, T, Dh]
        if head_mask is not None:
            y = y * head_mask.view(1, -1, 1, 1)  # [H] -> [1, H, 1, 1]
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # [B, H, T, Dh] -> [B, T, C]
        return self.resid_drop(self.proj(y)), scores, pattern


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig, layer: int):
        super().__init__()
        self.ln_attn = nn.LayerNorm(cfg.d_model)
        self.attn = CausalSelfAttention(cfg, cfg.layer_slopes(layer))
        with_mlp = layer >= cfg.attn_only_layers
        self.ln_mlp = nn.LayerNorm(cfg.d_model) if with_mlp else None
        self.mlp = MLP(cfg) if with_mlp else None

    def forward(self, x: torch.Tensor, head_mask: torch.Tensor | None = None):
        attended, scores, pattern = self.attn(self.ln_attn(x), head_mask)
        x = x + attended
        if self.mlp is not None:
            x = x + self.mlp(self.ln_mlp(x))
        return x, scores, pattern


class TinyTransformer(nn.Module):
    """forward(ids) -> (logits [B, T, V], {"scores", "pattern"} each [B, layer, head, T, T])."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_emb = nn.Embedding(cfg.n_ctx, cfg.d_model) if cfg.positions == "learned" else None
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(cfg, layer) for layer in range(cfg.n_layer))
        self.ln_final = nn.LayerNorm(cfg.d_model)
        self.apply(self._init_weights)
        # GPT-2's scaled init: each residual branch adds variance, so shrink their outputs.
        for name, p in self.named_parameters():
            if name.endswith("proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * cfg.n_layer))

    @staticmethod
    def _init_weights(module: nn.Module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def n_params(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, ids: torch.Tensor, head_mask: torch.Tensor | None = None,
                logit_positions: torch.Tensor | None = None):
        """head_mask [n_layer, n_head] (1 = on, 0 = that head's output zeroed), default all on.
        logit_positions [P] int64: the positions whose next-token logits to compute (logits are
        then [B, P, V], in that order), default all T. At T = 128 the tied output layer is about
        half the model's multiply-adds, and a view reads one or two positions' predictions."""
        B, T = ids.shape
        if T > self.cfg.n_ctx:
            raise ValueError(f"sequence of {T} tokens exceeds the context of {self.cfg.n_ctx}")
        x = self.tok_emb(ids)  # [B, T, C]
        if self.pos_emb is not None:
            x = x + self.pos_emb(torch.arange(T, device=ids.device))
        x = self.drop(x)
        all_scores, all_patterns = [], []
        for layer, block in enumerate(self.blocks):
            x, scores, pattern = block(x, None if head_mask is None else head_mask[layer])
            all_scores.append(scores)
            all_patterns.append(pattern)
        if logit_positions is not None:
            x = x[:, logit_positions]  # [B, T, C] -> [B, P, C]; ln_final is per position
        # Tied unembedding: the output layer reuses the token table, stored once.
        logits = self.ln_final(x) @ self.tok_emb.weight.T  # [B, T or P, V]
        attention = {
            "scores": torch.stack(all_scores, dim=1),  # [B, layer, head, T, T], -inf above diagonal
            "pattern": torch.stack(all_patterns, dim=1),  # [B, layer, head, T, T]
        }
        return logits, attention


@torch.no_grad()
def permute_heads(model: TinyTransformer, layer: int, order: list[int]) -> None:
    """Renumber the heads of `layer` (0-based) in place: new head i is old head order[i].

    Heads within a layer carry no order, so moving each head's q/k/v rows, its input columns of
    the output projection and its ALiBi slope together leaves the function exactly unchanged.
    """
    cfg = model.cfg
    if sorted(order) != list(range(cfg.n_head)):
        raise ValueError(f"head order {order} is not a permutation of 0..{cfg.n_head - 1}")
    attn = model.blocks[layer].attn
    C, Dh = cfg.d_model, cfg.d_head
    # channel index of (head h, offset j) is h * Dh + j, inside each of q, k and v
    heads = torch.tensor(order).view(-1, 1) * Dh + torch.arange(Dh).view(1, -1)  # [H, Dh]
    channels = heads.flatten()  # [C]
    qkv_rows = torch.cat([channels, channels + C, channels + 2 * C])  # [3C]
    attn.qkv.weight.copy_(attn.qkv.weight[qkv_rows])
    attn.qkv.bias.copy_(attn.qkv.bias[qkv_rows])
    attn.proj.weight.copy_(attn.proj.weight[:, channels])  # Linear weight is [out, in]
    if attn.alibi:
        attn.alibi_slopes.copy_(attn.alibi_slopes[torch.tensor(order)])
