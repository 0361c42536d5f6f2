"""A folder replaced whole, never half-written: the new one is written beside it (same parent, so
a rename moves it), checked, then swapped in by one rename. Ctrl-C (SIGINT) or SIGTERM at any
moment, or a failure, leaves the previous folder exactly as it was (or, once the swap is done,
the new one) and none of the folders this made: neither the one written beside the target nor
the target's missing parents. `python -m export` and `python -m export.ship` replace model
folders this way; site_builder/output_folder.py does the same for the built site."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import signal
import sys
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path

from train.files import UserError

_UMASK = os.umask(0)
os.umask(_UMASK)
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupts:
    """While active (`with Interrupts():` in the main thread), SIGINT and SIGTERM raise
    KeyboardInterrupt, except inside `held()`, where they wait for the section's end. The
    KeyboardInterrupt raised holds every later signal, so that the clean-up it sets off cannot be
    cut short by a second Ctrl-C; once `committed()` (the new folder is in place), a signal has
    nothing left to stop and the run finishes."""

    def __init__(self):
        self._depth, self._pending, self._unwinding, self._committed = 0, False, False, False
        self._previous = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = {s: signal.signal(s, self._on_signal) for s in SIGNALS}
        return self

    def __exit__(self, *exc):
        # Once the new folder is in place the run has nothing left to stop: a signal arriving
        # between here and the process's exit would otherwise turn a finished run into a traceback.
        for number, handler in self._previous.items():
            signal.signal(number, signal.SIG_IGN if self._committed else handler)
        self._previous = {}

    def _on_signal(self, number, frame):
        if self._depth or self._unwinding or self._committed:
            self._pending = True
            return
        self._unwinding = True
        raise KeyboardInterrupt

    @contextmanager
    def held(self):
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
        if not self._depth and self._pending and not (self._unwinding or self._committed):
            self._unwinding = True
            raise KeyboardInterrupt

    def commit(self) -> None:
        self._committed = True

    @property
    def was_committed(self) -> bool:
        return self._committed


def _exchange(a: Path, b: Path) -> bool:
    """Swaps two paths in one step (Linux's renameat2 RENAME_EXCHANGE); False where the system
    or the file system has no such call."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def swap_in(new: Path, target: Path) -> Path | None:
    """`new` becomes `target`; returns where the previous `target` now is (None if there was none)."""
    if not target.exists():
        new.rename(target)
        return None
    if _exchange(new, target):
        return new
    # Two renames where there is no exchange: a reader may meet no folder for that instant.
    old = new.with_name(new.name + "-old")
    target.rename(old)
    new.rename(target)
    return old


def real_target(target) -> Path:
    """The folder a symbolic link points to (the link itself would be renamed away, and then
    point to the new folder anyway)."""
    target = Path(target)
    return target.resolve() if target.is_symlink() else target


def missing_parents(target: Path) -> list[Path]:
    """The folders above `target` that do not exist yet, deepest first."""
    return [p for p in Path(target).absolute().parents if not p.exists()]


def remove_empty(folders: list[Path]) -> None:
    for folder in folders:  # deepest first
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


@contextmanager
def replacing_folder(target: Path, interrupts: Interrupts, verify):
    """An empty folder beside `target` to write into. When the block ends, `verify(folder)` checks
    it (raising to refuse it) and it is swapped in for `target`; whatever happens, the folder
    written beside, the previous `target` and the parents made for it are gone afterwards (a
    parent only if it is empty)."""
    target = real_target(target)
    made, work, old = [], None, None
    try:
        with interrupts.held():
            made = missing_parents(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
            work.chmod(0o777 & ~_UMASK)  # mkdtemp's 0700 would hide the model from a web server
        yield work
        verify(work)
        with interrupts.held():
            old = swap_in(work, target)
            interrupts.commit()
    finally:
        with interrupts.held():
            for folder in (work, old):
                if folder is not None:
                    shutil.rmtree(folder, ignore_errors=True)
            remove_empty(made)


def run_replacing(work, interrupted: str) -> int:
    """A command's body (`work(interrupts)`) with the project's exits: a UserError is one
    `error:` line and 2; Ctrl-C before the swap says `interrupted` (what is as it was) and 130."""
    try:
        with Interrupts() as interrupts:
            work(interrupts)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(interrupted, file=sys.stderr)
        return 130
    return 0
