"""Head measurements: score functions on hand-built patterns with exactly known answers, the roles
they imply, the ablation path on a small PyTorch model, and the committed ONNX model end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from export import example_source, heads
from export import head_scores as hs
from helpers import MODEL_DIR, ROOT
from train.model import ModelConfig, TinyTransformer

CORPUS = ROOT.parent / "shared" / "corpus" / "alice.txt"
T = 128
N = heads.N_REPEAT


def previous_pattern(T: int = T) -> np.ndarray:
    p = np.zeros((T, T))
    p[0, 0] = 1.0  # row 0 has only itself
    p[np.arange(1, T), np.arange(T - 1)] = 1.0
    return p


def self_pattern(T: int = T) -> np.ndarray:
    return np.eye(T)


def first_pattern(T: int = T) -> np.ndarray:
    p = np.zeros((T, T))
    p[:, 0] = 1.0
    return p


def repeated_pattern(n: int, shift: int) -> np.ndarray:
    """Even attention in the first copy; in the second, query n+i puts everything on key i+shift."""
    p = hs.uniform_causal(2 * n)
    i = np.arange(n)
    p[n + i] = 0.0
    p[n + i, i + shift] = 1.0
    return p


def content_pattern(T: int = T, seed: int = 0) -> np.ndarray:
    """Each row puts 0.9 on one earlier key chosen at random (not q, q-1 or 0), the rest evenly:
    decisive, yet on no fixed position."""
    rng = np.random.default_rng(seed)
    p = hs.uniform_causal(T)
    for q in range(3, T):
        p[q, : q + 1] = 0.1 / (q + 1)
        p[q, rng.integers(1, q - 1)] += 0.9
    return p


def natural_scores(p: np.ndarray, repeated: np.ndarray | None = None) -> dict[str, float]:
    r = hs.uniform_causal(2 * N) if repeated is None else repeated
    return {
        "previous_token": float(hs.previous_token(p)), "self": float(hs.self_attention(p)),
        "first_token": float(hs.first_token(p)), "entropy_bits": float(hs.entropy_bits(p)),
        "row_max": float(hs.row_max(p)), "duplicate_token": float(hs.duplicate_token(r, N)),
        "induction": float(hs.induction(r, N)),
    }


@pytest.mark.parametrize("make", [previous_pattern, self_pattern, first_pattern, hs.uniform_causal, content_pattern])
def test_hand_built_patterns_are_causal_attention(make):
    p = make(T)
    assert np.allclose(p.sum(axis=-1), 1.0) and not np.triu(p, 1).any()


def test_previous_token_pattern():
    s = natural_scores(previous_pattern())
    assert s["previous_token"] == 1.0
    assert s["self"] == 0.0
    assert s["entropy_bits"] == 0.0 and s["row_max"] == 1.0


def test_uniform_pattern_scores_chance():
    s = natural_scores(hs.uniform_causal(T))
    q = np.arange(T)
    assert s["previous_token"] == pytest.approx(np.mean(1 / (q[1:] + 1)), abs=1e-12)
    assert s["self"] == pytest.approx(np.mean(1 / (q[1:] + 1)), abs=1e-12)
    assert s["first_token"] == pytest.approx(np.mean(1 / (q[32:] + 1)), abs=1e-12)
    assert s["entropy_bits"] == pytest.approx(np.mean(np.log2(q[16:] + 1)), abs=1e-12)
    assert s["row_max"] == pytest.approx(np.mean(1 / (q[1:] + 1)), abs=1e-12)
    n = np.arange(N)
    assert s["induction"] == pytest.approx(np.mean(1 / (N + n + 1)), abs=1e-12)
    assert s["duplicate_token"] == pytest.approx(s["induction"], abs=1e-12)
    # The figures the notes quote for even attention over 128-token windows.
    assert round(s["previous_token"], 3) == 0.035 and round(s["induction"], 3) == 0.011


def test_self_and_first_token_patterns():
    assert float(hs.self_attention(self_pattern())) == 1.0
    assert float(hs.previous_token(self_pattern())) == 0.0
    assert float(hs.first_token(first_pattern())) == 1.0
    assert float(hs.previous_token(first_pattern())) == pytest.approx(1 / (T - 1))  # only row 1's key 0 is q-1


def test_induction_and_duplicate_patterns():
    ind, dup = repeated_pattern(N, shift=1), repeated_pattern(N, shift=0)
    assert float(hs.induction(ind, N)) == 1.0 and float(hs.duplicate_token(ind, N)) == 0.0
    assert float(hs.duplicate_token(dup, N)) == 1.0 and float(hs.induction(dup, N)) == 0.0
    with pytest.raises(ValueError, match="repeated twice"):
        hs.induction(hs.uniform_causal(T), N)


def test_scores_keep_leading_axes():
    stack = np.stack([previous_pattern(), self_pattern(), first_pattern()])[None]  # [1, 3, T, T]
    assert hs.previous_token(stack).shape == (1, 3)
    assert np.array_equal(hs.previous_token(stack)[0], [1.0, 0.0, 1 / (T - 1)])
    assert np.array_equal(hs.self_attention(stack)[0], [0.0, 1.0, 0.0])


@pytest.mark.parametrize("pattern, repeated, expected", [
    (previous_pattern(), None, "previous token"),
    (self_pattern(), None, "self"),
    (first_pattern(), None, "first token"),
    (hs.uniform_causal(T), repeated_pattern(N, 1), "induction"),
    (hs.uniform_causal(T), repeated_pattern(N, 0), "duplicate token"),
    (previous_pattern(), repeated_pattern(N, 1), "induction"),  # induction outranks a positional habit
    (content_pattern(), None, "content"),
    (hs.uniform_causal(T), None, "diffuse"),
])
def test_roles(pattern, repeated, expected):
    assert hs.role(natural_scores(pattern, repeated)) == expected


def mixed_pattern(on_previous: float) -> np.ndarray:
    p = np.zeros((T, T))
    p[0, 0] = 1.0
    q = np.arange(2, T)
    p[1, 0] = 1.0
    p[q, q - 1] = on_previous
    p[q, 0] = 1.0 - on_previous
    return p


@pytest.mark.parametrize("on_previous, expected", [(0.6, "previous token"), (0.4, "first token")])
def test_role_within_a_group_goes_to_the_larger_score(on_previous, expected):
    s = natural_scores(mixed_pattern(on_previous))
    assert s["previous_token"] >= 0.3 and s["first_token"] >= 0.3
    assert hs.role(s) == expected


def test_thresholds_are_well_above_even_attention():
    even = hs.even_attention_scores(T, N)
    for group in hs.ROLE_GROUPS:
        for _, name, threshold in group:
            assert threshold >= hs.MIN_RATIO_TO_EVEN * even[name], name


def test_repeated_sequences_and_in_context_gain():
    cand = np.array([5, 9, 11, 40])
    seqs = heads.repeated_sequences(cand, seed=3)
    assert seqs.shape == (64, 2 * N) and np.array_equal(seqs[:, :N], seqs[:, N:])
    assert set(np.unique(seqs)) <= set(cand.tolist())
    assert np.array_equal(seqs, heads.repeated_sequences(cand, seed=3))
    # Logits that know nothing (uniform over V) except in the second copy after its first token:
    # the second copy's first token has nothing before it to copy from, so it is left out.
    V = 50
    logits = np.zeros((64, 2 * N, V), dtype=np.float32)
    for t in range(N, 2 * N - 1):
        logits[np.arange(64), t, seqs[:, t + 1]] = 100.0
    losses = heads.token_losses(logits, seqs)
    assert losses[:, : N - 1] == pytest.approx(np.log(V))
    assert heads.in_context_gain(losses, N) == pytest.approx(np.log(V), abs=1e-6)


# --- a real model behind the Run interface ------------------------------------------------------

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
