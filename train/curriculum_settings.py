"""The induction curriculum's settings (docs/experiments.md): one frozen group of the run's config
(train/settings.py). Repeated random sequences are predictable only by looking back at what
followed the same token earlier, which is the job of an induction head; text alone never grew
one in this model. Every setting is off by default, and a run that sets none trains exactly as
before they existed."""

from __future__ import annotations

from dataclasses import dataclass

from train.checks import between, finite, need
from train.model import ModelConfig, listed_slopes

# The choices of the two settings that can change after the warm-up: (name, usual, other).
SWITCHES = (("repeat_source", "random", "text"), ("repeat_embeddings", "train", "frozen"))


@dataclass(frozen=True)
class CurriculumSettings:
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
    # Layer 1's ALiBi slopes for the run's first early_layer1_steps steps, one per head ("": the
    # model's own throughout); the model's own (its layer1_slopes or scale) from that step on.
    # Flatter layer-1 heads from step 0 stopped every warm-up from forming the circuit (R68-R71),
    # while the same heads flattened after the warm-up kept it and gave L1H3 the speaker (R72-R74).
    early_layer1_slopes: str = ""
    early_layer1_steps: int = 0

    def __post_init__(self):
        """Raises ValueError naming the first setting that cannot work on its own; what depends
        on the model's shape or the schedule is checked with them (`check_against`)."""
        for name in ("repeat_frac", "repeat_start", "text_heads_off_frac"):
            between(self, name)
        need(finite(self.repeat_weight) and self.repeat_weight >= 0, f"repeat_weight={self.repeat_weight} must be 0 or more")
        need(finite(self.synthetic_dropout) and 0 <= self.synthetic_dropout < 1,
             f"synthetic_dropout={self.synthetic_dropout} must be at least 0 and below 1")
        need(isinstance(self.synthetic_steps, int) and self.synthetic_steps >= 0,
             f"synthetic_steps={self.synthetic_steps} must be a whole number, 0 or more")
        lo, hi = self.repeat_min_period, self.repeat_max_period
        need(isinstance(lo, int) and isinstance(hi, int) and lo >= 0 and hi >= 0,
             f"repeat periods {lo}..{hi} must be whole numbers, 0 or more")
        need((lo == 0) == (hi == 0), f"repeat periods {lo}..{hi}: set both (or neither, for 'repeated twice')")
        need(lo <= hi, f"repeat_min_period={lo} is above repeat_max_period={hi}")
        need(hi == 0 or 2 <= lo, f"repeat_min_period={lo} must be at least 2: a shorter period repeats one token")
        for name, usual, other in SWITCHES:
            need(getattr(self, name) in (usual, other, f"{other}-after-warm-up"),
                 f"{name}={getattr(self, name)!r} must be {usual}, {other} or {other}-after-warm-up")
        need(self.repeat_source == "random" or self.repeat_max_period > 0,
             f"repeat_source={self.repeat_source} needs repeat_min_period and repeat_max_period")
        need(isinstance(self.early_layer1_steps, int) and self.early_layer1_steps >= 0,
             f"early_layer1_steps={self.early_layer1_steps} must be a whole number, 0 or more")
        need(bool(self.early_layer1_slopes) == (self.early_layer1_steps > 0),
             f"early_layer1_slopes={self.early_layer1_slopes!r} and early_layer1_steps={self.early_layer1_steps}: "
             "set both or neither")

    def check_against(self, cfg: ModelConfig, steps: int, shorter: str) -> None:
        """What fits only a schedule of `steps` and a model of `cfg`'s shape; `shorter` ends the
        message of a warm-up that does not fit (how to train fewer steps)."""
        need(self.synthetic_steps < steps, f"synthetic_steps={self.synthetic_steps} must be below steps={steps}{shorter}")
        need(isinstance(self.synthetic_start, int) and 0 <= self.synthetic_start
             and self.synthetic_start + self.synthetic_steps <= steps,
             f"synthetic_start={self.synthetic_start}: the synthetic steps must end by steps={steps}{shorter}")
        hi = self.repeat_max_period
        need(hi < cfg.n_ctx, f"repeat_max_period={hi} must be below n_ctx={cfg.n_ctx} to repeat at all")
        self.heads("synthetic_heads", cfg)
        if self.early_layer1_steps:
            need(cfg.positions == "alibi", "early_layer1_slopes needs positions='alibi'")
            need(self.early_layer1_steps < steps,
                 f"early_layer1_steps={self.early_layer1_steps} must be below steps={steps}{shorter}")
            self.early_slopes(cfg)
        heads_off = self.heads("text_heads_off", cfg)
        need((heads_off is not None) == (self.text_heads_off_frac > 0),
             f"text_heads_off={self.text_heads_off!r} and text_heads_off_frac={self.text_heads_off_frac}: set both or neither")

    def heads(self, name: str, cfg: ModelConfig) -> list[tuple[int, int]] | None:
        """The 0-based (layer, head) pairs a "1.2,2.4" setting names; None when it is empty."""
        from attention_live.errors import ModelError
        from attention_live.heads import parse_ablate

        # The page's head syntax, read by its one Python copy (tests/data/head-syntax-cases.json).
        try:
            pairs = parse_ablate({"n_layer": cfg.n_layer, "n_head": cfg.n_head}, getattr(self, name))
        except ModelError as err:
            raise ValueError(f"{name}={getattr(self, name)!r} is not layer.head pairs within {cfg.n_layer} "
                             f"layer{'s' * (cfg.n_layer != 1)} x {cfg.n_head} head{'s' * (cfg.n_head != 1)} (1-based): {err}") from None
        return [(layer - 1, head - 1) for layer, head in pairs] or None

    def early_slopes(self, cfg: ModelConfig) -> list[float] | None:
        """Layer 1's slopes before early_layer1_steps, one per head; None when the model's own."""
        if not self.early_layer1_steps:
            return None
        return listed_slopes("early_layer1_slopes", self.early_layer1_slopes, cfg.n_head)

    def synthetic_mask(self, cfg: ModelConfig):
        """The head mask [n_layer, n_head] (1 = on) for the synthetic steps; None = every head."""
        pairs = self.heads("synthetic_heads", cfg)
        if pairs is None:
            return None
        import torch  # the settings stay importable without torch

        mask = torch.ones(cfg.n_layer, cfg.n_head)
        for layer in {layer for layer, _ in pairs}:
            mask[layer] = 0.0
        for layer, head in pairs:
            mask[layer, head] = 1.0
        return mask

    def text_mask(self, cfg: ModelConfig):
        """The head mask for the text rows that run with `text_heads_off` off; None = none do."""
        pairs = self.heads("text_heads_off", cfg)
        if pairs is None:
            return None
        import torch

        mask = torch.ones(cfg.n_layer, cfg.n_head)
        for layer, head in pairs:
            mask[layer, head] = 0.0
        return mask

    def applies(self, name: str, value: str, step: int) -> bool:
        """Whether setting `name` is `value` at this step: set to it, or to "<value>-after-warm-up"
        with the synthetic steps behind (or none at all)."""
        setting = getattr(self, name)
        return setting == value or (setting == f"{value}-after-warm-up" and step >= self.synthetic_start + self.synthetic_steps)

    def synthetic(self, step: int) -> bool:
        """Whether this step trains on repeated random sequences only."""
        return self.synthetic_start <= step < self.synthetic_start + self.synthetic_steps

    def is_on(self) -> bool:
        """Whether any part of the curriculum is set (else the run is the plain text-only recipe)."""
        return bool(self.synthetic_steps or self.repeat_frac or self.text_heads_off.strip() or self.early_layer1_steps)
