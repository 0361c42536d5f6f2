"""The lab's committed figures (examples/lab_reference.json, which the site build reads so that it
needs no numpy) are exactly what examples/attention_demo.py computes."""

import importlib.util
import json

from conftest import ROOT


def test_committed_lab_figures_are_what_the_demo_computes():
    spec = importlib.util.spec_from_file_location("attention_demo", ROOT / "examples" / "attention_demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    committed = json.loads((ROOT / "examples" / "lab_reference.json").read_text(encoding="utf-8"))
    fresh = json.loads(json.dumps(demo.reference_data()))  # tuples -> lists, as the file holds them
    assert committed == fresh, "stale: python examples/attention_demo.py --json > examples/lab_reference.json"
