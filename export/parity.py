"""One parity check, used by the exporter (which refuses to write on failure) and by the tests.

Order as in HF optimum: output names, then axis names, then shapes, then values (np.allclose)
with the largest difference reported, at several sequence lengths other than the export dummy's,
with every head on and with several heads switched off through `head_mask`, and with logits asked
for at every position and at a few positions out of order (`logit_positions`, as the browser asks).
Every output is compared, the attribution's (at the logit positions) included.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from attention_live.feeds import (
    GRAPH_OUTPUTS,
    INPUTS,
    LOGIT_POSITIONS,
    OUTPUTS,
    expected_axes,
    graph_feeds,
    session_for,
)
from export.to_onnx import BrowserGraph
from train.model import TinyTransformer

LENGTHS = (1, 7, 19, 128)
ATOL = 1e-5
# Relative to the largest value of the output, not to each element: float32 rounding in a sum
# scales with the sizes of its terms, so a logit near 0 that came from terms of ~20 moves by as
# much as the large ones (a model with a sharp induction head: 3.5e-5 at a logit of ~0.1, from
# summation order alone). A wrong graph is off by whole units, far outside either.
RTOL = 1e-5


def parity_masks(n_layer: int, n_head: int) -> dict[str, np.ndarray | None]:
    """None = every head on; then one early head off (its effect reaches later layers
    through composition), one last-layer head off, and a whole layer off."""
    on = np.ones((n_layer, n_head), dtype=np.float32)
    first, last, layer = on.copy(), on.copy(), on.copy()
    first[0, 0] = 0.0
    last[-1, -1] = 0.0
    layer[0, :] = 0.0
    return {"default": None, "L1H1 off": first, f"L{n_layer}H{n_head} off": last, "layer 1 off": layer}


class ParityError(Exception):
    pass


@dataclass
class ParityReport:
    max_abs_diff: dict = field(default_factory=dict)  # {T: {output: float}}

    def worst(self) -> float:
        return max(d for per_t in self.max_abs_diff.values() for d in per_t.values())

    def summary(self) -> str:
        rows = [f"T={t}: " + ", ".join(f"{k} {v:.1e}" for k, v in d.items()) for t, d in self.max_abs_diff.items()]
        return "; ".join(rows)


def _compare(name: str, got: np.ndarray, want: np.ndarray, atol: float, rtol: float) -> tuple[float, bool]:
    """(max |got - want| over unmasked entries, within atol + rtol x the largest |want|?)"""
    if got.shape != want.shape:
        raise ParityError(f"{name}: shape {list(got.shape)} != PyTorch's {list(want.shape)}")
    masked = np.isneginf(want)
    if not np.array_equal(np.isneginf(got), masked):
        raise ParityError(f"{name}: masked (-inf) entries differ from PyTorch's")
    a, b = got[~masked], want[~masked]
    worst = float(np.max(np.abs(a - b), initial=0.0))
    if not np.all(np.isfinite(a)):
        return worst, False
    return worst, worst <= atol + rtol * float(np.max(np.abs(b), initial=0.0))


def _targets_checked(targets: np.ndarray, logits: np.ndarray, ids: np.ndarray, feeds: dict) -> tuple[np.ndarray, np.ndarray]:
    """The graph's targets as (their PyTorch logits, PyTorch's top-K logits) for _compare, once
    the last column is checked to be the text's next token (exactly)."""
    positions = feeds[LOGIT_POSITIONS]
    following = np.append(ids[1:], ids[-1])[positions]
    if not np.array_equal(targets[:, -1], following):
        raise ParityError(f"attribution_ids: the last column {targets[:, -1].tolist()} is not the next tokens {following.tolist()}")
    K = targets.shape[1] - 1
    chosen = np.take_along_axis(logits, targets[:, :K], axis=1)
    return chosen, -np.sort(-logits, axis=1)[:, :K]


def check_parity(onnx_bytes: bytes, model: TinyTransformer, lengths=LENGTHS, atol=ATOL, rtol=RTOL,
                 seed=0) -> ParityReport:
    cfg = model.cfg
    session = session_for(onnx_bytes)
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    # Plain inputs only: onnxruntime-web cannot feed an initializer-backed input (to_onnx.py).
    if inputs != list(INPUTS) or outputs != list(GRAPH_OUTPUTS):
        raise ParityError(f"graph names: inputs {inputs}, outputs {outputs}; "
                          f"expected {list(INPUTS)}, {list(GRAPH_OUTPUTS)}")
    axes = expected_axes(cfg)
    for node in session.get_inputs() + session.get_outputs():
        if list(node.shape) != axes[node.name]:
            raise ParityError(f"{node.name}: axes {node.shape}, expected {axes[node.name]}")

    rng = np.random.default_rng(seed)
    report = ParityReport()
    model = model.eval()
    graph = BrowserGraph(model)
    for T in sorted({min(t, cfg.n_ctx) for t in lengths}):  # a small model's window may be shorter
        ids = rng.integers(0, cfg.vocab_size, size=(1, T), dtype=np.int64)
        report.max_abs_diff[T] = {}
        # Every position (what Python callers get), and the last, the first and one between,
        # out of order (a view asks for its pinned token and the last one).
        some = np.array(sorted({T - 1, 0, T // 2}, reverse=True), dtype=np.int64)
        for label, mask in parity_masks(cfg.n_layer, cfg.n_head).items():
            with torch.no_grad():
                logits, att = model(torch.from_numpy(ids), None if mask is None else torch.from_numpy(mask))
            for positions in (None, some):
                feeds = graph_feeds(session, ids, mask, positions)
                got = dict(zip(GRAPH_OUTPUTS, session.run(None, feeds)))
                want = {"logits": logits.numpy() if positions is None else logits.numpy()[:, positions],
                        "attention": att["pattern"][0].numpy(), "scores": att["scores"][0].numpy()}
                # The attribution outputs against the same module run eagerly on the graph's targets
                # (two logits a rounding apart may leave TopK in either order), the model's own
                # outputs above against its forward; the sum rule and a numpy computation from the
                # weights (tests/test_attribution.py) check what the hooks read.
                targets = got["attribution_ids"]
                with torch.no_grad():
                    eager = graph(*(torch.from_numpy(feeds[name]) for name in INPUTS), torch.from_numpy(targets))
                want.update({name: eager[i].numpy() for i, name in enumerate(GRAPH_OUTPUTS) if name not in OUTPUTS})
                got["attribution_ids"], want["attribution_ids"] = _targets_checked(targets, want["logits"][0], ids[0], feeds)
                compared = {name: _compare(name, got[name], want[name], atol, rtol) for name in GRAPH_OUTPUTS}
                for name, (diff, _) in compared.items():
                    report.max_abs_diff[T][name] = max(diff, report.max_abs_diff[T].get(name, 0.0))
                bad = {name: f"max |diff| {diff:.2e}" for name, (diff, close) in compared.items() if not close}
                if bad:
                    where = "every position" if positions is None else f"logits at {positions.tolist()}"
                    raise ParityError(f"T={T}, {label}, {where}: ONNX differs from PyTorch beyond "
                                      f"atol={atol} + rtol={rtol} x its largest value: {bad}")
    return report
