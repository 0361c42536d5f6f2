"""The three checks every settings group makes: each failure is a ValueError whose message names
the setting and what it must be, which the CLI turns into its one `error:` line."""

from __future__ import annotations

import math


def need(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def between(settings, name: str) -> None:
    """Setting `name` of `settings` is a number from 0 to 1."""
    value = getattr(settings, name)
    need(finite(value) and 0 <= value <= 1, f"{name}={value} must be between 0 and 1")


def whole(settings, name: str) -> None:
    """Setting `name` of `settings` is a whole number, at least 1."""
    value = getattr(settings, name)
    need(isinstance(value, int) and value >= 1, f"{name}={value} must be a whole number, at least 1")
