"""`python -m train --corpus PATH`: tokenizer + model in one run, best checkpoint kept."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from train.checkpoint import load_checkpoint
from train.data import read_corpus
from train.evaluate import report
from pathlib import Path

from train.files import UserError, ensure_writable_dir
from train.trainer import TrainArgs, fit, resume_path


def parse_args(argv: list[str]) -> argparse.Namespace:
    defaults = TrainArgs(corpus="")
    p = argparse.ArgumentParser(prog="python -m train", description=__doc__)
    p.add_argument("--corpus", help="any UTF-8 text file (Project Gutenberg boilerplate is stripped)")
    p.add_argument("--out", default=defaults.out, help="checkpoint to write (default: %(default)s)")
    p.add_argument("--resume", metavar="CHECKPOINT", help="continue an interrupted run (*.resume.pt)")
    for f in dataclasses.fields(TrainArgs):
        if f.name in ("corpus", "out"):
            continue
        flag = "--" + f.name.replace("_", "-")
        p.add_argument(flag, type=type(f.default), default=f.default,
                       help=argparse.SUPPRESS if f.name == "interrupt_at" else f"default: {f.default}")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    ns = parse_args(sys.argv[1:] if argv is None else argv)
    args = None
    try:
        resume = None
        if ns.resume:
            resume = load_checkpoint(ns.resume)
            if not resume.get("resumable"):
                raise UserError(f"{ns.resume} is a finished checkpoint, not an interrupted run.")
            args = TrainArgs(**{**resume["train_args"], "interrupt_at": 0})
            if ns.corpus:
                args.corpus = ns.corpus
        else:
            if not ns.corpus:
                raise UserError("no corpus given. Pass --corpus PATH (any UTF-8 text file).")
            args = TrainArgs(**{f.name: getattr(ns, f.name) for f in dataclasses.fields(TrainArgs)})
        corpus = read_corpus(args.corpus)
        ensure_writable_dir(Path(args.out).parent)  # fail now, not after minutes of training
        if resume and resume["corpus"]["sha256"] != corpus.sha256:
            raise UserError(f"{args.corpus} is not the text the interrupted run was training on.")
        payload = fit(corpus, args, resume)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        saved = resume_path(args.out) if args else None
        if saved and saved.exists():
            print(f"\ninterrupted: progress saved to {saved}\ncontinue with: python -m train --resume {saved}",
                  file=sys.stderr)
        else:
            print("\ninterrupted before training began: nothing was written.", file=sys.stderr)
        return 130
    m = payload["metrics"]
    print(f"wrote {args.out}: {m['n_params']:,} parameters, best step {m['best_step']} of {m['steps_run']}, "
          f"{m['train_seconds']} s")
    print(report(m["heldout_bpc"], m["baselines_bpc"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
