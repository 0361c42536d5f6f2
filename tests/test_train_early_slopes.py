"""Layer 1's early slopes (`--early-layer1-slopes`, `--early-layer1-steps`): the run trains with
them until the step named, exactly as a model whose own slopes they were, then with the model's
own; a run interrupted at the switch resumes to the same weights; the checkpoint keeps a model
whose layer 1 has the slopes its config says."""

import pytest
import torch
from test_train import assert_same_snapshots, assert_same_weights, corpus, train  # noqa: F401 (a fixture)

from train.checkpoint import load_checkpoint

OWN, EARLY = "1,0.5,0.25,0.125", "2,1,0.5,0.25"
SWITCHED = ["--layer1-slopes", OWN, "--early-layer1-slopes", EARLY, "--early-layer1-steps", 12,
            "--steps", 30, "--snapshots", "0,10,12,20"]
SLOPES = "blocks.0.attn.alibi_slopes"


def slopes(state) -> list[float]:
    return [round(float(s), 6) for s in state[SLOPES]]


@pytest.fixture(scope="module")
def switched(corpus, tmp_path_factory):  # noqa: F811
    out = tmp_path_factory.mktemp("switched") / "toy.pt"
    train("--corpus", corpus, "--out", out, *SWITCHED)
    return load_checkpoint(out)


def test_layer1_has_the_early_slopes_before_the_switch_and_its_own_after(switched):
    by_step = {s["step"]: slopes(s["model"]) for s in switched["snapshots"]}
    early, own = [float(s) for s in EARLY.split(",")], [float(s) for s in OWN.split(",")]
    assert by_step == {0: early, 10: early, 12: own, 20: own}
    assert slopes(switched["model"]) == own
    assert switched["config"]["layer1_slopes"] == OWN
    assert switched["metrics"]["best_step"] >= 12  # the weights kept had the slopes the config says


def test_the_early_steps_train_as_a_model_with_those_slopes(switched, corpus, tmp_path):  # noqa: F811
    out = tmp_path / "plain.pt"
    train("--corpus", corpus, "--out", out, "--layer1-slopes", EARLY, "--steps", 30, "--snapshots", "0,10")
    plain = load_checkpoint(out)
    for step in (0, 10):
        a = next(s for s in switched["snapshots"] if s["step"] == step)
        b = next(s for s in plain["snapshots"] if s["step"] == step)
        assert_same_weights(a["model"], b["model"])
    later = next(s for s in switched["snapshots"] if s["step"] == 20)["model"]
    assert not torch.equal(later["blocks.0.attn.qkv.weight"], plain["model"]["blocks.0.attn.qkv.weight"])


@pytest.mark.parametrize("at", [7, 12])
def test_a_run_interrupted_before_or_at_the_switch_resumes_to_the_same_weights(switched, corpus, tmp_path, at):  # noqa: F811
    out = tmp_path / "toy.pt"
    stopped = train("--corpus", corpus, "--out", out, *SWITCHED, "--interrupt-at", at, check=False)
    assert stopped.returncode == 130
    train("--resume", tmp_path / "toy.resume.pt")
    resumed = load_checkpoint(out)
    assert_same_weights(switched["model"], resumed["model"])
    assert_same_snapshots(switched, resumed)


@pytest.mark.parametrize("flags, said", [
    (["--early-layer1-steps", 12], "set both or neither"),
    (["--early-layer1-slopes", EARLY], "set both or neither"),
    (["--early-layer1-slopes", "1,2", "--early-layer1-steps", 12], "4 positive numbers"),
    (["--early-layer1-slopes", EARLY, "--early-layer1-steps", 30], "must be below steps=30"),
])
def test_early_slopes_that_cannot_work_stop_the_run_in_one_line(corpus, tmp_path, flags, said):  # noqa: F811
    proc = train("--corpus", corpus, "--out", tmp_path / "toy.pt", "--steps", 30, *flags, check=False)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and lines[-1].startswith("error:") and said in lines[-1], proc.stderr
    assert not list(tmp_path.iterdir())
