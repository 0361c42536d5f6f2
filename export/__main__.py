"""`python -m export`: checkpoint -> static/model/, refusing any model that does not match PyTorch,
and measuring what every head does on the corpus's held-out text."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnx

from export.golden import golden_outputs
from export.heads import measure_model, ort_run
from export.parity import ParityError, check_parity, session_for
from export.story import load_sentences, said_evidence
from export.to_onnx import INPUT_NOTES, OPSET, expected_axes, export_onnx_bytes
from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.data import read_corpus
from train.files import UserError, atomic_write_bytes, ensure_writable_dir, sha256_bytes
from train.model import alibi_slopes, permute_heads
from train.tokenizer import load_tokenizer_json

MAX_MODEL_BYTES = 1_300_000  # the page's download budget for the graph
DEFAULT_TEXT = "The Queen turned round and said"
ROOT = Path(__file__).resolve().parent.parent
# The default view's story is checked on these (export/story.py); the two-name set measures
# what the same head does when a second name stands between the speaker and «said».
SAID_SENTENCES = Path(__file__).resolve().parent / "data" / "speaker_sentences.tsv"
TWO_NAME_SENTENCES = Path(__file__).resolve().parent / "data" / "nearer_name_sentences.tsv"


def default_token(pieces: list[str]) -> int:
    """The last 'said' if there is one (the view the page opens on), else the last token."""
    matches = [i for i, p in enumerate(pieces) if p.lstrip("Ġ") == "said"]
    return matches[-1] if matches else len(pieces) - 1


def to_json(obj) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def parse_head_order(spec: str, n_layer: int, n_head: int) -> dict[int, list[int]]:
    """'2:3,1,2,4' -> {1: [2, 0, 1, 3]}: layer 2's new head 1 is old head 3, and so on (1-based)."""
    orders = {}
    for part in filter(None, spec.split(";")):
        try:
            layer_text, heads_text = part.split(":")
            layer, order = int(layer_text), [int(h) - 1 for h in heads_text.split(",")]
        except ValueError:
            raise UserError(f"--head-order {spec!r}: write LAYER:H,H,H,H, e.g. 2:3,1,2,4 (1-based).")
        if not 1 <= layer <= n_layer or sorted(order) != list(range(n_head)):
            raise UserError(f"--head-order {part!r} is not a permutation of the {n_head} heads of one of {n_layer} layers.")
        orders[layer - 1] = order
    return orders


def positions_meta(model) -> dict:
    if model.cfg.positions != "alibi":
        return {"scheme": model.cfg.positions}
    return {"scheme": "alibi", "slopes": [[round(float(s), 8) for s in b.attn.alibi_slopes] for b in model.blocks],
            "standard_slopes": alibi_slopes(model.cfg.n_head)}


def build_artifacts(ckpt: dict, ckpt_path: Path, model, text: str, layer: int, head: int, description: str,
                    heldout_text: str, head_order: str = "") -> dict[str, bytes]:
    """The four files, from the checkpoint and its model (`model_from_checkpoint`)."""
    cfg = model.cfg
    if not (1 <= layer <= cfg.n_layer and 1 <= head <= cfg.n_head):
        raise UserError(f"default view layer {layer}, head {head} is outside {cfg.n_layer} layers x {cfg.n_head} heads.")
    orders = parse_head_order(head_order, cfg.n_layer, cfg.n_head)
    for index, order in orders.items():
        permute_heads(model, index, order)
    onnx_bytes = export_onnx_bytes(model)
    try:
        report = check_parity(onnx_bytes, model)
    except ParityError as exc:
        raise UserError(f"refusing to write: the ONNX graph does not match PyTorch ({exc}).")
    print(f"parity ok (max |ONNX - PyTorch| = {report.worst():.1e}, head masks included): {report.summary()}")
    if len(onnx_bytes) > MAX_MODEL_BYTES:
        raise UserError(f"model.onnx would be {len(onnx_bytes):,} bytes, over the {MAX_MODEL_BYTES:,} budget.")

    tokenizer = load_tokenizer_json(ckpt["tokenizer_json"])
    session = session_for(onnx_bytes)
    run = ort_run(session)
    counts = ckpt.get("token_counts") or []
    if len(counts) != cfg.vocab_size:
        raise UserError(f"{ckpt_path} records no token counts (trained by an older version). Retrain it.")
    measured = measure_model(run, tokenizer, counts, heldout_text, cfg.n_layer, cfg.n_head, cfg.n_ctx)
    story = said_evidence(run, tokenizer, load_sentences(SAID_SENTENCES), layer, head)
    two_names = said_evidence(run, tokenizer, load_sentences(TWO_NAME_SENTENCES), layer, head)

    golden = golden_outputs(session, tokenizer, text)
    files = {
        "model.onnx": onnx_bytes,
        "tokenizer.json": ckpt["tokenizer_json"].encode("utf-8"),
        "golden.json": to_json(golden),
    }
    opset = onnx.load_from_string(onnx_bytes).opset_import[0].version
    assert opset == OPSET
    token = default_token(golden["pieces"])
    row = np.array([w if w is not None else 0.0 for w in golden["attention"][layer - 1][head - 1][token]])
    metrics = {k: v for k, v in ckpt["metrics"].items()}
    metrics["in_context_gain"] = measured["in_context_gain"]
    metrics["heldout_loss_nats"] = measured["heldout_loss_nats"]
    meta = {
        "format_version": 2,
        "config": {**cfg.to_dict(), "d_head": cfg.d_head},
        "positions": positions_meta(model),
        "head_order": {str(i + 1): [h + 1 for h in order] for i, order in orders.items()},
        "n_params": model.n_params(),
        # No machine-dependent figure (like parity's max difference) goes in here: a re-export
        # on another machine must give the same bytes wherever onnxruntime rounds differently.
        "files": {name: {"bytes": len(data), "sha256": sha256_bytes(data)} for name, data in files.items()},
        "metrics": metrics,
        "train_args": ckpt.get("train_args", {}),
        "corpus": {**ckpt["corpus"], "description": description},
        "default": {"text": text, "layer": layer, "head": head, "token": token, "view": "head",
                    "top_weight": round(float(row.max()), 4), "top_key": int(row.argmax()),
                    "sentence_set": {k: story[k] for k in ("agree", "total", "share")},
                    # the same head when another name stands between the speaker and «said»: how
                    # often its top key is that nearer name (the texture, not the story)
                    "nearer_name_set": {k: two_names[k] for k in ("agree", "total", "share")}},
        "heads": measured["heads"],
        "head_definitions": measured["definitions"],
        "onnx": {"opset": opset, "axes": expected_axes(cfg), "inputs": INPUT_NOTES},
    }
    files["meta.json"] = to_json(meta)
    return files


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m export", description=__doc__)
    p.add_argument("--checkpoint", default="checkpoints/alice.pt", help="default: %(default)s")
    p.add_argument("--corpus", required=True,
                   help="the text the checkpoint was trained on: its held-out 10%% is where heads are measured")
    p.add_argument("--out", default="static/model", help="folder to write (default: %(default)s)")
    p.add_argument("--text", default=DEFAULT_TEXT, help="the sentence the page opens on")
    p.add_argument("--layer", type=int, default=2, help="default layer, 1-based (default: %(default)s)")
    p.add_argument("--head", type=int, default=3, help="default head, 1-based (default: %(default)s)")
    p.add_argument("--head-order", default="", metavar="LAYER:H,H,H,H",
                   help="renumber a layer's heads (heads carry no order), e.g. 2:3,1,2,4; ';' between layers")
    p.add_argument("--corpus-description", default=None, help="one line about the training text, shown on the page")
    ns = p.parse_args(argv)
    out = Path(ns.out)
    existed = out.exists()
    try:
        ckpt = load_checkpoint(Path(ns.checkpoint))
        if ckpt.get("resumable"):
            raise UserError(f"{ns.checkpoint} is an interrupted run; finish it with `python -m train --resume` first.")
        model = model_from_checkpoint(ckpt, Path(ns.checkpoint))  # weights, config and tokenizer fit together
        ensure_writable_dir(out)  # fail before minutes of work, not after
        corpus = read_corpus(Path(ns.corpus))
        c = ckpt["corpus"]
        if corpus.sha256 != c["sha256"]:
            raise UserError(f"{ns.corpus} is not the text {ns.checkpoint} was trained on (sha256 differs).")
        description = ns.corpus_description or f"{c['name']} ({c['chars']:,} characters)"
        files = build_artifacts(ckpt, Path(ns.checkpoint), model, ns.text, ns.layer, ns.head, description,
                                corpus.heldout_text, ns.head_order)
        for name, data in files.items():  # meta.json last: it vouches for the others
            atomic_write_bytes(out / name, data)
    except UserError as exc:
        if not existed and out.is_dir() and not any(out.iterdir()):
            out.rmdir()  # a failed export leaves no empty folder behind
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sizes = ", ".join(f"{n} {len(d):,} B" for n, d in files.items())
    print(f"wrote {out}/: {sizes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
