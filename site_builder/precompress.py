"""Precompressed copies of the built files, FILE.br (brotli, quality 11) and FILE.gz (gzip -9),
beside every file worth compressing, so that a server that negotiates Accept-Encoding (make
serve, nginx's gzip_static/brotli_static, Caddy's `precompressed`; docs/hosting.md) sends the
14 MB runtime as ~2.4 MB without compressing anything per request.

Worth compressing: a file of a text or binary type that compresses well (COMPRESSIBLE), of at
least MIN_BYTES (below that the saving is less than one network packet), and a copy is kept only
when it saves at least MIN_SAVING of the file (otherwise a server would send more bytes to decode
for nothing). Each copy is written beside its file under a temporary name, decompressed again
and compared with the original, and only then renamed into place: a build never finishes with a
copy that does not decode to its file.

Brotli at its highest quality takes over a minute on the runtime's wasm on a shared 2-core
machine (all the files: ~3 minutes), and tests build the site many times: every copy is kept in
CACHE by the sha256 of the file it encodes, and reused (after the same check) when that file comes
back, which makes the step ~2 s.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import time
import zlib
from pathlib import Path

import brotli

COMPRESSIBLE = frozenset({".wasm", ".onnx", ".js", ".mjs", ".json", ".html", ".css", ".svg"})
MIN_BYTES = 1024
MIN_SAVING = 0.10
# Content-Coding name -> the suffix of its copy, in the order a server prefers them.
SUFFIXES = {"br": ".br", "gzip": ".gz"}
# The user's cache folder, not the repository's: every clone and checkout on the machine shares it.
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "attention-live" / "precompressed"
# An entry no build has used for this long is removed (every build touches the ones it uses).
CACHE_DAYS = 30


class PrecompressError(RuntimeError):
    pass


# What decoding damaged data raises (gzip: BadGzipFile is an OSError, a cut stream EOFError).
DECODE_ERRORS = (OSError, EOFError, zlib.error, brotli.error)


def encode(data: bytes, coding: str) -> bytes:
    if coding == "br":
        return brotli.compress(data, quality=11)
    # mtime=0 and no file name: the same file gives the same bytes on every build.
    return gzip.compress(data, compresslevel=9, mtime=0)


def decode(data: bytes, coding: str) -> bytes:
    return brotli.decompress(data) if coding == "br" else gzip.decompress(data)


def is_copy(path: Path) -> bool:
    """A precompressed copy of another file beside it (FILE.br next to FILE)."""
    return path.suffix in SUFFIXES.values() and path.with_suffix("").is_file()


def worth_compressing(path: Path) -> bool:
    return path.suffix in COMPRESSIBLE and path.stat().st_size >= MIN_BYTES


def _cached(digest: str, coding: str, data: bytes, cache: Path | None) -> bytes:
    entry = cache / f"{digest}{SUFFIXES[coding]}" if cache else None
    if entry and entry.is_file():
        blob = entry.read_bytes()
        try:
            if decode(blob, coding) == data:
                entry.touch()
                return blob
        except DECODE_ERRORS:
            pass  # a damaged entry is encoded again below and replaced
    blob = encode(data, coding)
    if entry:
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=entry.parent, delete=False, suffix=".tmp") as tmp:
                tmp.write(blob)
            os.replace(tmp.name, entry)  # atomic: builds running at once never read half an entry
        except OSError:
            pass  # a cache that cannot be written (a read-only home) only costs time
    return blob


def _write_checked(target: Path, blob: bytes, coding: str, original: bytes) -> None:
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_bytes(blob)
    try:
        try:
            same = decode(tmp.read_bytes(), coding) == original
        except DECODE_ERRORS:
            same = False
        if not same:
            raise PrecompressError(f"{target.name} does not decompress to {target.with_suffix('').name}")
        # The file's own time, so that every encoding of it answers with the same Last-Modified.
        source = target.with_suffix("").stat()
        os.utime(tmp, ns=(source.st_atime_ns, source.st_mtime_ns))
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def _prune(cache: Path) -> None:
    cutoff = time.time() - CACHE_DAYS * 86400
    try:
        for entry in cache.glob("*") if cache.is_dir() else []:
            if entry.stat().st_mtime < cutoff:
                entry.unlink(missing_ok=True)
    except OSError:
        pass  # another build removed it first, or the cache is not ours to clean


def compress_folder(out: Path, cache: Path | None = CACHE) -> dict[str, dict[str, int]]:
    """Write the checked .br/.gz copies beside every file under `out` worth compressing, and
    remove copies of files that changed or no longer need one. Returns {path: {"raw": bytes,
    "br": bytes, "gzip": bytes}} for the files that got at least one copy."""
    if cache:
        _prune(cache)
    sizes: dict[str, dict[str, int]] = {}
    files = sorted(p for p in out.rglob("*") if p.is_file() and not is_copy(p) and not p.name.endswith(".tmp"))
    for path in files:
        data = path.read_bytes() if worth_compressing(path) else None
        digest = hashlib.sha256(data).hexdigest() if data is not None else ""
        for coding, suffix in SUFFIXES.items():
            target = path.with_name(path.name + suffix)
            blob = _cached(digest, coding, data, cache) if data is not None else None
            if blob is None or len(blob) > (1 - MIN_SAVING) * len(data):
                target.unlink(missing_ok=True)
                continue
            _write_checked(target, blob, coding, data)
            sizes.setdefault(path.relative_to(out).as_posix(), {"raw": len(data)})[coding] = len(blob)
    return sizes
