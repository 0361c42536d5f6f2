"""A second, deliberately different model, made the way a user makes one: a text of our own with
no «said» and none of the shipped model's names, trained for a few dozen steps with the real
`python -m train` (3 layers x 2 heads, a 300-token vocabulary, a 64-token context) and exported
with the real `python -m export`. Made once per test session (in pytest's base temp folder) and
shared by the tests that need it."""

from __future__ import annotations

import random
import subprocess
import sys
from itertools import product
from pathlib import Path

from helpers import ROOT

NAME = "harbour"
TRAIN_FLAGS = ["--vocab-size", "300", "--n-ctx", "64", "--n-layer", "3", "--n-head", "2", "--d-model", "32",
               "--d-ff", "64", "--batch-size", "8", "--steps", "40", "--eval-every", "10", "--threads", "1",
               "--snapshots", ""]


def harbour_text(n_sentences: int = 900, seed: int = 1) -> str:
    """Sentences of one pattern over a harbour's people and things, shuffled (no «said»)."""
    people = ["the miller", "a sailor", "the baker", "my cousin", "the tall farmer", "a young weaver"]
    actions = ["carries", "mends", "paints", "sells", "counts", "washes"]
    things = ["the barrel", "a green net", "the lantern", "his boots", "the copper kettle", "a wooden gate"]
    sentences = [f"{who} {act} {what} near {where}." for who, act, what, where in product(people, actions, things, things)]
    random.Random(seed).shuffle(sentences)
    return " ".join(x[0].upper() + x[1:] for x in sentences[:n_sentences]) + "\n"


def run(module: str, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def other_model(base: Path) -> dict[str, Path]:
    """{"corpus", "checkpoint", "model"} under `base`, trained and exported on the first call."""
    folder = base / "other-model"
    paths = {"corpus": folder / f"{NAME}.txt", "checkpoint": folder / f"{NAME}.pt", "model": folder / NAME}
    if (paths["model"] / "meta.json").is_file():
        return paths
    folder.mkdir(exist_ok=True)
    paths["corpus"].write_text(harbour_text(), encoding="utf-8")
    return trained_and_exported(paths, TRAIN_FLAGS)


SHORT_NAME = "mystory"


def short_model(base: Path) -> dict[str, Path]:
    """A model as a first try makes it: a 6 KB text of one's own (no «said»), the default
    vocabulary size asked for, 50 steps, one snapshot before the exported step (the smallest
    timeline there is). {"corpus", "checkpoint",
    "model"} under `base`, trained and exported on the first call."""
    folder = base / "short-model"
    paths = {"corpus": folder / f"{SHORT_NAME}.txt", "checkpoint": folder / f"{SHORT_NAME}.pt", "model": folder / SHORT_NAME}
    if (paths["model"] / "meta.json").is_file():
        return paths
    folder.mkdir(exist_ok=True)
    paths["corpus"].write_text(harbour_text(130, seed=7), encoding="utf-8")
    # The default vocabulary asked for (2,048): a short text runs out of merges well before it.
    flags = ["--vocab-size", "2048", *TRAIN_FLAGS[2: TRAIN_FLAGS.index("--steps")], "--steps", "50", "--eval-every", "10",
             "--threads", "1", "--snapshots", "0"]
    return trained_and_exported(paths, flags)


ONE_LAYER_NAME = "onelayer"


def one_layer_model(base: Path, positions: str = "learned") -> dict[str, Path]:
    """A shape the shipped model's sentences do not fit: one layer of 4 heads (no second layer, no
    composition, no circuit), with ALiBi's distance bias or a learned position table (`positions`),
    a 300-token vocabulary and a 24-wide model. {"corpus", "checkpoint", "model"} under `base`,
    trained and exported on the first call."""
    folder = base / f"one-layer-{positions}-model"
    paths = {"corpus": folder / f"{ONE_LAYER_NAME}.txt", "checkpoint": folder / f"{ONE_LAYER_NAME}.pt",
             "model": folder / ONE_LAYER_NAME}
    if (paths["model"] / "meta.json").is_file():
        return paths
    folder.mkdir(exist_ok=True)
    paths["corpus"].write_text(harbour_text(300, seed=3), encoding="utf-8")
    flags = ["--vocab-size", "300", "--n-ctx", "64", "--n-layer", "1", "--n-head", "4", "--d-model", "24",
             "--d-ff", "48", "--positions", positions, "--batch-size", "8", "--steps", "20", "--eval-every", "10",
             "--threads", "1", "--snapshots", ""]
    return trained_and_exported(paths, flags)


def trained_and_exported(paths: dict[str, Path], flags) -> dict[str, Path]:
    """Train paths["checkpoint"] on paths["corpus"] with `flags`, export it to paths["model"]."""
    trained = run("train", "--corpus", paths["corpus"], "--out", paths["checkpoint"], *flags)
    assert trained.returncode == 0, trained.stderr[-2000:]
    exported = run("export", "--checkpoint", paths["checkpoint"], "--corpus", paths["corpus"], "--out", paths["model"])
    assert exported.returncode == 0, exported.stderr[-2000:]
    return paths
