"""Where the model's files are: the folder shipped in the wheel (`_assets/model/`), the
repository's `static/model/` when the package runs from a source checkout, or any folder that
`python -m export` wrote. A folder is checked before anything loads, so a wrong path is one
sentence, not an onnxruntime traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

from attention_live import integrity, meta_schema
from attention_live.errors import ModelError

PACKAGE = Path(__file__).resolve().parent
ASSETS = PACKAGE / "_assets"  # written by `make wheel` into the wheel only, never committed
# The site's static/ folder as site_builder/build.py writes it: the element, its runtime files and the
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
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise ModelError(f"the model's folder must be a path (a string or a Path), not {type(path).__name__}")
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
    except OSError as err:
        raise ModelError(f"{folder / 'meta.json'} cannot be read ({err.strerror or err})")
    try:
        meta_schema.check_meta(meta)
    except meta_schema.MetaInvalid as err:
        raise ModelError(f"{folder / 'meta.json'}: {err}") from None
    config = meta.get("config") if isinstance(meta, dict) else None
    needed = ("n_layer", "n_head", "n_ctx", "vocab_size")
    if not isinstance(config, dict) or any(not _count(config.get(k)) for k in needed):
        raise ModelError(f"{folder / 'meta.json'} has no model config ({', '.join(needed)}): it is not an exported model's")
    bad = _bad_head_record(meta.get("heads"), config)
    if bad:
        raise ModelError(f"{folder / 'meta.json'} has a broken list of heads ({bad}): export the model again")
    return meta


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _bad_head_record(heads, config: dict) -> str | None:
    """What is wrong with meta.json's `heads` (absent is fine: an old export measured none), or None."""
    if heads is None:
        return None
    if not isinstance(heads, list):
        return f"it is a {type(heads).__name__}, not a list"
    seen = set()
    for n, h in enumerate(heads, 1):
        if not isinstance(h, dict):
            return f"entry {n} is not an object"
        where = (h.get("layer"), h.get("head"))
        if not (_count(where[0]) and _count(where[1]) and where[0] <= config["n_layer"] and where[1] <= config["n_head"]):
            return f"entry {n} names no head of a {config['n_layer']} x {config['n_head']} model"
        if where in seen:
            return f"head {where[0]}.{where[1]} is listed twice"
        seen.add(where)
        if not isinstance(h.get("role"), (str, type(None))):
            return f"head {where[0]}.{where[1]}'s role is not a string"
        for key in ("scores", "example"):
            if not isinstance(h.get(key), (dict, type(None))):
                return f"head {where[0]}.{where[1]}'s {key} is not an object"
    return None


def check_files(folder: Path, meta: dict) -> None:
    """Every file meta.json vouches for is the one it records (attention_live/integrity.py): a
    graph swapped or changed after export would load and compute something else. A file `Model`
    never reads (golden.json, the training timeline) is checked when it is there: a folder copied
    without it still loads, but one that is there must be the one recorded."""
    try:
        integrity.check_files(folder, meta, required=MODEL_FILES)
        pointer = meta.get("timeline")
        if not isinstance(pointer, dict) or (folder / str(pointer.get("manifest"))).is_file():
            integrity.check_timeline(folder, meta)
    except integrity.FolderMismatch as err:
        raise ModelError(str(err)) from None
