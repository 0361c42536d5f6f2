"""The build's output folder: which folder --out may name, and how a finished build replaces it
whole (written beside it, then swapped in by two renames in the same parent folder), so that a
reader never meets half a site and a build that fails leaves the previous one as it was."""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from site_builder.offline_manifest import SERVICE_WORKER


class OutputFolderError(RuntimeError):
    pass


def check(out: Path) -> None:
    """--out may be new, empty, or an earlier build (it has sw.js), which the new build replaces
    whole (a stale file would be served, and listed in the worker's manifest). Anything else is
    refused: a mistyped --out never deletes anything."""
    if not out.exists():
        return
    if not out.is_dir():
        raise OutputFolderError(f"{out} is not a folder")
    if any(out.iterdir()) and not (out / SERVICE_WORKER).is_file():
        raise OutputFolderError(f"{out} is not empty and holds no earlier site build ({SERVICE_WORKER}); "
                                "choose an empty or new folder")


@contextmanager
def replacing(out: Path):
    """An empty folder beside `out` to build into; it becomes `out` when the block ends without
    an error, and is removed when it raises."""
    check(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        work.chmod(0o755)  # mkdtemp's 0700 would hide the site from a web server's own user
        yield work
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        if out.exists():
            out.rename(old)
        work.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
