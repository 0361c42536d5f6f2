"""Recipes: named files of training settings in train/recipes/ (<name>.toml), chosen by name
(`make model RECIPE=plain`, `python -m train --recipe plain`) and recorded by name in the
checkpoint (its settings' `recipe`) and in meta.json (`recipe`). A file holds only what it
changes from the trainer's defaults, each setting under its group's table ([model], [optimiser],
[data], [curriculum], [output]; seed and threads at the top); the texts and where the run writes
belong to the run, not to a recipe. Flags given beside a recipe win over its settings.

`python -m train.recipe_files NAME` prints a recipe's settings as flags: make model's export
check reads the model's shape from them."""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

from attention_live.meta_schema import SCHEMA
from train.files import UserError
from train.model import ModelConfig
from train.settings import GROUPS, TrainSettings

RECIPES = Path(__file__).parent / "recipes"
# The recipe of a run that names none: the trainer's defaults, no curriculum.
PLAIN = "plain"
TABLES = {"model": ModelConfig, **GROUPS}
TOP = ("seed", "threads")
RUN_NOT_RECIPE = {"corpus", "companions", "out", "interrupt_at"}


# What a recipe may be called: what meta.json's schema allows for the name it records (plain
# words, which `make model RECIPE=name` also passes through the shell unquoted).
NAME = re.compile(SCHEMA["properties"]["recipe"]["pattern"])


def names(folder: Path = RECIPES) -> list[str]:
    return sorted(path.stem for path in folder.glob("*.toml") if NAME.search(path.stem))


def load(name: str, folder: Path = RECIPES) -> dict:
    """The settings recipe `name` changes, by setting name ('' is the plain recipe)."""
    name = name.strip() or PLAIN
    if name not in names(folder):
        raise UserError(f"--recipe {name!r} is not a recipe: choose {', '.join(names(folder))} (train/recipes/NAME.toml), "
                        "and give single settings as flags (make: TRAIN_FLAGS=).")
    path = folder / f"{name}.toml"
    shown = Path("train/recipes") / path.name if folder == RECIPES else path
    try:
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{shown} is not readable TOML ({exc}).")
    settings = {}
    for key, value in tables.items():
        if key in TOP:
            settings[key] = value
            continue
        if not isinstance(value, dict) or key not in TABLES:
            raise UserError(f"{shown}: {key!r} is neither a group ({', '.join(TABLES)}) "
                            f"nor {' or '.join(TOP)}.")
        own = {f.name for f in fields(TABLES[key])} - RUN_NOT_RECIPE
        for setting, given in value.items():
            if setting not in own:
                raise UserError(f"{shown}: [{key}] has no setting {setting!r} a recipe can set "
                                f"(it has {', '.join(sorted(own))}).")
            if not isinstance(given, (str, int, float)):
                raise UserError(f"{shown}: [{key}] {setting} is a {type(given).__name__}; a setting is one value.")
        settings.update(value)
    return settings


# Settings that, given as a flag beside a recipe, replace another of the recipe's settings as well
# as their own: a list of layer 1's slopes says each slope itself, so the recipe's scale for them
# gives way (else the two would be refused together, and the recorded scale would be untrue).
REPLACES = {"layer1_slopes": "layer1_slope_scale"}


def giving_way(settings: dict, given: Callable[[str], object]) -> dict:
    """A recipe's `settings` without those that the flags beside it replace; `given(name)` is
    setting `name` as those flags set it (a false value: not set)."""
    replaced = {other for name, other in REPLACES.items() if given(name)}
    return {name: value for name, value in settings.items() if name not in replaced}


def as_flags(settings: dict) -> list[str]:
    """Settings as `python -m train` flags, to go before the flags given beside them (which win)."""
    return [f"--{name.replace('_', '-')}={value}" for name, value in settings.items()]


def as_written(name: str) -> TrainSettings:
    """Recipe `name`'s settings with nothing given beside it."""
    settings = load(name)
    own = {f.name for f in fields(ModelConfig)}
    model = ModelConfig(**{k: settings.pop(k) for k in list(settings) if k in own})
    return TrainSettings.of(**settings, model=model, recipe=name)


def recorded(train_args: dict) -> str | None:
    """The recipe a checkpoint's settings started from: the name they record; for a checkpoint
    written before recipes had names, the recipe whose settings it ran with exactly (the texts
    and paths aside); else None, for settings that no recipe file holds."""
    if train_args.get("recipe"):
        return train_args["recipe"]
    try:
        ran = TrainSettings.from_dict(train_args).to_dict()
    except (TypeError, ValueError):
        return None
    ignored = RUN_NOT_RECIPE | {"recipe"}
    for name in names():
        written = as_written(name).to_dict()
        if all(ran[key] == written[key] for key in written if key not in ignored):
            return name
    return None


if __name__ == "__main__":
    try:
        print(" ".join(as_flags(load(sys.argv[1] if len(sys.argv) > 1 else ""))))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
