"""The committed model files: parity with the committed checkpoint, hashes, golden outputs,
and that re-exporting the checkpoint reproduces them (artifacts in sync with code): the graph and
tokenizer byte for byte, the measured numbers within what float32 allows on another machine."""

import json
import subprocess
import sys

import numpy as np
import onnx
import pytest
import torch

from attention_live.feeds import expected_axes, graph_feeds
from conftest import MODEL_DIR, ROOT
from export.example_source import examples_from_meta
from export.golden import golden_outputs
from export.parity import LENGTHS, ParityError, check_parity, session_for
from helpers import assert_json_close
from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.files import sha256_file
from train.tokenizer import load_tokenizer_json

CKPT = ROOT / "checkpoints" / "alice.pt"
CORPUS = ROOT.parent / "shared" / "corpus" / "alice.txt"
# onnxruntime may sum in another order on another CPU: float32 leaves ~1e-6 relative noise, and
# figures rounded to 4 decimals may then move by one in the last place.
RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def model():
    return model_from_checkpoint(load_checkpoint(CKPT), CKPT)


@pytest.fixture(scope="module")
def meta():
    return json.loads((MODEL_DIR / "meta.json").read_text())


@pytest.fixture(scope="module")
def onnx_bytes():
    return (MODEL_DIR / "model.onnx").read_bytes()


def test_committed_onnx_matches_pytorch(model, onnx_bytes):
    report = check_parity(onnx_bytes, model)  # raises unless within 1e-5 + 1e-5 x the largest value, everywhere
    assert set(report.max_abs_diff) == set(LENGTHS) == {1, 7, 19, 128}
    # Probabilities live in [0, 1], so for them the absolute bound alone must hold.
    assert max(d["attention"] for d in report.max_abs_diff.values()) <= 1e-5


def test_graph_names_and_axes(model, onnx_bytes):
    proto = onnx.load_from_string(onnx_bytes)
    onnx.checker.check_model(proto, full_check=True)
    dims = lambda vi: [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]
    got = {vi.name: dims(vi) for vi in list(proto.graph.input) + list(proto.graph.output)}
    assert got == expected_axes(model.cfg)
    assert not proto.graph.initializer or all(not t.external_data for t in proto.graph.initializer)


def test_logits_only_at_the_positions_asked_for(model, onnx_bytes):
    session = session_for(onnx_bytes)
    ids = np.random.default_rng(3).integers(0, model.cfg.vocab_size, size=23)
    every, attention = session.run(["logits", "attention"], graph_feeds(session, ids))
    assert every.shape == (1, 23, model.cfg.vocab_size)  # the default: every position, as PyTorch
    some, same_attention = session.run(["logits", "attention"], graph_feeds(session, ids, logit_positions=[22, 0, 9]))
    assert some.shape == (1, 3, model.cfg.vocab_size)
    np.testing.assert_allclose(some[0], every[0, [22, 0, 9]], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(same_attention, attention)


def test_graph_feeds_runs_an_older_graph_only_on_its_defaults():
    """A graph exported before head_mask and logit_positions existed (a real, tiny one) runs
    with the defaults; asking it for what it cannot do is refused, not silently ignored."""
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["input_ids"], ["logits"])], "old",
                              [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "seq"])],
                              [helper.make_tensor_value_info("logits", TensorProto.INT64, [1, "seq"])])
    old = session_for(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    assert list(graph_feeds(old, [5, 6, 7])) == ["input_ids"]
    with pytest.raises(ValueError, match="no 'logit_positions' input"):
        graph_feeds(old, [5, 6, 7], logit_positions=[2])
    with pytest.raises(ValueError, match="no 'head_mask' input"):
        graph_feeds(old, [5, 6, 7], head_mask=np.ones((2, 4)))


def test_size_budget_and_tied_embedding_stored_once(model, onnx_bytes):
    assert len(onnx_bytes) <= 1_300_000
    weights = 4 * model.n_params()
    assert len(onnx_bytes) < weights + 4 * model.cfg.vocab_size * model.cfg.d_model // 2


def test_meta_hashes_and_sizes(meta):
    for name, info in meta["files"].items():
        path = MODEL_DIR / name
        assert path.stat().st_size == info["bytes"], name
        assert sha256_file(path) == info["sha256"], name


def test_meta_records_metrics(meta):
    m = meta["metrics"]
    assert 0 < m["heldout_bpc"] < 8
    assert set(m["baselines_bpc"]) == {"gzip-9", "xz", "bzip2"}
    # Nothing measured on the exporting machine's float path: a re-export elsewhere must agree.
    assert not [k for k in m if "parity" in k or "export_seconds" in k]
    assert meta["n_params"] == sum(p.numel() for p in model_from_checkpoint(load_checkpoint(CKPT), CKPT).parameters())


def test_golden_matches_a_fresh_run(meta, onnx_bytes):
    golden = json.loads((MODEL_DIR / "golden.json").read_text())
    tokenizer = load_tokenizer_json((MODEL_DIR / "tokenizer.json").read_text(encoding="utf-8"))
    fresh = golden_outputs(session_for(onnx_bytes), tokenizer, meta["default"]["text"])
    assert golden["ids"] == fresh["ids"] and golden["pieces"] == fresh["pieces"]
    for key in ("attention", "scores"):
        a = np.array(golden[key], dtype=np.float64)  # null -> nan
        b = np.array(fresh[key], dtype=np.float64)
        assert np.array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)
    assert [[t["id"] for t in row] for row in golden["top"]] == [[t["id"] for t in row] for row in fresh["top"]]
    assert golden["text"] == meta["default"]["text"] and 0 <= meta["default"]["token"] < len(golden["ids"])


def reexport_args(meta, out):
    """No --text/--layer/--head: the default view must be what export chooses by itself."""
    args = ["--checkpoint", CKPT, "--corpus", CORPUS, "--out", out, "--corpus-description", meta["corpus"]["description"]]
    order = ";".join(f"{layer}:{','.join(map(str, heads))}" for layer, heads in meta["head_order"].items())
    return args + (["--head-order", order] if order else []) + ["--examples-from", examples_from_meta(meta)]


@pytest.mark.skipif(not CORPUS.is_file(), reason=f"re-export measures heads on {CORPUS}'s held-out part")
def test_reexport_reproduces_committed_files(tmp_path, meta):
    proc = subprocess.run([sys.executable, "-m", "export", *map(str, reexport_args(meta, tmp_path))],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "parity ok" in proc.stdout
    for name in ("model.onnx", "tokenizer.json"):  # pure functions of the weights: identical bytes
        assert (tmp_path / name).read_bytes() == (MODEL_DIR / name).read_bytes(), f"{name} is stale: run make export"
    fresh, committed = (json.loads((d / "golden.json").read_text()) for d in (tmp_path, MODEL_DIR))
    assert_json_close(committed, fresh, "golden.json", rtol=RTOL, atol=ATOL)
    fresh, committed = (json.loads((d / "meta.json").read_text()) for d in (tmp_path, MODEL_DIR))
    # golden.json's hash is the one machine-dependent entry: its floats may differ in the last bit.
    for m in (fresh, committed):
        m["files"].pop("golden.json")
    assert_json_close(committed, fresh, "meta.json", rtol=RTOL, atol=2e-4)


def test_parity_catches_a_different_model(model, onnx_bytes):
    other = model_from_checkpoint(load_checkpoint(CKPT), CKPT)
    with torch.no_grad():
        other.ln_final.weight.mul_(1.001)  # a 0.1% drift in the last layer
    with pytest.raises(ParityError, match="logits"):
        check_parity(onnx_bytes, other)
