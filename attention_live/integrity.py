"""A model folder checked against the meta.json it holds: every file meta.json lists (its size
and sha256) and, when the model has a training timeline, the timeline's manifest and every
snapshot graph the manifest lists. Export and `make ship` run it on the folder they are about to
swap in, site_builder/build.py before it builds a site on a folder, and `Model` before it loads one, so
a graph that is not the one meta.json describes (an edited file, an interrupted copy, a
snapshot put in the model's place) is refused by name instead of computing something else.

Standard library only, and importing nothing from the package: site_builder/build.py imports it
where only jinja2 is installed (the package's __init__ loads numpy and onnxruntime only when `Model`
is first asked for)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path, PurePosixPath

META = "meta.json"
AGAIN = "export the model again (or copy the whole folder again)"


class FolderMismatch(ValueError):
    """A model folder whose files are not the ones its meta.json records; the message names the
    first such file."""


def _digest(path: Path) -> tuple[int, str]:
    with path.open("rb") as handle:
        return path.stat().st_size, hashlib.file_digest(handle, "sha256").hexdigest()


def _inside(folder: Path, name) -> Path:
    """folder/name, for a plain relative name (a meta.json cannot point outside its folder)."""
    parts = PurePosixPath(name).parts if isinstance(name, str) else ()
    if not parts or PurePosixPath(name).is_absolute() or any(p in ("", ".", "..") for p in parts):
        raise FolderMismatch(f"{folder / META} lists {name!r}, which is not a file name inside the folder")
    return folder.joinpath(*parts)


def _check(folder: Path, name, size, sha256) -> Path:
    path = _inside(folder, name)
    if not isinstance(size, int) or isinstance(size, bool) or not isinstance(sha256, str):
        raise FolderMismatch(f"{folder / META} records no size and sha256 for {name}")
    if not path.is_file():
        raise FolderMismatch(f"{path} is missing; {folder / META} lists it: {AGAIN}")
    got_size, got_sha = _digest(path)
    if got_size != size:
        raise FolderMismatch(f"{path} is {got_size:,} bytes; {folder / META} records {size:,}: {AGAIN}")
    if got_sha != sha256:
        raise FolderMismatch(f"{path} is not the file {folder / META} records (its sha256 differs): {AGAIN}")
    return path


def read_meta_json(folder: Path) -> dict:
    path = folder / META
    try:
        meta = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise FolderMismatch(f"{path} is missing: {folder} is not a model folder") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise FolderMismatch(f"{path} cannot be read as JSON ({err})") from None
    if not isinstance(meta, dict):
        raise FolderMismatch(f"{path} is not an exported model's meta.json")
    return meta


def check_files(folder: Path, meta: dict, required=None) -> list[str]:
    """The files meta.json lists under `files` (the graph, the tokenizer, the golden outputs).
    With `required` (names), a listed file not among them is checked only if it is there: a
    reader that never opens it may be given a folder without it."""
    files = meta.get("files")
    if not isinstance(files, dict) or not files:
        raise FolderMismatch(f"{folder / META} lists no files: it is not an exported model's")
    for name, record in files.items():
        if required is not None and name not in required and not _inside(folder, name).exists():
            continue
        record = record if isinstance(record, dict) else {}
        _check(folder, name, record.get("bytes"), record.get("sha256"))
    return list(files)


def check_timeline(folder: Path, meta: dict) -> list[str]:
    """The training timeline's manifest and every snapshot it lists ([] for a model without one),
    the manifest first."""
    pointer = meta.get("timeline")
    if not pointer:
        return []
    if not isinstance(pointer, dict):
        raise FolderMismatch(f"{folder / META} has a `timeline` entry without a manifest")
    manifest = pointer.get("manifest")
    path = _inside(folder, manifest)
    if not path.is_file():
        raise FolderMismatch(f"{path} is missing; {folder / META} says the model has a training timeline there: {AGAIN}")
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != pointer.get("sha256"):
        raise FolderMismatch(f"{path} is not the timeline {folder / META} records (its sha256 differs): {AGAIN}")
    try:
        points = json.loads(data)["points"]
        listed = [(p["file"], p["bytes"], p["sha256"]) for p in points if p.get("file") is not None]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise FolderMismatch(f"{path} lists no snapshots that can be read ({type(err).__name__}: {err})") from None
    base = PurePosixPath(manifest).parent
    names = [str(base / file) if isinstance(file, str) else file for file, _, _ in listed]
    total = len(data)
    for name, (_, size, sha256) in zip(names, listed):
        total += _check(folder, name, size, sha256).stat().st_size
    if total != pointer.get("bytes"):
        raise FolderMismatch(f"{folder / META} records {pointer.get('bytes')!r} bytes of timeline; its files hold {total:,}")
    return [manifest, *names]


def verify_model_folder(folder, meta: dict | None = None) -> list[str]:
    """Raises FolderMismatch naming the first file of `folder` that is not what its meta.json
    (or `meta`, that file already read) records; returns every file meta.json vouches for, as
    paths relative to the folder, meta.json itself last."""
    folder = Path(folder)
    meta = read_meta_json(folder) if meta is None else meta
    return [*check_files(folder, meta), *check_timeline(folder, meta), META]
