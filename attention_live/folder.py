"""Where the model's files are: the folder shipped in the wheel (`_assets/model/`), the
repository's `static/model/` when the package runs from a source checkout, or any folder that
`python -m export` wrote. A folder is checked before anything loads, so a wrong path is one
sentence, not an onnxruntime traceback."""

from __future__ import annotations

import json
from pathlib import Path

from attention_live.errors import ModelError

PACKAGE = Path(__file__).resolve().parent
ASSETS = PACKAGE / "_assets"  # written by `make wheel` into the wheel only, never committed
# The site's static/ folder as site/build.py writes it: the element, its runtime files and the
# model, for pages that embed the view (`python -m attention_live.assets DEST`). The notebook
# widget reads the model and the wasm from here too, so the wheel holds each file once.
EMBED = ASSETS / "embed"
CHECKOUT_MODEL = PACKAGE.parent / "static" / "model"
MODEL_FILES = ("model.onnx", "tokenizer.json", "meta.json")
# What the page also reads: golden.json paints the default sentence while the runtime compiles.
VIEW_FILES = (*MODEL_FILES, "golden.json")


def shipped_model() -> Path:
    """The model that ships with the package."""
    for folder in (EMBED / "model", CHECKOUT_MODEL):
        if (folder / "meta.json").is_file():
            return folder
    raise ModelError(f"no shipped model found in {EMBED / 'model'}: build the package with `make wheel`")


def model_folder(path=None) -> Path:
    """`path` checked to be a model folder (None: the shipped model)."""
    folder = shipped_model() if path is None else Path(path).expanduser()
    if not folder.is_dir():
        raise ModelError(f"{folder} is not a folder: pass the folder that `python -m export` wrote")
    missing = [name for name in MODEL_FILES if not (folder / name).is_file()]
    if missing:
        raise ModelError(f"{folder} is not a model folder: it has no {' and no '.join(missing)}")
    return folder


def read_meta(folder: Path) -> dict:
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ModelError(f"{folder / 'meta.json'} is not valid JSON ({err})")
    config = meta.get("config") if isinstance(meta, dict) else None
    needed = ("n_layer", "n_head", "n_ctx", "vocab_size")
    if not isinstance(config, dict) or any(not isinstance(config.get(k), int) for k in needed):
        raise ModelError(f"{folder / 'meta.json'} has no model config ({', '.join(needed)}): it is not an exported model's")
    return meta
