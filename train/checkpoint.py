"""Checkpoints: one file holds everything export needs (config, weights, tokenizer, metrics,
corpus identity), plus, for an interrupted run, the optimizer and RNG states to resume."""

from __future__ import annotations

import io
import pickle
from pathlib import Path

import torch

from train.files import UserError, atomic_write_bytes, sha256_bytes
from train.model import ModelConfig, TinyTransformer

FORMAT_VERSION = 1
REQUIRED = ("format_version", "config", "model", "tokenizer_json", "tokenizer_sha256", "metrics", "corpus")


def save_checkpoint(path: Path, payload: dict) -> None:
    buffer = io.BytesIO()
    torch.save({"format_version": FORMAT_VERSION, **payload}, buffer)
    atomic_write_bytes(path, buffer.getvalue())


def load_checkpoint(path: Path) -> dict:
    """Load and validate; every failure names the file and what to do."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"checkpoint {path} does not exist. Train one with `python -m train`.")
    try:
        # weights_only: a checkpoint from the internet must not be able to run code on load.
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except (RuntimeError, EOFError, pickle.UnpicklingError, ValueError, OSError) as exc:
        raise UserError(f"checkpoint {path} is corrupt or not a checkpoint ({type(exc).__name__}). Retrain it.")
    if not isinstance(ckpt, dict) or any(k not in ckpt for k in REQUIRED):
        raise UserError(f"checkpoint {path} is missing fields {[k for k in REQUIRED if k not in ckpt]}. Retrain it.")
    if ckpt["format_version"] != FORMAT_VERSION:
        raise UserError(f"checkpoint {path} has format {ckpt['format_version']}, expected {FORMAT_VERSION}.")
    if sha256_bytes(ckpt["tokenizer_json"].encode("utf-8")) != ckpt["tokenizer_sha256"]:
        raise UserError(f"checkpoint {path}: its tokenizer does not match its recorded hash. Retrain it.")
    return ckpt


def model_from_checkpoint(ckpt: dict, path: Path | str = "checkpoint") -> TinyTransformer:
    try:
        cfg = ModelConfig.from_dict(ckpt["config"])
    except (TypeError, ValueError) as exc:
        raise UserError(f"{path}: its model config is not one this code can build ({exc}).")
    from tokenizers import Tokenizer

    vocab = Tokenizer.from_str(ckpt["tokenizer_json"]).get_vocab_size()
    if vocab != cfg.vocab_size:
        raise UserError(f"{path}: tokenizer has {vocab} tokens but the model expects {cfg.vocab_size}.")
    model = TinyTransformer(cfg)
    try:
        model.load_state_dict(ckpt["model"])
    except RuntimeError as exc:
        first = str(exc).splitlines()[0]
        raise UserError(f"{path}: its weights do not fit the config it records ({first}). Retrain it.")
    return model.eval()
