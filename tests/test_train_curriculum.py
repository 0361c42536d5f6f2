"""The training curriculum in-process: repeated-sequence rows, the synthetic warm-up, which heads
each kind of row reaches, dropout and frozen embeddings, and settings recorded before it existed."""

import pytest
import torch

from conftest import ROOT
from train.checkpoint import load_checkpoint


def test_curriculum_rows_repeat_with_their_period():
    """Repeated sequences tile p random tokens (p within the bounds); the legacy form repeats
    half the row twice; the synthetic warm-up is every row, then repeat_frac of them."""
    from train.curriculum import repeat_rows, repeated_sequences
    from train.settings import TrainSettings

    vocab = torch.arange(100, 200)
    rows = repeated_sequences(64, 128, vocab, torch.Generator().manual_seed(0), 8, 64)
    assert rows.shape == (64, 129)
    periods = set()
    for row in rows.tolist():
        p = next(p for p in range(8, 65) if all(row[i] == row[i % p] for i in range(129)))
        periods.add(p)
        assert all(100 <= t < 200 for t in row)
    assert min(periods) < 20 and max(periods) > 50  # spread over the range
    twice = repeated_sequences(4, 128, vocab, torch.Generator().manual_seed(0))
    assert torch.equal(twice[:, :64], twice[:, 65:129])
    args = TrainSettings.of(corpus="x", steps=100, batch_size=32, synthetic_steps=10, repeat_frac=0.25)
    assert [repeat_rows(s, args) for s in (0, 9, 10, 99)] == [32, 32, 8, 8]
    assert repeat_rows(50, TrainSettings.of(corpus="x", steps=100)) == 0
    burst = TrainSettings.of(corpus="x", steps=100, batch_size=32, synthetic_start=40, synthetic_steps=10, repeat_frac=0.125)
    assert [repeat_rows(s, burst) for s in (0, 39, 40, 49, 50)] == [4, 4, 32, 32, 4]


def test_text_repeats_tile_the_start_of_their_own_text_window():
    from train.curriculum import batch
    from train.settings import TrainSettings

    data = torch.arange(1000)  # every window is a run of consecutive ids: easy to recognise
    args = TrainSettings.of(corpus="x", steps=100, batch_size=8, repeat_frac=0.5, repeat_source="text",
                     repeat_min_period=4, repeat_max_period=9)
    rows, _ = batch(10, args, data, 32, torch.arange(5), torch.Generator().manual_seed(0))
    assert all(torch.equal(r[1:], r[:-1] + 1) for r in rows[:4])  # the text rows: untouched windows
    for r in rows[4:]:
        p = next(p for p in range(4, 10) if torch.equal(r[p:], r[:-p]))  # the row's period
        assert torch.equal(r[1:p], r[: p - 1] + 1)  # one copy is a piece of text
        assert not torch.equal(r[1:], r[:-1] + 1)
    with pytest.raises(ValueError, match="repeat_source"):
        TrainSettings.of(corpus="x", repeat_source="text")
    after = TrainSettings.of(corpus="x", steps=100, batch_size=8, synthetic_steps=5, repeat_frac=0.5,
                      repeat_source="text-after-warm-up", repeat_min_period=4, repeat_max_period=9)
    warm, _ = batch(2, after, data, 32, torch.arange(5), torch.Generator().manual_seed(0))
    assert warm.max() < 5  # the synthetic steps: random tokens of `frequent`
    later, _ = batch(10, after, data, 32, torch.arange(5), torch.Generator().manual_seed(0))
    assert torch.equal(later, rows)  # after them: text, as repeat_source="text"


def test_dropout_is_off_during_the_warm_up_and_the_models_own_after():
    from train.curriculum import set_dropout
    from train.model import ModelConfig, TinyTransformer
    from train.settings import TrainSettings

    cfg = ModelConfig(vocab_size=50, n_ctx=16, d_model=16, d_ff=32, dropout=0.2, attn_dropout=0.05)
    model = TinyTransformer(cfg)
    args = TrainSettings.of(corpus="x", steps=100, synthetic_steps=10, model=cfg)
    rates = lambda: {n: m.p for n, m in model.named_modules() if isinstance(m, torch.nn.Dropout)}
    set_dropout(model, 9, args)
    assert set(rates().values()) == {0.0}
    set_dropout(model, 10, args)
    assert {n: p for n, p in rates().items() if n.endswith("attn_drop")} == {
        "blocks.0.attn.attn_drop": 0.05, "blocks.1.attn.attn_drop": 0.05}
    assert {p for n, p in rates().items() if not n.endswith("attn_drop")} == {0.2}


def test_synthetic_heads_leave_only_the_named_heads_of_their_layer_on():
    from train.settings import TrainSettings

    cfg = TrainSettings().model
    assert TrainSettings.of(corpus="x").curriculum.synthetic_mask(cfg) is None
    mask = TrainSettings.of(corpus="x", synthetic_heads="2.4").curriculum.synthetic_mask(cfg)
    assert mask.tolist() == [[1, 1, 1, 1], [0, 0, 0, 1]]
    with pytest.raises(ValueError, match="layer.head"):
        TrainSettings.of(corpus="x", synthetic_heads="3.1")


def test_repeated_rows_reach_only_the_synthetic_heads():
    """A mixed batch's text rows see every head; its repeated rows only the named ones: the
    other heads' weights get no gradient from them."""
    from train.curriculum import forward
    from train.model import ModelConfig, TinyTransformer
    from train.settings import TrainSettings

    cfg = ModelConfig(vocab_size=50, n_ctx=16, d_model=16, d_ff=32, dropout=0.0)
    args = TrainSettings.of(corpus="x", steps=100, batch_size=4, repeat_frac=0.5, synthetic_heads="2.4", model=cfg)
    model = TinyTransformer(cfg)
    x = torch.randint(0, 50, (4, 16))
    logits = forward(model, x, 10, args, args.curriculum.synthetic_mask(cfg))
    assert torch.allclose(logits[:2], model(x[:2])[0])  # the text rows: every head on
    assert torch.allclose(logits[2:], model(x[2:], args.curriculum.synthetic_mask(cfg))[0])
    logits[2:].sum().backward()  # the repeated rows alone
    q_of_head_1 = model.blocks[1].attn.qkv.weight.grad[:4]  # layer 2, head 1's query rows (d_head 4)
    assert torch.count_nonzero(q_of_head_1) == 0
    assert torch.count_nonzero(model.blocks[1].attn.qkv.weight.grad[12:16]) > 0  # head 4's


def test_text_heads_off_switch_the_named_heads_off_for_their_share_of_the_text_rows():
    """The first text_heads_off_frac of the text rows run without the named heads (their weights
    get no gradient from them), the other text rows with every head, the repeated rows as before."""
    from train.curriculum import forward
    from train.model import ModelConfig, TinyTransformer
    from train.settings import TrainSettings

    cfg = ModelConfig(vocab_size=50, n_ctx=16, d_model=16, d_ff=32, dropout=0.0)
    args = TrainSettings.of(corpus="x", steps=100, batch_size=8, repeat_frac=0.25, synthetic_heads="2.4",
                     text_heads_off="2.4", text_heads_off_frac=0.5, model=cfg)
    assert args.curriculum.text_mask(cfg).tolist() == [[1, 1, 1, 1], [1, 1, 1, 0]]
    model = TinyTransformer(cfg)
    x = torch.randint(0, 50, (8, 16))
    logits = forward(model, x, 10, args, args.curriculum.synthetic_mask(cfg), args.curriculum.text_mask(cfg))
    assert torch.allclose(logits[:3], model(x[:3], args.curriculum.text_mask(cfg))[0])  # 3 of the 6 text rows
    assert torch.allclose(logits[3:6], model(x[3:6])[0])
    assert torch.allclose(logits[6:], model(x[6:], args.curriculum.synthetic_mask(cfg))[0])
    assert not torch.allclose(logits[:3], model(x[:3])[0])  # the switch did something
    logits[:3].sum().backward()
    assert torch.count_nonzero(model.blocks[1].attn.qkv.weight.grad[12:16]) == 0  # layer 2, head 4's queries
    assert torch.count_nonzero(model.blocks[1].attn.qkv.weight.grad[:4]) > 0
    with pytest.raises(ValueError, match="set both"):
        TrainSettings.of(corpus="x", text_heads_off="2.4")
    with pytest.raises(ValueError, match="layer.head"):
        TrainSettings.of(corpus="x", text_heads_off="0.1", text_heads_off_frac=0.5)


@pytest.mark.parametrize("embeddings", ["train", "frozen", "frozen-after-warm-up"])
def test_frozen_repeat_embeddings_leave_the_token_table_to_text(embeddings):
    """With repeat_embeddings="frozen" the repeated rows give the (tied) token table no gradient,
    and the same logits; the text rows still train it."""
    from train.curriculum import forward
    from train.model import ModelConfig, TinyTransformer
    from train.settings import TrainSettings

    cfg = ModelConfig(vocab_size=50, n_ctx=16, d_model=16, d_ff=32, dropout=0.0)
    args = TrainSettings.of(corpus="x", steps=100, batch_size=4, repeat_frac=0.5, repeat_embeddings=embeddings, model=cfg)
    model = TinyTransformer(cfg)
    x = torch.randint(0, 50, (4, 16))
    logits = forward(model, x, 10, args, None)
    assert torch.allclose(logits, model(x)[0], atol=1e-6)
    logits[2:].sum().backward()  # the repeated rows alone
    assert (torch.count_nonzero(model.tok_emb.weight.grad) == 0) == (embeddings != "train")
    assert torch.count_nonzero(model.blocks[1].attn.qkv.weight.grad) > 0
    model.zero_grad()
    forward(model, x, 10, args, None)[:2].sum().backward()
    assert torch.count_nonzero(model.tok_emb.weight.grad) > 0
    warm = TrainSettings.of(corpus="x", steps=100, batch_size=4, synthetic_steps=5, repeat_frac=0.5,
                     repeat_embeddings=embeddings, model=cfg)
    model.zero_grad()
    forward(model, x, 2, warm, None).sum().backward()  # a synthetic step: every row repeated
    grad = model.tok_emb.weight.grad
    assert (grad is None or torch.count_nonzero(grad) == 0) == (embeddings == "frozen")


def test_old_checkpoints_settings_replay_as_recorded():
    """Settings recorded before the curriculum existed keep their meaning (repeats from 30% of
    the schedule at 0.3 of the loss, no snapshots)."""
    from train.settings import TrainSettings

    old = load_checkpoint(ROOT / "checkpoints" / "alice.pt")["train_args"]
    # the shipped checkpoint records every setting; drop the ones that came with the curriculum
    later = ("synthetic_steps", "synthetic_dropout", "snapshots", "repeat_start", "repeat_weight")
    old = {k: v for k, v in old.items() if k not in later}
    args = TrainSettings.from_dict(old)
    assert (args.curriculum.repeat_start, args.curriculum.repeat_weight, args.output.snapshots) == (0.3, 0.3, "")
    # runs recorded before synthetic_dropout existed kept dropout on during a warm-up
    assert TrainSettings.from_dict({**old, "synthetic_steps": 5}).curriculum.synthetic_dropout == old["model"]["dropout"]
