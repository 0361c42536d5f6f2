"""The Node the README promises is the Node `npm ci` accepts: package.json's `engines` says it,
and every package package-lock.json pins (the development tools' dependencies included) accepts
its lowest version and the Node running here, so `npm ci` prints no EBADENGINE warning. The
ranges are read by npm's own semver module (the one that warns)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, run_node

ENGINES_JS = """
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
const { semver, lock, wanted } = JSON.parse(readFileSync(0, "utf8"));
const { satisfies, minVersion } = createRequire(import.meta.url)(semver);
const lowest = minVersion(wanted).version;
const refuse = Object.entries(lock.packages)
  .filter(([, p]) => p.engines?.node)
  .flatMap(([name, p]) => [lowest, process.versions.node]
    .filter((v) => !satisfies(v, p.engines.node))
    .map((v) => `${name.replace(/^node_modules\\//, "")}@${p.version} wants node ${p.engines.node}, not ${v}`));
process.stdout.write(JSON.stringify({ lowest, refuse }));
"""


def npm_semver() -> Path:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed")
    root = Path(subprocess.run([npm, "root", "-g"], capture_output=True, text=True, check=True).stdout.strip())
    module = root / "npm" / "node_modules" / "semver"
    if not (module / "package.json").is_file():
        pytest.skip(f"npm's semver module is not at {module}")
    return module


def test_every_locked_package_accepts_the_promised_node():
    package = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))
    wanted = package["engines"]["node"]
    got = run_node(ENGINES_JS, {"semver": str(npm_semver()), "lock": lock, "wanted": wanted})
    assert got["refuse"] == []
    # The README says the same Node as package.json.
    major = got["lowest"].split(".")[0]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"\bNode {major}\b", readme), f"README.md does not say Node {major}"
