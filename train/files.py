"""File helpers shared by training and export: atomic writes, hashes, user-facing errors."""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
from pathlib import Path

_UMASK = os.umask(0)
os.umask(_UMASK)


class UserError(Exception):
    """A problem the user can fix (bad input file, unwritable folder): printed without a traceback."""


class CommandLine(argparse.ArgumentParser):
    """argparse with the project's answer to a bad flag: one `error:` line and exit 2, without
    the usage block argparse prints first (`--help` still shows it)."""

    def error(self, message: str):
        self.exit(2, f"error: {self.prog}: {message}\n")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    return sha256_bytes(Path(path).read_bytes())


def ensure_writable_dir(folder: Path) -> Path:
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create output folder {folder}: {exc.strerror}. Choose another folder.")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"output folder {folder} is not writable. Fix its permissions or choose another.")
    return folder


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder and rename, so readers never see half a file."""
    path = Path(path)
    ensure_writable_dir(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp's 0600 would hide the files from a web server
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
