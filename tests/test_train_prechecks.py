"""What `python -m train` and `make model` settle before training: the machine's limits (threads,
memory for the context), the recipe fitted to a step count (train/recipe.py's rule) and said in
one line with the run's time, a too-short run refused naming the fix, a smaller vocabulary said
and recorded, and `python -m train.evaluate` scoring only the text a model's meta.json records."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pytest

from conftest import ROOT
from helpers import synthetic_text
from train import run_eta
from train.machine import cores
from train.recipe import fit_steps
from train.settings import TrainSettings

# The Makefile's RECIPE, read from the Makefile itself: a recipe's name.
RECIPE = re.search(r"^RECIPE\s*\?=\s*(\S+)$", (ROOT / "Makefile").read_text(), re.M).group(1)


def run(*args, module="train"):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "toy.txt"
    path.write_text(synthetic_text(), encoding="utf-8")
    return path


def refused(proc, *needles, folder):
    message = proc.stderr.strip()
    assert proc.returncode == 2 and "Traceback" not in message, message
    assert message.startswith("error: ") and len(message.splitlines()) == 1, message
    for needle in needles:
        assert needle in message
    assert not folder.exists(), f"{folder} was left behind"


@pytest.mark.parametrize("flags,needles", [
    (["--threads", "100000"], ["--threads 100000", f"--threads {cores()}"]),
    (["--n-ctx", "100000000"], ["--n-ctx 100000000", "available"]),
    (["--text-heads-off", "\u00b2.1", "--text-heads-off-frac", "0.5"], ["text_heads_off", "not layer.head"]),
    (["--synthetic-heads", "\uff12.1"], ["synthetic_heads"]),
    (["--snapshots", "0,\u0661\u0660"], ["snapshots"]),
])
def test_what_the_machine_or_the_syntax_cannot_run_is_refused_first(flags, needles, corpus, tmp_path):
    out = tmp_path / "new" / "m.pt"
    refused(run("--corpus", corpus, "--out", out, "--steps", 2, *flags), *needles, folder=out.parent)


def test_a_run_too_short_for_the_curriculum_names_steps_and_recipe(corpus, tmp_path):
    out = tmp_path / "new" / "m.pt"
    proc = run("--corpus", corpus, "--out", out, f"--recipe={RECIPE}", "--steps", 60)
    refused(proc, "synthetic_steps=300", "STEPS=60", "RECIPE=", folder=out.parent)
    proc = run("--check", "--corpus", corpus, "--out", out, f"--recipe={RECIPE}", "--steps", 60)
    refused(proc, "STEPS=60", folder=out.parent)


def build_from(recipe: str, flags: str = ""):
    from train.__main__ import builder

    return builder(recipe, ["--corpus", "x.txt", *shlex.split(flags)])


def test_the_curriculum_is_fitted_when_its_warm_up_fits_else_the_plain_recipe():
    args, line = fit_steps(build_from(RECIPE), 600)
    assert (args.optimiser.steps, args.curriculum.synthetic_steps, args.threads) == (600, 300, 1)
    assert args.snapshot_steps()[-3:] == [480, 540, 600]  # 2,000, 2,250, 2,500 scaled by 600/2,500
    assert line.startswith("recipe: the induction curriculum") and "600 steps" in line
    args, line = fit_steps(build_from(RECIPE, "--seed 9"), 599)
    plain = TrainSettings.of(corpus="x.txt")
    c = args.curriculum
    assert (args.optimiser.steps, c.synthetic_steps, c.repeat_frac, c.text_heads_off) == (599, 0, 0.0, "")
    assert (args.threads, args.model.dropout, args.seed) == (plain.threads, plain.model.dropout, 9)
    assert line.startswith("recipe: the plain text-only recipe, 599 steps") and "at least 600" in line
    args, _ = fit_steps(build_from("plain"), 300)  # the plain recipe's snapshots scale alike
    assert args.optimiser.steps == 300 and max(args.snapshot_steps()) == 300


def test_a_layer_1_slope_list_beside_the_recipe_replaces_its_scale():
    listed = "1,0.25,0.015625,0.00390625"
    args = build_from(RECIPE, f"--layer1-slopes {listed}")(True)
    assert (args.model.layer1_slopes, args.model.layer1_slope_scale) == (listed, 1.0)
    assert args.model.layer_slopes(0) == [1, 0.25, 0.015625, 0.00390625]
    from train.recipe_files import load

    scale = load(RECIPE)["layer1_slope_scale"]  # the recipe's own scale, kept without the list
    assert scale != 1.0 and build_from(RECIPE)(True).model.layer1_slope_scale == scale


def test_check_says_the_recipe_and_the_time_and_writes_nothing(corpus, tmp_path):
    out = tmp_path / "new" / "m.pt"
    proc = run("--check", "--corpus", corpus, "--out", out, f"--recipe={RECIPE}", "--fit-steps", 200)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("recipe: the plain text-only recipe, 200 steps on 2 threads")
    assert re.fullmatch(r"estimate: about \d+ (seconds|minutes) on 2 idle cores: training \S+ \(200 steps on 2 threads.*", lines[1])
    assert not out.parent.exists()


def test_the_estimate_follows_the_steps_and_the_threads():
    def seconds(**kw):
        return sum(run_eta.planned_seconds(TrainSettings.of(corpus="x.txt", snapshots="", **kw), 1_000, 100_000, False))

    assert seconds(steps=2000) - seconds(steps=1000) == pytest.approx(1000 * run_eta.PACE[("plain", 2)], rel=0.05)
    assert seconds(steps=1000, threads=1) > seconds(steps=1000, threads=2)
    assert run_eta.minutes(130) == "2 minutes" and run_eta.minutes(45) == "40 seconds"


def test_a_smaller_vocabulary_is_said_and_recorded(corpus, tmp_path):
    from train.checkpoint import load_checkpoint

    out = tmp_path / "m.pt"
    proc = run("--corpus", corpus, "--out", out, "--steps", 2, "--n-ctx", 32, "--d-model", 32, "--d-ff", 64,
               "--batch-size", 4, "--threads", 1)
    assert proc.returncode == 0, proc.stderr
    ckpt = load_checkpoint(out)
    has = ckpt["config"]["vocab_size"]
    assert has < 2048 and ckpt["corpus"]["vocab_requested"] == 2048
    assert f"vocabulary: asked for 2,048 tokens, the text supports {has:,}" in proc.stderr


def test_make_model_checks_the_training_flags_first_and_passes_steps(tmp_path):
    for name in ("Makefile", "pyproject.toml", "package.json", "package-lock.json"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    lines = subprocess.run(["make", "-n", "model", "CORPUS=texts/book.txt", "STEPS=80"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout.splitlines()
    check = next(i for i, line in enumerate(lines) if "-m train --check" in line)
    export_check = next(i for i, line in enumerate(lines) if "-m export --check" in line)
    train = next(i for i, line in enumerate(lines) if "-m train " in line and "--check" not in line)
    assert check < export_check < train
    assert "--fit-steps 80" in lines[check] and "--fit-steps 80" in lines[train]
    assert f'--recipe "{RECIPE}"' in lines[train]


def test_evaluate_scores_only_the_recorded_text(tmp_path, corpus):
    meta = tmp_path / "model" / "meta.json"
    meta.parent.mkdir()
    sha = __import__("hashlib").sha256(corpus.read_bytes()).hexdigest()
    meta.write_text(json.dumps({"train_args": {"corpus": str(tmp_path / "gone.txt")},
                                "corpus": {"name": "toy.txt", "sha256": sha}}), encoding="utf-8")
    other = tmp_path / "other.txt"
    other.write_text(synthetic_text(seed=1), encoding="utf-8")
    for args, needles in (([], ["gone.txt", "CORPUS="]), (["--corpus", other], ["other.txt is not the text", "toy.txt"])):
        proc = run("--meta", meta, "--checkpoint", tmp_path / "none.pt", *args, module="train.evaluate")
        refused(proc, *needles, folder=tmp_path / "none")


@pytest.mark.parametrize("shape", ["--n-layer 1 --n-head 4", "--n-layer 3 --n-head 2", "--positions learned"])
def test_a_shape_the_curriculum_does_not_fit_trains_the_plain_recipe(shape):
    args, line = fit_steps(build_from(RECIPE, shape + " --seed 9"), 150)
    c = args.curriculum
    assert (args.optimiser.steps, c.synthetic_steps, c.repeat_frac, c.text_heads_off, args.seed) == (150, 0, 0.0, "", 9)
    assert args.model.layer1_slope_scale == 1.0
    assert line.startswith("recipe: the plain text-only recipe, 150 steps") and "does not fit this model" in line
    assert "1 layers" not in line


def test_the_export_check_counts_one_layer_as_one(corpus, tmp_path):
    proc = run("--check", "--corpus", corpus, "--out", tmp_path / "m", "--", "--n-layer", "1", "--n-head", "1", module="export")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("the flags are valid for 1 layer x 1 head"), proc.stdout
