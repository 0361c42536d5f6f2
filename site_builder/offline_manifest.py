"""The offline worker's manifest: every built file with its sha256, the version derived from
all of them, and the query parameters a cached page may be asked with. It is written into the
worker script itself (OUT/sw.js = one generated line + the WORKER_SOURCES), so a changed file changes
the worker's bytes, which is what makes a browser install the new version."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from site_builder.precompress import is_copy

ROOT = Path(__file__).resolve().parent.parent
SERVICE_WORKER = "sw.js"
# The worker's source, one concern a file, joined in this order into the one classic script the
# browser installs (no importScripts: what the worker runs is exactly the bytes it was installed from).
WORKER_SOURCES = ("sw.js", "sw_page_versions.js")


def timeline_folder(out: Path) -> str | None:
    """The built path of the model's training timeline ("static/model/timeline/"), if it has one:
    files a reader downloads only by opening the timeline, so the worker never precaches them."""
    meta_path = out / "static" / "model" / "meta.json"
    pointer = json.loads(meta_path.read_text(encoding="utf-8")).get("timeline") if meta_path.is_file() else None
    if not pointer:
        return None
    return "static/model/" + pointer["manifest"].rpartition("/")[0] + "/"


def manifest(out: Path, params: list[str]) -> dict:
    """{"version", "files": {path: sha256}, "lazy": {path: sha256}, "params"} for every file under
    `out` but the worker itself: `files` are precached, `lazy` (the training timeline) only kept
    once a page has fetched them. The version is a hash of all paths and contents: any change to
    any file changes it."""
    lazy_prefix = timeline_folder(out)
    files, lazy = {}, {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        name = path.relative_to(out).as_posix()
        # FILE.br and FILE.gz are FILE in other encodings: the worker fetches FILE and keeps it decoded.
        if name != SERVICE_WORKER and not name.startswith(".") and not is_copy(path):
            kind = lazy if lazy_prefix and name.startswith(lazy_prefix) else files
            kind[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    listed = sorted({**files, **lazy}.items())
    digest = hashlib.sha256("".join(f"{name}\0{sha}\n" for name, sha in listed).encode())
    return {"version": digest.hexdigest()[:16], "files": files, "lazy": lazy, "params": params}


def write_service_worker(out: Path, params: list[str]) -> dict:
    """OUT/sw.js: WORKER_SOURCES behind one generated line, `self.OFFLINE = {version, files, lazy, params}`.
    The manifest lives in the worker script itself, so a changed file changes the worker's
    bytes, which is what makes the browser install the new version (see site_builder/sw.js)."""
    data = manifest(out, params)
    header = f"self.OFFLINE = {json.dumps(data, separators=(',', ':'))};\n"
    source = "".join((ROOT / "site_builder" / name).read_text(encoding="utf-8") for name in WORKER_SOURCES)
    tmp = out / (SERVICE_WORKER + ".tmp")
    tmp.write_text(header + source, encoding="utf-8")
    tmp.replace(out / SERVICE_WORKER)
    return data
