"""How long the rest of a `make model` run will take, shown beside the training bar: the steps
left at this run's own pace, plus the export that follows them.

Export's work is one graph, one parity check and one head measurement per timeline point (the
shipped model and each snapshot before it), each measurement a pass over the held-out windows
and the repeated random sequences: the same kind of work as the trainer's own held-out
evaluation, which the trainer times anyway. So export is estimated in units of that evaluation,
on this machine, at this moment's load, rather than in seconds measured on some other machine."""

from __future__ import annotations

# Export's seconds per timeline point, in held-out evaluations of this run. Measured on the
# 2-core machine for the shipped recipe: 20 points, export 30 s, one evaluation 0.53 s.
EVALS_PER_POINT = 2.5
# Export's work besides the points (loading, the default view's search over the probe text and
# the speaker sentences, the circuit's switch-offs, golden.json), in points.
FIXED_POINTS = 4


def export_seconds(eval_seconds: float, points: int) -> float:
    """The export's estimated duration for a model with `points` timeline points."""
    return EVALS_PER_POINT * eval_seconds * (points + FIXED_POINTS)


def clock(seconds: float) -> str:
    """'1:02:03' or '12:34' (tqdm's own style, so that the two read alike)."""
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


def run_left(steps_left: int, seconds_per_step: float, eval_seconds: float, points: int) -> str:
    """The postfix for the training bar: what is left of the whole run, export included."""
    return clock(steps_left * seconds_per_step + export_seconds(eval_seconds, points))



# Before any run: the whole `make model`'s time from its settings, for the line it prints first.
# Seconds per training step at the default size (batch 32, n_ctx 128, d_model 80) on the 2-core
# machine, by recipe and threads. Measured there on 2026-12-02: every kind of step (plain text,
# the curriculum's text steps, its warm-up steps) costs 0.23-0.25 s of CPU on one thread or two
# (100-step runs); on one thread beside other work the shipped recipe ran 2,500 steps in 15
# minutes with its export (0.30 s/step); on two, the plain recipe's 1,500 steps take about 5
# minutes and the curriculum's 2,500 about 10 (run M2).
PACE = {("plain", 1): 0.28, ("plain", 2): 0.18, ("curriculum", 1): 0.30, ("curriculum", 2): 0.21}
# One held-out evaluation, per held-out character (the shipped recipe: 14,443 characters, 0.53 s).
EVAL_SECONDS_PER_CHAR = 0.53 / 14443
# What comes before the first step and around export's points: imports, reading the texts,
# the tokenizer (per MB of training text), export's start and its parity check.
START_SECONDS = 5.0
TOKENIZER_SECONDS_PER_MB = 6.0
EXPORT_START_SECONDS = 6.0
EXPORT_SECONDS_PER_POINT = 0.4


def planned_seconds(args, heldout_chars: int, training_chars: int, curriculum: bool) -> tuple[float, float]:
    """(training, export) seconds for a run with these settings, at the measured pace (an upper
    bound: early stopping ends a run sooner)."""
    cfg = args.model
    size = (args.data.batch_size / 32) * (cfg.n_ctx / 128) * (cfg.d_model / 80)
    pace = PACE[("curriculum" if curriculum else "plain", min(args.threads, 2))] * size
    evaluation = EVAL_SECONDS_PER_CHAR * heldout_chars * size
    points = len(args.snapshot_steps()) + 1
    evaluations = args.optimiser.steps // args.output.eval_every + points
    training = (START_SECONDS + TOKENIZER_SECONDS_PER_MB * training_chars / 1e6
                + args.optimiser.steps * pace + evaluations * evaluation)
    export = EXPORT_START_SECONDS + EXPORT_SECONDS_PER_POINT * points + export_seconds(evaluation, points)
    return training, export


def minutes(seconds: float) -> str:
    if seconds < 90:
        return f"{max(10, round(seconds / 10) * 10)} seconds"
    return f"{round(seconds / 60)} minutes"


def estimate_line(args, corpus, companions) -> str:
    """'estimate: about 2 minutes ...': the line `make model` prints before it starts."""
    chars = len(corpus.train_text) + sum(len(c.text) for c in companions)
    training, export = planned_seconds(args, len(corpus.heldout_text), chars, args.curriculum.is_on())
    threads = f"{args.threads} thread{'s' * (args.threads != 1)}"
    return (f"estimate: about {minutes(training + export)} on 2 idle cores: training {clock(training)} "
            f"({args.optimiser.steps:,} steps on {threads}, less if it stops early), export {clock(export)}")
