"""Each bad input: one clear message naming the file, a non-zero exit, and no partial artifact."""

import subprocess
import sys

import pytest
import torch

from conftest import ROOT
from helpers import synthetic_text

CKPT = ROOT / "checkpoints" / "alice.pt"
# Export measures heads on the corpus's held-out part; these failures all happen before it is read.
SOME_CORPUS = ROOT / "README.md"


def run(module, *args):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def assert_clean_failure(proc, *needles, folder):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    message = proc.stderr.strip()
    assert message.startswith("error: ") and len(message.splitlines()) == 1, message
    for needle in needles:
        assert str(needle) in message
    assert not folder.exists(), f"{folder} was left behind"


CORPORA = {
    "missing": (None, "does not exist"),
    "empty": (b"", "is empty"),
    "whitespace": (b"  \n\n \t", "is empty"),
    "binary": (b"\x7fELF\x00\x01\x02" * 500, "binary"),
    "latin1": ("Caf\u00e9 cr\u00e8me, s'il vous pla\u00eet. ".encode("latin-1") * 80, "not valid UTF-8"),
    "too small": (b"Just a few words, far too short to split.", "at least 1000"),
}


@pytest.mark.parametrize("kind", CORPORA)
def test_bad_corpus(kind, tmp_path):
    data, needle = CORPORA[kind]
    corpus = tmp_path / "in" / "book.txt"
    corpus.parent.mkdir()
    if data is not None:
        corpus.write_bytes(data)
    out = tmp_path / "out"
    proc = run("train", "--corpus", corpus, "--out", out / "m.pt", "--steps", 2)
    assert_clean_failure(proc, corpus, needle, folder=out)


def test_no_corpus_given(tmp_path):
    proc = run("train", "--out", tmp_path / "m.pt")
    assert_clean_failure(proc, "--corpus", folder=tmp_path / "none")
    assert not any(tmp_path.iterdir())


@pytest.fixture(scope="module")
def shipped():
    return torch.load(CKPT, map_location="cpu", weights_only=True)


def export(ckpt_path, out, corpus=SOME_CORPUS):
    return run("export", "--checkpoint", ckpt_path, "--out", out, "--corpus", corpus)


def test_corrupt_checkpoint(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(CKPT.read_bytes()[:5000])  # a truncated download
    out = tmp_path / "out"
    assert_clean_failure(export(bad, out), bad, "corrupt", folder=out)


def test_missing_checkpoint(tmp_path):
    out = tmp_path / "out"
    assert_clean_failure(export(tmp_path / "nope.pt", out), "nope.pt", "does not exist", folder=out)


def test_checkpoint_from_another_config(shipped, tmp_path):
    other = {**shipped, "config": {**shipped["config"], "d_model": 64}}
    path = tmp_path / "other.pt"
    torch.save(other, path)
    out = tmp_path / "out"
    assert_clean_failure(export(path, out), path, "do not fit the config", folder=out)


def test_tokenizer_does_not_match_model(shipped, tmp_path):
    from train.files import sha256_bytes
    from train.tokenizer import train_tokenizer

    small = train_tokenizer(synthetic_text(), vocab_size=300).to_str()
    swapped = {**shipped, "tokenizer_json": small, "tokenizer_sha256": sha256_bytes(small.encode())}
    path = tmp_path / "swapped.pt"
    torch.save(swapped, path)
    out = tmp_path / "out"
    assert_clean_failure(export(path, out), path, "tokenizer has", folder=out)


def test_tokenizer_tampered(shipped, tmp_path):
    tampered = {**shipped, "tokenizer_json": shipped["tokenizer_json"].replace('"Ġthe"', '"Ġteh"', 1)}
    path = tmp_path / "tampered.pt"
    torch.save(tampered, path)
    out = tmp_path / "out"
    assert_clean_failure(export(path, out), path, "does not match its recorded hash", folder=out)


def test_output_folder_not_writable(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    proc = export(CKPT, blocker / "model")
    assert_clean_failure(proc, blocker / "model", "cannot create output folder", folder=tmp_path / "none")
    corpus = tmp_path / "toy.txt"
    corpus.write_text(synthetic_text(), encoding="utf-8")
    proc = run("train", "--corpus", corpus, "--out", blocker / "sub" / "m.pt")
    assert_clean_failure(proc, blocker / "sub", "cannot create output folder", folder=tmp_path / "none")


@pytest.mark.parametrize("kind", ["folder", "device"])
def test_corpus_that_is_not_a_file(kind, tmp_path):
    corpus = tmp_path if kind == "folder" else "/dev/null"
    out = tmp_path / "out"
    proc = run("train", "--corpus", corpus, "--out", out / "m.pt", "--steps", 2)
    assert_clean_failure(proc, corpus, "is a folder" if kind == "folder" else "not a regular file", folder=out)


def test_out_naming_a_folder_fails_before_training(tmp_path):
    corpus = tmp_path / "toy.txt"
    corpus.write_text(synthetic_text(), encoding="utf-8")
    taken = tmp_path / "taken"
    taken.mkdir()
    proc = run("train", "--corpus", corpus, "--out", taken, "--steps", 100000)
    assert_clean_failure(proc, taken, "is a folder", folder=tmp_path / "none")
    assert "training" not in proc.stderr.replace("error: ", "")  # no progress bar: it never started


@pytest.mark.parametrize("field,value", [("corpus", "alice.txt"), ("corpus", {"name": 3}), ("metrics", [1, 2])])
def test_checkpoint_with_malformed_records(shipped, tmp_path, field, value):
    path = tmp_path / "malformed.pt"
    torch.save({**shipped, field: value}, path)
    out = tmp_path / "out"
    assert_clean_failure(export(path, out), path, "malformed", folder=out)


def test_config_mismatch_message_is_a_whole_sentence(shipped, tmp_path):
    other = {**shipped, "config": {**shipped["config"], "d_ff": 128}}
    path = tmp_path / "other.pt"
    torch.save(other, path)
    proc = export(path, tmp_path / "out")
    assert_clean_failure(proc, "other shape", "Retrain it.", folder=tmp_path / "out")
    assert proc.stderr.strip().endswith("Retrain it.")


def test_export_with_the_wrong_corpus_leaves_no_folder(tmp_path):
    wrong = tmp_path / "wrong.txt"
    wrong.write_text(synthetic_text(), encoding="utf-8")
    out = tmp_path / "out"
    assert_clean_failure(export(CKPT, out, corpus=wrong), wrong, "not the text", folder=out)


def test_companion_with_heldout_text_is_refused(tmp_path):
    corpus = tmp_path / "book.txt"
    text = synthetic_text(seed=3)
    corpus.write_text(text, encoding="utf-8")
    heldout = text[len(text) - int(len(text) * 0.1):]
    leaky = tmp_path / "companions" / "leaky.txt"
    leaky.parent.mkdir()
    leaky.write_text("An innocent start. " * 50 + heldout[100:141] + " and more words." * 20, encoding="utf-8")
    out = tmp_path / "out"
    proc = run("train", "--corpus", corpus, "--companions", leaky.parent, "--out", out / "m.pt", "--steps", 2)
    assert_clean_failure(proc, leaky, "contains held-out text", folder=out)


@pytest.mark.parametrize("flags,needle", [
    (["--steps", "0"], "steps=0"), (["--steps", "-5"], "steps=-5"), (["--lr", "nan"], "lr=nan"),
    (["--lr", "-1"], "lr=-1"), (["--batch-size", "0"], "batch_size=0"), (["--eval-every", "0"], "eval_every=0"),
    (["--patience", "0"], "patience=0"), (["--warmup-frac", "1"], "warmup_frac"), (["--weight-decay", "inf"], "weight_decay"),
    (["--repeat-frac", "1.5"], "repeat_frac"), (["--synthetic-steps", "2"], "synthetic_steps"),
    (["--repeat-min-period", "9", "--repeat-max-period", "4"], "repeat_min_period"),
    (["--repeat-max-period", "500", "--repeat-min-period", "8"], "n_ctx"), (["--snapshots", "1,x"], "snapshots"),
    (["--layer1-slope-scale", "0"], "layer1_slope_scale"), (["--synthetic-heads", "2.9"], "synthetic_heads"),
    (["--layer2-slopes", "0.25,0.0625,0.015625"], "layer2_slopes"),
    (["--layer1-slopes", "1,0.25,x,0.01"], "layer1_slopes"),
    (["--layer1-slope-scale", "4", "--layer1-slopes", "1,0.25,0.0625,0.01"], "layer1_slope_scale must be 1"),
    (["--text-heads-off-frac", "0.5"], "text_heads_off"), (["--text-heads-off", "2.1", "--text-heads-off-frac", "2"], "text_heads_off_frac"),
    (["--repeat-embeddings", "fixed"], "repeat_embeddings"),
])
def test_bad_training_settings_fail_before_anything_is_written(flags, needle, tmp_path):
    """Every numeric setting is checked with the config, before a folder or a file exists."""
    corpus = tmp_path / "toy.txt"
    corpus.write_text(synthetic_text(), encoding="utf-8")
    out = tmp_path / "new" / "deeper"
    proc = run("train", "--corpus", corpus, "--out", out / "m.pt", "--steps", "2", *flags)
    assert_clean_failure(proc, needle, folder=tmp_path / "new")


def test_train_writes_beside_the_shipped_model_by_default(tmp_path):
    """Without --out a run writes models/<corpus name>.pt, never the shipped checkpoints/alice.pt."""
    from train.settings import TrainSettings

    assert TrainSettings.of(corpus="some/where/alice.txt").checkpoint_path().as_posix() == "models/alice.pt"
    assert TrainSettings.of(corpus="x.txt", out="a/b.pt").checkpoint_path().as_posix() == "a/b.pt"


@pytest.mark.parametrize("module", ["train", "train.evaluate", "train.download", "export", "export.ship"])
def test_a_flag_that_is_no_flag_is_one_line(module, tmp_path):
    """argparse's own refusals (an unknown flag, a number that is not one) as one `error:` line too,
    not a usage block (make model STEPS=abc reaches the trainer as --fit-steps abc)."""
    proc = run(module, "--steps", "abc", "--out", tmp_path / "never")
    assert_clean_failure(proc, folder=tmp_path / "never")
