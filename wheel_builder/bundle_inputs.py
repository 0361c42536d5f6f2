"""What the notebook widget's bundle (attention_live/frontend/bundle.mjs) reads from node_modules,
without `npm ci`: esbuild's JavaScript API, and the two files (and package.json) of each package
widget.js imports. With the runtime files and esbuild's binary that site_builder/runtime_files.py unpacks
(`make wheel` depends on it, as `make serve` does), that is all the wheel needs from npm: about
0.3 MB beside the 14 MB of runtime files, where a full install is 215 MB. Each package is fetched
by site_builder/runtime_files.py's own `npm pack` at the version and integrity package-lock.json pins,
to the paths `npm ci` gives it, so the bundler resolves the same files either way.

Nothing is fetched when node_modules already has these files (after `npm ci`, or a first run).
When widget.js imports something new, esbuild says "Could not resolve" naming it: add it here."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from site_builder import runtime_files

ROOT = Path(__file__).resolve().parent.parent
# Package -> the files of it the bundle reads (esbuild's metafile lists them); package.json
# is what resolves a bare import such as "onnxruntime-web/wasm" to its file.
BUNDLE_INPUTS = {
    "esbuild": ["package.json", "lib/main.js"],
    "onnxruntime-web": ["package.json", "dist/ort.wasm.bundle.min.mjs"],
    "@huggingface/tokenizers": ["package.json", "dist/tokenizers.mjs"],
}


def missing(node_modules: Path) -> dict[str, list[str]]:
    return {name: files for name, files in BUNDLE_INPUTS.items()
            if not all((node_modules / name / rel).is_file() for rel in files)}


def ensure_bundle_inputs(node_modules: Path) -> None:
    """Unpacks the bundle's inputs that node_modules lacks."""
    wanted = missing(node_modules)
    if not wanted:
        return
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        for name, files in wanted.items():
            runtime_files.fetch(name, lock, files, node_modules, Path(tmp))
