"""`python -m train --corpus PATH [--companions DIR_OR_FILES ...]`: tokenizer + model in one run,
best checkpoint kept. The corpus's last 10% is the only held-out text; companions only train."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path

from train.checkpoint import load_checkpoint, resume_path
from train.data import read_companions, read_corpus
from train.evaluate import report
from train.files import CommandLine, UserError, ensure_writable_dir
from train.machine import check_machine
from train.model import ModelConfig
from train.recipe import fit_steps, recipe_line
from train.recipe_files import PLAIN, as_flags, giving_way, load, names
from train.run_eta import estimate_line
from train.settings import GROUPS, TrainSettings
from train.trainer import fit

HIDDEN = {"interrupt_at"}  # testing aids, not for users
# Flags whose meaning is not obvious from the name alone.
HELP = {
    "positions": "position scheme: alibi (a per-head distance bias) or learned (a position table)",
    "layer1_slope_scale": "multiply layer 1's ALiBi slopes by this (4: steeper, nearer heads)",
    "layer1_slopes": "layer 1's ALiBi slopes, one per head, e.g. 1,0.25,0.015625,0.00390625 ('': the scale's); "
                     "a recipe's --layer1-slope-scale gives way to it",
    "layer2_slopes": "layer 2's ALiBi slopes, one per head, e.g. 0.25,0.0625,0.00390625,0.00390625 ('': ALiBi's own)",
    "synthetic_steps": "N steps on repeated random sequences only (the induction curriculum)",
    "synthetic_start": "... starting at this step (0: a warm-up)",
    "synthetic_heads": "the heads repeated sequences reach, e.g. 2.4 (a layer named has only those on for them)",
    "synthetic_dropout": "dropout during those steps (the model's --dropout applies after them)",
    "text_heads_off": "heads switched off for a share of the text rows, e.g. 2.4",
    "text_heads_off_frac": "... that share (the other heads then learn text without them)",
    "repeat_embeddings": "frozen: the repeated sequences leave the token embeddings to text; frozen-after-warm-up; train",
    "repeat_source": "random tokens, the start of the row's own text window (text), or text-after-warm-up",
    "repeat_frac": "outside those, the share of each batch that is repeated random sequences",
    "repeat_start": "... from this fraction of the schedule on",
    "repeat_weight": "... with their loss scaled by this",
    "repeat_min_period": "a repeated sequence tiles p random tokens, p at least this (0 = two copies)",
    "repeat_max_period": "... and at most this",
    "early_layer1_slopes": "layer 1's ALiBi slopes for the first --early-layer1-steps steps, e.g. 1,0.25,0.0625,0.015625 "
                           "(the model's own from then on)",
    "early_layer1_steps": "... that many steps",
    "snapshots": "steps whose weights are kept for the training timeline, comma-separated ('' = none)",
}


def _add_flags(p: argparse.ArgumentParser, cls, skip=()) -> None:
    for f in dataclasses.fields(cls):
        if f.name in skip or not isinstance(f.default, (int, float, str)):
            continue
        flag = "--" + f.name.replace("_", "-")
        text = HELP.get(f.name, "") + f" (default: {f.default})"
        p.add_argument(flag, type=type(f.default), default=f.default, dest=f.name,
                       help=argparse.SUPPRESS if f.name in HIDDEN else text.strip())


def parse_args(argv: list[str]) -> argparse.Namespace:
    defaults = TrainSettings()
    p = CommandLine(prog="python -m train", description=__doc__)
    p.add_argument("--corpus", help="any UTF-8 text file (Project Gutenberg boilerplate is stripped)")
    p.add_argument("--companions", nargs="*", default=[], metavar="DIR_OR_FILE",
                   help="more UTF-8 texts (or folders of *.txt) that only ever train")
    p.add_argument("--out", default=defaults.output.out,
                   help="checkpoint to write (default: models/<corpus file name>.pt)")
    p.add_argument("--resume", metavar="CHECKPOINT", help="continue an interrupted run (*.resume.pt)")
    p.add_argument("--recipe", default=PLAIN, metavar="NAME",
                   help=f"the recipe to train: {', '.join(names())} (train/recipes/NAME.toml; make's RECIPE); "
                        "the flags given beside it win over its settings (default: %(default)s)")
    p.add_argument("--fit-steps", type=int, default=0, metavar="N",
                   help="train N steps with the recipe fitted to them, or with the plain text-only recipe when its "
                        "curriculum cannot fit (train/recipe.py has the rule); the run says which")
    p.add_argument("--check", action="store_true",
                   help="check every setting, file and folder, say the recipe and the time it will take, write nothing")
    _add_flags(p.add_argument_group("model (recorded in the checkpoint; export needs no flags)"), ModelConfig)
    _add_flags(p.add_argument_group("run"), TrainSettings, skip={"recipe"})
    for name, group in GROUPS.items():
        _add_flags(p.add_argument_group(name), group, skip={"corpus", "out", "companions"})
    return p.parse_args(argv)


def args_from(ns: argparse.Namespace, recipe: str = PLAIN) -> TrainSettings:
    """The settings the parsed flags give, recorded as started from `recipe`."""
    try:
        model = ModelConfig(**{f.name: getattr(ns, f.name) for f in dataclasses.fields(ModelConfig)})
    except ValueError as exc:
        raise UserError(f"model settings do not fit together: {exc}.")
    named = [f.name for group in (TrainSettings, *GROUPS.values()) for f in dataclasses.fields(group)]
    try:
        return TrainSettings.of(**{name: getattr(ns, name) for name in named if hasattr(ns, name) and name != "recipe"},
                                model=model, recipe=recipe)
    except ValueError as exc:
        raise UserError(f"training settings do not work: {exc}. See `python -m train --help`.")


def check_outputs(out: Path, create: bool = True) -> list[Path]:
    """Every path the run will write, checked before minutes of training rather than after.
    Returns the folders it had to create (removed again if the run writes nothing); with
    create=False it creates none and checks that the nearest existing folder is writable."""
    for path in (Path(out), resume_path(out)):
        if path.is_dir():
            raise UserError(f"--out {path} is a folder; name the checkpoint file to write, e.g. {path}/model.pt.")
        if path.exists() and not path.is_file():
            raise UserError(f"--out {path} exists and is not a regular file; choose another path.")
    folder = Path(out).parent
    created = [p for p in [folder, *folder.parents] if not p.exists()]
    if create:
        ensure_writable_dir(folder)
        return created
    nearest = next(p for p in [folder, *folder.parents] if p.exists())
    if not (nearest.is_dir() and os.access(nearest, os.W_OK | os.X_OK)):
        raise UserError(f"cannot write {out}: {nearest} is not a writable folder. Fix its permissions or choose another.")
    return []


def builder(name: str, argv: list[str]) -> Callable[[bool], TrainSettings]:
    """build(True): recipe `name`'s settings with the flags `argv` beside them (the flags win);
    build(False): the plain recipe's with them (what a run too short for the curriculum trains)."""
    given = parse_args(argv)

    def build(with_recipe: bool) -> TrainSettings:
        chosen = (name.strip() or PLAIN) if with_recipe else PLAIN
        settings = giving_way(load(chosen), lambda setting: getattr(given, setting))
        return args_from(parse_args(as_flags(settings) + argv), chosen)
    return build


def planned_args(ns: argparse.Namespace, argv: list[str]) -> tuple[TrainSettings, str]:
    """The run's settings and the line saying which recipe, fitted to --fit-steps when that is given."""
    build = builder(ns.recipe, argv)
    if ns.fit_steps:
        if ns.fit_steps < 1:
            raise UserError(f"--fit-steps {ns.fit_steps} must be a whole number, at least 1 (make: STEPS=).")
        return fit_steps(build, ns.fit_steps)
    args = build(True)
    return args, recipe_line(args)


def remove_empty(folders: list[Path]) -> None:
    for folder in folders:  # deepest first
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    ns = parse_args(argv)
    args = None
    created: list[Path] = []
    try:
        resume = None
        if ns.resume:
            resume = load_checkpoint(ns.resume)
            if not resume.get("resumable"):
                raise UserError(f"{ns.resume} is a finished checkpoint, not an interrupted run.")
            try:
                args = TrainSettings.from_dict({**resume["train_args"], "interrupt_at": 0})
            except (TypeError, ValueError, KeyError) as exc:
                raise UserError(f"{ns.resume}: its training settings are not readable ({exc}). Start a new run.")
            args = args.with_texts(ns.corpus, ns.companions)
            line = f"resuming: {recipe_line(args)}"
        else:
            if not ns.corpus:
                raise UserError("no corpus given. Pass --corpus PATH (any UTF-8 text file).")
            args, line = planned_args(ns, argv)
            check_machine(args)
        corpus = read_corpus(args.data.corpus)
        companions = read_companions(args.data.companions, corpus)
        if resume:
            recorded = resume["corpus"]
            if recorded["sha256"] != corpus.sha256:
                raise UserError(f"{args.data.corpus} is not the text the interrupted run was training on.")
            if [c["sha256"] for c in recorded.get("companions", [])] != [c.sha256 for c in companions]:
                raise UserError("the companion texts differ from the ones the interrupted run was training on.")
        if ns.check:
            check_outputs(args.checkpoint_path(), create=False)
            print(line)
            print(estimate_line(args, corpus, companions))
            return 0
        created = check_outputs(args.checkpoint_path())  # before minutes of training, not after
        print(line, file=sys.stderr)
        if companions:
            chars = sum(len(c.text) for c in companions)
            print(f"companions: {len(companions)} texts, {chars:,} characters (training only)", file=sys.stderr)
        payload = fit(corpus, args, resume, companions)
    except UserError as exc:
        remove_empty(created)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        saved = resume_path(args.checkpoint_path()) if args else None
        if not (saved and saved.exists()):
            remove_empty(created)
        if saved and saved.exists():
            print(f"\ninterrupted: progress saved to {saved}\ncontinue with: python -m train --resume {saved}",
                  file=sys.stderr)
        else:
            print("\ninterrupted before training began: nothing was written.", file=sys.stderr)
        return 130
    m = payload["metrics"]
    print(f"wrote {args.checkpoint_path()}: {m['n_params']:,} parameters, best step {m['best_step']} of {m['steps_run']}, "
          f"{m['train_seconds']} s, {len(payload.get('snapshots', []))} snapshots")
    print(report(m["heldout_bpc"], m["baselines_bpc"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
