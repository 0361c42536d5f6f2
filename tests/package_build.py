"""The built wheel for the package's tests: wheel_builder/build_wheel.py (what `make wheel` runs),
built once per test session in a temp folder (never the working tree's build/), and installed
without dependencies into a folder of its own that notebook kernels put first on their path, so
that they import the wheel's files, not the checkout's."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

from wheel_builder.build_wheel import build_wheel


@cache
def _session_folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="attention-live-wheel-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


@cache
def built_wheel() -> Path:
    """The wheel, built once for the whole test session."""
    return build_wheel(_session_folder() / "dist", staging=_session_folder() / "stage")


@cache
def installed_wheel() -> Path:
    """The wheel's files alone (`pip install --no-deps --target`), for a kernel's PYTHONPATH."""
    target = _session_folder() / "installed"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
                    str(built_wheel())], check=True)
    return target
