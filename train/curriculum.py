"""What each training batch holds: windows of text, and (for the induction curriculum) repeated
random sequences, whose second and later copies are predictable only by looking back at what
followed the same token before: the job of an induction head (Olsson et al. 2022)."""

from __future__ import annotations

import torch

from train.settings import TrainSettings


def tiled(rows: torch.Tensor, periods: torch.Tensor, length: int) -> torch.Tensor:
    """[n, length + 1]: row r's first periods[r] tokens, over and over."""
    at = torch.arange(length + 1).view(1, -1) % periods.view(-1, 1)  # [n, length + 1]: i mod p
    return torch.gather(rows, 1, at)


def repeated_sequences(n: int, length: int, vocab: torch.Tensor, generator: torch.Generator,
                       min_period: int = 0, max_period: int = 0) -> torch.Tensor:
    """[n, length + 1] rows of random tokens from `vocab`, each row one random sequence tiled to
    fill it. Period p uniform in [min_period, max_period] per row; 0 and 0 = half the row (two
    copies), drawn with one call so that runs recorded before periods existed replay exactly."""
    if max_period == 0:
        half = (length + 2) // 2
        picks = vocab[torch.randint(len(vocab), (n, half), generator=generator)]  # [n, half]
        return torch.cat([picks, picks], dim=1)[:, : length + 1]  # [n, length + 1]
    periods = torch.randint(min_period, max_period + 1, (n,), generator=generator)  # [n]
    picks = vocab[torch.randint(len(vocab), (n, max_period), generator=generator)]  # [n, max_period]
    return tiled(picks, periods, length)


def repeated_text(rows: torch.Tensor, generator: torch.Generator, min_period: int, max_period: int) -> torch.Tensor:
    """Each row's first p tokens tiled to fill it ([n, length + 1]), p uniform in [min_period,
    max_period] per row: text whose later copies an induction head can predict."""
    periods = torch.randint(min_period, max_period + 1, (len(rows),), generator=generator)  # [n]
    return tiled(rows, periods, rows.shape[1] - 1)


def repeat_rows(step: int, args: TrainSettings) -> int:
    """How many of this step's rows are repeated sequences (the rest are text)."""
    c, batch_size = args.curriculum, args.data.batch_size
    if c.synthetic(step):
        return batch_size
    if c.repeat_frac and step >= c.repeat_start * args.optimiser.steps:
        return round(batch_size * c.repeat_frac)
    return 0


def batch(step: int, args: TrainSettings, data: torch.Tensor, block: int, frequent: torch.Tensor,
          generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """(rows [B, block + 1] int64, loss weights [B, 1]) for one step. The text windows are drawn
    first and always, so that a run with repeats draws the same text as one without."""
    c, batch_size = args.curriculum, args.data.batch_size
    starts = torch.randint(len(data) - block, (batch_size,), generator=generator)
    rows = torch.stack([data[s : s + block + 1] for s in starts])  # [B, block + 1]
    weights = torch.ones(batch_size, 1)
    n = repeat_rows(step, args)
    if n:
        lo, hi = c.repeat_min_period, c.repeat_max_period
        if c.applies("repeat_source", "text", step):
            rows[-n:] = repeated_text(rows[-n:], generator, lo, hi)
        else:
            rows[-n:] = repeated_sequences(n, block, frequent, generator, lo, hi)
        if n < batch_size:  # a batch of repeats only has nothing to be weighted against
            weights[-n:] = c.repeat_weight
    return rows, weights



def set_dropout(model: torch.nn.Module, step: int, args: TrainSettings) -> None:
    """Every dropout's rate for this step: synthetic_dropout during the synthetic steps, else the
    model's own (attention weights: attn_dropout; everything else: dropout). A rate of 0 draws no
    random numbers, so a run without synthetic steps trains exactly as before this existed."""
    warmup = args.curriculum.synthetic(step)
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Dropout):
            own = args.model.attn_dropout if name.endswith("attn_drop") else args.model.dropout
            module.p = args.curriculum.synthetic_dropout if warmup else own


def forward(model: torch.nn.Module, x: torch.Tensor, step: int, args: TrainSettings,
            mask: torch.Tensor | None, text_mask: torch.Tensor | None = None) -> torch.Tensor:
    """The batch's logits [B, block, V]. With `synthetic_heads` (mask), the repeated sequences
    reach only those heads: the synthetic steps run with the mask, and in a mixed batch its
    repeated rows (the last ones, see `batch`) run with it while the text rows run with every
    head, so that no other head learns anything from random tokens. With `text_heads_off`
    (text_mask), the first text_heads_off_frac of the text rows run with those heads off."""
    c = args.curriculum
    frozen = {"tok_emb.weight": model.tok_emb.weight.detach()} if c.applies("repeat_embeddings", "frozen", step) else {}

    def repeated(rows: torch.Tensor) -> torch.Tensor:
        return torch.func.functional_call(model, frozen, (rows, mask))[0] if frozen else model(rows, mask)[0]

    if c.synthetic(step):
        return repeated(x)
    n = repeat_rows(step, args)
    text = len(x) - n
    off = round(text * c.text_heads_off_frac) if text_mask is not None else 0
    parts = [model(x[:off], text_mask)[0]] if off else []
    if n and (mask is not None or frozen):
        parts += [model(x[off:text])[0]] if text > off else []
        parts.append(repeated(x[text:]))
    else:
        parts.append(model(x[off:])[0])
    return parts[0] if len(parts) == 1 else torch.cat(parts)
