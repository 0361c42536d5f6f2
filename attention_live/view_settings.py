"""The notebook view's settings checked in Python by the page's rules, so that a bad one is a
ModelError when it is set, not a view that quietly shows something else: the page's state
schema (static/attention-view/state-schema.json: each key's type and choices), its Continue
settings (static/attention-view/model/sampler.js: RULES, VALID) and its timeline (a `step` is
shown as the last snapshot at or before it, the shipped model from the shipped step on).
Needs no notebook machinery; widget.py makes the traits."""

from __future__ import annotations

import math
import re
from numbers import Real

from attention_live.errors import ModelError
from attention_live.heads import check_head_number, check_layer, format_ablate, parse_ablate, quoted, whole
from attention_live.sampler import MAX_SEED

# The Continue settings: sampler.js VALID and RULES (topk and seed are attributes; maxTokens is not).
SETTINGS = {
    "temperature": (lambda t: math.isfinite(t) and t >= 0, "a number, at least 0 (0 = always the most likely token)"),
    "topk": (lambda k: whole(k) and k >= 1, "a whole number, at least 1"),
    "seed": (lambda s: whole(s) and 0 <= s <= MAX_SEED, f"a whole number from 0 to {MAX_SEED}"),
}
# What an attribute string the page sends back reads as in Python: ASCII decimals only, as the
# page's own readers take them (a "１" or "0x10" stays the string it was).
WHOLE = re.compile(r"-?[0-9]+")
DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _as_int(value):
    """A whole number as an int (2.0 is 2), or None."""
    if whole(value):
        return int(value)
    if isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value) and value == int(value):
        return int(value)
    return None


def check_text(name: str, value) -> str:
    if not isinstance(value, str):
        raise ModelError(f"{name} must be a string, not {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ModelError(f"{name} has a lone surrogate, U+{ord(value[err.start]):04X} at character {err.start}, "
                         "which is no character: pass the text whole (both halves of the pair) or leave it out")
    return value


def check_step(meta: dict, value) -> int:
    step = _as_int(value)
    if step is None or step < 0:
        raise ModelError(f"step must be a training step, a whole number from 0, not {quoted(value)}")
    if not isinstance(meta.get("timeline"), dict):
        raise ModelError("step needs a model with a training timeline, and this model's meta.json records none")
    # Any step: the page shows the last snapshot at or before it, and the shipped model from
    # the shipped step on (state.js, step; timeline.js, pointAt).
    return step


def check_setting(key: str, key_type: str, choices, meta: dict, value):
    """`value` for state key `key` (its schema `type` and `choices`) in its Python type, or ModelError."""
    config = meta["config"]
    if key in SETTINGS:
        valid, rule = SETTINGS[key]
        number = value if key == "temperature" else _as_int(value)
        if isinstance(number, bool) or not isinstance(number, Real) or not valid(number):
            raise ModelError(f"{key} must be {rule}, not {quoted(value)}")
        return float(number) if key == "temperature" else int(number)
    if key_type == "heads":
        return format_ablate(parse_ablate(config, value))
    if key_type == "token":
        if _as_int(value) is not None and not isinstance(value, str):
            return _as_int(value)
        if isinstance(value, str):
            return check_text(key, value)
        raise ModelError(f"token must be a token index or a word such as 'said', not {quoted(value)}")
    if key_type == "step":
        return check_step(meta, value)
    if key_type == "index":
        number = _as_int(value)
        if key == "layer":
            return check_layer(config, number if number is not None else value)
        return check_head_number(config, number if number is not None else value)
    if key_type == "choice":
        if value not in choices:
            raise ModelError(f"{key} must be one of {', '.join(map(repr, choices))}, not {quoted(value)}")
        return value
    return check_text(key, value)


def from_wire(key: str, key_type: str, text):
    """An attribute string the page sent back, in its Python type (as written when it does not read as one)."""
    if text is None or not isinstance(text, str):
        return text
    if key_type in ("index", "token", "step") or key in ("topk", "seed"):
        return int(text) if WHOLE.fullmatch(text) else text
    if key == "temperature":
        return float(text) if DECIMAL.fullmatch(text) else text
    return text
