"""PyTorch -> ONNX: inputs `input_ids` and `head_mask` (both required; all ones = every head on),
three named outputs, a dynamic sequence axis."""

from __future__ import annotations

import io
import warnings

import onnx
import torch

from train.model import TinyTransformer

OPSET = 17
INPUT = "input_ids"
HEAD_MASK = "head_mask"  # [n_layer, n_head] float32: 1 = on, 0 = that head's output zeroed
OUTPUTS = ("logits", "attention", "scores")
# Axis names as they appear in the graph; ints are fixed sizes filled in from the config.
SEQ, QUERY, KEY = "seq", "query_pos", "key_pos"


def expected_axes(cfg) -> dict[str, list]:
    return {
        INPUT: [1, SEQ],
        HEAD_MASK: [cfg.n_layer, cfg.n_head],
        "logits": [1, SEQ, cfg.vocab_size],
        "attention": [cfg.n_layer, cfg.n_head, QUERY, KEY],
        "scores": [cfg.n_layer, cfg.n_head, QUERY, KEY],
    }


class BrowserGraph(torch.nn.Module):
    """What the browser runs: batch of one, attention without the batch axis."""

    def __init__(self, model: TinyTransformer):
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, head_mask: torch.Tensor):
        logits, attention = self.model(input_ids, head_mask)
        # [1, layer, head, T, T] -> [layer, head, T, T]
        return logits, attention["pattern"][0], attention["scores"][0]


def export_onnx_bytes(model: TinyTransformer) -> bytes:
    """Serialize to one self-contained ONNX file (no external data)."""
    model = model.eval()
    # A dummy length that is neither 1 nor a length parity checks, so no shape gets baked in.
    dummy = torch.zeros(1, 11, dtype=torch.long)
    cfg = model.cfg
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice
        torch.onnx.export(
            BrowserGraph(model),
            (dummy, torch.ones(cfg.n_layer, cfg.n_head)),
            buffer,
            input_names=[INPUT, HEAD_MASK],
            output_names=list(OUTPUTS),
            dynamic_axes={
                INPUT: {1: SEQ},
                "logits": {1: SEQ},
                "attention": {2: QUERY, 3: KEY},
                "scores": {2: QUERY, 3: KEY},
            },
            opset_version=OPSET,
            # Folding would precompute the tied embedding's transpose: a second 650 KB copy.
            do_constant_folding=False,
            dynamo=False,
        )
    proto = onnx.load_from_string(buffer.getvalue())
    # head_mask is a plain input, not an initializer-backed default: onnxruntime-web 1.30 lists
    # only plain inputs in `session.inputNames` and refuses to feed anything else ("invalid
    # input 'head_mask'"), so a default would make ablation impossible in the browser. Callers
    # that mean "every head on" feed ones (the widget, export.heads.ort_run, the tests).
    for node in proto.graph.node:
        node.doc_string = ""  # stack traces with local paths: bytes for nothing
    proto.producer_name = "attention-live export"
    onnx.checker.check_model(proto, full_check=True)
    return proto.SerializeToString()
