"""`python -m train.evaluate`: a checkpoint's held-out bits per character, recomputed, next to
gzip -9, xz and bzip2 on the same split (each compressor has seen the first 90%, like the model)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.data import compressor_baselines, nats_to_bpc, read_corpus
from train.files import CommandLine, UserError
from train.heldout import heldout_nats
from train.tokenizer import encode, load_tokenizer_json


def report(heldout_bpc: float, baselines: dict[str, float]) -> str:
    lines = ["held-out bits per character (last 10% of the text, after seeing the first 90%):"]
    rows = [("this model", heldout_bpc)] + sorted(baselines.items(), key=lambda kv: kv[1])
    lines += [f"  {name:<11} {bpc:.3f}   ({bpc / baselines['bzip2']:.3f} x bzip2)" for name, bpc in rows]
    return "\n".join(lines)


def targets(meta: dict, heldout_bpc: float, baselines: dict[str, float]) -> str:
    """The targets table from the exported meta.json (which export measured on the same model)."""
    heads = meta.get("heads") or []
    best = lambda key: max(heads, key=lambda h: h["scores"][key]) if heads else None
    d = meta["default"]
    rows = [("held-out bits/char / bzip2", f"{heldout_bpc / baselines['bzip2']:.3f}", "<= 0.85", "<= 0.82")]
    rows.append((f"default view L{d['layer']}H{d['head']}: weight on the top token", f"{d['top_weight']:.2f}",
                 ">= 0.6", ">= 0.88"))
    if d.get("story"):
        s = d["story"]["sentence_set"]
        rows.append((f"the {d['story']['name']} story on its sentence set", f"{s['agree']}/{s['total']} = {s['share']:.1%}",
                     ">= 60%", ">= 80%"))
    else:
        rows.append(("a story on a sentence set", "none measures true", "report", "one"))
    # The induction circuit's bars (docs/experiments.md): a layer-2 induction head that copies,
    # through a layer-1 head whose switch-off at least halves it; a clean previous-token head
    # in layer 1 is an aim only.
    for key, must, aim in (("previous_token", "report", ">= 0.5"), ("induction", ">= 0.3", ">= 0.7")):
        h = best(key)
        if h:
            rows.append((f"best {key.replace('_', '-')} score", f"{h['scores'][key]:.3f} (L{h['layer']}H{h['head']})",
                         must, aim))
    if "in_context_gain" in meta.get("metrics", {}):
        rows.append(("in-context gain, nats/token", f"{meta['metrics']['in_context_gain']:.3f}", ">= 1", ">= 5"))
    c = meta.get("circuit") or {}
    reads = c.get("composes_with")
    off = reads and next((s for s in c["switch_off"] if (s["layer"], s["head"]) == (reads["layer"], reads["head"])), None)
    if off:
        rows.append((f"induction with L{off['layer']}H{off['head']} switched off", f"{off['induction']:.3f} "
                     f"({off['induction'] / c['induction']:.0%} of {c['induction']:.3f})", "<= 50%", "report"))
    elif c:
        rows.append(("induction with one layer-1 head switched off", "no head halves it", "<= 50%", "report"))
    width = max(len(r[0]) for r in rows)
    lines = [f"  {'measure':<{width}}  {'now':<22} {'bar':<8} aim"]
    lines += [f"  {a:<{width}}  {b:<22} {c:<8} {e}" for a, b, c, e in rows]
    # The bars are the shipped recipe's (docs/experiments.md): a quick or text-only retrain is
    # not trained to reach them, and must not read as having failed.
    return ("targets: the shipped recipe's bars (docs/experiments.md); a quick or text-only model is not trained "
            "to meet them\n" + "\n".join(lines))


def evaluate(ckpt_path: Path, corpus_path: Path) -> tuple[float, dict[str, float]]:
    ckpt = load_checkpoint(ckpt_path)
    corpus = read_corpus(corpus_path)
    if corpus.sha256 != ckpt["corpus"]["sha256"]:
        raise UserError(f"{corpus_path} is not the text {ckpt_path} was trained on (sha256 differs).")
    model = model_from_checkpoint(ckpt, ckpt_path)
    tokenizer = load_tokenizer_json(ckpt["tokenizer_json"])
    nats = heldout_nats(model, encode(tokenizer, corpus.train_text), encode(tokenizer, corpus.heldout_text),
                        stride=model.cfg.n_ctx // 2)
    return nats_to_bpc(nats, len(corpus.heldout_text)), compressor_baselines(corpus)


def read_meta(path: Path) -> dict:
    try:
        meta = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path} does not exist: export the model first (make model NAME=..., or make export).")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"{path} is not a readable meta.json ({type(exc).__name__}). Export the model again.")
    corpus = meta.get("corpus") if isinstance(meta, dict) else None
    if not (isinstance(corpus, dict) and isinstance(corpus.get("sha256"), str)):
        raise UserError(f"{path} records no corpus sha256. Export the model again.")
    return meta


def recorded_corpus(meta: dict, meta_path: Path, given: Path | None) -> Path:
    """The text the model in `meta_path` was trained on: its recorded path, or `given`, which
    must be that same text (its sha256), never a second one scored silently."""
    want = meta["corpus"]["sha256"]
    name = meta["corpus"].get("name", "its corpus")
    recorded = (meta.get("train_args") or {}).get("corpus")
    folder = Path(meta_path).parent
    if given is not None:
        if read_corpus(given).sha256 != want:
            where = f" (recorded at {recorded})" if recorded else ""
            raise UserError(f"CORPUS={given} is not the text {folder} was trained on, {name}{where}, sha256 {want[:12]}...; "
                            f"leave CORPUS= out to score the recorded text.")
        return Path(given)
    if not recorded:
        raise UserError(f"{meta_path} records no corpus path; pass the text {name} it was trained on as CORPUS=.")
    try:
        same = read_corpus(Path(recorded)).sha256 == want
    except UserError:
        raise UserError(f"{folder} was trained on {recorded}, which is not readable here; pass that text as CORPUS=.")
    if not same:
        raise UserError(f"{recorded} has changed since {folder} was trained on it (sha256 differs); "
                        f"pass the text it was trained on as CORPUS=.")
    return Path(recorded)


def main(argv: list[str] | None = None) -> int:
    p = CommandLine(prog="python -m train.evaluate", description=__doc__)
    p.add_argument("--checkpoint", default="checkpoints/alice.pt", help="default: %(default)s")
    p.add_argument("--meta", help="the checkpoint's exported meta.json: the text it records is the one scored, "
                                  "and the targets table is printed too")
    p.add_argument("--corpus", help="the text the checkpoint was trained on (with --meta: optional, and checked "
                                    "against the record)")
    ns = p.parse_args(argv)
    try:
        meta = read_meta(Path(ns.meta)) if ns.meta else None
        if meta is not None:
            corpus = recorded_corpus(meta, Path(ns.meta), Path(ns.corpus) if ns.corpus else None)
        elif ns.corpus:
            corpus = Path(ns.corpus)
        else:
            raise UserError("pass --meta (the model's meta.json, which names its text) or --corpus.")
        bpc, baselines = evaluate(Path(ns.checkpoint), corpus)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = read_corpus(corpus)
    print(f"text: {corpus}, sha256 {text.sha256}, held out: its last {len(text.heldout_text):,} characters")
    print(report(bpc, baselines))
    if meta is not None:
        print(targets(meta, bpc, baselines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
