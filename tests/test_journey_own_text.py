"""The README's "Retrain on your own text", run as a reader runs it: its first block of commands,
parsed from README.md and run as written in a fresh clone (only the text's path, the model's
name and the step count are the test's own), on a short story the test writes. Then the model
must be the story's: `make eval NAME=...` scores the story, and every page of the site built on
it says only what is true of it (its own figures, none of another model's sentences).

A fresh clone here is the working tree's files with the repository's bootstrapped .venv and
node_modules linked in (tests/fresh_clone.py): the state the README's first `make` reaches."""

from __future__ import annotations

import hashlib
import html
import json
import re
import shlex

import pytest
from fresh_clone import fresh_clone, run_make
from own_story import STORY

from helpers import ROOT
from train.data import read_corpus

SECTION = "Retrain on your own text"
NAME = "lighthouse"
# Steps for the test's run: the quick command's STEPS, made smaller (the story's held-out figure
# is best near step 50 anyway); what the README says it takes is measured, not tested.
TEST_STEPS = 60
# Names from the shipped model's books and from export/probe_text.txt: none is in the story, so
# any of them on a page is a sentence about another model.
FOREIGN_NAMES = ["Alice", "Queen", "Rabbit", "Hatter", "Duchess", "Gryphon", "Turtle", "Dorothy", "Scarecrow",
                 "Woodman", "Lion", "Mole", "Wendy", "Peter", "Knave"]
# A title, not a sentence about a model: the model card's link to docs/model.md's retrain section.
ALLOWED_MENTIONS = ["Retrain on Alice or on your own text"]
PROBE_TEXT = ROOT / "export" / "probe_text.txt"


def quick_commands() -> list[str]:
    """The commands of the first ```sh block of the README's retrain section, comments removed."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(rf"^## {re.escape(SECTION)}\n(.*?)(?=^## )", readme, re.S | re.M)
    assert section, f"README.md has no section «{SECTION}»"
    block = re.search(r"```sh\n(.*?)```", section.group(1), re.S)
    assert block, f"README.md's «{SECTION}» has no ```sh block"
    lines = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line]


def as_run(command: str, corpus: str) -> str:
    """The command with the test's text, name and steps in place of the README's."""
    words = shlex.split(command)
    readme_corpus = next((w.split("=", 1)[1] for w in words if w.startswith("CORPUS=")), None)
    readme_name = re.search(r"CORPUS=\S*?([^/\s]+)\.txt", " ".join(quick_commands())).group(1)
    out = []
    for word in words:
        if readme_corpus and word == f"CORPUS={readme_corpus}":
            word = f"CORPUS={corpus}"
        word = re.sub(r"^STEPS=\d+$", f"STEPS={TEST_STEPS}", word)
        word = re.sub(rf"^(NAME=|MODEL=models/){re.escape(readme_name)}$", rf"\g<1>{NAME}", word)
        out.append(word)
    return shlex.join(out)


def page_text(path) -> str:
    raw = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", path.read_text(encoding="utf-8"))
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw)))


@pytest.fixture(scope="module")
def journey(tmp_path_factory):
    base = tmp_path_factory.mktemp("journey")
    clone = fresh_clone(base / "attention-live")
    story = base / "texts" / f"{NAME}.txt"
    story.parent.mkdir()
    story.write_text(STORY, encoding="utf-8")
    outputs = {}
    for command in quick_commands():
        command = as_run(command, str(story))
        target = shlex.split(command)[1]
        if target == "serve":  # the build part of `make serve`: the test reads the pages, serves nothing
            command = command.replace("make serve", "make site", 1)
        proc = run_make(clone, command)
        assert proc.returncode == 0, f"{command}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
        outputs[target] = proc
    meta = json.loads((clone / "models" / NAME / "meta.json").read_text(encoding="utf-8"))
    pages = {p.name: page_text(p) for p in sorted((clone / "_site").glob("*.html"))}
    return {"clone": clone, "story": story, "outputs": outputs, "meta": meta, "pages": pages}


def test_the_readme_starts_with_a_quick_retrain():
    targets = [shlex.split(c)[1] for c in quick_commands()]
    assert targets[:1] == ["model"] and {"serve", "eval"} <= set(targets), targets
    assert re.search(r"\bSTEPS=\d+\b", quick_commands()[0]), "the first command is the quick one (STEPS=)"


def test_the_model_is_the_storys(journey):
    meta = journey["meta"]
    assert meta["corpus"]["sha256"] == hashlib.sha256(journey["story"].read_bytes()).hexdigest()
    assert meta["train_args"]["steps"] == TEST_STEPS and meta["metrics"]["steps_run"] <= TEST_STEPS


def test_the_run_says_its_recipe_its_time_and_its_vocabulary_before_training(journey):
    proc, meta = journey["outputs"]["model"], journey["meta"]
    said = proc.stdout + proc.stderr
    recipe = re.search(r"^recipe: .*$", said, re.M)
    estimate = re.search(r"^estimate: about \d+ (seconds|minutes) .*$", said, re.M)
    assert recipe and estimate, said[:2000]
    assert f"{TEST_STEPS} steps" in recipe.group(0) and "plain text-only" in recipe.group(0)
    asked, has = meta["corpus"]["vocab_requested"], meta["config"]["vocab_size"]
    assert asked == 2048 and has < asked
    assert f"vocabulary: asked for {asked:,} tokens, the text supports {has:,}" in proc.stderr
    assert proc.stderr.index("vocabulary:") < proc.stderr.index("training")


def test_eval_scores_the_storys_held_out_text(journey):
    out, meta = journey["outputs"]["eval"].stdout, journey["meta"]
    said = re.search(r"sha256 ([0-9a-f]{64}), held out: its last ([\d,]+) characters", out)
    assert said, out
    assert said.group(1) == meta["corpus"]["sha256"]
    assert int(said.group(2).replace(",", "")) == meta["corpus"]["heldout_chars"]
    bpc = float(re.search(r"this model\s+([\d.]+)", out).group(1))
    assert bpc == pytest.approx(meta["metrics"]["heldout_bpc"], abs=0.002)


def test_eval_refuses_a_corpus_that_is_not_the_models(journey, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text(STORY.replace("lamp", "lantern"), encoding="utf-8")
    proc = run_make(journey["clone"], f"make eval NAME={NAME} CORPUS={other}")
    message = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert proc.returncode != 0 and len(message) == 1, proc.stderr
    assert "is not the text" in message[0] and "CORPUS=" in message[0]


def test_the_model_card_shows_meta_jsons_numbers(journey):
    card, meta = journey["pages"]["model.html"], journey["meta"]
    metrics = meta["metrics"]
    assert f"{meta['n_params']:,} parameters" in card
    assert re.search(rf"model\.onnx {meta['files']['model.onnx']['bytes']:,}\b", card)
    assert f"{metrics['heldout_bpc']:.3f} bits per character" in card
    assert re.search(rf"Steps run [^0-9]*{metrics['steps_run']:,}\b", card)
    assert re.search(rf"Best step [^0-9]*{metrics['best_step']:,}\b", card)
    assert f"trained on {meta['corpus']['name']}" in card


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def test_no_page_calls_it_the_shipped_model(journey):
    wrong = [(name, s) for name, text in journey["pages"].items() for s in sentences(text)
             if "shipped" in s and "make ship" not in s]
    assert wrong == []


def test_no_page_has_another_models_sentences(journey):
    probe_lines = [line.strip() for line in PROBE_TEXT.read_text(encoding="utf-8").splitlines() if len(line) > 40]
    for name, text in journey["pages"].items():
        for allowed in ALLOWED_MENTIONS:
            text = text.replace(allowed, "")
        found = [n for n in FOREIGN_NAMES if re.search(rf"\b{n}\b", text) and not re.search(rf"\b{n}\b", STORY)]
        assert found == [], f"{name} names {found}"
        borrowed = [line for line in probe_lines if line[:40] in text]
        assert not borrowed or "sample text" in text, f"{name} shows the probe text unlabelled: {borrowed[0]}"


def test_example_sentences_are_the_storys_or_labelled_sample_text(journey):
    meta, card = journey["meta"], journey["pages"]["model.html"]
    # Compared with the line breaks as spaces: a page shows a span as one line.
    heldout = " ".join(read_corpus(journey["story"]).heldout_text.split())
    source = meta["head_definitions"]["example_source"]
    examples = [h["example"]["text"] for h in meta["heads"] if h.get("example")]
    assert examples
    if source == "held-out text":
        assert [e for e in examples if " ".join(e.split()) not in heldout] == []
        assert "held-out text" in card
    else:
        assert source.startswith("sample text") and "sample text" in card and "probe_text.txt" in card
    default = meta["default"]
    if default["source"] == "held-out text":
        assert " ".join(default["text"].split()) in heldout
    else:
        assert "sample text" in card or "sentence set" in card
