"""The README's and docs/model.md's figures about the shipped model are the ones its meta.json
records (site/doc_numbers.py writes them; this fails when someone ships a model and forgets)."""

import json
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "site" / "doc_numbers.py"


def check(model):
    return subprocess.run([sys.executable, str(SCRIPT), "--check", "--model", str(model)],
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
    sys.path.insert(0, str(ROOT / "site"))
    from doc_numbers import BEGIN, END

    m, d = meta["metrics"], meta["default"]
    figures = [f"{m['heldout_bpc']:.3f}", f"{m['heldout_bpc'] / m['baselines_bpc']['bzip2']:.3f}",
               f"{meta['n_params']:,}", f"{d['top_weight']:.0%}", f"{meta['files']['model.onnx']['bytes']:,}"]
    for path in (ROOT / "README.md", ROOT / "docs" / "model.md"):
        text = path.read_text(encoding="utf-8")
        outside = text.split(BEGIN)[0] + text.split(END)[1]
        for figure in figures:
            assert figure not in outside, (path.name, figure)
