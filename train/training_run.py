"""One training run's state and the steps train/trainer.py fit() takes in order: the texts
tokenized, the model and optimiser (fresh or resumed), one optimisation step, a held-out
evaluation that keeps the best weights, the snapshots, and the resumable and final checkpoints.
Every random number is drawn in the order of the run before these steps had names: the same
settings give bit-identical weights."""

from __future__ import annotations

import copy
import math
import sys
import time
from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F

from train import curriculum, snapshots
from train.checkpoint import remove_stray_temp_files, resume_path, save_checkpoint
from train.data import Companion, Corpus, compressor_baselines, nats_to_bpc, training_text
from train.files import sha256_bytes
from train.heldout import heldout_nats
from train.model import ModelConfig, TinyTransformer
from train.settings import TrainSettings
from train.tokenizer import encode, load_tokenizer_json, train_tokenizer


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


def lr_at(step: int, args: TrainSettings) -> float:
    o = args.optimiser
    warmup = max(1, int(o.steps * o.warmup_frac))
    if step < warmup:
        return o.lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, o.steps - warmup)
    floor = o.lr * o.min_lr_frac
    return floor + (o.lr - floor) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def make_optimizer(model: TinyTransformer, args: TrainSettings) -> torch.optim.AdamW:
    # Decay matrices only: shrinking LayerNorm gains and biases just fights the model.
    decay = [p for p in model.parameters() if p.dim() >= 2]
    keep = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": args.optimiser.weight_decay}, {"params": keep, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=args.optimiser.lr, betas=(0.9, 0.95))


class TrainingRun:
    def __init__(self, corpus: Corpus, args: TrainSettings, companions: list[Companion], resume: dict | None):
        torch.set_num_threads(args.threads)
        torch.manual_seed(args.seed)
        self.started = time.perf_counter()
        self.args, self.corpus, self.resumed = args, corpus, resume is not None
        self.out = args.checkpoint_path()
        remove_stray_temp_files(self.out)
        self.eval_seconds: list[float] = []  # the pace of export's kind of work, for the run's time left
        self.wanted = set(args.snapshot_steps())
        self.synthetic_mask = args.curriculum.synthetic_mask(args.model)
        self.text_mask = args.curriculum.text_mask(args.model)
        self._tokenize(companions, resume)
        self._build(resume)

    def _tokenize(self, companions: list[Companion], resume: dict | None) -> None:
        corpus, args = self.corpus, self.args
        text = training_text(corpus, companions)
        tokenizer_json = resume["tokenizer_json"] if resume else train_tokenizer(text, args.model.vocab_size).to_str()
        tokenizer = load_tokenizer_json(tokenizer_json)
        cfg = args.model
        if tokenizer.get_vocab_size() != cfg.vocab_size:  # a small text runs out of merges early
            if not resume:
                print(f"vocabulary: asked for {cfg.vocab_size:,} tokens, the text supports {tokenizer.get_vocab_size():,} "
                      "(no pair of tokens is left that occurs twice); the model is built with those", file=sys.stderr)
            cfg = ModelConfig(**{**cfg.to_dict(), "vocab_size": tokenizer.get_vocab_size()})
        self.cfg = cfg
        self.corpus_ids = encode(tokenizer, corpus.train_text)  # the held-out part's left context
        self.train_ids = encode(tokenizer, text)
        self.heldout_ids = encode(tokenizer, corpus.heldout_text)
        self.block = min(cfg.n_ctx, len(self.train_ids) - 1)
        self.data = torch.tensor(self.train_ids)
        self.counts = torch.bincount(self.data, minlength=cfg.vocab_size)
        self.frequent = torch.nonzero(self.counts >= 3).flatten()  # tokens the model has had a chance to learn
        self.common = {
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

    def _build(self, resume: dict | None) -> None:
        self.model = TinyTransformer(self.cfg).train()
        self.early_slopes = self.args.curriculum.early_slopes(self.cfg)
        if self.early_slopes:  # a buffer, not a parameter: the optimiser and every random draw are as without
            self._set_layer1_slopes(self.early_slopes)
        self.optimizer = make_optimizer(self.model, self.args)
        self.batches = torch.Generator().manual_seed(self.args.seed)
        self.progress = Progress()
        self.best_state = copy.deepcopy(self.model.state_dict())
        if resume:
            self.model.load_state_dict(resume["model"])
            self.optimizer.load_state_dict(resume["optimizer"])
            torch.set_rng_state(resume["rng"]["torch"])
            self.batches.set_state(resume["rng"]["batches"])
            self.progress = Progress(**resume["progress"])
            self.best_state = resume["best_model"]

    def _set_layer1_slopes(self, slopes: list[float]) -> None:
        buffer = self.model.blocks[0].attn.alibi_slopes
        with torch.no_grad():
            buffer.copy_(torch.tensor(slopes, dtype=buffer.dtype))

    def layer1_switch_due(self) -> None:
        """At early_layer1_steps, layer 1 takes the model's own slopes. The weights kept as the best
        start again from here, so that the checkpoint holds a model with the slopes its config says."""
        p = self.progress
        if not self.early_slopes or p.step != self.args.curriculum.early_layer1_steps:
            return
        self._set_layer1_slopes(self.cfg.layer_slopes(0))
        p.best_bpc, p.best_step, p.evals_since_best = math.inf, p.step, 0
        self.best_state = copy.deepcopy(self.model.state_dict())

    def interrupt_due(self) -> bool:
        """The testing aid's pretend Ctrl-C (never in a resumed run, which must go on)."""
        at = self.args.output.interrupt_at
        return bool(at) and self.progress.step == at and not self.resumed

    def train_step(self) -> float:
        """One optimisation step on one batch; returns its loss."""
        step, args, model = self.progress.step, self.args, self.model
        for group in self.optimizer.param_groups:
            group["lr"] = lr_at(step, args)
        curriculum.set_dropout(model, step, args)
        rows, weights = curriculum.batch(step, args, self.data, self.block, self.frequent, self.batches)
        x, y = rows[:, :-1], rows[:, 1:]  # [B, block] each: y is x shifted by one
        logits = curriculum.forward(model, x, step, args, self.synthetic_mask, self.text_mask)
        nll = F.cross_entropy(logits.transpose(1, 2), y, reduction="none")  # [B, block]
        loss = (nll * weights).sum() / (weights.sum() * self.block)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        self.optimizer.step()
        self.progress.step += 1
        return loss.item()

    def bpc_of(self, model: TinyTransformer) -> float:
        begun = time.perf_counter()
        nats = heldout_nats(model, self.corpus_ids, self.heldout_ids, stride=self.cfg.n_ctx // 2)
        self.eval_seconds.append(time.perf_counter() - begun)
        return nats_to_bpc(nats, len(self.corpus.heldout_text))

    def evaluation_due(self) -> bool:
        step = self.progress.step
        return step % self.args.output.eval_every == 0 or step == self.args.optimiser.steps

    def evaluate(self) -> float:
        """The held-out figure now, recorded; a new best keeps these weights."""
        p = self.progress
        bpc = self.bpc_of(self.model)
        p.history.append([p.step, round(bpc, 5)])
        if bpc < p.best_bpc:
            p.best_bpc, p.best_step, p.evals_since_best = bpc, p.step, 0
            self.best_state = copy.deepcopy(self.model.state_dict())
        else:
            p.evals_since_best += 1
        return bpc

    def patience_spent(self) -> bool:
        return self.progress.evals_since_best >= self.args.optimiser.patience

    def snapshot_due(self) -> None:
        step = self.progress.step
        if step in self.wanted and not any(s["step"] == step for s in self.progress.snapshots):
            self.progress.snapshots.append(snapshots.take(self.model, step, self.bpc_of))

    def clock(self) -> None:
        """Adds the time since the last call to the run's training seconds."""
        now = time.perf_counter()
        self.progress.seconds += now - self.started
        self.started = now

    def save_resumable(self) -> None:
        """A checkpoint to continue from (a kill or power cut loses at most eval_every steps)."""
        self.clock()
        save_checkpoint(resume_path(self.out), {
            **self.common, "model": self.model.state_dict(), "best_model": self.best_state,
            "optimizer": self.optimizer.state_dict(), "progress": asdict(self.progress),
            "rng": {"torch": torch.get_rng_state(), "batches": self.batches.get_state()},
            "metrics": {}, "resumable": True,
        })

    def finish(self) -> dict:
        """Writes the best weights' checkpoint (and drops the resumable one); returns its payload."""
        self.clock()
        p, model = self.progress, self.model
        model.load_state_dict(self.best_state)
        model.eval()
        metrics = {
            "heldout_bpc": self.bpc_of(model) if p.best_bpc == math.inf else p.best_bpc,
            "baselines_bpc": compressor_baselines(self.corpus),
            "best_step": p.best_step,
            "steps_run": p.step,
            "train_seconds": round(p.seconds, 1),
            "train_tokens": len(self.train_ids),
            "heldout_tokens": len(self.heldout_ids),
            "tokens_per_char": round(len(self.heldout_ids) / len(self.corpus.heldout_text), 4),
            "n_params": model.n_params(),
            "history": p.history,
        }
        # How often each token occurs in the training text: export draws its random probe sequences
        # from tokens seen >= 3 times without needing the training texts again.
        payload = {**self.common, "model": model.state_dict(), "metrics": metrics,
                   "token_counts": self.counts.tolist(), "snapshots": p.snapshots}
        save_checkpoint(self.out, payload)
        resume_path(self.out).unlink(missing_ok=True)
        return payload
