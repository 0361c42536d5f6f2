"""The committed model with an induction circuit (tests/data/circuit-model/, its README says how
it was made), and the induction readout computed from onnxruntime-python, for the tests of the
induction story in the widget and the chapter."""

from __future__ import annotations

import numpy as np

from helpers import ROOT

CIRCUIT_MODEL = ROOT / "tests" / "data" / "circuit-model"


def head_off(reads, n_layer=2, n_head=4) -> np.ndarray:
    """The head mask with one head (1-based (layer, head)) switched off."""
    mask = np.ones((n_layer, n_head), dtype=np.float32)
    mask[reads[0] - 1, reads[1] - 1] = 0.0
    return mask


def python_rows(reference, text, head, off=None):
    """(ids, [(query, key, weight)], mean) of one head: each token seen before, and its weight on
    the token after its latest earlier occurrence, with head `off` switched off if given."""
    ids = reference.ids(text)
    att = reference.run(ids, None if off is None else head_off(off))["attention"]
    last, rows = {}, []
    for q, i in enumerate(ids):
        if i in last and last[i] + 1 < q:
            rows.append((q, last[i] + 1, float(att[head[0] - 1, head[1] - 1, q, last[i] + 1])))
        last[i] = q
    return ids, rows, float(np.mean([w for _, _, w in rows]))
