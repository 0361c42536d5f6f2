"""The built wheel for the package's tests: packaging/build_wheel.py (what `make wheel` runs),
built once per test session into a temp folder, and installed without dependencies into a
folder of its own that notebook kernels put first on their path, so that they import the
wheel's files, not the checkout's."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from browser import ROOT


def build_wheel(out: Path) -> Path:
    spec = importlib.util.spec_from_file_location("attention_live_build_wheel", ROOT / "packaging" / "build_wheel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_wheel(out)


def install_target(wheel: Path, target: Path) -> Path:
    """`pip install --no-deps --target TARGET WHEEL`: the wheel's files alone."""
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
                   check=True)
    return target
