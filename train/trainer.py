"""The training loop: seeded, resumable, early-stopped on held-out bits per character. Its steps
are train/training_run.py's; this file says in which order they run."""

from __future__ import annotations

import signal
import statistics
import sys

from tqdm import tqdm

from train import run_eta
from train.data import Companion, Corpus
from train.settings import TrainSettings
from train.training_run import TrainingRun

__all__ = ["fit"]


class StepBoundaryInterrupt:
    """Ctrl-C sets a flag that the loop reads between steps, so the saved state is always a step
    boundary and a resumed run reaches bit-identical weights. A second Ctrl-C aborts at once
    (the last periodic checkpoint is still there)."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __enter__(self):
        self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc):
        signal.signal(signal.SIGINT, self._previous)
        return False


class RunBar:
    """The progress bar, with the whole run's time left (export included) once an evaluation
    has been timed."""

    def __init__(self, run: TrainingRun):
        print("run_left: the time left until the model is exported too (make model), at this run's pace", file=sys.stderr)
        self.run = run
        self.bar = tqdm(total=run.args.optimiser.steps, initial=run.progress.step, desc="training", unit="step",
                        dynamic_ncols=True)

    def show(self, **figures) -> None:
        run, rate = self.run, self.bar.format_dict.get("rate")  # steps/s as the bar's own ETA has it (smoothed)
        if run.eval_seconds and rate:
            figures["run_left"] = run_eta.run_left(run.args.optimiser.steps - run.progress.step, 1 / rate,
                                                   statistics.median(run.eval_seconds), len(run.wanted) + 1)
        self.bar.set_postfix(**figures)

    def advance(self) -> None:
        self.bar.update(1)

    def say(self, line: str) -> None:
        self.bar.write(line)

    def close(self) -> None:
        self.bar.close()


def fit(corpus: Corpus, args: TrainSettings, resume: dict | None = None,
        companions: list[Companion] | None = None) -> dict:
    """Train (or continue) and write the best checkpoint to args.checkpoint_path(); returns its payload."""
    run = TrainingRun(corpus, args, companions or [], resume)
    bar = RunBar(run)
    with StepBoundaryInterrupt() as interrupt:
        while run.progress.step < args.optimiser.steps:
            if interrupt.requested or run.interrupt_due():
                bar.close()
                run.save_resumable()
                raise KeyboardInterrupt
            run.layer1_switch_due()
            run.snapshot_due()
            loss = run.train_step()
            bar.advance()
            if run.evaluation_due():
                bpc = run.evaluate()
                bar.show(loss=f"{loss:.3f}", bpc=f"{bpc:.3f}", best=f"{run.progress.best_bpc:.3f}")
                if run.patience_spent():
                    bar.say(f"early stop at step {run.progress.step}: no better held-out bpc since step "
                            f"{run.progress.best_step}")
                    break
                run.save_resumable()
            elif run.progress.step % 5 == 0:
                bar.show(loss=f"{loss:.3f}", best=f"{run.progress.best_bpc:.3f}")
    run.snapshot_due()  # a snapshot at the final step (the loop stops before it)
    bar.close()
    return run.finish()
