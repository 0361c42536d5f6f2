"""`python -m export`: checkpoint -> static/model/, refusing any model that does not match PyTorch."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import onnx

from export.golden import golden_outputs
from export.parity import ParityError, check_parity
from export.to_onnx import OPSET, export_onnx_bytes, expected_axes
from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.files import UserError, atomic_write_bytes, ensure_writable_dir, sha256_bytes
from train.tokenizer import load_tokenizer_json

MAX_MODEL_BYTES = 1_300_000  # the page's download budget for the graph
DEFAULT_TEXT = "The Queen turned to Alice and said"


def default_token(pieces: list[str]) -> int:
    """The last 'said' if there is one (the view the page opens on), else the last token."""
    matches = [i for i, p in enumerate(pieces) if p.lstrip("Ġ") == "said"]
    return matches[-1] if matches else len(pieces) - 1


def to_json(obj) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def build_artifacts(ckpt: dict, ckpt_path: Path, text: str, layer: int, head: int, description: str) -> dict[str, bytes]:
    model = model_from_checkpoint(ckpt, ckpt_path)
    cfg = model.cfg
    if not (1 <= layer <= cfg.n_layer and 1 <= head <= cfg.n_head):
        raise UserError(f"default view layer {layer}, head {head} is outside {cfg.n_layer} layers x {cfg.n_head} heads.")
    onnx_bytes = export_onnx_bytes(model)
    try:
        report = check_parity(onnx_bytes, model)
    except ParityError as exc:
        raise UserError(f"refusing to write: the ONNX graph does not match PyTorch ({exc}).")
    print(f"parity ok (max |ONNX - PyTorch| = {report.worst():.1e}): {report.summary()}")
    if len(onnx_bytes) > MAX_MODEL_BYTES:
        raise UserError(f"model.onnx would be {len(onnx_bytes):,} bytes, over the {MAX_MODEL_BYTES:,} budget.")

    tokenizer = load_tokenizer_json(ckpt["tokenizer_json"])
    golden = golden_outputs(onnx_bytes, tokenizer, text)
    files = {
        "model.onnx": onnx_bytes,
        "tokenizer.json": ckpt["tokenizer_json"].encode("utf-8"),
        "golden.json": to_json(golden),
    }
    opset = onnx.load_from_string(onnx_bytes).opset_import[0].version
    metrics = {k: v for k, v in ckpt["metrics"].items() if k != "history"}
    meta = {
        "format_version": 1,
        "config": {**cfg.to_dict(), "d_head": cfg.d_head},
        "n_params": model.n_params(),
        "files": {name: {"bytes": len(data), "sha256": sha256_bytes(data)} for name, data in files.items()},
        "metrics": {**metrics, "parity_max_abs_diff": report.worst()},
        "corpus": {**ckpt["corpus"], "description": description},
        "default": {"text": text, "layer": layer, "head": head, "token": default_token(golden["pieces"]), "view": "head"},
        "onnx": {"opset": opset, "axes": expected_axes(cfg)},
    }
    assert opset == OPSET
    files["meta.json"] = to_json(meta)
    return files


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m export", description=__doc__)
    p.add_argument("--checkpoint", default="checkpoints/alice.pt", help="default: %(default)s")
    p.add_argument("--out", default="static/model", help="folder to write (default: %(default)s)")
    p.add_argument("--text", default=DEFAULT_TEXT, help="the sentence the page opens on")
    p.add_argument("--layer", type=int, default=2, help="default layer, 1-based (default: %(default)s)")
    p.add_argument("--head", type=int, default=3, help="default head, 1-based (default: %(default)s)")
    p.add_argument("--corpus-description", default=None, help="one line about the training text, shown on the page")
    ns = p.parse_args(argv)
    try:
        out = ensure_writable_dir(Path(ns.out))  # fail before minutes of work, not after
        ckpt = load_checkpoint(Path(ns.checkpoint))
        if ckpt.get("resumable"):
            raise UserError(f"{ns.checkpoint} is an interrupted run; finish it with `python -m train --resume` first.")
        c = ckpt["corpus"]
        description = ns.corpus_description or f"{c['name']} ({c['chars']:,} characters)"
        files = build_artifacts(ckpt, Path(ns.checkpoint), ns.text, ns.layer, ns.head, description)
        for name, data in files.items():  # meta.json last: it vouches for the others
            atomic_write_bytes(out / name, data)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sizes = ", ".join(f"{n} {len(d):,} B" for n, d in files.items())
    print(f"wrote {out}/: {sizes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
