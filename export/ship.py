"""`python -m export.ship --model models/NAME --checkpoint models/NAME.pt` (`make ship NAME=...`):
a retrained model becomes the shipped one, static/model/ and checkpoints/alice.pt.

The model folder is checked against its meta.json first (sizes, sha256, the timeline's manifest
and snapshots): an incomplete or edited folder is refused with one line and nothing is touched.
Then the files meta.json vouches for are copied into a new folder beside static/model/, the copy
is checked again and swapped in whole, and the checkpoint, copied beside the shipped one
meanwhile, is renamed over it (export/replace_folder.py). Ctrl-C or a failure at any moment
leaves static/model/ and the checkpoint as they were, or, once the swap is done, both new."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from attention_live.integrity import FolderMismatch, verify_model_folder
from export.checks import check_out_folder
from export.replace_folder import Interrupts, replacing_folder, run_replacing
from train.files import CommandLine, UserError


def copy_synced(source: Path, target: Path) -> None:
    """A copy that is on disk before anything is renamed to point at it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with source.open("rb") as src, target.open("wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
        dst.flush()
        os.fsync(dst.fileno())


def checked(folder: Path, role: str) -> list[str]:
    try:
        return verify_model_folder(folder)
    except FolderMismatch as exc:
        raise UserError(f"{role} {folder} is not a whole model folder: {exc}; nothing was shipped.")


def ship(model: Path, checkpoint: Path, to: Path, checkpoint_to: Path, interrupts: Interrupts) -> list[str]:
    """Replaces `to` with the files of `model` and `checkpoint_to` with `checkpoint`; returns the
    files shipped."""
    if not (model / "meta.json").is_file() or not checkpoint.is_file():
        raise UserError(f"no {model}/meta.json or {checkpoint}: run make model NAME={model.name} first")
    names = checked(model, "the model folder")
    check_out_folder(to)
    if not checkpoint_to.parent.is_dir():
        raise UserError(f"{checkpoint_to.parent} is not a folder: the shipped checkpoint goes there")

    def same_files(copy: Path) -> None:
        if sorted(checked(copy, "the copy")) != sorted(names):
            raise UserError(f"the copy of {model} beside {to} does not list the same files; nothing was shipped.")

    pending = None
    try:
        with replacing_folder(to, interrupts, same_files) as work:
            for name in names:
                copy_synced(model / name, work / name)
            with interrupts.held():
                handle, pending = tempfile.mkstemp(prefix=f".{checkpoint_to.name}.", suffix=".tmp", dir=checkpoint_to.parent)
                os.close(handle)
            copy_synced(checkpoint, Path(pending))
            os.chmod(pending, 0o644)
        # The model is in place now; no signal stops what is left (replace_folder.Interrupts).
        os.replace(pending, checkpoint_to)
        pending = None
    finally:
        with interrupts.held():
            if pending is not None:
                Path(pending).unlink(missing_ok=True)
    return names


def main(argv: list[str] | None = None) -> int:
    p = CommandLine(prog="python -m export.ship", description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, required=True, help="the model folder to ship (models/NAME)")
    p.add_argument("--checkpoint", type=Path, required=True, help="its checkpoint (models/NAME.pt)")
    p.add_argument("--to", type=Path, default=Path("static/model"), help="the shipped model folder (default: %(default)s)")
    p.add_argument("--checkpoint-to", type=Path, default=Path("checkpoints/alice.pt"),
                   help="the shipped checkpoint (default: %(default)s)")
    ns = p.parse_args(argv)

    def work(interrupts: Interrupts) -> None:
        names = ship(ns.model, ns.checkpoint, ns.to, ns.checkpoint_to, interrupts)
        print(f"shipped {ns.model}/ as {ns.to}/ ({len(names)} files, each checked against its meta.json) "
              f"and {ns.checkpoint} as {ns.checkpoint_to}")

    return run_replacing(work, f"ship interrupted: {ns.to}/ and {ns.checkpoint_to} are as they were")


if __name__ == "__main__":
    sys.exit(main())
