"""Recipes by name and the settings in groups (train/settings.py, train/recipe_files.py): the
committed checkpoint still loads (settings, weights, snapshots) and is recognised as the shipped
recipe; a recipe chosen by name trains and is recorded by name in the checkpoint and in meta.json;
a recipe file that cannot work is refused in one line; and docs/model.md's "Adding a curriculum
option", followed step by step on a copy of train/, gives a setting that a recipe sets and a run
records."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
import torch
from other_model import other_model

from conftest import ROOT
from helpers import synthetic_text
from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.files import UserError
from train.recipe_files import as_written, load, names, recorded
from train.settings import TrainSettings
from train.snapshots import snapshot_model

TINY = ["--vocab-size", "300", "--n-ctx", "32", "--d-model", "32", "--d-ff", "64", "--batch-size", "8",
        "--eval-every", "5", "--threads", "1", "--snapshots", ""]


def train(*args, cwd=ROOT, env=None):
    return subprocess.run([sys.executable, "-m", "train", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("recipes") / "toy.txt"
    path.write_text(synthetic_text(), encoding="utf-8")
    return path


def test_the_committed_checkpoint_loads_and_is_the_shipped_recipe():
    path = ROOT / "checkpoints" / "alice.pt"
    ckpt = load_checkpoint(path)
    args = TrainSettings.from_dict(ckpt["train_args"])
    # Every recorded setting reads back into its group under its own name, as recorded.
    assert {k: v for k, v in args.to_dict().items() if k != "recipe"} == ckpt["train_args"]
    assert (args.curriculum.synthetic_heads, args.optimiser.steps, args.output.eval_every) == ("2.4", 2500, 50)
    # Written before recipes had names: it records none, and its settings are the shipped file's.
    assert args.recipe == "" and recorded(ckpt["train_args"]) == "shipped"
    shipped = as_written("shipped").to_dict()
    differ = {k for k in shipped if shipped[k] != args.to_dict()[k]}
    assert differ == {"corpus", "companions", "out", "recipe"}, differ
    model = model_from_checkpoint(ckpt, path)
    assert all(torch.equal(v, ckpt["model"][k]) for k, v in model.state_dict().items())
    x = torch.arange(16).view(1, 16)
    assert ckpt["snapshots"]
    for snapshot in ckpt["snapshots"]:
        logits, _ = snapshot_model(model, snapshot)(x)
        assert torch.isfinite(logits).all(), snapshot["step"]


def test_a_recipe_chosen_by_name_trains_and_is_recorded(corpus, tmp_path):
    out = tmp_path / "m.pt"
    # The shipped recipe on a tiny model: the flags beside it win (a shorter warm-up and period).
    proc = train("--recipe", "shipped", "--corpus", corpus, "--out", out, *TINY, "--steps", 8,
                 "--synthetic-steps", 2, "--repeat-max-period", 16)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "recipe: the induction curriculum (2 steps on repeated random sequences first" in proc.stderr
    recorded_args = load_checkpoint(out)["train_args"]
    assert recorded_args["recipe"] == "shipped" and recorded(recorded_args) == "shipped"
    assert (recorded_args["steps"], recorded_args["synthetic_steps"], recorded_args["repeat_max_period"]) == (8, 2, 16)
    # ... the file's own settings where no flag was given
    assert (recorded_args["seed"], recorded_args["text_heads_off"], recorded_args["repeat_embeddings"]) == (
        2, "2.4", "frozen-after-warm-up")


def test_export_writes_the_recipes_name_into_meta_json(tmp_path_factory):
    from attention_live.meta_schema import MetaInvalid, check_meta

    meta = json.loads((other_model(tmp_path_factory.getbasetemp())["model"] / "meta.json").read_text(encoding="utf-8"))
    assert meta["recipe"] == "plain" == meta["train_args"]["recipe"]  # trained with no --recipe: the plain one
    check_meta(meta)
    check_meta({**meta, "recipe": None})  # a model whose settings no recipe file holds
    with pytest.raises(MetaInvalid, match="recipe"):
        check_meta({**meta, "recipe": "Not a name"})


@pytest.mark.parametrize("text,needles", [
    ("[curriculum]\nsynthetic_stepz = 3\n", ["[curriculum] has no setting 'synthetic_stepz'", "synthetic_steps"]),
    ("[data]\ncorpus = 'book.txt'\n", ["[data] has no setting 'corpus' a recipe can set"]),
    ("[training]\nsteps = 3\n", ["'training' is neither a group", "optimiser"]),
    ("[optimiser]\nsteps = [3]\n", ["steps is a list"]),
    ("steps = 3\n", ["'steps' is neither a group"]),
    ("[optimiser\n", ["not readable TOML"]),
])
def test_a_recipe_file_that_cannot_work_is_refused_naming_what(tmp_path, text, needles):
    (tmp_path / "mine.toml").write_text(text, encoding="utf-8")
    with pytest.raises(UserError) as err:
        load("mine", tmp_path)
    for needle in needles:
        assert needle in str(err.value)


def test_a_name_that_is_no_recipe_is_one_error_line(corpus, tmp_path):
    assert {"plain", "shipped"} <= set(names())
    out = tmp_path / "new" / "m.pt"
    proc = train("--check", "--recipe", "--threads 1 --steps 2500", "--corpus", corpus, "--out", out)
    message = proc.stderr.strip()
    assert proc.returncode == 2 and len(message.splitlines()) == 1, message
    assert message.startswith("error: --recipe '--threads 1 --steps 2500' is not a recipe: choose ") and "shipped" in message
    assert not out.parent.exists()


def docs_steps() -> list[str]:
    """The numbered steps of docs/model.md's "Adding a curriculum option", one string each."""
    text = (ROOT / "docs" / "model.md").read_text(encoding="utf-8")
    section = text.split("### Adding a curriculum option", 1)[1].split("\n#", 1)[0]
    return [" ".join(step.split()) for step in re.split(r"\n\d+\. ", section)[1:]]


def insert(path, before: str, text: str) -> None:
    """`text` inserted in the copy's file at the first line that starts with `before`."""
    source = path.read_text(encoding="utf-8")
    at = source.index("\n" + before) + 1
    path.write_text(source[:at] + text + source[at:], encoding="utf-8")


def test_adding_a_curriculum_option_as_the_docs_say(corpus, tmp_path):
    steps = docs_steps()
    # The places the steps name, in their order: the copy below changes exactly these.
    places = [("`CurriculumSettings` in `train/curriculum_settings.py`", "default that leaves it off"),
              ("`CurriculumSettings.__post_init__`", "`CurriculumSettings.check_against`"),
              ("`train/curriculum.py`", "`args.curriculum.<name>`"),
              ("`--<name-with-dashes>`", "`HELP` in `train/__main__.py`"),
              ("`[curriculum]` in `train/recipes/<recipe>.toml`", "`train_args`"),
              ("`TrainSettings.from_dict` in `train/settings.py`", "as recorded")]
    assert len(steps) == len(places), steps
    for step, named in zip(steps, places):
        assert all(name in step for name in named), (step, named)

    copy = tmp_path / "train"
    shutil.copytree(ROOT / "train", copy, ignore=shutil.ignore_patterns("__pycache__"))
    # 1. a field of CurriculumSettings, with its why, off by default
    insert(copy / "curriculum_settings.py", "    def __post_init__(self):",
           "    # Loss weight of the repeated rows doubled this many times (an example of an option).\n"
           "    example_option: int = 0\n\n")
    # 2. its check, naming it
    insert(copy / "curriculum_settings.py", "    def check_against(",
           "        need(isinstance(self.example_option, int) and self.example_option >= 0,\n"
           "             f\"example_option={self.example_option} must be 0 or more\")\n\n")
    # 3. used in a batch, as args.curriculum.<name>
    insert(copy / "curriculum.py", "    return rows, weights",
           "    weights[-n or len(weights):] *= 2 ** args.curriculum.example_option\n")
    # 4. its line in HELP
    insert(copy / "__main__.py", '    "synthetic_steps":', '    "example_option": "double the repeated rows\' loss weight N times",\n')
    # 5. a recipe sets it under [curriculum]
    (copy / "recipes" / "example.toml").write_text("[curriculum]\nexample_option = 2\nrepeat_frac = 0.25\n", encoding="utf-8")

    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # attention_live from the repository, train/ from the copy
    shown = subprocess.run([sys.executable, "-m", "train", "--help"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=120).stdout
    group = shown.split("\ncurriculum:", 1)[1].split("\n\n", 1)[0]
    assert "--example-option" in group and "double the repeated rows' loss weight N times" in group
    refused = train("--corpus", corpus, "--out", tmp_path / "no" / "m.pt", "--example-option", -1, cwd=tmp_path, env=env)
    assert refused.returncode == 2 and refused.stderr.strip().startswith("error: ") and "example_option=-1" in refused.stderr
    out = tmp_path / "m.pt"
    proc = train("--recipe", "example", "--corpus", corpus, "--out", out, *TINY, "--steps", 3, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    recorded_args = load_checkpoint(out)["train_args"]
    assert (recorded_args["recipe"], recorded_args["example_option"], recorded_args["repeat_frac"]) == ("example", 2, 0.25)
    # 6. a checkpoint from before the option reads back with it off
    old = load_checkpoint(ROOT / "checkpoints" / "alice.pt")["train_args"]
    script = ("import json, sys; from train.settings import TrainSettings; "
              "print(TrainSettings.from_dict(json.loads(sys.stdin.read())).curriculum.example_option)")
    replayed = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, input=json.dumps(old),
                              capture_output=True, text=True, timeout=120)
    assert replayed.stdout.strip() == "0", replayed.stderr[-2000:]
