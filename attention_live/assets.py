"""Copies the view's files for a page that embeds it (Sphinx, MkDocs, a MyST or any static site):

    python -m attention_live.assets DEST

DEST then holds attention-view.js (the module a page loads), its modules, its runtime files
(vendor/) and the model (model/), as the site serves them under static/. A page shows the live
view with

    <script type="module" src="DEST/attention-view.js"></script>
    <div><attention-view text="The Queen said" layer="2" head="3"></attention-view></div>

A DEST that exists must be an earlier copy (it is replaced whole); anything else is refused.
Missing parent folders are created.
Nothing partial is written: the copy goes to a sibling folder first and is renamed into place."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from attention_live.folder import EMBED

ENTRY = "attention-view.js"


class AssetsError(Exception):
    pass


def is_copy(folder: Path) -> bool:
    return (folder / ENTRY).is_file() and (folder / "model" / "meta.json").is_file()


def _path(dest) -> Path:
    """`dest` as a Path the file system can take, or AssetsError."""
    if not isinstance(dest, (str, os.PathLike)):
        raise AssetsError(f"the destination must be a folder's path, not {type(dest).__name__}")
    try:
        if "\0" in os.fsdecode(dest):
            raise ValueError("a NUL character")
        os.fsencode(dest)
    except ValueError as err:  # UnicodeEncodeError included: a lone surrogate has no bytes
        raise AssetsError(f"{os.fsdecode(dest)!r} is no path this file system can take ({err})")
    return Path(dest)


def copy_assets(dest: Path) -> Path:
    """Copies the embed files to `dest` (replacing an earlier copy); returns `dest`."""
    if not (EMBED / ENTRY).is_file():
        raise AssetsError(f"the embed files are not built ({EMBED} is missing): install the wheel `make wheel` builds")
    dest = _path(dest)
    if dest.exists() and not dest.is_dir():
        raise AssetsError(f"{dest} is a file: give a folder")
    if dest.is_dir() and any(dest.iterdir()) and not is_copy(dest):
        raise AssetsError(f"{dest} is not empty and holds no earlier copy of the assets: give a new or empty folder")
    # Missing parent folders are made, and removed again if the copy fails.
    made = next((p for p in reversed(dest.absolute().parents) if not p.exists()), None)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        shutil.copytree(EMBED, staging / "files")
        if dest.exists():
            shutil.rmtree(dest)
        (staging / "files").rename(dest)
    except BaseException:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attention_live.assets", description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="the folder to copy into (created; an earlier copy is replaced)")
    args = parser.parse_args(argv)
    try:
        dest = copy_assets(args.dest)
    except (AssetsError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"copied the view's files to {dest}; load {dest / ENTRY} as a module script")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
