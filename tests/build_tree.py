"""A copy of what the site build reads, for the tests that build from a tree of their own (a file
missing, an example added): run `python -m site_builder.build` with the copy as its working
directory and it builds from the copy."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import ROOT

SKIP = shutil.ignore_patterns("__pycache__")
# The package's standard-library modules the build checks a model folder and its meta.json with
# (and those its __init__ imports), and the schema they read.
PACKAGE_FILES = ("__init__.py", "errors.py", "heads.py", "integrity.py", "meta_schema.py", "meta.schema.json")


def copy_build_sources(tree: Path) -> Path:
    """site_builder/, static/, examples/ and the package's checks into TREE; node_modules linked."""
    for name in ("site_builder", "static", "examples"):
        shutil.copytree(ROOT / name, tree / name, ignore=SKIP)
    (tree / "attention_live").mkdir()
    for name in PACKAGE_FILES:
        shutil.copy2(ROOT / "attention_live" / name, tree / "attention_live" / name)
    (tree / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    return tree


def fake_repo(tmp_path: Path) -> Path:
    """A fresh folder `repo` under TMP_PATH holding the build's sources, as a clone would."""
    fake = tmp_path / "repo"
    fake.mkdir()
    return copy_build_sources(fake)
