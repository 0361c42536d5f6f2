"""The lab's committed figures (examples/lab_reference.json, which the site build reads so that it
needs no numpy) are what examples/attention_demo.py computes: the same structure, strings and
integers, and floats equal up to float64 rounding (another machine's BLAS sums in another order
and moves the last bit or two)."""

import json

from conftest import ROOT
from examples import attention_demo as demo
from helpers import assert_json_close


def test_committed_lab_figures_are_what_the_demo_computes():
    committed = json.loads((ROOT / "examples" / "lab_reference.json").read_text(encoding="utf-8"))
    fresh = json.loads(json.dumps(demo.reference_data()))  # tuples -> lists, as the file holds them
    # stale? python examples/attention_demo.py --json > examples/lab_reference.json
    assert_json_close(committed, fresh, "lab_reference.json", rtol=1e-12, atol=1e-12)
