"""`make wheel` needs only what it zips: the Makefile's target asks for the `wheel` dependency group
and the runtime files, not the test group or `npm ci`, and the widget's bundle builds from a
node_modules holding nothing but the runtime files, esbuild's binary and the few files
wheel_builder/bundle_inputs.py fetches, into the very bytes a full install gives."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT
from site_builder import build  # the runtime files and the bundler's binary
from wheel_builder import bundle_inputs

pytestmark = pytest.mark.slow


def test_the_wheel_target_asks_for_no_test_tools():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (prerequisites,) = re.findall(r"^wheel:(.*)$", makefile, flags=re.M)
    assert prerequisites.split() == ["$(call", "GROUP,wheel)", "$(RUNTIME)"]
    groups = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (wheel_group,) = re.findall(r"^wheel = \[(.*?)^\]", groups, flags=re.M | re.S)
    assert re.findall(r'^ *"([\w-]+)', wheel_group, flags=re.M) == ["setuptools"] and 'include-group = "site"' in wheel_group


def bundle(root, out):
    env = {**os.environ, "ESBUILD_BINARY_PATH": str(root / "node_modules" / build.BUNDLER_FILE)}
    done = subprocess.run(["node", str(root / "attention_live" / "frontend" / "bundle.mjs"), str(out)],
                          cwd=root, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out.read_bytes()


def test_the_bundle_builds_from_the_light_files_alone(tmp_path):
    full = ROOT / "node_modules"
    if not (full / ".installed").exists():
        pytest.skip("needs the full npm install (make test's) to copy the light files from")
    light = tmp_path / "light"
    shutil.copytree(ROOT / "attention_live" / "frontend", light / "attention_live" / "frontend")
    shipped_model = str(ROOT / "static")  # the model folder is no input of the bundle (13 MB)
    shutil.copytree(ROOT / "static", light / "static", ignore=lambda d, names: ["model"] if d == shipped_model else [])
    # esbuild reads the checkout's tsconfig.json (its strictness decides "use strict"): a checkout has it.
    shutil.copy2(ROOT / "tsconfig.json", light / "tsconfig.json")
    # What site_builder/runtime_files.py unpacks, then what bundle_inputs.py adds: nothing else.
    wanted = [*build.VENDOR_FILES, build.BUNDLER_FILE]
    wanted += [f"{name}/{rel}" for name, files in bundle_inputs.BUNDLE_INPUTS.items() for rel in files]
    for rel in wanted:
        (light / "node_modules" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(full / rel, light / "node_modules" / rel)
    assert bundle_inputs.missing(light / "node_modules") == {}
    assert bundle(light, tmp_path / "light.mjs") == bundle(ROOT, tmp_path / "full.mjs")
