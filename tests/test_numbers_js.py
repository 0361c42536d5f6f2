"""The widget writes whole numbers as English prose does (static/attention-view/core/numbers.js
grouped, which avoids Intl: its first use costs a cold page tens of milliseconds): the same
text as Python's "{:,}" for every case, rounding halves as JavaScript's Math.round does."""

from __future__ import annotations

import math

from conftest import run_node

CASES = [0, 7, -7, 999, 1000, -1000, 2048, 12345, 999999, 1000000, -1234567, 2**31, 9007199254740991,
         0.4, 2.5, -2.5, 1234.5, 999.6]

GROUPED_JS = """
import { readFileSync } from "node:fs";
const { grouped } = await import(process.cwd() + "/static/attention-view/core/numbers.js");
process.stdout.write(JSON.stringify(JSON.parse(readFileSync(0, "utf8")).map(grouped)));
"""


def js_round(x: float) -> int:
    """Math.round: halves go up, towards +infinity (whole numbers stay exact)."""
    return x if isinstance(x, int) else math.floor(x + 0.5)


def test_grouped_writes_each_number_as_python_does():
    got = run_node(GROUPED_JS, CASES)
    assert got == [f"{js_round(n):,}" for n in CASES]
