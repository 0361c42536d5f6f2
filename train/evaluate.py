"""`python -m train.evaluate`: a checkpoint's held-out bits per character, recomputed, next to
gzip -9, xz and bzip2 on the same split (each compressor has seen the first 90%, like the model)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.data import compressor_baselines, nats_to_bpc, read_corpus
from train.files import UserError
from train.tokenizer import encode, load_tokenizer_json
from train.trainer import heldout_nats


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
    lines = [f"  {'measure':<{width}}  {'now':<22} {'must':<8} aim"]
    lines += [f"  {a:<{width}}  {b:<22} {c:<8} {e}" for a, b, c, e in rows]
    return "targets:\n" + "\n".join(lines)


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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m train.evaluate", description=__doc__)
    p.add_argument("--checkpoint", default="checkpoints/alice.pt", help="default: %(default)s")
    p.add_argument("--corpus", required=True, help="the text the checkpoint was trained on")
    p.add_argument("--meta", help="an exported meta.json of this checkpoint: also print the targets table")
    ns = p.parse_args(argv)
    try:
        bpc, baselines = evaluate(Path(ns.checkpoint), Path(ns.corpus))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(report(bpc, baselines))
    if ns.meta:
        print(targets(json.loads(Path(ns.meta).read_text(encoding="utf-8")), bpc, baselines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
