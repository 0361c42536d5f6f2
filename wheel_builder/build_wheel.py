#!/usr/bin/env python3
"""Build the attention-live wheel: the package's Python modules plus, copied in from their
sources at build time (never committed twice), what it ships:

    attention_live/_assets/embed/        the site's static/ as site_builder/build.py copies it: the
                                         element's modules, its runtime files (vendor/) and
                                         the model (model/)
    attention_live/_assets/widget.mjs    the notebook widget's one bundled module (esbuild)
    attention_live/_assets/state_schema.json the element's state keys with their types and
                                         choices (its state-schema.json), which the widget's
                                         traits are made from

The package is staged under build/wheel/ and built there with the venv's setuptools, so the
working tree never holds a copy of the assets. What it needs is what it zips: the `wheel`
dependency group (jinja2 for site_builder/build.py's copy, setuptools), the runtime files and esbuild's
binary (site_builder/runtime_files.py) and the bundle's few inputs (bundle_inputs.py): no `npm ci`.

    python -m wheel_builder.build_wheel [--out dist/]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from site_builder import build
from wheel_builder.bundle_inputs import ensure_bundle_inputs

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "attention_live"
STAGE = ROOT / "build" / "wheel"


def bundle_widget(out: Path) -> None:
    """The widget's one module, by esbuild's JavaScript API with the binary site_builder/runtime_files.py
    unpacks (no `npm ci`: wheel_builder/bundle_inputs.py fetches the few files it reads)."""
    if not build.ESBUILD.is_file():
        raise SystemExit(f"error: {build.ESBUILD} is missing: `make wheel` unpacks it (site_builder/runtime_files.py)")
    ensure_bundle_inputs(build.NODE_MODULES)
    env = {**os.environ, "ESBUILD_BINARY_PATH": str(build.ESBUILD)}
    subprocess.run(["node", str(PACKAGE / "frontend" / "bundle.mjs"), str(out)], check=True, cwd=ROOT, env=env)


def stage(target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    package = target / "attention_live"
    package.mkdir(parents=True)
    for source in [*PACKAGE.glob("*.py"), PACKAGE / "meta.schema.json"]:  # and what meta.json is checked against
        shutil.copy2(source, package / source.name)
    shutil.copy2(ROOT / "pyproject.toml", target / "pyproject.toml")
    assets = package / "_assets"
    with tempfile.TemporaryDirectory() as tmp:
        build.copy_static(Path(tmp), build.STATIC / "model")
        build.copy_vendor(Path(tmp))
        shutil.copytree(Path(tmp) / "static", assets / "embed", ignore=shutil.ignore_patterns("__pycache__"))
    schema = json.loads((build.STATIC / "attention-view" / "state-schema.json").read_text(encoding="utf-8"))["keys"]
    if [k["key"] for k in schema] != build.page_params() or not schema:
        raise SystemExit("error: the widget's state schema lists no state keys, or not the site's")
    (assets / "state_schema.json").write_text(json.dumps(schema), encoding="utf-8")
    bundle_widget(assets / "widget.mjs")


def build_wheel(out: Path, staging: Path = STAGE) -> Path:
    """Stages the package (under `staging`) and builds its wheel into `out`; returns its path."""
    stage(staging)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # Output only on failure: setuptools warns that the asset folders are data, not packages.
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                               "--wheel-dir", tmp, str(staging)], capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"{done.stdout}{done.stderr}error: pip wheel failed (exit {done.returncode})")
        (wheel,) = Path(tmp).glob("attention_live-*.whl")
        target = out / wheel.name
        shutil.move(str(wheel), target)
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where the wheel goes (default dist/)")
    args = parser.parse_args(argv)
    print(build_wheel(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
