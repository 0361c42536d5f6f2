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


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int = 2048  # byte-level BPE size; picked by held-out bits per character (README)
    n_ctx: int = 128  # longest input the browser may send; also the learned position table's size
    n_layer: int = 2  # two layers: enough for attention to compose, few enough to read every head
    n_head: int = 4  # four heads per layer: a 2 x 4 grid fits a phone screen
    d_model: int = 80  # residual width; with the tied embedding this keeps fp32 weights near 1.2 MB
    d_ff: int = 256  # MLP hidden width (~3.2 x d_model): the rest of the parameter budget
    dropout: float = 0.3  # on embeddings and residual branches: the book is small, overfitting is the enemy
    attn_dropout: float = 0.0  # none on the weights we display, and it costs ~30% of a CPU step

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_head

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> "ModelConfig":
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown model config fields: {sorted(unknown)}")
        return cls(**values)

    def __post_init__(self):
        if self.d_model % self.n_head:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_head={self.n_head}")


class MLP(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.fc = nn.Linear(cfg.d_model, cfg.d_ff)
        self.proj = nn.Linear(cfg.d_ff, cfg.d_model)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.drop(self.proj(F.gelu(self.fc(x))))


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.n_head, self.d_head = cfg.n_head, cfg.d_head
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.attn_drop = nn.Dropout(cfg.attn_dropout)
        self.resid_drop = nn.Dropout(cfg.dropout)
        # A buffer, not a parameter: it must not be trained, but must follow .to(device).
        mask = torch.tril(torch.ones(cfg.n_ctx, cfg.n_ctx, dtype=torch.bool))
        self.register_buffer("causal", mask.view(1, 1, cfg.n_ctx, cfg.n_ctx), persistent=False)

    def forward(self, x: torch.Tensor):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)  # each [B, T, C]
        # [B, T, C] -> [B, T, H, Dh] -> [B, H, T, Dh]
        q = q.view(B, T, self.n_head, self.d_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, self.d_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, self.d_head).transpose(1, 2)

        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)  # [B, H, T, T]
        # -inf marks "this key is in the future": softmax turns it into an exact 0.
        scores = scores.masked_fill(~self.causal[:, :, :T, :T], float("-inf"))
        pattern = F.softmax(scores, dim=-1)  # [B, H, T, T], rows sum to 1
        y = self.attn_drop(pattern) @ v  # [B, H, T, Dh]
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # [B, H, T, Dh] -> [B, T, C]
        return self.resid_drop(self.proj(y)), scores, pattern


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.ln_attn = nn.LayerNorm(cfg.d_model)
        self.attn = CausalSelfAttention(cfg)
        self.ln_mlp = nn.LayerNorm(cfg.d_model)
        self.mlp = MLP(cfg)

    def forward(self, x: torch.Tensor):
        attended, scores, pattern = self.attn(self.ln_attn(x))
        x = x + attended
        x = x + self.mlp(self.ln_mlp(x))
        return x, scores, pattern


class TinyTransformer(nn.Module):
    """forward(ids) -> (logits [B, T, V], {"scores", "pattern"} each [B, layer, head, T, T])."""

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_emb = nn.Embedding(cfg.n_ctx, cfg.d_model)
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
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

    def forward(self, ids: torch.Tensor):
        B, T = ids.shape
        if T > self.cfg.n_ctx:
            raise ValueError(f"sequence of {T} tokens exceeds the context of {self.cfg.n_ctx}")
        pos = torch.arange(T, device=ids.device)
        x = self.drop(self.tok_emb(ids) + self.pos_emb(pos))  # [B, T, C]
        all_scores, all_patterns = [], []
        for block in self.blocks:
            x, scores, pattern = block(x)
            all_scores.append(scores)
            all_patterns.append(pattern)
        # Tied unembedding: the output layer reuses the token table, stored once.
        logits = self.ln_final(x) @ self.tok_emb.weight.T  # [B, T, V]
        attention = {
            "scores": torch.stack(all_scores, dim=1),  # [B, layer, head, T, T], -inf above diagonal
            "pattern": torch.stack(all_patterns, dim=1),  # [B, layer, head, T, T]
        }
        return logits, attention
