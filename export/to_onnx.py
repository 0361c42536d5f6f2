"""PyTorch -> ONNX: inputs `input_ids`, `head_mask` and `logit_positions` (all required: all ones
= every head on, 0..T-1 = logits at every position), the model's three outputs and the eight of
its attribution at the logit positions (export/attribution.py), dynamic lengths. The
graph's names, axes and `graph_feeds` are attention_live/feeds.py (no torch needed to run the graph)."""

from __future__ import annotations

import io
import warnings

import onnx
import onnx.utils
import torch

from attention_live.feeds import (
    GRAPH_OUTPUTS,
    INPUT,
    INPUTS,
    KEY,
    LOGIT_POS,
    LOGIT_POSITIONS,
    OUTPUTS,
    QUERY,
    SEQ,
    expected_axes,
    graph_feeds,  # noqa: F401  (older callers import it from here)
)
from export.attribution import attribution_outputs, captured
from train.model import TinyTransformer

OPSET = 17


class BrowserGraph(torch.nn.Module):
    """What the browser runs: batch of one, attention without the batch axis."""

    def __init__(self, model: TinyTransformer):
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, head_mask: torch.Tensor, logit_positions: torch.Tensor,
                targets: torch.Tensor | None = None):
        """`targets`: the attribution's, where given (export/attribution.py); the graph chooses its own."""
        with captured(self.model) as seen:
            logits, attention = self.model(input_ids, head_mask, logit_positions)
        pattern = attention["pattern"][0]  # [1, layer, head, T, T] -> [layer, head, T, T]
        return (logits, pattern, attention["scores"][0],
                *attribution_outputs(self.model, seen, input_ids, head_mask, logit_positions, logits, pattern, targets))


def measuring_graph(onnx_bytes: bytes) -> bytes:
    """The graph with the model's own outputs only (feeds.OUTPUTS) and the nodes they need: what
    export measures the heads on. onnxruntime runs every node of a graph whatever outputs are
    asked for, and the attribution's, at every position of every 128-token window, would make
    the measurements about 4 times slower for numbers they never read; the nodes kept are the
    same, so are their outputs."""
    proto = onnx.load_from_string(onnx_bytes)
    return onnx.utils.Extractor(proto).extract_model(list(INPUTS), list(OUTPUTS)).SerializeToString()


def export_onnx_bytes(model: TinyTransformer) -> bytes:
    """Serialize to one self-contained ONNX file (no external data)."""
    model = model.eval()
    # A dummy length that is neither 1 nor a length parity checks, so no shape gets baked in;
    # likewise 3 logit positions, out of order.
    dummy = torch.zeros(1, 11, dtype=torch.long)
    dummy_positions = torch.tensor([10, 2, 5])
    cfg = model.cfg
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(
            BrowserGraph(model),
            (dummy, torch.ones(cfg.n_layer, cfg.n_head), dummy_positions),
            buffer,
            input_names=list(INPUTS),
            output_names=list(GRAPH_OUTPUTS),
            dynamic_axes={
                INPUT: {1: SEQ},
                LOGIT_POSITIONS: {0: LOGIT_POS},
                "logits": {1: LOGIT_POS},
                "attention": {2: QUERY, 3: KEY},
                "scores": {2: QUERY, 3: KEY},
                **{name: {0: LOGIT_POS} for name in GRAPH_OUTPUTS[3:]},
                "attribution_keys": {0: LOGIT_POS, 3: KEY},
            },
            opset_version=OPSET,
            # Folding would precompute the tied embedding's transpose: a second 650 KB copy.
            do_constant_folding=False,
            dynamo=False,
        )
    proto = onnx.load_from_string(buffer.getvalue())
    # head_mask and logit_positions are plain inputs, not initializer-backed defaults:
    # onnxruntime-web 1.30 lists only plain inputs in `session.inputNames` and refuses to feed
    # anything else ("invalid input 'head_mask'"), so a default would make ablation impossible
    # in the browser. Python callers get the defaults from `graph_feeds`.
    for node in proto.graph.node:
        node.doc_string = ""  # stack traces with local paths: bytes for nothing
    # The exporter leaves some fixed sizes as made-up names (the head axis of the attribution
    # outputs): the interface says what they are, and the full check below must agree.
    axes = expected_axes(cfg)
    for output in proto.graph.output:
        for dim, want in zip(output.type.tensor_type.shape.dim, axes[output.name]):
            if isinstance(want, int):
                dim.dim_value = want
            else:
                dim.dim_param = want
    proto.producer_name = "attention-live export"
    onnx.checker.check_model(proto, full_check=True)
    return proto.SerializeToString()
