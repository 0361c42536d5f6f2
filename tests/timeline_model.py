"""Models with a training timeline, made the way a user makes one: a text of our own, trained for
a few dozen steps with the real `python -m train --snapshots ...` and exported with the real
`python -m export` (which writes timeline/ beside the model). Two of them, of other sizes than the
shipped model and with other steps and snapshots, so that what the widget and the pages show
follows each one's own numbers; each is small enough to train in seconds and still has a head
pass a role's threshold during training (with one thread, the same seed gives the same run).
Each is made once per test session (in pytest's base temp folder) and shared by the tests that
need it; a site built on it is too."""

from __future__ import annotations

import json
from pathlib import Path

from other_model import harbour_text, run

from helpers import synthetic_text
from testbed.built_site import build_site

COMMON = ["--vocab-size", "300", "--n-ctx", "64", "--d-model", "32", "--d-ff", "64", "--batch-size", "8",
          "--eval-every", "10", "--patience", "100", "--threads", "1"]
MODELS = {
    # 2 layers x 4 heads, four snapshots before the shipped step 60
    "orchard": (lambda: synthetic_text(2500, seed=3),
                ["--n-layer", "2", "--n-head", "4", "--steps", "60", "--snapshots", "0,10,20,40"]),
    # 1 layer x 4 heads on other text, three snapshots before the shipped step 50
    "lighthouse": (lambda: harbour_text(700, seed=5),
                   ["--n-layer", "1", "--n-head", "4", "--steps", "50", "--snapshots", "0,15,30"]),
}


def timeline_model(base: Path, name: str = "orchard") -> dict:
    """{"corpus", "checkpoint", "model", "meta", "timeline"} of model `name` under `base`, trained
    and exported on the first call."""
    folder = base / f"timeline-{name}"
    paths = {"corpus": folder / f"{name}.txt", "checkpoint": folder / f"{name}.pt", "model": folder / name}
    if not (paths["model"] / "meta.json").is_file():
        text, flags = MODELS[name]
        folder.mkdir(exist_ok=True)
        paths["corpus"].write_text(text(), encoding="utf-8")
        trained = run("train", "--corpus", paths["corpus"], "--out", paths["checkpoint"], *COMMON, *flags)
        assert trained.returncode == 0, trained.stderr[-2000:]
        exported = run("export", "--checkpoint", paths["checkpoint"], "--corpus", paths["corpus"], "--out", paths["model"])
        assert exported.returncode == 0, exported.stderr[-2000:]
    meta = json.loads((paths["model"] / "meta.json").read_text(encoding="utf-8"))
    timeline = json.loads((paths["model"] / meta["timeline"]["manifest"]).read_text(encoding="utf-8"))
    return {**paths, "meta": meta, "timeline": timeline}


def timeline_site(base: Path, name: str = "orchard") -> Path:
    """The site built on model `name` (as `make serve MODEL=...` builds it), once per session."""
    model = timeline_model(base, name)["model"]
    site = base / f"timeline-site-{name}"
    if not (site / "sw.js").is_file():
        build_site(site, "--model", str(model))
    return site
