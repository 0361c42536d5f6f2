"""Byte-level BPE: any string survives encode -> decode, with the shipped and a fresh tokenizer."""

import pytest

from conftest import MODEL_DIR
from helpers import HOSTILE_STRINGS, synthetic_text
from train.tokenizer import decode, encode, load_tokenizer_json, train_tokenizer


@pytest.fixture(scope="module", params=["shipped", "fresh"])
def tokenizer(request):
    if request.param == "shipped":
        return load_tokenizer_json((MODEL_DIR / "tokenizer.json").read_text(encoding="utf-8"))
    return train_tokenizer(synthetic_text(), vocab_size=300)


@pytest.mark.parametrize("text", HOSTILE_STRINGS, ids=range(len(HOSTILE_STRINGS)))
def test_round_trip(tokenizer, text):
    ids = encode(tokenizer, text)
    assert decode(tokenizer, ids) == text
    assert all(0 <= i < tokenizer.get_vocab_size() for i in ids)
    assert (len(ids) == 0) == (text == "")


def test_fresh_tokenizer_is_deterministic():
    a = train_tokenizer(synthetic_text(), vocab_size=300).to_str()
    b = train_tokenizer(synthetic_text(), vocab_size=300).to_str()
    assert a == b


def test_shipped_tokenizer_merges_common_words():
    tok = load_tokenizer_json((MODEL_DIR / "tokenizer.json").read_text(encoding="utf-8"))
    # A trained BPE needs far fewer tokens than bytes on ordinary English.
    text = "The Queen turned to Alice and said nothing at all."
    assert len(encode(tok, text)) < len(text.encode()) / 2.5
