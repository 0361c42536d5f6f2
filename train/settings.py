"""The training settings: one dataclass from the CLI to the checkpoint, checked before anything is
written (a bad flag must cost seconds, not the minutes of training before it would bite)."""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from train.model import ModelConfig

# Steps at which the trainer keeps a copy of the weights (float16-rounded: the timeline's
# snapshots *are* the rounded models). Log-spaced early, where the loss falls fastest and the
# heads first take shape, then every 250 steps through the range where the induction circuit
# of the curriculum forms (~1,000-1,500): a reader scrubbing the timeline sees each change
# happen between two snapshots. Steps past the run's end are dropped; the shipped model itself
# (the best step) is the timeline's last point.
ASCII_NUMBER = re.compile(r"[0-9]+")
DEFAULT_SNAPSHOTS = "0,10,25,50,100,200,350,500,750,1000,1100,1200,1300,1400,1500,1750,2000,2250,2500"


def parse_steps(spec: str) -> list[int]:
    """'0,10,25' -> [0, 10, 25]; '' -> []. Sorted, each step once."""
    parts = [part for part in spec.replace(" ", "").split(",") if part]
    if any(part.startswith("-") and ASCII_NUMBER.fullmatch(part[1:]) for part in parts):
        raise ValueError(f"snapshots={spec!r}: a step cannot be negative")
    if not all(ASCII_NUMBER.fullmatch(part) for part in parts):
        raise ValueError(f"snapshots={spec!r} must be whole step numbers separated by commas, e.g. 0,10,100")
    return sorted({int(part) for part in parts})


@dataclass
class TrainArgs:
    """Everything a run depends on besides its input files' bytes; stored in the checkpoint."""

    corpus: str
    companions: list = field(default_factory=list)  # texts that only ever train (files or folders)
    out: str = ""  # "" = models/<corpus file name>.pt (beside models/<name>/): never the shipped checkpoint
    model: ModelConfig = field(default_factory=ModelConfig)  # the one config, CLI -> checkpoint -> export
    steps: int = 1500  # the cosine schedule ends here; ~5 minutes on 2 cores at d_model 80
    batch_size: int = 32
    lr: float = 3e-3
    warmup_frac: float = 0.05
    min_lr_frac: float = 0.1  # cosine decays to this fraction of lr
    weight_decay: float = 0.1
    eval_every: int = 50  # also how often a resumable checkpoint is saved (a kill loses at most this)
    patience: int = 6  # evaluations without a new best before stopping (held-out figures are noisy)
    seed: int = 1337
    threads: int = 2  # part of the seed: 1 and 2 threads differ in the last bits
    # The induction curriculum (docs/experiments.md). Repeated random sequences are predictable
    # only by looking back at what followed the same token earlier, which is the job of an
    # induction head; text alone never grew one in this model.
    synthetic_steps: int = 0  # N steps that train on repeated random sequences only ...
    synthetic_start: int = 0  # ... starting at this step (0: a warm-up; later: a burst mid-run)
    # The heads the repeated sequences reach, "layer.head" pairs ("2.4"): a layer named here has
    # only these heads on for them (in the synthetic steps and in the repeated rows of mixed
    # batches), other layers all of theirs. Without it the warm-up grows a copying head wherever
    # it can: in R3 it took two of layer 2's four heads, and with them the speaker head's place.
    synthetic_heads: str = ""
    # Dropout during those steps (the model's own dropout applies after them). Off by default:
    # with it the circuit had formed to 0.26 by step 300 instead of 0.75 (runs R4 and R3).
    synthetic_dropout: float = 0.0
    # Heads switched off ("layer.head" pairs) for this share of each batch's text rows, so that
    # the other heads learn text without them: an induction head predicts a repeated name from
    # its last occurrence, which otherwise leaves nothing for a speaker head to learn from.
    text_heads_off: str = ""
    text_heads_off_frac: float = 0.0
    # "frozen": the repeated sequences train no token embedding (tied with the output layer), so
    # that random tokens leave the table's geometry to text; "train": they train it as text does;
    # "frozen-after-warm-up": the synthetic steps train it, the repeated rows after them do not.
    repeat_embeddings: str = "train"
    repeat_frac: float = 0.0  # outside them, the share of each batch's rows that are repeated sequences
    repeat_start: float = 0.0  # ... from this fraction of the schedule on
    repeat_weight: float = 1.0  # ... with their loss scaled by this (1 = as much as text)
    # A repeated sequence is p random tokens tiled to fill the window, p drawn uniformly from
    # [repeat_min_period, repeat_max_period]; 0 and 0 = half the window, i.e. repeated twice.
    repeat_min_period: int = 0
    repeat_max_period: int = 0
    # What a repeated sequence repeats: "random" tokens (seen at least 3 times), or the start of
    # the "text" window its row already holds, so that the copies read like the books;
    # "text-after-warm-up": random in the synthetic steps, text in the repeated rows after them.
    repeat_source: str = "random"
    snapshots: str = DEFAULT_SNAPSHOTS  # steps whose weights the timeline shows ("" = none)
    interrupt_at: int = 0  # testing aid: behave as if Ctrl-C arrived at this step (0 = never)

    def __post_init__(self):
        self.validate()

    def validate(self) -> None:
        """Raises ValueError naming the first setting that cannot work."""
        def need(ok: bool, message: str):
            if not ok:
                raise ValueError(message)

        finite = lambda x: isinstance(x, (int, float)) and math.isfinite(x)
        for name in ("steps", "batch_size", "eval_every", "patience", "threads"):
            value = getattr(self, name)
            need(isinstance(value, int) and value >= 1, f"{name}={value} must be a whole number, at least 1")
        need(finite(self.lr) and self.lr > 0, f"lr={self.lr} must be a positive number")
        need(finite(self.weight_decay) and self.weight_decay >= 0, f"weight_decay={self.weight_decay} must be 0 or more")
        for name in ("warmup_frac", "min_lr_frac", "repeat_frac", "repeat_start", "text_heads_off_frac"):
            value = getattr(self, name)
            need(finite(value) and 0 <= value <= 1, f"{name}={value} must be between 0 and 1")
        need(self.warmup_frac < 1, f"warmup_frac={self.warmup_frac} must be below 1 (the schedule must leave warm-up)")
        need(finite(self.repeat_weight) and self.repeat_weight >= 0, f"repeat_weight={self.repeat_weight} must be 0 or more")
        need(finite(self.synthetic_dropout) and 0 <= self.synthetic_dropout < 1,
             f"synthetic_dropout={self.synthetic_dropout} must be at least 0 and below 1")
        need(isinstance(self.seed, int) and 0 <= self.seed < 2**63, f"seed={self.seed} must be a whole number, 0 or more")
        shorter = (f"; to train {self.steps} steps, fit the recipe to them (make model STEPS={self.steps}, "
                   f"python -m train --fit-steps {self.steps}) or train without the curriculum (make model RECIPE=)")
        need(isinstance(self.synthetic_steps, int) and self.synthetic_steps >= 0,
             f"synthetic_steps={self.synthetic_steps} must be a whole number, 0 or more")
        need(self.synthetic_steps < self.steps, f"synthetic_steps={self.synthetic_steps} must be below steps={self.steps}{shorter}")
        need(isinstance(self.synthetic_start, int) and 0 <= self.synthetic_start
             and self.synthetic_start + self.synthetic_steps <= self.steps,
             f"synthetic_start={self.synthetic_start}: the synthetic steps must end by steps={self.steps}{shorter}")
        lo, hi = self.repeat_min_period, self.repeat_max_period
        need(isinstance(lo, int) and isinstance(hi, int) and lo >= 0 and hi >= 0,
             f"repeat periods {lo}..{hi} must be whole numbers, 0 or more")
        need((lo == 0) == (hi == 0), f"repeat periods {lo}..{hi}: set both (or neither, for 'repeated twice')")
        need(lo <= hi, f"repeat_min_period={lo} is above repeat_max_period={hi}")
        need(hi == 0 or 2 <= lo, f"repeat_min_period={lo} must be at least 2: a shorter period repeats one token")
        need(hi < self.model.n_ctx, f"repeat_max_period={hi} must be below n_ctx={self.model.n_ctx} to repeat at all")
        parse_steps(self.snapshots)
        self._heads("synthetic_heads")
        heads_off = self._heads("text_heads_off")
        for name, usual, other in (("repeat_source", "random", "text"), ("repeat_embeddings", "train", "frozen")):
            need(getattr(self, name) in (usual, other, f"{other}-after-warm-up"),
                 f"{name}={getattr(self, name)!r} must be {usual}, {other} or {other}-after-warm-up")
        need(self.repeat_source == "random" or self.repeat_max_period > 0,
             f"repeat_source={self.repeat_source} needs repeat_min_period and repeat_max_period")
        need((heads_off is not None) == (self.text_heads_off_frac > 0),
             f"text_heads_off={self.text_heads_off!r} and text_heads_off_frac={self.text_heads_off_frac}: set both or neither")
        need(isinstance(self.interrupt_at, int) and self.interrupt_at >= 0, "interrupt_at must be 0 or more")

    def synthetic_mask(self):
        """The head mask [n_layer, n_head] (1 = on) for the synthetic steps; None = every head."""
        pairs = self._heads("synthetic_heads")
        if pairs is None:
            return None
        import torch  # the settings module itself stays importable without torch

        mask = torch.ones(self.model.n_layer, self.model.n_head)
        for layer in {layer for layer, _ in pairs}:
            mask[layer] = 0.0
        for layer, head in pairs:
            mask[layer, head] = 1.0
        return mask

    def text_mask(self):
        """The head mask for the text rows that run with `text_heads_off` off; None = none do."""
        pairs = self._heads("text_heads_off")
        if pairs is None:
            return None
        import torch

        mask = torch.ones(self.model.n_layer, self.model.n_head)
        for layer, head in pairs:
            mask[layer, head] = 0.0
        return mask

    def _heads(self, name: str) -> list[tuple[int, int]] | None:
        """The 0-based (layer, head) pairs a "1.2,2.4" setting names; None when it is empty."""
        from attention_live.errors import ModelError
        from attention_live.heads import parse_ablate

        cfg = self.model
        # The page's head syntax, read by its one Python copy (tests/data/head-syntax-cases.json).
        try:
            pairs = parse_ablate({"n_layer": cfg.n_layer, "n_head": cfg.n_head}, getattr(self, name))
        except ModelError as err:
            raise ValueError(f"{name}={getattr(self, name)!r} is not layer.head pairs within {cfg.n_layer} "
                             f"layer{'s' * (cfg.n_layer != 1)} x {cfg.n_head} head{'s' * (cfg.n_head != 1)} (1-based): {err}") from None
        return [(layer - 1, head - 1) for layer, head in pairs] or None

    def applies(self, name: str, value: str, step: int) -> bool:
        """Whether setting `name` is `value` at this step: set to it, or to "<value>-after-warm-up"
        with the synthetic steps behind (or none at all)."""
        setting = getattr(self, name)
        return setting == value or (setting == f"{value}-after-warm-up" and step >= self.synthetic_start + self.synthetic_steps)

    def synthetic(self, step: int) -> bool:
        """Whether this step trains on repeated random sequences only."""
        return self.synthetic_start <= step < self.synthetic_start + self.synthetic_steps

    def snapshot_steps(self) -> list[int]:
        """The snapshot steps this run reaches (the last one may be its final step)."""
        return [s for s in parse_steps(self.snapshots) if s <= self.steps]

    def output(self) -> Path:
        """The checkpoint to write: --out, else models/<corpus file name>.pt (as `make model` names it)."""
        return Path(self.out) if self.out else Path("models") / f"{Path(self.corpus).stem or 'model'}.pt"

    def to_dict(self) -> dict:
        return {**asdict(self), "model": self.model.to_dict()}

    @classmethod
    def from_dict(cls, values: dict) -> TrainArgs:
        values = dict(values)
        model = values.pop("model", None)
        if model is None:  # checkpoints from before the config moved inside TrainArgs
            model = {k: values.pop(k) for k in ("vocab_size", "n_ctx", "d_model", "d_ff", "dropout") if k in values}
        # Runs recorded before the curriculum existed mixed repeats in from 30% of the schedule,
        # at 0.3 of the loss, and kept no snapshots.
        legacy = {"repeat_start": 0.3, "repeat_weight": 0.3, "snapshots": ""}
        values = {**{k: v for k, v in legacy.items() if "synthetic_steps" not in values}, **values}
        # ... and runs recorded before synthetic_dropout existed kept the model's dropout on.
        values.setdefault("synthetic_dropout", model.get("dropout", ModelConfig.dropout))
        return cls(**values, model=ModelConfig.from_dict(model))
