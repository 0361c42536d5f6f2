"""The training loop: seeded, resumable, early-stopped on held-out bits per character."""

from __future__ import annotations

import copy
import math
import signal
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from train import curriculum, run_eta, snapshots
from train.checkpoint import save_checkpoint
from train.data import Companion, Corpus, compressor_baselines, nats_to_bpc, training_text
from train.files import sha256_bytes
from train.model import ModelConfig, TinyTransformer
from train.settings import TrainArgs
from train.tokenizer import encode, load_tokenizer_json, train_tokenizer

__all__ = ["TrainArgs", "fit", "heldout_nats", "resume_path"]


@dataclass
class Progress:
    """Everything besides weights that an interrupted run needs to continue bit-identically."""

    step: int = 0
    best_bpc: float = math.inf
    best_step: int = 0
    evals_since_best: int = 0
    history: list = field(default_factory=list)  # [step, held-out bpc]
    seconds: float = 0.0
    snapshots: list = field(default_factory=list)  # snapshots.take() records, in step order


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


def lr_at(step: int, args: TrainArgs) -> float:
    warmup = max(1, int(args.steps * args.warmup_frac))
    if step < warmup:
        return args.lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, args.steps - warmup)
    floor = args.lr * args.min_lr_frac
    return floor + (args.lr - floor) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def make_optimizer(model: TinyTransformer, args: TrainArgs) -> torch.optim.AdamW:
    # Decay matrices only: shrinking LayerNorm gains and biases just fights the model.
    decay = [p for p in model.parameters() if p.dim() >= 2]
    keep = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": args.weight_decay}, {"params": keep, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=args.lr, betas=(0.9, 0.95))


def resume_path(out: str | Path) -> Path:
    out = Path(out)
    return out.with_name(out.stem + ".resume" + out.suffix)


def remove_stray_temp_files(out: str | Path) -> list[Path]:
    """A kill during an atomic write leaves its temp file behind; the next run sweeps them."""
    out = Path(out)
    stray = []
    for target in (out, resume_path(out)):
        stray += list(out.parent.glob(f".{target.name}.*.tmp"))
    for path in stray:
        path.unlink(missing_ok=True)
    return stray


class StepBoundaryInterrupt:
    """Ctrl-C sets a flag that the loop reads between steps, so the saved state is always a step
    boundary and a resumed run reaches bit-identical weights. A second Ctrl-C aborts at once
    (the last periodic checkpoint is still there)."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self):
        self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc):
        signal.signal(signal.SIGINT, self._previous)
        return False


def fit(corpus: Corpus, args: TrainArgs, resume: dict | None = None,
        companions: list[Companion] | None = None) -> dict:
    """Train (or continue) and write the best checkpoint to args.output(); returns its payload."""
    companions = companions or []
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.perf_counter()
    out = args.output()
    remove_stray_temp_files(out)

    text = training_text(corpus, companions)
    if resume:
        tokenizer_json = resume["tokenizer_json"]
    else:
        tokenizer_json = train_tokenizer(text, args.model.vocab_size).to_str()
    tokenizer = load_tokenizer_json(tokenizer_json)
    cfg = args.model
    if tokenizer.get_vocab_size() != cfg.vocab_size:  # a small text runs out of merges early
        if not resume:
            print(f"vocabulary: asked for {cfg.vocab_size:,} tokens, the text supports {tokenizer.get_vocab_size():,} "
                  "(no pair of tokens is left that occurs twice); the model is built with those", file=sys.stderr)
        cfg = ModelConfig(**{**cfg.to_dict(), "vocab_size": tokenizer.get_vocab_size()})
    corpus_ids = encode(tokenizer, corpus.train_text)  # the held-out part's left context
    train_ids = encode(tokenizer, text)
    heldout_ids = encode(tokenizer, corpus.heldout_text)
    block = min(cfg.n_ctx, len(train_ids) - 1)
    data = torch.tensor(train_ids)
    counts = torch.bincount(data, minlength=cfg.vocab_size)
    frequent = torch.nonzero(counts >= 3).flatten()  # tokens the model has had a chance to learn

    model = TinyTransformer(cfg).train()
    optimizer = make_optimizer(model, args)
    batches = torch.Generator().manual_seed(args.seed)
    progress = Progress()
    best_state = copy.deepcopy(model.state_dict())
    if resume:
        model.load_state_dict(resume["model"])
        optimizer.load_state_dict(resume["optimizer"])
        torch.set_rng_state(resume["rng"]["torch"])
        batches.set_state(resume["rng"]["batches"])
        progress = Progress(**resume["progress"])
        best_state = resume["best_model"]

    eval_seconds: list[float] = []  # the pace of export's kind of work, for the run's time left

    def bpc_of(m: TinyTransformer) -> float:
        begun = time.perf_counter()
        nats = heldout_nats(m, corpus_ids, heldout_ids, stride=cfg.n_ctx // 2)
        eval_seconds.append(time.perf_counter() - begun)
        return nats_to_bpc(nats, len(corpus.heldout_text))

    def evaluate() -> float:
        return bpc_of(model)

    common = {
        "config": cfg.to_dict(),
        "tokenizer_json": tokenizer_json,
        "tokenizer_sha256": sha256_bytes(tokenizer_json.encode("utf-8")),
        "corpus": {"name": corpus.name, "sha256": corpus.sha256, "chars": len(corpus.text),
                   "heldout_chars": len(corpus.heldout_text),
                   "gutenberg_stripped": corpus.gutenberg_stripped,
                   # The vocabulary asked for; config.vocab_size is what the text supported.
                   "vocab_requested": args.model.vocab_size,
                   "companions": [c.record() for c in companions]},
        "train_args": args.to_dict(),
    }

    def save_resumable():
        save_checkpoint(resume_path(out), {
            **common, "model": model.state_dict(), "best_model": best_state,
            "optimizer": optimizer.state_dict(), "progress": asdict(progress),
            "rng": {"torch": torch.get_rng_state(), "batches": batches.get_state()},
            "metrics": {}, "resumable": True,
        })

    def snapshot_due() -> None:
        step = progress.step
        if step in wanted and not any(s["step"] == step for s in progress.snapshots):
            progress.snapshots.append(snapshots.take(model, step, lambda m: bpc_of(m)))

    wanted = set(args.snapshot_steps())
    synthetic_mask, text_mask = args.synthetic_mask(), args.text_mask()
    print("run_left: the time left until the model is exported too (make model), at this run's pace", file=sys.stderr)

    def postfix(**figures) -> None:
        rate = bar.format_dict.get("rate")  # steps/s as the bar's own ETA has it (smoothed)
        if eval_seconds and rate:
            figures["run_left"] = run_eta.run_left(args.steps - progress.step, 1 / rate,
                                                   statistics.median(eval_seconds), len(wanted) + 1)
        bar.set_postfix(**figures)

    bar = tqdm(total=args.steps, initial=progress.step, desc="training", unit="step", dynamic_ncols=True)
    with StepBoundaryInterrupt() as interrupt:
        while progress.step < args.steps:
            if interrupt.requested or (args.interrupt_at and progress.step == args.interrupt_at and not resume):
                bar.close()
                progress.seconds += time.perf_counter() - started
                save_resumable()
                raise KeyboardInterrupt
            snapshot_due()
            for group in optimizer.param_groups:
                group["lr"] = lr_at(progress.step, args)
            curriculum.set_dropout(model, progress.step, args)
            rows, weights = curriculum.batch(progress.step, args, data, block, frequent, batches)
            x, y = rows[:, :-1], rows[:, 1:]  # [B, block] each: y is x shifted by one
            logits = curriculum.forward(model, x, progress.step, args, synthetic_mask, text_mask)
            nll = F.cross_entropy(logits.transpose(1, 2), y, reduction="none")  # [B, block]
            loss = (nll * weights).sum() / (weights.sum() * block)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            progress.step += 1
            bar.update(1)
            if progress.step % args.eval_every == 0 or progress.step == args.steps:
                bpc = evaluate()
                progress.history.append([progress.step, round(bpc, 5)])
                if bpc < progress.best_bpc:
                    progress.best_bpc, progress.best_step, progress.evals_since_best = bpc, progress.step, 0
                    best_state = copy.deepcopy(model.state_dict())
                else:
                    progress.evals_since_best += 1
                postfix(loss=f"{loss.item():.3f}", bpc=f"{bpc:.3f}", best=f"{progress.best_bpc:.3f}")
                if progress.evals_since_best >= args.patience:
                    bar.write(f"early stop at step {progress.step}: no better held-out bpc since step {progress.best_step}")
                    break
                progress.seconds += time.perf_counter() - started
                started = time.perf_counter()
                save_resumable()  # a kill or power cut loses at most eval_every steps
            elif progress.step % 5 == 0:
                postfix(loss=f"{loss.item():.3f}", best=f"{progress.best_bpc:.3f}")
    snapshot_due()  # a snapshot at the final step (the loop stops before it)
    bar.close()
    progress.seconds += time.perf_counter() - started
    taken = progress.snapshots

    model.load_state_dict(best_state)
    model.eval()
    metrics = {
        "heldout_bpc": evaluate() if progress.best_bpc == math.inf else progress.best_bpc,
        "baselines_bpc": compressor_baselines(corpus),
        "best_step": progress.best_step,
        "steps_run": progress.step,
        "train_seconds": round(progress.seconds, 1),
        "train_tokens": len(train_ids),
        "heldout_tokens": len(heldout_ids),
        "tokens_per_char": round(len(heldout_ids) / len(corpus.heldout_text), 4),
        "n_params": model.n_params(),
        "history": progress.history,
    }
    # How often each token occurs in the training text: export draws its random probe sequences
    # from tokens seen >= 3 times without needing the training texts again.
    payload = {**common, "model": model.state_dict(), "metrics": metrics, "token_counts": counts.tolist(),
               "snapshots": taken}
    save_checkpoint(out, payload)
    resume_path(out).unlink(missing_ok=True)
    return payload
