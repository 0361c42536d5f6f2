"""Acceptance harness for the attention lab: re-runs attention_demo's checks.

Prints one line per check with the figure it measured and exits 1 if any
check fails, so ``make test`` (through tests/test_lab_python.py) gates on it.

    python examples/validate.py [--seed N]
"""

from __future__ import annotations

import argparse
import json
import sys

# The script's own folder is first on the import path when it runs (`python examples/validate.py`).
import attention_demo as demo
import lab_checks


def harness_checks(demo, seed: int) -> list[dict]:
    """Checks about the reference itself rather than about attention."""
    first = json.dumps(demo.reference_data(seed))
    again = json.dumps(demo.reference_data(seed))
    return [
        {"name": "same seed gives byte-identical reference data", "measured": f"{len(first)} bytes",
         "bound": "identical", "passed": first == again},
        {"name": "reference data survives a JSON round trip", "measured": "json.loads(dumps)",
         "bound": "equal", "passed": json.loads(first) == demo.reference_data(seed)},
    ]


def format_check(c: dict) -> str:
    m = c["measured"]
    shown = f"{m:.8g}" if isinstance(m, float) else str(m)
    return f"{'PASS' if c['passed'] else 'FAIL'}  {c['name']}: {shown}  (want {c['bound']})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=demo.DEFAULT_SEED)
    args = ap.parse_args(argv)

    data = demo.reference_data(args.seed)
    results = lab_checks.checks(data) + harness_checks(demo, args.seed)
    print(f"attention lab, seed {args.seed}")
    for c in results:
        print(format_check(c))
    failed = sum(not c["passed"] for c in results)
    print(f"{len(results) - failed}/{len(results)} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
