"""The training timeline's graphs: each snapshot's graph is exactly the model that snapshot is
(its float16 weights computed in float32), and what export writes about every step."""

import json
import subprocess
import sys

import numpy as np
import onnx
import pytest
import torch
from onnx import numpy_helper

from conftest import ROOT
from export.parity import check_parity, session_for
from export.timeline import MANIFEST, half_precision, snapshot_graph, timeline_files
from export.to_onnx import export_onnx_bytes, graph_feeds
from helpers import synthetic_text
from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.data import read_corpus
from train.snapshots import snapshot_model
from train.tokenizer import load_tokenizer_json

TINY = ["--vocab-size", "300", "--n-ctx", "128", "--d-model", "32", "--d-ff", "64", "--batch-size", "8",
        "--eval-every", "10", "--patience", "100", "--threads", "1", "--steps", "40", "--snapshots", "0,5,20,40"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("timeline")
    corpus = folder / "toy.txt"
    corpus.write_text(synthetic_text(3000), encoding="utf-8")
    out = folder / "toy.pt"
    proc = subprocess.run([sys.executable, "-m", "train", "--corpus", str(corpus), "--out", str(out), *TINY],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ckpt = load_checkpoint(out)
    return ckpt, model_from_checkpoint(ckpt), read_corpus(corpus)


def stored_weights(graph: bytes) -> dict[str, torch.Tensor]:
    """The weights a timeline graph stores, by state-dict name, float16 ones expanded. The
    exporter stores identical tensors once (at step 0 every bias is zero), so a few names of
    small tensors may be missing; every matrix is there."""
    return {init.name.removeprefix("model.").removesuffix(".f16"):
            torch.from_numpy(numpy_helper.to_array(init).astype(np.float32))
            for init in onnx.load_from_string(graph).graph.initializer}


def test_half_precision_keeps_the_function_and_halves_the_bytes(trained):
    ckpt, model, _ = trained
    snap = snapshot_model(model, ckpt["snapshots"][2])
    full = export_onnx_bytes(snap)
    half = half_precision(full)
    assert len(full) - len(half) > 0.45 * 4 * snap.n_params()  # about 2 of every 4 weight bytes saved
    ids = np.arange(3, 60)
    a = session_for(full).run(None, graph_feeds(session_for(full), ids))
    b = session_for(half).run(None, graph_feeds(session_for(half), ids))
    for x, y in zip(a, b):
        assert np.array_equal(x, y)  # the same float32 weights: the same arithmetic


def test_every_snapshot_graph_matches_pytorch_at_its_step(trained):
    ckpt, model, _ = trained
    assert [s["step"] for s in ckpt["snapshots"]] == [0, 5, 20, 40]
    for snap in ckpt["snapshots"][:3]:
        graph, reference = snapshot_graph(model, snap, {})
        check_parity(graph, reference)  # raises beyond 1e-5
        # ... and the graph's stored weights are the snapshot's, not some other step's
        want = snapshot_model(model, snap).state_dict()  # the snapshot's rounded weights
        stored = stored_weights(graph)
        assert {k for k, v in want.items() if v.dim() == 2} <= set(stored)
        for k, v in stored.items():
            assert torch.equal(v, want[k]), k


def test_the_manifest_describes_each_step(trained):
    ckpt, model, corpus = trained
    tokenizer = load_tokenizer_json(ckpt["tokenizer_json"])
    default = {"text": "The cat sees the garden.", "layer": 1, "head": 2, "token": 4}
    shipped = {"step": 40, "heldout_bpc": ckpt["metrics"]["heldout_bpc"], "heads": [], "in_context_gain": 0.0}
    files = timeline_files(ckpt, model, tokenizer, corpus.heldout_text, default, shipped)
    manifest = json.loads(files[MANIFEST])
    steps = [p["step"] for p in manifest["points"]]
    assert steps == [0, 5, 20, 40]  # the snapshot at the shipped step is the shipped model itself
    assert manifest["points"][-1]["shipped"] and manifest["points"][-1]["file"] is None
    from train.files import sha256_bytes
    for p in manifest["points"][:-1]:
        graph = files[f"timeline/{p['file']}"]
        assert p["bytes"] == len(graph) and p["sha256"] == sha256_bytes(graph)
        assert len(p["heads"]) == 8 and 0 <= p["default_view"]["top_weight"] <= 1
    # The held-out figure falls from the untrained model on.
    assert manifest["points"][0]["heldout_bpc"] > manifest["points"][-2]["heldout_bpc"]
    assert manifest["total_bytes"] == sum(len(v) for k, v in files.items() if k != MANIFEST)
