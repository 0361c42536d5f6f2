"""What can be said of export's flags before there is a checkpoint (`python -m export --check`,
which `make model` runs before it trains): the view flags against the shape the training run
will give the model, read from the same flags training gets; the head order; the output folder.
A bad flag then costs seconds, not the minutes of training before export would refuse it.

Numbers are ASCII digits only, as the page reads them (static/attention-view/model/head-set.js):
Python's int() and str.isdigit() also take '²' or '１', which no other part of the project does."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from export.replace_folder import real_target
from train.files import UserError

MODEL_MARKER = "meta.json"  # what makes a folder an earlier export, which a new one may replace


def ascii_number(text: str) -> int | None:
    """'12' -> 12; None for anything but ASCII digits ('²', '１', '+1', ' 1', '1_0', '')."""
    return int(text) if isinstance(text, str) and re.fullmatch(r"[0-9]+", text) else None


def parse_head_order(spec: str, n_layer: int, n_head: int) -> dict[int, list[int]]:
    """'2:3,1,2,4' -> {1: [2, 0, 1, 3]}: layer 2's new head 1 is old head 3, and so on (1-based)."""
    orders = {}
    for part in filter(None, spec.split(";")):
        layer_text, colon, heads_text = part.partition(":")
        layer = ascii_number(layer_text)
        heads = [ascii_number(h) for h in heads_text.split(",")]
        if not colon or layer is None or None in heads:
            raise UserError(f"--head-order {spec!r}: write LAYER:H,H,H,H in digits 0-9, e.g. 2:3,1,2,4 (1-based).")
        order = [h - 1 for h in heads]
        if not 1 <= layer <= n_layer or sorted(order) != list(range(n_head)):
            raise UserError(f"--head-order {part!r} is not a permutation of the {n_head} heads of one of {n_layer} layers.")
        orders[layer - 1] = order
    return orders


def training_shape(train_flags: list[str]) -> tuple[int, int]:
    """(n_layer, n_head) of the model that `python -m train` with these flags will train: its
    --n-layer and --n-head where given, else train's defaults (train/model.py ModelConfig)."""
    from train.model import ModelConfig  # torch: only export's own run needs it

    defaults = ModelConfig()
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False, exit_on_error=False)
    parser.add_argument("--n-layer", type=int, default=defaults.n_layer)
    parser.add_argument("--n-head", type=int, default=defaults.n_head)
    try:
        shape, _ = parser.parse_known_args(train_flags)
    except argparse.ArgumentError as err:
        raise UserError(f"the training flags after -- cannot be read: {err}.")
    return shape.n_layer, shape.n_head


def check_view_flags(text: str | None, layer: int | None, head: int | None,
                     n_layer: int | None = None, n_head: int | None = None) -> None:
    """--text/--layer/--head, and against the model's shape where it is known."""
    if text is not None and not text.strip():
        raise UserError("--text is empty; give the sentence the page should open on (or leave it out).")
    for name, value, count, per in (("layer", layer, n_layer, ""), ("head", head, n_head, " per layer")):
        if value is not None and value < 1:
            raise UserError(f"--{name} {value}: layers and heads are numbered from 1.")
        if value is not None and count is not None and value > count:
            what = f"{name}{'s' if count != 1 else ''}{per}"
            raise UserError(f"--{name} {value}: the model will have {count} {what} (training's --n-{name}); "
                            f"give 1 to {count}, or leave --{name} out to let export choose.")


def view_number(text: str) -> int:
    """argparse's type for --layer and --head."""
    number = ascii_number(text)
    if number is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number in digits 0-9")
    return number


def check_out_folder(out: Path) -> None:
    """--out may be new, empty, or an earlier export (it holds meta.json), which a new export
    replaces whole; anything else is refused, so that a mistyped --out never deletes anything.
    Nothing is created: the new folder is written beside it, so its parent must be writable."""
    out = real_target(out)
    if out.exists():
        if not out.is_dir():
            raise UserError(f"--out {out} is a file; give the folder to write the model into.")
        if any(out.iterdir()) and not (out / MODEL_MARKER).is_file():
            raise UserError(f"--out {out} is not empty and holds no model ({MODEL_MARKER}); "
                            "choose a new or empty folder (an earlier export's folder is replaced whole).")
    existing = next((p for p in out.absolute().parents if p.exists()), Path(out.absolute().anchor))
    if not existing.is_dir():
        raise UserError(f"cannot create output folder {out}: {existing} is not a folder. Choose another folder.")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UserError(f"output folder {out} cannot be written: {existing} is not writable. "
                        "Fix its permissions or choose another.")
