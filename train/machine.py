"""What this machine can run, checked before a run starts: past its cores torch crashes (a
segfault at 100,000 threads), and a context whose attention tables exceed its memory fails to
allocate after the tokenizer has trained. Both are refused with one line instead."""

from __future__ import annotations

import os

from train.files import UserError
from train.settings import TrainSettings

# A training step holds, per layer, about this many float32 tables of [batch, heads, n_ctx,
# n_ctx]: the scores, the ALiBi distances, the masked fill, the softmax and their gradients.
# Measured: one step at n_ctx 512 (2 layers, batch 32) peaked at 11.4 such tables in all, logits
# included; 6 per layer keeps the estimate above that.
TABLES_PER_LAYER = 6
# ... and this many float32 copies of the logits [batch, n_ctx, vocab] (logits, softmax, gradient).
LOGIT_COPIES = 3


def cores() -> int:
    """The cores this process may run on (a container's share, not the host's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def available_bytes() -> int | None:
    """Memory available to a new allocation without swapping (Linux's MemAvailable); None when
    the system does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def training_bytes(args: TrainSettings, n_ctx: int | None = None) -> int:
    """The bytes a training step's context-sized tables need (the rest of the model is small)."""
    cfg = args.model
    n_ctx = cfg.n_ctx if n_ctx is None else n_ctx
    masks = cfg.n_layer * n_ctx * n_ctx  # one causal mask of bools per layer
    tables = TABLES_PER_LAYER * cfg.n_layer * args.data.batch_size * cfg.n_head * n_ctx * n_ctx * 4
    logits = LOGIT_COPIES * args.data.batch_size * n_ctx * cfg.vocab_size * 4
    positions = 4 * n_ctx * cfg.d_model * 4 if cfg.positions == "learned" else 0  # table, gradient, two moments
    return masks + tables + logits + positions


def largest_context(args: TrainSettings, budget: int) -> int:
    """The longest context whose tables fit in `budget` bytes (0 if none does)."""
    lo, hi = 0, args.model.n_ctx
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if training_bytes(args, mid) <= budget else (lo, mid - 1)
    return lo


def gigabytes(n: int) -> str:
    return f"{n / 1e9:,.1f} GB" if n < 1e15 else f"{n:.1e} bytes"


def check_machine(args: TrainSettings) -> None:
    """Raises UserError when the run asks for more threads or memory than this machine has."""
    have = cores()
    if args.threads > have:
        raise UserError(f"--threads {args.threads} is more than the {have} core{'s' * (have != 1)} this machine "
                        f"gives the run; use --threads {have} or fewer.")
    free = available_bytes()
    need = training_bytes(args)
    if free is not None and need > free:
        fits = largest_context(args, free)
        raise UserError(f"--n-ctx {args.model.n_ctx} needs about {gigabytes(need)} for a training step's attention "
                        f"tables (batch {args.data.batch_size} x {args.model.n_head} heads x n_ctx x n_ctx per layer); "
                        f"this machine has {gigabytes(free)} available: use --n-ctx {fits} or less, or a smaller --batch-size.")
