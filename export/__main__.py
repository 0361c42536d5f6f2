"""`python -m export`: checkpoint -> a model folder (model.onnx, tokenizer.json, golden.json,
meta.json), refusing any model that does not match PyTorch, measuring what every head does on the
corpus's held-out text and choosing the view the page opens on from what the model does
(export/default_view.py). The folder is written whole beside --out, checked against the meta.json
it holds, then swapped in (export/replace_folder.py): an interrupted or failed export leaves the
previous folder as it was. `--check` checks everything that can be checked before training (the
corpus, the output folder, the flags against the shape that training's flags after `--` give the
model) and writes nothing: `make model` runs it first."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import onnx
from tqdm import tqdm

from attention_live.feeds import INPUT_NOTES, expected_axes
from attention_live.integrity import FolderMismatch, verify_model_folder
from attention_live.meta_schema import MetaInvalid, check_meta
from export import default_view
from export.checks import check_out_folder, check_view_flags, parse_head_order, training_shape, view_number
from export.circuit import circuit_example, measure_circuit
from export.example_source import EXAMPLES_FROM, measure_model
from export.golden import golden_outputs
from export.heads import HELDOUT_SOURCE, PROBE_TEXT, heldout_windows, ort_run
from export.mean_contribution import mean_direct_contributions
from export.parity import ParityError, check_parity, session_for
from export.replace_folder import Interrupts, replacing_folder, run_replacing
from export.story import load_sentences
from export.timeline import FOLDER as TIMELINE
from export.timeline import MANIFEST, state_arrays, timeline_files
from export.to_onnx import OPSET, export_onnx_bytes, measuring_graph
from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.data import read_corpus
from train.files import CommandLine, UserError, atomic_write_bytes, sha256_bytes
from train.model import alibi_slopes, permute_heads
from train.recipe_files import recorded as recorded_recipe
from train.tokenizer import load_tokenizer_json

MAX_MODEL_BYTES = 1_300_000  # the page's download budget for the graph
ROOT = Path(__file__).resolve().parent.parent


def to_json(obj) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def positions_meta(model) -> dict:
    if model.cfg.positions != "alibi":
        return {"scheme": model.cfg.positions}
    return {"scheme": "alibi", "slopes": [[round(float(s), 8) for s in b.attn.alibi_slopes] for b in model.blocks],
            "standard_slopes": alibi_slopes(model.cfg.n_head)}


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
                    description: str, heldout_text: str, head_order: str = "", examples_from: str = "held-out") -> dict[str, bytes]:
    """The four files, from the checkpoint and its model (`model_from_checkpoint`). `text`, `layer`
    and `head` pin the default view where given (None: chosen from what the model does);
    `examples_from` is where the heads' example sentences are searched (example_source.EXAMPLES_FROM)."""
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
    session = session_for(measuring_graph(onnx_bytes))
    run = ort_run(session)
    counts = ckpt.get("token_counts") or []
    if len(counts) != cfg.vocab_size:
        raise UserError(f"{ckpt_path} records no token counts (trained by an older version). Retrain it.")
    try:
        measured = measure_model(run, tokenizer, counts, heldout_text, cfg.n_layer, cfg.n_head, cfg.n_ctx, examples_from,
                                 weights=state_arrays(model))
    except ValueError as exc:  # e.g. a held-out part too short to measure
        raise UserError(f"cannot measure the heads: {exc}.")
    source = measured["definitions"]["example_source"]
    examples_text = heldout_text if source == HELDOUT_SOURCE else PROBE_TEXT.read_text(encoding="utf-8")
    default = default_view.choose(run, tokenizer, measured["heads"], examples_text, cfg.n_layer, cfg.n_head, cfg.n_ctx,
                                  text, layer, head, example_source=source)

    golden = golden_outputs(session, tokenizer, default["text"])
    circuit = measure_circuit(run, measured["heads"], counts, cfg.n_layer, cfg.n_head, cfg.n_ctx)
    if circuit and circuit["composes_with"]:  # the pages' example of it: the opening sentence, repeated
        circuit["example"] = circuit_example(run, tokenizer, circuit, default["text"], cfg.n_ctx)
    # On the heads' own held-out windows, through the full graph (the measuring one has no attribution).
    pushes = mean_direct_contributions(session_for(onnx_bytes), heldout_windows(tokenizer.encode(heldout_text).ids, cfg.n_ctx))
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
        "recipe": recorded_recipe(ckpt.get("train_args", {})),  # by name; None: no recipe file holds its settings
        "corpus": {**ckpt["corpus"], "description": description},
        "default": default,
        "heads": measured["heads"],
        "head_definitions": measured["definitions"],
        # The induction circuit, when the model has an induction head after layer 1 (else null).
        "circuit": circuit,
        # Each head's mean direct contribution to the model's top-1 prediction (export/mean_contribution.py).
        "direct_contribution": pushes,
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
    try:  # what is written is what every reader will check it against (attention_live/meta.schema.json)
        check_meta(json.loads(files["meta.json"]))
    except MetaInvalid as exc:
        raise UserError(f"refusing to write: {exc} (attention_live/meta.schema.json).")
    return files


def parser() -> argparse.ArgumentParser:
    p = CommandLine(prog="python -m export", description=__doc__)
    p.add_argument("--checkpoint", default="checkpoints/alice.pt", help="default: %(default)s")
    p.add_argument("--corpus", required=True,
                   help="the text the checkpoint was trained on: its held-out 10%% is where heads are measured")
    p.add_argument("--out", default="static/model",
                   help="folder to write (default: %(default)s); an earlier export there is replaced whole")
    p.add_argument("--text", default=None, help="the sentence the page opens on (default: chosen from what the model does)")
    p.add_argument("--layer", type=view_number, default=None, help="the default view's layer, 1-based (default: chosen)")
    p.add_argument("--head", type=view_number, default=None, help="the default view's head, 1-based (default: chosen)")
    p.add_argument("--head-order", default="", metavar="LAYER:H,H,H,H",
                   help="renumber a layer's heads (heads carry no order), e.g. 2:3,1,2,4; ';' between layers")
    p.add_argument("--examples-from", choices=sorted(EXAMPLES_FROM), default="held-out",
                   help="where the heads' example sentences come from: the held-out text (default) or the sample "
                        "text export/probe_text.txt, for a text whose sentences must not be published (make model "
                        "uses it for the project's own books, which are never committed)")
    p.add_argument("--corpus-description", default=None, help="one line about the training text, shown on the page")
    p.add_argument("--check", action="store_true",
                   help="check the corpus, the output folder and the flags, write nothing (no checkpoint needed); "
                        "the training flags after -- (as `python -m train` gets them) give the model's shape")

    return p


def check_only(ns: argparse.Namespace, train_flags: list[str]) -> None:
    """Everything that can fail after training, checked before it: writes nothing."""
    n_layer, n_head = training_shape(train_flags)
    check_view_flags(ns.text, ns.layer, ns.head, n_layer, n_head)
    parse_head_order(ns.head_order, n_layer, n_head)
    check_inputs()
    read_corpus(Path(ns.corpus))
    check_out_folder(Path(ns.out))
    print(f"export check ok: {ns.corpus} is readable, {ns.out}/ is writable, the flags are valid "
          f"for {n_layer} layer{'s' * (n_layer != 1)} x {n_head} head{'s' * (n_head != 1)}")


def verified(folder: Path, files: dict[str, bytes]) -> None:
    """The folder written beside --out holds exactly the files meta.json vouches for, each as recorded."""
    try:
        listed = verify_model_folder(folder)
    except FolderMismatch as exc:
        raise UserError(f"the model written beside the output folder does not match its meta.json ({exc}); nothing was replaced.")
    if sorted(listed) != sorted(files):
        raise UserError(f"meta.json vouches for {sorted(listed)}, not for every file written ({sorted(files)}).")


def export(ns: argparse.Namespace, out: Path, interrupts: Interrupts) -> dict[str, bytes]:
    check_view_flags(ns.text, ns.layer, ns.head)
    check_inputs()
    check_out_folder(out)  # fail before minutes of work, not after
    ckpt = load_checkpoint(Path(ns.checkpoint))
    if ckpt.get("resumable"):
        raise UserError(f"{ns.checkpoint} is an interrupted run; finish it with `python -m train --resume` first.")
    model = model_from_checkpoint(ckpt, Path(ns.checkpoint))  # weights, config and tokenizer fit together
    corpus = read_corpus(Path(ns.corpus))
    c = ckpt["corpus"]
    if corpus.sha256 != c["sha256"]:
        raise UserError(f"{ns.corpus} is not the text {ns.checkpoint} was trained on (sha256 differs).")
    description = ns.corpus_description or f"{c['name']} ({c['chars']:,} characters)"
    files = build_artifacts(ckpt, Path(ns.checkpoint), model, ns.text, ns.layer, ns.head, description,
                            corpus.heldout_text, ns.head_order, ns.examples_from)
    # The whole folder is written beside --out, checked, then swapped in: never half a model.
    with replacing_folder(out, interrupts, lambda folder: verified(folder, files)) as work:
        for name, data in files.items():
            atomic_write_bytes(work / name, data)
    return files


def report(out: Path, files: dict[str, bytes]) -> None:
    shown = {n: d for n, d in files.items() if not n.startswith(TIMELINE + "/")}
    sizes = ", ".join(f"{n} {len(d):,} B" for n, d in shown.items())
    print(f"wrote {out}/: {sizes}")
    if len(shown) < len(files):
        extra = {n: d for n, d in files.items() if n not in shown}
        print(f"  and {TIMELINE}/: {len(extra) - 1} snapshot graphs + timeline.json, {sum(map(len, extra.values())):,} B")
    d = json.loads(files["meta.json"])["default"]
    story = " (the speaker story)" if d["story"] else ""
    print(f"default view: L{d['layer']}H{d['head']} on {d['text']!r}, {d['top_weight']:.0%} on "
          f"{d['top_key_text'].strip()!r}, chosen by {d['chosen_by']}{story}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    split = argv.index("--") if "--" in argv else len(argv)
    ns = parser().parse_args(argv[:split])
    train_flags = argv[split + 1:]
    out = Path(ns.out)

    def work(interrupts: Interrupts) -> None:
        if ns.check:
            check_only(ns, train_flags)
            return
        if split < len(argv):
            raise UserError("training flags after -- are read only with --check (export reads the shape from the checkpoint).")
        files = export(ns, out, interrupts)
        report(out, files)  # still held: once the new folder is in place, Ctrl-C has nothing left to stop

    return run_replacing(work, f"export interrupted: {out} is as it was")


if __name__ == "__main__":
    sys.exit(main())
