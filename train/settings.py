"""The training settings: four frozen groups (data, optimiser, curriculum, output) composed with the
model's config and the run's seed and threads into one `TrainSettings`, from the CLI or a recipe
file (train/recipes/) to the checkpoint, checked before anything is written (a bad flag must cost
seconds, not the minutes of training before it would bite).

The checkpoint records it flat, one name per setting (`to_dict`; no two groups share a name), as
checkpoints did before the groups existed: meta.json's readers and the CLI's flags name a setting
alone, and every checkpoint ever written reads back through the same `from_dict`."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from train.checks import between, finite, need, whole
from train.curriculum_settings import CurriculumSettings
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


@dataclass(frozen=True)
class DataSettings:
    corpus: str = ""  # any UTF-8 text; its last 10% is the only held-out text
    companions: list = field(default_factory=list)  # texts that only ever train (files or folders)
    batch_size: int = 32  # windows of n_ctx tokens per step

    def __post_init__(self):
        whole(self, "batch_size")


@dataclass(frozen=True)
class OptimiserSettings:
    steps: int = 1500  # the cosine schedule ends here; ~5 minutes on 2 cores at d_model 80
    lr: float = 3e-3  # AdamW's peak, reached at the end of the warm-up
    warmup_frac: float = 0.05  # the share of the steps over which lr rises from 0
    min_lr_frac: float = 0.1  # cosine decays to this fraction of lr
    weight_decay: float = 0.1  # on matrices only: decaying gains and biases just fights the model
    patience: int = 6  # evaluations without a new best before stopping (held-out figures are noisy)

    def __post_init__(self):
        for name in ("steps", "patience"):
            whole(self, name)
        need(finite(self.lr) and self.lr > 0, f"lr={self.lr} must be a positive number")
        need(finite(self.weight_decay) and self.weight_decay >= 0, f"weight_decay={self.weight_decay} must be 0 or more")
        for name in ("warmup_frac", "min_lr_frac"):
            between(self, name)
        need(self.warmup_frac < 1, f"warmup_frac={self.warmup_frac} must be below 1 (the schedule must leave warm-up)")


@dataclass(frozen=True)
class OutputSettings:
    out: str = ""  # "" = models/<corpus file name>.pt (beside models/<name>/): never the shipped checkpoint
    eval_every: int = 50  # also how often a resumable checkpoint is saved (a kill loses at most this)
    snapshots: str = DEFAULT_SNAPSHOTS  # steps whose weights the timeline shows ("" = none)
    interrupt_at: int = 0  # testing aid: behave as if Ctrl-C arrived at this step (0 = never)

    def __post_init__(self):
        whole(self, "eval_every")
        parse_steps(self.snapshots)
        need(isinstance(self.interrupt_at, int) and self.interrupt_at >= 0, "interrupt_at must be 0 or more")


# Settings newer than the shipped checkpoint, left out of a run's record while off.
RECORDED_WHEN_SET = ("early_layer1_slopes", "early_layer1_steps")

# The groups, by the name each has in TrainSettings.
GROUPS = {"data": DataSettings, "optimiser": OptimiserSettings, "curriculum": CurriculumSettings,
          "output": OutputSettings}


@dataclass(frozen=True)
class TrainSettings:
    """Everything a run depends on besides its input files' bytes; stored in the checkpoint."""

    recipe: str = "plain"  # the recipe file the settings started from (train/recipes/<name>.toml)
    seed: int = 1337  # the weights' initialisation and every batch drawn
    threads: int = 2  # part of the seed: 1 and 2 threads differ in the last bits
    model: ModelConfig = field(default_factory=ModelConfig)  # the one config, CLI -> checkpoint -> export
    data: DataSettings = field(default_factory=DataSettings)
    optimiser: OptimiserSettings = field(default_factory=OptimiserSettings)
    curriculum: CurriculumSettings = field(default_factory=CurriculumSettings)
    output: OutputSettings = field(default_factory=OutputSettings)

    def __post_init__(self):
        whole(self, "threads")
        need(isinstance(self.seed, int) and 0 <= self.seed < 2**63, f"seed={self.seed} must be a whole number, 0 or more")
        steps = self.optimiser.steps
        shorter = (f"; to train {steps} steps, fit the recipe to them (make model STEPS={steps}, "
                   f"python -m train --fit-steps {steps}) or train without the curriculum (make model RECIPE=plain)")
        self.curriculum.check_against(self.model, steps, shorter)

    @classmethod
    def of(cls, **values) -> TrainSettings:
        """The settings from one flat name -> value mapping (the checkpoint's, the CLI's); a name
        left out keeps its default, a name no group has is a TypeError."""
        model = values.pop("model", None) or ModelConfig()
        groups = {}
        for name, group in GROUPS.items():
            own = {f.name for f in fields(group)}
            groups[name] = group(**{key: values.pop(key) for key in list(values) if key in own})
        if unknown := set(values) - {f.name for f in fields(cls)}:
            raise TypeError(f"no training setting is named {', '.join(sorted(unknown))}")
        model = model if isinstance(model, ModelConfig) else ModelConfig.from_dict(model)
        return cls(**values, **groups, model=model)

    def to_dict(self) -> dict:
        flat = {"recipe": self.recipe, "seed": self.seed, "threads": self.threads, "model": self.model.to_dict()}
        for name in GROUPS:
            flat.update(asdict(getattr(self, name)))
        # Recorded only when set, so that a run without them records exactly what runs recorded
        # before they existed (the shipped checkpoint and meta.json).
        for name in RECORDED_WHEN_SET:
            if not flat[name]:
                del flat[name]
        return flat

    def replaced(self, **changes) -> TrainSettings:
        """These settings with some changed, each named alone (steps=600, snapshots="0,10")."""
        return TrainSettings.of(**{**self.to_dict(), **changes})

    @classmethod
    def from_dict(cls, values: dict) -> TrainSettings:
        """A checkpoint's settings, from any version of the trainer."""
        values = dict(values)
        model = values.pop("model", None)
        if model is None:  # checkpoints from before the config moved inside the settings
            model = {k: values.pop(k) for k in ("vocab_size", "n_ctx", "d_model", "d_ff", "dropout") if k in values}
        # Runs recorded before the curriculum existed mixed repeats in from 30% of the schedule,
        # at 0.3 of the loss, and kept no snapshots.
        legacy = {"repeat_start": 0.3, "repeat_weight": 0.3, "snapshots": ""}
        values = {**{k: v for k, v in legacy.items() if "synthetic_steps" not in values}, **values}
        # ... and runs recorded before synthetic_dropout existed kept the model's dropout on.
        values.setdefault("synthetic_dropout", model.get("dropout", ModelConfig.dropout))
        # Runs recorded before recipes were named record none: "plain" would be a guess.
        values.setdefault("recipe", "")
        return cls.of(**values, model=ModelConfig.from_dict(model))

    def with_texts(self, corpus: str, companions: list) -> TrainSettings:
        """The same run reading the texts at other paths (a resumed run whose files moved)."""
        return replace(self, data=replace(self.data, corpus=corpus or self.data.corpus,
                                          companions=companions or self.data.companions))

    def snapshot_steps(self) -> list[int]:
        """The snapshot steps this run reaches (the last one may be its final step)."""
        return [s for s in parse_steps(self.output.snapshots) if s <= self.optimiser.steps]

    def checkpoint_path(self) -> Path:
        """The checkpoint to write: --out, else models/<corpus file name>.pt (as `make model` names it)."""
        out, corpus = self.output.out, self.data.corpus
        return Path(out) if out else Path("models") / f"{Path(corpus).stem or 'model'}.pt"
