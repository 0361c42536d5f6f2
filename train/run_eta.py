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
