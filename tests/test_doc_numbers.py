"""The README's and docs/model.md's figures about the shipped model are the ones its meta.json
records (site_builder/doc_numbers.py writes them; this fails when someone ships a model and forgets)."""

import json
import re
import subprocess
import sys

from conftest import ROOT
from site_builder.doc_numbers import BEGIN, END, summary_rows
from site_builder.doc_snippets import names_in, parts


def check(model):
    return subprocess.run([sys.executable, "-m", "site_builder.doc_numbers", "--check", "--model", str(model)],
                          capture_output=True, text=True, cwd=ROOT)


def test_the_generated_figures_are_current():
    proc = check(ROOT / "static" / "model")
    assert proc.returncode == 0, proc.stderr


def test_another_models_figures_are_out_of_date(tmp_path):
    """A model with other figures (here: other held-out and parameter numbers) is not the one the
    documents describe."""
    model = tmp_path / "model"
    model.mkdir()
    meta = json.loads((ROOT / "static" / "model" / "meta.json").read_text(encoding="utf-8"))
    meta["metrics"]["heldout_bpc"] += 0.25
    meta["n_params"] += 1
    (model / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    proc = check(model)
    assert proc.returncode == 1 and "README.md" in proc.stderr and "docs/model.md" in proc.stderr


def test_the_documents_state_no_other_figure_of_the_model():
    """Outside the generated blocks, no figure of the shipped model is written by hand."""
    meta = json.loads((ROOT / "static" / "model" / "meta.json").read_text(encoding="utf-8"))
    m, d = meta["metrics"], meta["default"]
    figures = [f"{m['heldout_bpc']:.3f}", f"{m['heldout_bpc'] / m['baselines_bpc']['bzip2']:.3f}",
               f"{meta['n_params']:,}", f"{d['top_weight']:.0%}", f"{meta['files']['model.onnx']['bytes']:,}"]
    for path in (ROOT / "README.md", ROOT / "docs" / "model.md"):
        text = path.read_text(encoding="utf-8")
        outside = text.split(BEGIN)[0] + text.split(END)[1]
        for figure in figures:
            assert figure not in outside, (path.name, figure)


def test_a_models_induction_circuit_is_a_row_of_its_own_and_absent_without_one():
    """The circuit row states the composing head's switch-off from meta.json (the committed
    circuit model), and a model without a circuit has no such row."""
    meta = json.loads((ROOT / "tests" / "data" / "circuit-model" / "meta.json").read_text(encoding="utf-8"))
    c = meta["circuit"]
    off = next(o for o in c["switch_off"] if (o["layer"], o["head"]) == (c["composes_with"]["layer"], c["composes_with"]["head"]))
    rows = dict(summary_rows(meta))
    row = rows["induction circuit"]
    assert f"L{c['head']['layer']}H{c['head']['head']} reads L{off['layer']}H{off['head']}" in row
    assert f"from {c['induction']:.2f} to {off['induction']:.2f}" in row
    assert f"{off['in_context_gain']:+.2f} nats/token" in row
    meta["circuit"] = None
    assert "induction circuit" not in dict(summary_rows(meta))


def test_the_training_row_names_the_curriculum_only_for_a_model_trained_with_one():
    meta = json.loads((ROOT / "tests" / "data" / "circuit-model" / "meta.json").read_text(encoding="utf-8"))
    args = meta["train_args"]
    row = dict(summary_rows(meta))["training"]
    assert (f"the induction curriculum: {args['synthetic_steps']:,} warm-up steps of repeated random sequences "
            f"with only L2H4 on in its layer, then 2 of {args['batch_size']} rows of each batch") in row
    assert "text rows" not in row  # this model kept every head for text
    args.update(text_heads_off="2.4", text_heads_off_frac=0.75)
    assert "L2H4 off in 75% of the text rows" in dict(summary_rows(meta))["training"]
    args.update(synthetic_steps=0, repeat_frac=0.0)
    assert "curriculum" not in dict(summary_rows(meta))["training"]


# Every way a snippet names a view: keyword arguments (Python, jinja), attributes (HTML) and a query string.
VIEW_PATTERNS = [r"layer=(\d+),\s*head=(\d+)", r'layer="(\d+)"\s+head="(\d+)"', r"[?&]layer=(\d+)&head=(\d+)"]
SNIPPET_DOCS = ["README.md", "docs/embedding.md", "docs/notebooks.md"]


def named_views(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for pattern in VIEW_PATTERNS for a, b in re.findall(pattern, text)]


def test_every_snippet_names_the_view_the_page_opens_on():
    """A snippet an author pastes shows the opening view's head (meta.json `default`), not a head
    typed in by hand that a retrain may have left flat."""
    d = json.loads((ROOT / "static" / "model" / "meta.json").read_text(encoding="utf-8"))["default"]
    seen = 0
    for doc in SNIPPET_DOCS:
        views = named_views((ROOT / doc).read_text(encoding="utf-8"))
        assert views, f"{doc} names no view: the pattern no longer matches its snippets"
        assert set(views) == {(d["layer"], d["head"])}, (doc, views)
        seen += len(views)
    assert seen >= 7  # notebook x2, the API example, embed x2, iframe, macro, books


def test_the_snippets_follow_the_default_view(tmp_path):
    """With another opening view in meta.json, the snippet blocks of every document are out of date."""
    model = tmp_path / "model"
    model.mkdir()
    meta = json.loads((ROOT / "static" / "model" / "meta.json").read_text(encoding="utf-8"))
    d = meta["default"]
    d.update(layer=d["layer"] % meta["config"]["n_layer"] + 1, head=d["head"] % meta["config"]["n_head"] + 1)
    (model / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    proc = check(model)
    assert proc.returncode == 1
    for doc in SNIPPET_DOCS:
        assert doc in proc.stderr, proc.stderr


def test_every_marked_part_is_one_the_generator_writes():
    known = set(parts(json.loads((ROOT / "static" / "model" / "meta.json").read_text(encoding="utf-8"))))
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        unknown = set(names_in(path.read_text(encoding="utf-8"))) - known
        assert not unknown, (path.name, unknown)
