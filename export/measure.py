"""`python -m export.measure --checkpoint PATH --corpus PATH`: the figures an experiment is judged
by, straight from a checkpoint through PyTorch (no export needed): held-out bits/char, every
head's scores (export/heads.py), the in-context gain, the speaker story on the sentence set, and
the induction circuit (the best induction head's score with each layer-1 head switched off).
`--snapshots` measures every snapshot the checkpoint keeps as well. Prints JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

from export import head_scores as hs
from export.default_view import speaker_head
from export.heads import measure_heads, n_repeat_for, repeated_sequences, seen_tokens
from train.checkpoint import load_checkpoint, model_from_checkpoint
from train.data import read_corpus
from train.files import UserError
from train.snapshots import snapshot_model
from train.tokenizer import load_tokenizer_json


def torch_run(model):
    """A heads.Run over a PyTorch model (batched; logits at every position)."""
    model = model.eval()

    @torch.no_grad()
    def run(ids, head_mask=None):
        x = torch.as_tensor(np.asarray(ids, dtype=np.int64))
        mask = None if head_mask is None else torch.as_tensor(np.asarray(head_mask, dtype=np.float32))
        out = [model(x[i : i + 16], mask) for i in range(0, len(x), 16)]
        logits = torch.cat([o[0] for o in out]).numpy()
        attention = torch.cat([o[1]["pattern"] for o in out]).numpy()
        return logits, attention

    return run


def circuit(run, candidates, n_layer: int, n_head: int, head: tuple[int, int], n_ctx: int) -> dict:
    """The induction score of `head` (0-based) with each layer-1 head off in turn."""
    n_repeat = n_repeat_for(n_ctx)
    seqs = repeated_sequences(candidates, n=n_repeat)
    out = {}
    for h in range(n_head):
        mask = np.ones((n_layer, n_head), dtype=np.float32)
        mask[0, h] = 0.0
        _, att = run(seqs, mask)
        out[f"L1H{h + 1} off"] = round(float(hs.induction(att, n_repeat)[:, head[0], head[1]].mean()), 4)
    return out


def speaker(run, tokenizer, n_layer: int, n_head: int) -> dict | None:
    """The head that best finds the speaker at «said» on the sentence set (None without «said»)."""
    best = speaker_head(run, tokenizer, n_layer, n_head)
    return best and {k: best[k] for k in ("layer", "head", "share", "mean_weight_on_speaker")}


def measure(model, tokenizer, counts, heldout_text: str) -> dict:
    cfg = model.cfg
    run = torch_run(model)
    m = measure_heads(run, tokenizer.encode(heldout_text).ids, seen_tokens(counts), cfg.n_layer, cfg.n_head, cfg.n_ctx)
    best = lambda key: max(m["heads"], key=lambda h: h["scores"][key])
    ind = best("induction")
    return {
        "heldout_loss_nats": m["heldout_loss_nats"], "in_context_gain": m["in_context_gain"],
        "best_previous_token": {"head": f"L{best('previous_token')['layer']}H{best('previous_token')['head']}",
                                "score": best("previous_token")["scores"]["previous_token"]},
        "best_induction": {"head": f"L{ind['layer']}H{ind['head']}", "score": ind["scores"]["induction"]},
        "circuit": circuit(run, seen_tokens(counts), cfg.n_layer, cfg.n_head, (ind["layer"] - 1, ind["head"] - 1), cfg.n_ctx),
        "speaker": speaker(run, tokenizer, cfg.n_layer, cfg.n_head),
        "roles": {f"L{h['layer']}H{h['head']}": h["role"] for h in m["heads"]},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m export.measure", description=__doc__)
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--corpus", required=True, help="the text the checkpoint was trained on")
    p.add_argument("--snapshots", action="store_true", help="measure every snapshot too")
    ns = p.parse_args(argv)
    try:
        ckpt = load_checkpoint(Path(ns.checkpoint))
        model = model_from_checkpoint(ckpt, ns.checkpoint)
        corpus = read_corpus(Path(ns.corpus))
        if corpus.sha256 != ckpt["corpus"]["sha256"]:
            raise UserError(f"{ns.corpus} is not the text {ns.checkpoint} was trained on.")
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    tokenizer = load_tokenizer_json(ckpt["tokenizer_json"])
    counts = ckpt["token_counts"]
    metrics = ckpt["metrics"]
    bzip2 = metrics["baselines_bpc"]["bzip2"]
    out = {"checkpoint": ns.checkpoint, "heldout_bpc": round(metrics["heldout_bpc"], 4),
           "x_bzip2": round(metrics["heldout_bpc"] / bzip2, 4), "best_step": metrics["best_step"],
           "steps_run": metrics["steps_run"], "train_seconds": metrics["train_seconds"],
           **measure(model, tokenizer, counts, corpus.heldout_text)}
    if ns.snapshots:
        out["snapshots"] = []
        for snap in ckpt.get("snapshots", []):
            figures = measure(snapshot_model(model, snap), tokenizer, counts, corpus.heldout_text)
            out["snapshots"].append({"step": snap["step"], "heldout_bpc": snap["heldout_bpc"], **figures})
            print(json.dumps(out["snapshots"][-1]), file=sys.stderr)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
