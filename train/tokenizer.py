"""Byte-level BPE: every Unicode string encodes (no unknown token), and the browser can load
the same tokenizer.json with @huggingface/tokenizers."""

from __future__ import annotations

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers


def train_tokenizer(text: str, vocab_size: int) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    # No prefix space: the first word of a sentence keeps its own token, as the user typed it.
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),  # all 256 bytes, even unseen ones
        show_progress=False,
    )
    tok.train_from_iterator([text], trainer=trainer, length=1)
    return tok


def load_tokenizer_json(text: str) -> Tokenizer:
    return Tokenizer.from_str(text)


def encode(tok: Tokenizer, text: str) -> list[int]:
    return tok.encode(text).ids


def decode(tok: Tokenizer, ids: list[int]) -> str:
    return tok.decode(ids, skip_special_tokens=False)
