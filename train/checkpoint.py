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
    shapes = {"config": dict, "metrics": dict, "corpus": dict, "tokenizer_json": str, "tokenizer_sha256": str}
    wrong = [k for k, kind in shapes.items() if not isinstance(ckpt[k], kind)]
    corpus = ckpt["corpus"] if isinstance(ckpt["corpus"], dict) else {}
    if not (isinstance(corpus.get("name"), str) and isinstance(corpus.get("sha256"), str)
            and isinstance(corpus.get("chars"), int)):
        wrong.append("corpus (name, sha256, chars)")
    if wrong:
        raise UserError(f"checkpoint {path} has malformed fields {wrong}. Retrain it.")
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
    except RuntimeError:
        want = model.state_dict()
        got = ckpt["model"]
        missing = sorted(set(want) - set(got))
        extra = sorted(set(got) - set(want))
        resized = sorted(k for k in set(want) & set(got) if tuple(want[k].shape) != tuple(got[k].shape))
        detail = "; ".join(f"{label}: {', '.join(keys[:3])}{' ...' if len(keys) > 3 else ''}"
                           for label, keys in (("missing", missing), ("unexpected", extra), ("other shape", resized))
                           if keys)
        raise UserError(f"{path}: its weights do not fit the config it records ({detail}). Retrain it.")
    return model.eval()


def resume_path(out: str | Path) -> Path:
    out = Path(out)
    return out.with_name(out.stem + ".resume" + out.suffix)


def remove_stray_temp_files(out: str | Path) -> list[Path]:
    """A kill during an atomic write leaves its temp file behind; the next run sweeps them."""
    out = Path(out)
    stray = []
    for target in (out, resume_path(out)):
        stray += list(out.parent.glob(f".{target.name}.*.tmp"))
    for path in stray:
        path.unlink(missing_ok=True)
    return stray
