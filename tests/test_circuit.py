"""The induction circuit on a hand-built model with a known answer: layer 2 head 4 copies
(an induction stripe) only while layer 1 head 2 is on, as a composed circuit does; and the
shipped model's own circuit, recomputed from its graph."""

import numpy as np
import pytest

from export.circuit import circuit_example, example_row, measure_circuit
from export.heads import n_repeat_for


def composed_run(n_layer=2, n_head=4, needs=(0, 1), vocab=50):
    """A Run whose L2H4 attends from query n+i to key i+1 exactly when head `needs` is on, and
    whose logits then predict the repeat (so the in-context gain follows the stripe)."""
    def run(ids, head_mask=None):
        ids = np.asarray(ids)
        W, T = ids.shape
        n = T // 2
        on = head_mask is None or head_mask[needs] == 1
        att = np.zeros((W, n_layer, n_head, T, T), dtype=np.float32)
        att[..., np.arange(T), np.arange(T)] = 1.0  # everyone else attends to itself
        if on:
            att[:, 1, 3, n:, :] = 0.0
            att[:, 1, 3, n + np.arange(n - 1), np.arange(1, n)] = 1.0
        logits = np.zeros((W, T, vocab), dtype=np.float32)
        if on:  # the second copy's next token is known: what followed it the first time
            for t in range(n, T - 1):
                logits[np.arange(W), t, ids[:, t + 1]] = 20.0
        return logits, att
    return run


HEADS = [{"layer": layer, "head": head, "role": "induction" if (layer, head) == (2, 4) else "diffuse",
          "scores": {"induction": 0.9 if (layer, head) == (2, 4) else 0.0}}
         for layer in (1, 2) for head in (1, 2, 3, 4)]


def test_the_circuit_is_found_through_the_head_it_composes_with():
    counts = np.zeros(50, dtype=int)
    counts[:] = 5
    c = measure_circuit(composed_run(), HEADS, counts, 2, 4, 128)
    n = n_repeat_for(128)
    assert c["head"] == {"layer": 2, "head": 4}
    assert c["induction"] == round((n - 1) / n, 4)  # every second-copy row but the last on key i+1
    assert c["composes_with"] == {"layer": 1, "head": 2}
    off = {(s["layer"], s["head"]): s for s in c["switch_off"]}
    assert off[(1, 2)]["induction"] == 0.0 and off[(1, 1)]["induction"] == c["induction"]
    assert c["in_context_gain"] > 1 and off[(1, 2)]["in_context_gain"] == 0.0


def test_no_induction_head_no_circuit():
    heads = [{**h, "role": "diffuse"} for h in HEADS]
    assert measure_circuit(composed_run(), heads, np.full(50, 5), 2, 4, 128) is None


def test_a_stripe_that_needs_no_earlier_head_composes_with_none():
    counts = np.full(50, 5)
    c = measure_circuit(composed_run(needs=(1, 0)), HEADS, counts, 2, 4, 128)  # depends on a layer-2 head only
    assert c["composes_with"] is None


class WordTokenizer:
    """One id per word, in order of first appearance (a stand-in with a known tokenization)."""

    def __init__(self):
        self.vocab = {}

    def encode(self, text):
        ids = [self.vocab.setdefault(w, len(self.vocab)) for w in text.split()]
        return type("Encoding", (), {"ids": ids})()


def test_the_example_is_a_repeat_row_with_its_target_and_next_token():
    c = {"head": {"layer": 2, "head": 4}}
    words = "the cat sat on the mat today".split()
    # One copy must fit half the window: 7 words > (9 - 1) // 2 = 4, so it is cut to 4 words.
    ex = circuit_example(composed_run(), WordTokenizer(), c, " ".join(words), n_ctx=9)
    assert ex["text"] == "the cat sat on the cat sat on"
    # composed_run's stripe is on key i + 1 from query 4 + i; rows 4 ("the": target 1), 5 and 6
    # all put 1.0 there, the last row (7) is left out, and ties keep the earliest.
    assert (ex["token"], ex["key"], ex["weight"]) == (4, 1, 1.0)


def test_no_repeat_no_example():
    c = {"head": {"layer": 2, "head": 4}}
    # a one-word text repeated has its only target at the last token, which is left out
    assert circuit_example(composed_run(), WordTokenizer(), c, "alone", n_ctx=9) is None


def test_the_example_row_is_where_the_repeat_raised_the_next_tokens_probability_most():
    rows = [(10, 3, 0.9), (11, 4, 0.5), (12, 5, 0.1)]  # (query, key = target, weight on it)
    p_next = {10: 0.2, 2: 0.15, 11: 0.6, 3: 0.1, 12: 0.99, 4: 0.0}.get  # at q, and at the earlier copy (key - 1)
    # Row 11 gained +0.5, row 10 only +0.05 despite the larger weight; row 12 gained most (+0.99)
    # but its target cell is no visible part of the stripe.
    assert example_row(rows, p_next) == (11, 4, 0.5)
    assert example_row([(12, 5, 0.1), (10, 3, 0.2)], p_next) == (12, 5, 0.1)  # no stripe anywhere: every row
    assert example_row([(10, 3, 0.9), (11, 3, 0.9)], lambda q: 0.5) == (10, 3, 0.9)  # a tie keeps the earliest
    assert example_row([], p_next) is None


def test_the_shipped_model_has_the_circuit_its_meta_records():
    """The exhibit itself: the committed model's graph, run by onnxruntime, has a layer-2 induction
    head (score >= 0.3, in-context gain >= 1 nat/token on repeated random sequences), and
    switching off the layer-1 head meta.json names (head_mask) at least halves its score."""
    import json

    from export.heads import ort_run
    from export.parity import session_for
    from helpers import MODEL_DIR, ROOT
    from train.checkpoint import load_checkpoint

    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    c, cfg = meta["circuit"], meta["config"]
    assert c and c["composes_with"], "the shipped model records no composing circuit"
    counts = load_checkpoint(ROOT / "checkpoints" / "alice.pt")["token_counts"]
    run = ort_run(session_for((MODEL_DIR / "model.onnx").read_bytes()))
    got = measure_circuit(run, meta["heads"], counts, cfg["n_layer"], cfg["n_head"], cfg["n_ctx"])
    assert (got["head"], got["composes_with"]) == (c["head"], c["composes_with"])
    assert got["head"]["layer"] == 2 and got["induction"] >= 0.3 and got["in_context_gain"] >= 1.0
    reads = next(s for s in got["switch_off"]
                 if (s["layer"], s["head"]) == (c["composes_with"]["layer"], c["composes_with"]["head"]))
    assert reads["induction"] <= 0.5 * got["induction"]
    # The figures the pages print are the graph's (within float noise between machines).
    assert got["induction"] == pytest.approx(c["induction"], abs=2e-3)
    assert got["in_context_gain"] == pytest.approx(c["in_context_gain"], abs=2e-3)
    assert reads["induction"] == pytest.approx(
        next(s for s in c["switch_off"] if s["layer"] == reads["layer"] and s["head"] == reads["head"])["induction"], abs=2e-3)


EXAMPLE_JS = """
import { readFileSync } from "node:fs";
const R = await import(process.cwd() + "/static/attention-view/readouts/induction.js");
const d = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(d.cases.map((c) => {
  const rows = c.rows.map(([query, key, weight]) => ({ query, key, weight }));
  const best = R.exampleRow(rows, (q) => c.p[q], d.stripe);
  return [best.query, best.key, best.weight];
})));
"""


def test_the_widget_picks_the_example_row_by_exports_rule():
    """readouts/induction.js exampleRow (the widget's "Repeat it") and export's example_row (the
    chapter's example) pick the same row on the same numbers, ties and stripe-less rows included."""
    from conftest import run_node
    from export.circuit import STRIPE

    rng = np.random.default_rng(3)
    cases = []
    for n in (1, 2, 5, 12):
        keys = rng.integers(1, 30, n)
        rows = [[int(30 + i), int(k), float(w)] for i, (k, w) in enumerate(zip(keys, rng.choice([0.1, 0.3, 0.5, 0.9], n)))]
        cases.append({"rows": rows, "p": [float(x) for x in rng.choice([0.0, 0.1, 0.5], 60)]})
    got = run_node(EXAMPLE_JS, {"cases": cases, "stripe": STRIPE})
    for case, js in zip(cases, got):
        want = example_row([tuple(r) for r in case["rows"]], lambda q, p=case["p"]: p[q])
        assert js == list(want), case
