"""`python -m export`: checkpoint -> a model folder (model.onnx, tokenizer.json, golden.json,
meta.json), refusing any model that does not match PyTorch, measuring what every head does on the
corpus's held-out text and choosing the view the page opens on from what the model does
(export/default_view.py). `--check` checks everything that can be checked before training (the
corpus, the output folder, the flags) and writes nothing: `make model` runs it first."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import onnx
from tqdm import tqdm

from attention_live.feeds import INPUT_NOTES, expected_axes
from export import default_view
from export.circuit import circuit_example, measure_circuit
from export.golden import golden_outputs
from export.heads import PROBE_TEXT, measure_model, ort_run
from export.parity import ParityError, check_parity, session_for
from export.story import load_sentences
from export.timeline import FOLDER as TIMELINE
from export.timeline import MANIFEST, timeline_files
from export.to_onnx import OPSET, export_onnx_bytes
from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.data import read_corpus
from train.files import UserError, atomic_write_bytes, ensure_writable_dir, sha256_bytes
from train.model import alibi_slopes, permute_heads
from train.tokenizer import load_tokenizer_json

MAX_MODEL_BYTES = 1_300_000  # the page's download budget for the graph
ROOT = Path(__file__).resolve().parent.parent


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


def check_head_order_syntax(spec: str) -> None:
    """--head-order as far as it can be checked without the model (whose sizes it must then fit):
    LAYER:H,H,... with each layer's heads a permutation of 1..n."""
    for part in filter(None, spec.split(";")):
        layer, _, heads = part.partition(":")
        parse_head_order(part, n_layer=max(1, int(layer)) if layer.isdigit() else 1, n_head=len(heads.split(",")))


def check_view_flags(text: str | None, layer: int | None, head: int | None) -> None:
    """What can be said of --text/--layer/--head without the model."""
    if text is not None and not text.strip():
        raise UserError("--text is empty; give the sentence the page should open on (or leave it out).")
    for name, value in (("layer", layer), ("head", head)):
        if value is not None and value < 1:
            raise UserError(f"--{name} {value}: layers and heads are numbered from 1.")


def check_inputs() -> None:
    """The files export reads besides its arguments (a broken checkout fails here, not after training)."""
    for path in (PROBE_TEXT, default_view.SPEAKER_SENTENCES, default_view.NEARER_NAME_SENTENCES):
        try:
            if path.suffix == ".tsv":
                load_sentences(path)
            elif not path.read_text(encoding="utf-8").strip():
                raise ValueError("it is empty")
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            raise UserError(f"{path} cannot be read ({exc}); restore it from the repository.")


def build_artifacts(ckpt: dict, ckpt_path: Path, model, text: str | None, layer: int | None, head: int | None,
                    description: str, heldout_text: str, head_order: str = "") -> dict[str, bytes]:
    """The four files, from the checkpoint and its model (`model_from_checkpoint`). `text`, `layer`
    and `head` pin the default view where given (None: chosen from what the model does)."""
    cfg = model.cfg
    if (layer or 1) > cfg.n_layer or (head or 1) > cfg.n_head:
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
    if text is not None and not 1 <= len(tokenizer.encode(text).ids) <= cfg.n_ctx:
        raise UserError(f"--text is {len(tokenizer.encode(text).ids)} tokens; the model reads 1 to {cfg.n_ctx}.")
    session = session_for(onnx_bytes)
    run = ort_run(session)
    counts = ckpt.get("token_counts") or []
    if len(counts) != cfg.vocab_size:
        raise UserError(f"{ckpt_path} records no token counts (trained by an older version). Retrain it.")
    try:
        measured = measure_model(run, tokenizer, counts, heldout_text, cfg.n_layer, cfg.n_head, cfg.n_ctx)
    except ValueError as exc:  # e.g. a held-out part too short to measure
        raise UserError(f"cannot measure the heads: {exc}.")
    default = default_view.choose(run, tokenizer, measured["heads"], heldout_text, cfg.n_layer, cfg.n_head, cfg.n_ctx,
                                  text, layer, head, example_source=measured["definitions"]["example_source"])

    golden = golden_outputs(session, tokenizer, default["text"])
    circuit = measure_circuit(run, measured["heads"], counts, cfg.n_layer, cfg.n_head, cfg.n_ctx)
    if circuit and circuit["composes_with"]:  # the pages' example of it: the opening sentence, repeated
        circuit["example"] = circuit_example(run, tokenizer, circuit, default["text"], cfg.n_ctx)
    files = {
        "model.onnx": onnx_bytes,
        "tokenizer.json": ckpt["tokenizer_json"].encode("utf-8"),
        "golden.json": to_json(golden),
    }
    opset = onnx.load_from_string(onnx_bytes).opset_import[0].version
    assert opset == OPSET
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
        "default": default,
        "heads": measured["heads"],
        "head_definitions": measured["definitions"],
        # The induction circuit, when the model has an induction head after layer 1 (else null).
        "circuit": circuit,
        "onnx": {"opset": opset, "axes": expected_axes(cfg), "inputs": INPUT_NOTES},
    }
    # The snapshots' graphs and figures, the shipped model as the last point (export/timeline.py).
    shipped = {"step": metrics["best_step"], "heldout_bpc": round(metrics["heldout_bpc"], 5),
               "heads": [{k: h[k] for k in ("layer", "head", "role", "scores")} for h in measured["heads"]],
               "in_context_gain": measured["in_context_gain"],
               "default_view": {"top_weight": default["top_weight"], "top_key": default["top_key"]}}
    timeline = timeline_files(ckpt, model, tokenizer, heldout_text, default, shipped, orders,
                              progress=lambda snaps: tqdm(snaps, desc="export: timeline", unit="snapshot",
                                                          file=sys.stderr, dynamic_ncols=True))
    if timeline:
        # Only this pointer is read on every page load; the timeline itself when it is opened.
        manifest = timeline[MANIFEST]
        meta["timeline"] = {"manifest": MANIFEST, "bytes": sum(len(b) for b in timeline.values()),
                            "sha256": sha256_bytes(manifest), "steps": len(json.loads(manifest)["points"])}
        files.update(timeline)
    files["meta.json"] = to_json(meta)
    return files


def remove_stale_timeline(out: Path, files: dict[str, bytes]) -> None:
    """Snapshot graphs an earlier export left in out/timeline/ that this one does not list (a
    re-export of another run would otherwise ship them with the site)."""
    folder = out / TIMELINE
    if not folder.is_dir():
        return
    for path in folder.iterdir():
        if path.is_file() and f"{TIMELINE}/{path.name}" not in files and (path.suffix == ".onnx" or path.name == "timeline.json"):
            path.unlink()
    if not any(folder.iterdir()):
        folder.rmdir()


def remove_empty(folders: list[Path]) -> None:
    for folder in folders:  # deepest first
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m export", description=__doc__)
    p.add_argument("--checkpoint", default="checkpoints/alice.pt", help="default: %(default)s")
    p.add_argument("--corpus", required=True,
                   help="the text the checkpoint was trained on: its held-out 10%% is where heads are measured")
    p.add_argument("--out", default="static/model", help="folder to write (default: %(default)s)")
    p.add_argument("--text", default=None, help="the sentence the page opens on (default: chosen from what the model does)")
    p.add_argument("--layer", type=int, default=None, help="the default view's layer, 1-based (default: chosen)")
    p.add_argument("--head", type=int, default=None, help="the default view's head, 1-based (default: chosen)")
    p.add_argument("--head-order", default="", metavar="LAYER:H,H,H,H",
                   help="renumber a layer's heads (heads carry no order), e.g. 2:3,1,2,4; ';' between layers")
    p.add_argument("--corpus-description", default=None, help="one line about the training text, shown on the page")
    p.add_argument("--check", action="store_true",
                   help="check the corpus, the output folder and the flags, write nothing (no checkpoint needed)")
    ns = p.parse_args(argv)
    out = Path(ns.out)
    created = [folder for folder in [out, *out.parents] if not folder.exists()]
    try:
        check_view_flags(ns.text, ns.layer, ns.head)
        check_inputs()
        if ns.check:
            check_head_order_syntax(ns.head_order)
            read_corpus(Path(ns.corpus))
            ensure_writable_dir(out)
            remove_empty(created)
            print(f"export check ok: {ns.corpus} is readable, {out}/ is writable, the flags are valid")
            return 0
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
        remove_stale_timeline(out, files)
    except UserError as exc:
        remove_empty(created)  # a failed export leaves no empty folder behind
        print(f"error: {exc}", file=sys.stderr)
        return 2
    shown = {n: d for n, d in files.items() if not n.startswith(TIMELINE + "/")}
    sizes = ", ".join(f"{n} {len(d):,} B" for n, d in shown.items())
    print(f"wrote {out}/: {sizes}")
    if len(shown) < len(files):
        extra = {n: d for n, d in files.items() if n not in shown}
        print(f"  and {TIMELINE}/: {len(extra) - 1} snapshot graphs + timeline.json, {sum(map(len, extra.values())):,} B")
    d = files and json.loads(files["meta.json"])["default"]
    story = " (the speaker story)" if d["story"] else ""
    print(f"default view: L{d['layer']}H{d['head']} on {d['text']!r}, {d['top_weight']:.0%} on "
          f"{d['top_key_text'].strip()!r}, chosen by {d['chosen_by']}{story}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
