"""A recipe fitted to a step count (`make model STEPS=N`, `python -m train --fit-steps N`), and the
one line that says, before training, which recipe a run trains with.

The rule. The run becomes N steps long, and the steps that mark points of it scale by N / the
recipe's steps: the snapshots and the start of the warm-up. The warm-up's length does not
scale: in the shipped run (2,500 steps, 300 of them on repeated random sequences first) the
induction head was still absent at step 200 and had formed by step 350 (its timeline), so a
shortened warm-up would grow nothing and only take steps from the text. The curriculum is kept
when its warm-up fills at most half of the N steps (N >= 600 for the shipped recipe); below
that the run is the plain text-only recipe, exactly what `make model RECIPE=plain` trains (the
trainer's defaults and the flags given after the recipe), N steps, its snapshots scaled alike.
The recipes themselves are files (train/recipes/, read by train/recipe_files.py)."""

from __future__ import annotations

import re
from collections.abc import Callable

from train.files import UserError
from train.settings import TrainSettings, parse_steps

# The largest share of a fitted run the warm-up may take: the rest must be text.
WARMUP_SHARE = 0.5


def minimum_steps(args: TrainSettings) -> int:
    """The fewest steps the recipe's curriculum can be fitted to."""
    return int(args.curriculum.synthetic_steps / WARMUP_SHARE + 0.5)


def scaled_snapshots(spec: str, factor: float, steps: int) -> str:
    """Each snapshot step times `factor`, rounded, those within the run, each once."""
    return ",".join(str(s) for s in sorted({round(step * factor) for step in parse_steps(spec)}) if s <= steps)


def _threads(args: TrainSettings) -> str:
    return f"{args.threads} thread{'s' * (args.threads != 1)}"


def describe(args: TrainSettings) -> str:
    """What the run trains, in a phrase: the plain recipe or the curriculum's shape."""
    c, batch = args.curriculum, args.data.batch_size
    if not c.is_on():
        return "the plain text-only recipe"
    parts = []
    if c.synthetic_steps:
        where = "first" if c.synthetic_start == 0 else f"from step {c.synthetic_start:,}"
        parts.append(f"{c.synthetic_steps:,} steps on repeated random sequences {where}")
    if c.repeat_frac:
        parts.append(f"{round(c.repeat_frac * batch)} of {batch} rows repeated")
    if c.text_heads_off.strip():
        parts.append(f"heads {c.text_heads_off} off for {c.text_heads_off_frac:.0%} of the text rows")
    if c.early_layer1_steps:
        parts.append(f"layer 1's own slopes from step {c.early_layer1_steps:,}")
    return f"the induction curriculum ({', '.join(parts)})"


def fit_steps(build: Callable[[bool], TrainSettings], steps: int) -> tuple[TrainSettings, str]:
    """(the run's settings, the line that says which recipe) for a run of `steps` steps.
    `build(True)` is the recipe with the flags given after it, `build(False)` the plain recipe with them."""
    try:
        recipe = build(True)
    except UserError as exc:
        # The curriculum names heads and ALiBi settings of the shipped shape; a model of another
        # shape or position scheme trains the plain recipe, as RECIPE=plain would (the flags' own errors still stop it).
        plain = build(False)
        reason = re.sub(r"^[^:]*: | See `python -m train --help`\.$", "", str(exc)).rstrip(".")
        args = fitted(plain, steps)
        return args, (f"recipe: the plain text-only recipe, {steps:,} steps on {_threads(args)}: the curriculum does "
                      f"not fit this model ({reason})")
    if not recipe.curriculum.is_on():
        args = fitted(recipe, steps)
        return args, f"recipe: {describe(args)}, {steps:,} steps on {_threads(args)}"
    need = minimum_steps(recipe)
    if steps >= need:
        warmup = recipe.curriculum
        start = min(round(warmup.synthetic_start * steps / recipe.optimiser.steps), steps - warmup.synthetic_steps)
        args = fitted(recipe, steps, synthetic_start=start)
        return args, (f"recipe: {describe(args)} fitted to {steps:,} steps (the warm-up kept whole, the snapshots "
                      f"scaled from {recipe.optimiser.steps:,} steps), on {_threads(args)}")
    plain = build(False)
    args = fitted(plain, steps)
    return args, (f"recipe: the plain text-only recipe, {steps:,} steps on {_threads(args)}: the curriculum's "
                  f"{recipe.curriculum.synthetic_steps:,}-step warm-up needs a run of at least {need:,} steps to keep it")


def fitted(args: TrainSettings, steps: int, **changes) -> TrainSettings:
    """`args` made `steps` long, its snapshots scaled alike."""
    snapshots = scaled_snapshots(args.output.snapshots, steps / args.optimiser.steps, steps)
    return args.replaced(steps=steps, snapshots=snapshots, **changes)


def recipe_line(args: TrainSettings) -> str:
    """The line for a run whose steps were not fitted."""
    return f"recipe: {describe(args)}, {args.optimiser.steps:,} steps on {_threads(args)}"
