"""Invariants of the attention the model returns: they hold for any weights, trained or not."""

import copy
import math

import pytest
import torch

from conftest import ROOT
from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.model import ModelConfig, TinyTransformer, alibi_slopes, permute_heads

SMALL = ModelConfig(vocab_size=97, n_ctx=32, n_layer=2, n_head=4, d_model=16, d_ff=32, dropout=0.0)


@pytest.fixture(scope="module", params=["random", "random-learned", "shipped"])
def model(request):
    torch.manual_seed(0)
    if request.param == "random":
        return TinyTransformer(SMALL).eval()
    if request.param == "random-learned":
        return TinyTransformer(ModelConfig(**{**SMALL.to_dict(), "positions": "learned"})).eval()
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


def test_scores_are_the_exact_softmax_input_including_the_alibi_bias():
    """`scores` = q.k / sqrt(d_head) - slope * (q - k): the bias is part of what the page shows."""
    torch.manual_seed(3)
    model = TinyTransformer(SMALL).eval()
    ids = torch.randint(SMALL.vocab_size, (1, 10))
    _, att = run(model, ids)
    block = model.blocks[0]
    x = block.ln_attn(model.tok_emb(ids))
    q, k, _ = block.attn.qkv(x).split(SMALL.d_model, dim=2)
    Dh = SMALL.d_head
    for h, slope in enumerate(alibi_slopes(SMALL.n_head)):
        qh, kh = q[0, :, h * Dh:(h + 1) * Dh], k[0, :, h * Dh:(h + 1) * Dh]
        for qi in range(10):
            for ki in range(qi + 1):
                want = (qh[qi] @ kh[ki]).item() / math.sqrt(Dh) - slope * (qi - ki)
                assert abs(att["scores"][0, 0, h, qi, ki].item() - want) < 1e-5


def test_head_mask_zeroes_a_heads_output_and_reaches_the_next_layer():
    torch.manual_seed(4)
    model = TinyTransformer(SMALL).eval()
    ids = torch.randint(SMALL.vocab_size, (1, 12))
    logits, att = run(model, ids)
    ones = torch.ones(SMALL.n_layer, SMALL.n_head)
    same_logits, _ = model(ids, ones)
    torch.testing.assert_close(logits, same_logits, rtol=0, atol=0)
    off = ones.clone()
    off[0, 1] = 0.0
    with torch.no_grad():
        logits_off, att_off = model(ids, off)
    assert not torch.allclose(logits, logits_off)
    torch.testing.assert_close(att["pattern"][:, 0], att_off["pattern"][:, 0])  # layer 1 reads nothing of it
    assert not torch.allclose(att["pattern"][:, 1], att_off["pattern"][:, 1])  # composition: layer 2 does
    # Zeroing by hand (the head's value projection) gives the same function as the mask.
    manual = copy.deepcopy(model)
    with torch.no_grad():
        C, Dh = SMALL.d_model, SMALL.d_head
        manual.blocks[0].attn.qkv.weight[2 * C + Dh:2 * C + 2 * Dh] = 0
        manual.blocks[0].attn.qkv.bias[2 * C + Dh:2 * C + 2 * Dh] = 0
        torch.testing.assert_close(manual(ids)[0], logits_off, rtol=0, atol=1e-6)


def test_logit_positions_pick_those_rows_in_that_order(model):
    ids = random_ids(model, 11)
    logits, att = run(model, ids)
    with torch.no_grad():
        some, att_some = model(ids, None, torch.tensor([10, 0, 4]))
    assert some.shape == (2, 3, model.cfg.vocab_size)
    # Float32 matmuls of other shapes may round differently: the rows are equal within 1e-5.
    torch.testing.assert_close(some, logits[:, [10, 0, 4]], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(att_some["pattern"], att["pattern"], rtol=0, atol=0)  # attention untouched


@pytest.mark.parametrize("positions", ["alibi", "learned"])
def test_renumbering_heads_gives_exactly_the_same_function(positions):
    torch.manual_seed(5)
    cfg = ModelConfig(**{**SMALL.to_dict(), "positions": positions})
    model = TinyTransformer(cfg).eval()
    ids = torch.randint(cfg.vocab_size, (2, 15))
    logits, att = run(model, ids)
    order = [2, 0, 3, 1]
    renumbered = copy.deepcopy(model)
    permute_heads(renumbered, 1, order)
    logits_r, att_r = run(renumbered, ids)
    torch.testing.assert_close(logits_r, logits, rtol=0, atol=2e-6)
    torch.testing.assert_close(att_r["pattern"][:, 0], att["pattern"][:, 0], rtol=0, atol=0)
    for new, old in enumerate(order):
        torch.testing.assert_close(att_r["pattern"][:, 1, new], att["pattern"][:, 1, old], rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="permutation"):
        permute_heads(renumbered, 0, [0, 0, 1, 2])


def test_layer2_slopes_set_layer_2_alone_and_are_recorded_only_when_set():
    standard = alibi_slopes(SMALL.n_head)
    flat_twice = ",".join(map(str, standard[:-2] + standard[-1:] * 2))
    cfg = ModelConfig(**{**SMALL.to_dict(), "layer1_slope_scale": 4.0, "layer2_slopes": flat_twice})
    torch.manual_seed(6)
    model = TinyTransformer(cfg)
    assert model.blocks[1].attn.alibi_slopes.tolist() == pytest.approx(standard[:-2] + standard[-1:] * 2)
    assert model.blocks[0].attn.alibi_slopes.tolist() == pytest.approx([4 * s for s in standard])
    assert ModelConfig.from_dict(cfg.to_dict()) == cfg
    # Left out, it changes nothing: the same weights as a config that never had it, nothing recorded.
    torch.manual_seed(6)
    plain = TinyTransformer(ModelConfig(**{**SMALL.to_dict(), "layer1_slope_scale": 4.0}))
    assert "layer2_slopes" not in plain.cfg.to_dict()
    assert plain.blocks[1].attn.alibi_slopes.tolist() == standard
    assert all(torch.equal(a, b) for a, b in zip(plain.parameters(), model.parameters()))


def test_layer1_slopes_set_layer_1_alone_and_are_recorded_only_when_set():
    standard = alibi_slopes(SMALL.n_head)
    # The scale-4 layer's two steep heads kept, its two flat heads at ALiBi's own slopes.
    steep_then_flat = [4 * s for s in standard[:2]] + standard[2:]
    cfg = ModelConfig(**{**SMALL.to_dict(), "layer1_slopes": ",".join(map(str, steep_then_flat))})
    torch.manual_seed(6)
    model = TinyTransformer(cfg)
    assert model.blocks[0].attn.alibi_slopes.tolist() == pytest.approx(steep_then_flat)
    assert model.blocks[1].attn.alibi_slopes.tolist() == pytest.approx(standard)
    assert ModelConfig.from_dict(cfg.to_dict()) == cfg and cfg.to_dict()["layer1_slope_scale"] == 1.0
    torch.manual_seed(6)
    plain = TinyTransformer(ModelConfig(**{**SMALL.to_dict(), "layer1_slope_scale": 4.0}))
    assert "layer1_slopes" not in plain.cfg.to_dict()
    assert plain.blocks[0].attn.alibi_slopes.tolist() == pytest.approx([4 * s for s in standard])
    assert all(torch.equal(a, b) for a, b in zip(plain.parameters(), model.parameters()))


@pytest.mark.parametrize("layer", [1, 2])
@pytest.mark.parametrize("value,needle", [
    ("0.25,0.0625,0.015625", "4 positive numbers"), ("0.25,0.0625,0,0.01", "4 positive numbers"),
    ("0.25,0.0625,nan,0.01", "4 positive numbers"), ("0.25,x,0.1,0.01", "numbers separated by commas"),
])
def test_slope_lists_that_do_not_fit_are_refused_by_name(layer, value, needle):
    name = f"layer{layer}_slopes"
    with pytest.raises(ValueError, match=f"{name}=.*{needle}"):
        ModelConfig(**{**SMALL.to_dict(), name: value})
    with pytest.raises(ValueError, match=f"{name}=.*needs positions='alibi'"):
        ModelConfig(**{**SMALL.to_dict(), "positions": "learned", name: "1,1,1,1"})


def test_a_layer_2_list_needs_a_second_layer_and_a_layer_1_list_a_scale_of_1():
    with pytest.raises(ValueError, match="layer2_slopes=.*needs positions='alibi' and at least 2 layers"):
        ModelConfig(**{**SMALL.to_dict(), "n_layer": 1, "layer2_slopes": "1,1,1,1"})
    with pytest.raises(ValueError, match="layer1_slopes=.*layer1_slope_scale must be 1, not 4.0"):
        ModelConfig(**{**SMALL.to_dict(), "layer1_slope_scale": 4.0, "layer1_slopes": "1,1,1,1"})
