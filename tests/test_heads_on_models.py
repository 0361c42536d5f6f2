"""Head measurements on real models: the ablation path on a small PyTorch model behind the Run
interface, and the committed ONNX model end to end (its meta.json heads are what the module computes)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from export import example_source, heads
from export import head_scores as hs
from helpers import MODEL_DIR, ROOT
from train.model import ModelConfig, TinyTransformer

CORPUS = ROOT.parent / "shared" / "corpus" / "alice.txt"
T = 128


def torch_run(model: TinyTransformer) -> heads.Run:
    """A Run over the PyTorch model with head_mask applied to each head's output before the
    output projection, which is what the graph's head_mask does."""
    model.eval()
    H, Dh = model.cfg.n_head, model.cfg.d_head

    def run(ids, head_mask=None):
        hooks = []
        if head_mask is not None:
            m = torch.as_tensor(np.asarray(head_mask, dtype=np.float32))
            for layer, block in enumerate(model.blocks):
                def pre(module, args, layer=layer):
                    (x,) = args
                    return ((x.view(*x.shape[:-1], H, Dh) * m[layer][:, None]).view(x.shape),)
                hooks.append(block.attn.proj.register_forward_pre_hook(pre))
        try:
            with torch.no_grad():
                logits, att = model(torch.as_tensor(ids))
        finally:
            for h in hooks:
                h.remove()
        return logits.numpy(), att["pattern"].numpy()

    return run


@pytest.fixture(scope="module")
def small_model():
    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=64, n_ctx=128, n_layer=2, n_head=4, d_model=32, d_ff=64, dropout=0.0)
    model = TinyTransformer(cfg)
    with torch.no_grad():  # sharper than the init, so that heads differ and ablation shows
        for p in model.parameters():
            p.mul_(8.0)
    return model


def test_ablation_on_a_pytorch_run(small_model):
    run = torch_run(small_model)
    held = np.random.default_rng(1).integers(0, 64, size=3 * T + 17)
    out = heads.measure_heads(run, held, np.arange(64), 2, 4)
    windows = heads.heldout_windows(held, T)
    assert len(windows) == 3
    base = heads.token_losses(run(windows, None)[0], windows).mean()
    assert out["heldout_loss_nats"] == round(float(base), 4)
    ones = run(windows, np.ones((2, 4), np.float32))
    assert np.array_equal(ones[0], run(windows, None)[0])
    for entry in out["heads"]:
        mask = np.ones((2, 4), np.float32)
        mask[entry["layer"] - 1, entry["head"] - 1] = 0
        want = heads.token_losses(run(windows, mask)[0], windows).mean() - base
        assert entry["scores"]["ablation_nats"] == round(float(want), 4)
    assert any(e["scores"]["ablation_nats"] != 0 for e in out["heads"])
    assert all(e["example"] is None for e in out["heads"])  # no decode/encode given


# --- the committed model, through onnxruntime -----------------------------------------------------

@pytest.fixture(scope="module")
def committed():
    from export.parity import session_for
    from train.tokenizer import load_tokenizer_json

    tok = load_tokenizer_json((MODEL_DIR / "tokenizer.json").read_text(encoding="utf-8"))
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    session = session_for((MODEL_DIR / "model.onnx").read_bytes())
    from train.checkpoint import load_checkpoint

    ckpt = load_checkpoint(ROOT / "checkpoints" / "alice.pt")
    if CORPUS.is_file():
        from train.data import read_corpus

        held = read_corpus(CORPUS).heldout_text
    else:  # a fresh clone without ../shared: any prose exercises the same code
        held = FALLBACK_TEXT * 4
    # Exactly what export runs (export/example_source.py `measure_model`), on the committed files.
    out = example_source.measure_model(heads.ort_run(session), tok, ckpt["token_counts"], held,
                              meta["config"]["n_layer"], meta["config"]["n_head"], meta["config"]["n_ctx"],
                              example_source.examples_from_meta(meta),
                              weights={name: value.numpy() for name, value in ckpt["model"].items()})
    return {"out": out, "tok": tok, "session": session, "meta": meta}


def test_committed_model_measures_every_head(committed):
    out, meta = committed["out"], committed["meta"]
    cfg = meta["config"]
    assert [(e["layer"], e["head"]) for e in out["heads"]] == [
        (l, h) for l in range(1, cfg["n_layer"] + 1) for h in range(1, cfg["n_head"] + 1)]
    for entry in out["heads"]:
        assert list(entry["scores"]) == list(heads.SCORE_NAMES)
        assert entry["role"] in hs.ROLES
        assert entry["role"] == hs.role(entry["scores"])
        for name, value in entry["scores"].items():
            if name != "ablation_nats" or heads.has_head_mask(committed["session"]):
                assert isinstance(value, float) and value == round(value, 4), name
        assert 0 <= entry["scores"]["previous_token"] <= 1 and entry["scores"]["entropy_bits"] >= 0
    assert isinstance(out["in_context_gain"], float)
    json.dumps(out, allow_nan=False)  # meta.json must hold it as is


def test_committed_model_examples_are_exact(committed):
    tok, run = committed["tok"], heads.ort_run(committed["session"])
    for entry in committed["out"]["heads"]:
        ex = entry["example"]
        ids = tok.encode(ex["text"]).ids
        assert tok.encode(tok.decode(ids)).ids == ids and tok.decode(ids) == ex["text"]
        assert ex["text"] == ex["text"].strip() and "\n" not in ex["text"]
        assert ex["key"] <= ex["token"] < len(ids)
        assert tok.decode([ids[ex["token"]]]) == ex["query_text"] and tok.decode([ids[ex["key"]]]) == ex["key_text"]
        if entry["role"] not in ("self", "first token"):
            assert 0 < ex["key"] < ex["token"]
        att = run(np.array([ids]), None)[1][0, entry["layer"] - 1, entry["head"] - 1]
        assert ex["weight"] == round(float(att[ex["token"], ex["key"]]), 4)
        if entry["role"] not in ("self", "first token"):
            # The largest weight in its row apart from the excluded keys (up to float noise between
            # the span it was found in and this shorter text).
            row = att[ex["token"]].copy()
            row[[0, ex["token"]]] = -1
            assert att[ex["token"], ex["key"]] >= row.max() - 1e-6


def test_committed_model_ablation(committed):
    assert heads.has_head_mask(committed["session"]), "the committed model.onnx has no head_mask input: re-export it"
    for entry in committed["out"]["heads"]:
        assert isinstance(entry["scores"]["ablation_nats"], float)


FALLBACK_TEXT = (
    "The lantern swung on its hook while the ferryman counted the coins twice, as he always did. "
    "Nobody on the bank said a word. The girl with the basket looked at the water, then at the boat, "
    "and asked whether the river was deep. 'Deep enough,' said the ferryman, and he pushed off. "
    "Halfway across, the wind turned, the lantern went out, and the boat drifted toward the mill. "
)


def test_meta_json_heads_are_what_the_module_computes(committed):
    meta = committed["meta"]
    assert "heads" in meta and "head_definitions" in meta, "meta.json lost its head measurements: re-export it"
    if not CORPUS.is_file():
        pytest.skip(f"SKIPPED: needs the held-out text of {CORPUS} to recompute meta.json's heads")
    got = committed["out"]["heads"]
    assert [(e["layer"], e["head"], e["role"]) for e in meta["heads"]] == [(e["layer"], e["head"], e["role"]) for e in got]
    for want, have in zip(meta["heads"], got):
        for name in heads.SCORE_NAMES:
            if have["scores"][name] is not None:
                assert want["scores"][name] == pytest.approx(have["scores"][name], abs=1e-4), (want["layer"], want["head"], name)
        assert {k: want["example"][k] for k in ("text", "token", "key")} == {k: have["example"][k] for k in ("text", "token", "key")}
