"""The widget's state keys, as the site build and the offline worker need them: one list, the
widget's own schema (static/attention-view/state-schema.json), never a copy."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

# The widget's state keys as its schema (static/attention-view/state.js SCHEMA) writes them:
# `make schema` regenerates it, and a test fails when it is out of date.
STATE_SCHEMA = Path(__file__).resolve().parent.parent / "static" / "attention-view" / "state-schema.json"


@lru_cache(maxsize=1)
def state_keys() -> list[str]:
    """The widget's state keys, in its schema's order."""
    return [k["key"] for k in json.loads(STATE_SCHEMA.read_text(encoding="utf-8"))["keys"]]


def page_params() -> list[str]:
    """The view settings pages read from their query string: the widget's state keys. The
    worker answers a page with these parameters from its cache, and sends any other query to
    the network."""
    return state_keys()
