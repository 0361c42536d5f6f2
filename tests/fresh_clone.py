"""A fresh clone of the repository for tests that run its `make` targets as a reader would: the
files git tracks (and new ones it would track), never the git-ignored ones (models/, _site/,
corpus/), in a folder with no ../shared beside it.

The files are copied from the working tree rather than `git clone`d, so that the tree under test
is the one checked (on CI, a clean clone, the two are the same). The environment the README's
first `make` would bootstrap (.venv with its dependency groups, node_modules) is this
repository's, linked entry by entry into folders of the clone's own, with the clone's own
"installed" markers: make then sees the groups installed and installs nothing, and nothing the
clone does touches this repository's markers."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from helpers import ROOT

# What the Makefile's bootstrap rules leave behind (Makefile: PIP_READY, GROUP, NODE, RUNTIME).
VENV_MARKERS = (".pip-groups", ".group-site", ".group-train", ".group-test")
NODE_MARKERS = (".installed", ".runtime")


def tracked_files() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in out.decode("utf-8").split("\0") if name]


def link_entries(source: Path, folder: Path, markers: tuple[str, ...]) -> None:
    """`folder` holding a symlink to each entry of `source` but its markers, and fresh markers."""
    folder.mkdir()
    for entry in source.iterdir():
        if entry.name not in markers:
            (folder / entry.name).symlink_to(entry)
    for marker in markers:
        (folder / marker).touch()


def fresh_clone(dest: Path) -> Path:
    """The repository's tree at `dest` (which must not exist yet), ready for `make`."""
    if not (ROOT / ".venv" / "bin" / "python").exists() or not (ROOT / "node_modules").is_dir():
        raise RuntimeError("the repository's .venv and node_modules are not set up: run `make test` once first")
    dest.mkdir(parents=True)
    for name in tracked_files():
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is not part of it
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    link_entries(ROOT / ".venv", dest / ".venv", VENV_MARKERS)
    link_entries(ROOT / "node_modules", dest / "node_modules", NODE_MARKERS)
    return dest


def run_make(clone: Path, command: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """One shell command as a reader types it, in the clone, with no stdin."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    return subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
