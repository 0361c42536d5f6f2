"""Invariants of the attention the model returns: they hold for any weights, trained or not."""

import pytest
import torch

from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.model import ModelConfig, TinyTransformer

from conftest import ROOT

SMALL = ModelConfig(vocab_size=97, n_ctx=32, n_layer=2, n_head=4, d_model=16, d_ff=32, dropout=0.0)


@pytest.fixture(scope="module", params=["random", "shipped"])
def model(request):
    torch.manual_seed(0)
    if request.param == "random":
        return TinyTransformer(SMALL).eval()
    path = ROOT / "checkpoints" / "alice.pt"
    return model_from_checkpoint(load_checkpoint(path), path)


def run(model, ids):
    with torch.no_grad():
        return model(ids)


def random_ids(model, T, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(model.cfg.vocab_size, (2, T), generator=g)


def test_shapes(model):
    cfg = model.cfg
    logits, att = run(model, random_ids(model, 9))
    assert logits.shape == (2, 9, cfg.vocab_size)
    for key in ("scores", "pattern"):
        assert att[key].shape == (2, cfg.n_layer, cfg.n_head, 9, 9)


def test_rows_are_distributions_and_causal(model):
    _, att = run(model, random_ids(model, model.cfg.n_ctx))
    pattern, scores = att["pattern"], att["scores"]
    T = pattern.shape[-1]
    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    assert (pattern.sum(-1) - 1).abs().max() <= 1e-6
    assert (pattern >= 0).all()
    assert pattern[..., future].abs().max() == 0
    assert torch.isneginf(scores[..., future]).all()
    assert torch.isfinite(scores[..., ~future]).all()
    torch.testing.assert_close(pattern, torch.softmax(scores, dim=-1))


def test_later_tokens_do_not_change_the_past(model):
    ids = random_ids(model, 12)
    changed = ids.clone()
    changed[:, 8:] = (changed[:, 8:] + 5) % model.cfg.vocab_size
    logits_a, att_a = run(model, ids)
    logits_b, att_b = run(model, changed)
    torch.testing.assert_close(logits_a[:, :8], logits_b[:, :8], rtol=0, atol=1e-6)
    torch.testing.assert_close(att_a["pattern"][..., :8, :8], att_b["pattern"][..., :8, :8], rtol=0, atol=1e-7)
    assert not torch.allclose(logits_a[:, 8:], logits_b[:, 8:])  # the change did reach the model


def test_context_limit_is_enforced(model):
    with pytest.raises(ValueError, match="exceeds the context"):
        run(model, random_ids(model, model.cfg.n_ctx + 1))


def test_shipped_model_size_budget():
    path = ROOT / "checkpoints" / "alice.pt"
    model = model_from_checkpoint(load_checkpoint(path), path)
    assert model.cfg.n_layer == 2 and model.cfg.n_head == 4 and model.cfg.n_ctx == 128
    assert 250_000 <= model.n_params() <= 330_000  # ~1.2 MB of fp32 weights
