"""A recipe fitted to a step count (`make model STEPS=N`, `python -m train --fit-steps N`), and the
one line that says, before training, which recipe a run trains with.

The rule. The run becomes N steps long, and the steps that mark points of it scale by N / the
recipe's steps: the snapshots and the start of the warm-up. The warm-up's length does not
scale: in the shipped run (2,500 steps, 300 of them on repeated random sequences first) the
induction head was still absent at step 200 and had formed by step 350 (its timeline), so a
shortened warm-up would grow nothing and only take steps from the text. The curriculum is kept
when its warm-up fills at most half of the N steps (N >= 600 for the shipped recipe); below
that the run is the plain text-only recipe, exactly what `make model RECIPE=` trains (the
trainer's defaults and the flags given after the recipe), N steps, its snapshots scaled alike."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from train.files import UserError
from train.settings import TrainArgs, parse_steps

# The largest share of a fitted run the warm-up may take: the rest must be text.
WARMUP_SHARE = 0.5


def has_curriculum(args: TrainArgs) -> bool:
    return bool(args.synthetic_steps or args.repeat_frac or args.text_heads_off.strip())


def minimum_steps(args: TrainArgs) -> int:
    """The fewest steps the recipe's curriculum can be fitted to."""
    return int(args.synthetic_steps / WARMUP_SHARE + 0.5)


def scaled_snapshots(spec: str, factor: float, steps: int) -> str:
    """Each snapshot step times `factor`, rounded, those within the run, each once."""
    return ",".join(str(s) for s in sorted({round(step * factor) for step in parse_steps(spec)}) if s <= steps)


def _threads(args: TrainArgs) -> str:
    return f"{args.threads} thread{'s' * (args.threads != 1)}"


def describe(args: TrainArgs) -> str:
    """What the run trains, in a phrase: the plain recipe or the curriculum's shape."""
    if not has_curriculum(args):
        return "the plain text-only recipe"
    parts = []
    if args.synthetic_steps:
        where = "first" if args.synthetic_start == 0 else f"from step {args.synthetic_start:,}"
        parts.append(f"{args.synthetic_steps:,} steps on repeated random sequences {where}")
    if args.repeat_frac:
        parts.append(f"{round(args.repeat_frac * args.batch_size)} of {args.batch_size} rows repeated")
    if args.text_heads_off.strip():
        parts.append(f"heads {args.text_heads_off} off for {args.text_heads_off_frac:.0%} of the text rows")
    return f"the induction curriculum ({', '.join(parts)})"


def fit_steps(build: Callable[[bool], TrainArgs], steps: int) -> tuple[TrainArgs, str]:
    """(the run's settings, the line that says which recipe) for a run of `steps` steps.
    `build(True)` is the recipe with the flags given after it, `build(False)` the flags alone."""
    try:
        recipe = build(True)
    except UserError as exc:
        # The curriculum names heads and ALiBi settings of the shipped shape; a model of another
        # shape or position scheme trains the plain recipe, as RECIPE= would (the flags' own errors still stop it).
        plain = build(False)
        reason = re.sub(r"^[^:]*: | See `python -m train --help`\.$", "", str(exc)).rstrip(".")
        args = dataclasses.replace(plain, steps=steps,
                                   snapshots=scaled_snapshots(plain.snapshots, steps / plain.steps, steps))
        return args, (f"recipe: the plain text-only recipe, {steps:,} steps on {_threads(args)}: the curriculum does "
                      f"not fit this model ({reason})")
    factor = steps / recipe.steps
    if not has_curriculum(recipe):
        args = dataclasses.replace(recipe, steps=steps, snapshots=scaled_snapshots(recipe.snapshots, factor, steps))
        return args, f"recipe: {describe(args)}, {steps:,} steps on {_threads(args)}"
    need = minimum_steps(recipe)
    if steps >= need:
        start = min(round(recipe.synthetic_start * factor), steps - recipe.synthetic_steps)
        args = dataclasses.replace(recipe, steps=steps, synthetic_start=start,
                                   snapshots=scaled_snapshots(recipe.snapshots, factor, steps))
        return args, (f"recipe: {describe(args)} fitted to {steps:,} steps (the warm-up kept whole, the snapshots "
                      f"scaled from {recipe.steps:,} steps), on {_threads(args)}")
    plain = build(False)
    args = dataclasses.replace(plain, steps=steps,
                               snapshots=scaled_snapshots(plain.snapshots, steps / plain.steps, steps))
    return args, (f"recipe: the plain text-only recipe, {steps:,} steps on {_threads(args)}: the curriculum's "
                  f"{recipe.synthetic_steps:,}-step warm-up needs a run of at least {need:,} steps to keep it")


def recipe_line(args: TrainArgs) -> str:
    """The line for a run whose steps were not fitted."""
    return f"recipe: {describe(args)}, {args.steps:,} steps on {_threads(args)}"
