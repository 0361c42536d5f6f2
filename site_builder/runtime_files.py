#!/usr/bin/env python3
"""The browser runtime files the site copies (build.py VENDOR_FILES) and the bundler it makes the
widget's one module with (build.py BUNDLER_FILE), without `npm ci`: `make serve`
needs four files of onnxruntime-web and the tokenizer (~14 MB), not the 149 MB that a full install
of their packages and dependencies takes (the tests need those; `make test` runs `npm ci`).

Each package is fetched with `npm pack` at the version and integrity package-lock.json pins, and
only the files the site uses are unpacked, to the same paths under node_modules/ that `npm ci`
gives them, so build.py reads them the same way either way.

    python -m site_builder.runtime_files     # then node_modules/.runtime marks them present
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from site_builder.build import BUNDLER_FILE, NODE_MODULES, ROOT, VENDOR_FILES

MARKER = NODE_MODULES / ".runtime"


def package_of(rel: str) -> tuple[str, str]:
    """'@scope/name/dist/x.mjs' -> ('@scope/name', 'dist/x.mjs')."""
    parts = rel.split("/")
    n = 2 if parts[0].startswith("@") else 1
    return "/".join(parts[:n]), "/".join(parts[n:])


def fetch(name: str, lock: dict, files: list[str], into: Path, tmp: Path) -> None:
    entry = lock["packages"][f"node_modules/{name}"]
    proc = subprocess.run(["npm", "pack", f"{name}@{entry['version']}", "--silent", "--pack-destination", str(tmp)],
                          capture_output=True, text=True, cwd=tmp)
    if proc.returncode != 0:
        raise SystemExit(f"error: npm pack {name}@{entry['version']} failed: {proc.stderr.strip()[-300:]}")
    tgz = tmp / proc.stdout.strip().splitlines()[-1]
    algorithm, digest = entry["integrity"].split("-", 1)
    got = base64.b64encode(hashlib.new(algorithm, tgz.read_bytes()).digest()).decode()
    if got != digest:
        raise SystemExit(f"error: {tgz.name} does not have the integrity package-lock.json records")
    with tarfile.open(tgz) as archive:
        for rel in files:
            member = archive.extractfile(f"package/{rel}")
            target = into / name / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(member.read())


def main() -> int:
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    wanted: dict[str, list[str]] = {}
    # The runtime files, and the bundler build.py makes the widget's one module with.
    for rel in [*VENDOR_FILES, BUNDLER_FILE]:
        name, inner = package_of(rel)
        wanted.setdefault(name, []).append(inner)
    with tempfile.TemporaryDirectory() as tmp:
        for name, files in wanted.items():
            fetch(name, lock, files, NODE_MODULES, Path(tmp))
    (NODE_MODULES / BUNDLER_FILE).chmod(0o755)
    MARKER.touch()
    size = sum((NODE_MODULES / rel).stat().st_size for rel in VENDOR_FILES)
    print(f"runtime files: {len(VENDOR_FILES)} files, {size / 1e6:.1f} MB in {NODE_MODULES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
