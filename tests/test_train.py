"""Training on a small text the test writes: the loss falls, and an interrupted run resumes
to exactly the weights of an uninterrupted one."""

import os
import re
import signal
import subprocess
import sys
import time

import pytest
import torch

from conftest import ROOT
from helpers import synthetic_text
from train.checkpoint import load_checkpoint

TINY = ["--vocab-size", "300", "--n-ctx", "32", "--d-model", "32", "--d-ff", "64",
        "--batch-size", "8", "--eval-every", "5", "--patience", "100", "--threads", "1"]


def train(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "train", *TINY, *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "toy.txt"
    path.write_text(synthetic_text(), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def uninterrupted(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("a") / "toy.pt"
    proc = train("--corpus", corpus, "--out", out, "--steps", 40, *SNAPSHOTS)
    return out, proc


def test_loss_falls_and_report_is_printed(uninterrupted):
    out, proc = uninterrupted
    history = load_checkpoint(out)["metrics"]["history"]
    first, best = history[0][1], min(bpc for _, bpc in history)
    assert best < 0.8 * first, history
    assert "this model" in proc.stdout and "bzip2" in proc.stdout
    assert "training" in proc.stderr  # the tqdm bar
    # ... with the whole run's time left (export included) once an evaluation has been timed.
    assert re.search(r"run_left=\d\d:\d\d", proc.stderr), proc.stderr[-500:]


def test_the_runs_time_left_adds_the_export_in_this_runs_evaluations():
    from train import run_eta

    assert (run_eta.clock(65), run_eta.clock(3725), run_eta.clock(-3)) == ("01:05", "1:02:05", "00:00")
    # Export scales with the timeline's points and with this machine's pace (one evaluation).
    assert run_eta.export_seconds(1.0, 20) == 2 * run_eta.export_seconds(0.5, 20)
    assert run_eta.export_seconds(0.5, 40) > run_eta.export_seconds(0.5, 20) > 0
    assert run_eta.run_left(100, 0.3, 0.5, 20) == run_eta.clock(30 + run_eta.export_seconds(0.5, 20))


def test_checkpoint_is_self_describing(uninterrupted, corpus):
    ckpt = load_checkpoint(uninterrupted[0])
    assert ckpt["config"]["d_model"] == 32 and ckpt["config"]["n_ctx"] == 32
    assert set(ckpt["metrics"]["baselines_bpc"]) == {"gzip-9", "xz", "bzip2"}
    import hashlib
    assert ckpt["corpus"]["sha256"] == hashlib.sha256(corpus.read_bytes()).hexdigest()
    assert not list(uninterrupted[0].parent.glob("*.tmp"))


SNAPSHOTS = ["--snapshots", "0,10,17,25,40"]


def assert_same_snapshots(a: dict, b: dict):
    """Both checkpoints keep the same snapshots: steps, held-out figures and float16 weights."""
    assert [s["step"] for s in a["snapshots"]] == [s["step"] for s in b["snapshots"]]
    for x, y in zip(a["snapshots"], b["snapshots"]):
        assert x["heldout_bpc"] == y["heldout_bpc"]
        assert_same_weights(x["model"], y["model"])


def test_snapshots_are_the_rounded_weights_at_their_steps(uninterrupted):
    ckpt = load_checkpoint(uninterrupted[0])
    assert [s["step"] for s in ckpt["snapshots"]] == [0, 10, 17, 25, 40]
    last = ckpt["snapshots"][-1]
    assert all(v.dtype == torch.float16 for v in last["model"].values() if v.is_floating_point())
    # The last snapshot is the final step; with --patience 100 the best step is that step too.
    if ckpt["metrics"]["best_step"] == 40:
        for k, v in ckpt["model"].items():
            if v.is_floating_point():
                assert torch.equal(v.to(torch.float16), last["model"][k]), k
    bpcs = [s["heldout_bpc"] for s in ckpt["snapshots"]]
    assert bpcs[-1] < bpcs[0]  # the untrained model is the worst


def test_interrupt_and_resume_match_uninterrupted(uninterrupted, corpus, tmp_path):
    out = tmp_path / "toy.pt"
    stopped = train("--corpus", corpus, "--out", out, "--steps", 40, "--interrupt-at", 17, *SNAPSHOTS, check=False)
    assert stopped.returncode == 130
    partial = tmp_path / "toy.resume.pt"
    assert partial.exists() and not out.exists()
    assert "--resume" in stopped.stderr
    train("--resume", partial)
    assert not partial.exists()  # a finished run cleans up after itself
    a, b = load_checkpoint(uninterrupted[0]), load_checkpoint(out)
    assert_same_weights(a["model"], b["model"])
    assert_same_snapshots(a, b)


@pytest.fixture(scope="module")
def longer(corpus, tmp_path_factory):
    """300 steps: long enough (a few seconds) for a signal to land at a random moment mid-run."""
    out = tmp_path_factory.mktemp("long") / "toy.pt"
    train("--corpus", corpus, "--out", out, "--steps", 300, *LONG_SNAPSHOTS)
    return load_checkpoint(out)


LONG_SNAPSHOTS = ["--snapshots", "0,3,50,120,299"]


def start(corpus, out, *extra):
    proc = subprocess.Popen([sys.executable, "-m", "train", *TINY, "--corpus", str(corpus), "--out", str(out),
                             *map(str, extra)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    seen = ""
    deadline = time.monotonic() + 120
    while "step/s" not in seen and "s/step" not in seen and time.monotonic() < deadline:
        seen += proc.stderr.read(16)  # wait for the progress bar: training has begun
    return proc


def assert_same_weights(a, b):
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key


@pytest.mark.parametrize("seed", [1, 2])
def test_real_ctrl_c_at_a_random_moment_resumes_to_identical_weights(corpus, longer, tmp_path, seed):
    """The signal lands wherever it lands (mid-step, mid-evaluation); the saved state is always a
    step boundary, so the resumed run ends bit-identical to an uninterrupted one."""
    import random

    out = tmp_path / "toy.pt"
    proc = start(corpus, out, "--steps", 300, *LONG_SNAPSHOTS)
    time.sleep(random.Random(seed).uniform(0.05, 1.5))
    os.kill(proc.pid, signal.SIGINT)
    rest = proc.communicate(timeout=120)[1]
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal arrived (a very fast machine)")
    assert proc.returncode == 130, rest[-2000:]
    partial = tmp_path / "toy.resume.pt"
    train("--resume", partial)
    assert_same_weights(longer["model"], load_checkpoint(out)["model"])
    assert_same_snapshots(longer, load_checkpoint(out))


def test_sigkill_loses_at_most_one_evaluation_interval(corpus, longer, tmp_path):
    out = tmp_path / "toy.pt"
    partial = tmp_path / "toy.resume.pt"
    proc = start(corpus, out, "--steps", 300, *LONG_SNAPSHOTS)
    deadline = time.monotonic() + 120
    while not partial.exists() and time.monotonic() < deadline:
        time.sleep(0.02)  # the first periodic checkpoint (every --eval-every steps)
    proc.kill()  # SIGKILL: no handler runs, as in a power cut
    proc.wait(timeout=60)
    assert load_checkpoint(partial)["progress"]["step"] % 5 == 0
    # A kill in the middle of an atomic write leaves its temp file; the next run removes it.
    stray = tmp_path / ".toy.resume.pt.k1ll3d.tmp"
    stray.write_bytes(b"half a checkpoint")
    train("--resume", partial)
    assert not stray.exists() and not partial.exists()
    assert_same_weights(longer["model"], load_checkpoint(out)["model"])
    assert_same_snapshots(longer, load_checkpoint(out))


def test_companions_train_and_are_recorded(corpus, tmp_path):
    companion = tmp_path / "extra" / "other.txt"
    companion.parent.mkdir()
    companion.write_text("A grey mole swims across the river. " * 30 + "zzyzx " * 2000, encoding="utf-8")
    out = tmp_path / "toy.pt"
    train("--corpus", corpus, "--companions", companion.parent, "--out", out, "--steps", 5)
    ckpt = load_checkpoint(out)
    import hashlib
    assert ckpt["corpus"]["companions"] == [{"name": "other.txt", "chars": len(companion.read_text()),
                                             "sha256": hashlib.sha256(companion.read_bytes()).hexdigest()}]
    assert ckpt["train_args"]["companions"] == [str(companion.parent)]
    # The tokenizer learned from the companion too: its words are whole tokens.
    from train.tokenizer import load_tokenizer_json
    assert "Ġzzyzx" in load_tokenizer_json(ckpt["tokenizer_json"]).get_vocab()


def test_real_ctrl_c_saves_a_resumable_checkpoint(corpus, tmp_path):
    out = tmp_path / "toy.pt"
    proc = subprocess.Popen([sys.executable, "-m", "train", *TINY, "--corpus", str(corpus), "--out", str(out),
                             "--steps", "100000"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    seen = ""
    deadline = time.monotonic() + 120
    # Wait for the progress bar to show a measured pace (not its first "?step/s"): a step is done.
    while not re.search(r"\d(step/s|s/step)", seen) and time.monotonic() < deadline:
        seen += proc.stderr.read(64)
    os.kill(proc.pid, signal.SIGINT)
    rest = proc.communicate(timeout=120)[1]
    assert proc.returncode == 130, rest[-2000:]
    ckpt = load_checkpoint(tmp_path / "toy.resume.pt")
    assert ckpt["resumable"] and ckpt["progress"]["step"] > 0


def test_evaluate_recomputes_the_recorded_figure(uninterrupted, corpus, tmp_path):
    from train.evaluate import evaluate
    from train.files import UserError

    bpc, baselines = evaluate(uninterrupted[0], corpus)
    metrics = load_checkpoint(uninterrupted[0])["metrics"]
    assert abs(bpc - metrics["heldout_bpc"]) < 1e-9
    assert baselines == metrics["baselines_bpc"]
    other = tmp_path / "other.txt"
    other.write_text(synthetic_text(seed=1), encoding="utf-8")
    with pytest.raises(UserError, match="not the text"):
        evaluate(uninterrupted[0], other)


def test_the_targets_table_holds_the_circuit_bars():
    """`make eval`'s table: the induction bars are bars (>= 0.3, gain >= 1, the composing head's
    switch-off <= 50%), read from meta.json; a model without a circuit has no switch-off row."""
    import json

    from train.evaluate import targets

    meta = json.loads((ROOT / "tests" / "data" / "circuit-model" / "meta.json").read_text(encoding="utf-8"))
    c = meta["circuit"]
    off = next(s for s in c["switch_off"] if (s["layer"], s["head"]) == tuple(c["composes_with"].values()))
    table = targets(meta, 1.8, meta["metrics"]["baselines_bpc"])
    assert re.search(rf"best induction score +{c['induction']:.3f} \(L2H4\) +>= 0\.3 +>= 0\.7\n", table), table
    assert re.search(r"in-context gain, nats/token +[\d.]+ +>= 1 +>= 5\n", table), table
    assert re.search(rf"induction with L{off['layer']}H{off['head']} switched off +{off['induction']:.3f} "
                     rf"\(\d+% of {c['induction']:.3f}\) +<= 50% +report$", table), table
    meta["circuit"] = None
    assert "switched off" not in targets(meta, 1.8, meta["metrics"]["baselines_bpc"])
