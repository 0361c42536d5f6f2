"""PyTorch -> ONNX: inputs `input_ids`, `head_mask` and `logit_positions` (all required: all ones
= every head on, 0..T-1 = logits at every position), three named outputs, dynamic lengths.
`graph_feeds` builds those inputs, so every Python caller feeds the graph the same way."""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnx
import torch

from train.model import TinyTransformer

OPSET = 17
INPUT = "input_ids"
HEAD_MASK = "head_mask"  # [n_layer, n_head] float32: 1 = on, 0 = that head's output zeroed
# [P] int64: the positions whose next-token logits the graph computes. The tied output layer is
# about half of all multiply-adds at T = 128 (~35% of a wasm run), and a view reads one or two
# positions' predictions: the browser asks for those, Python for all of them.
LOGIT_POSITIONS = "logit_positions"
INPUTS = (INPUT, HEAD_MASK, LOGIT_POSITIONS)
# meta.json's word on the two inputs a caller may not expect to be required.
INPUT_NOTES = {HEAD_MASK: "required; all ones = every head on",
               LOGIT_POSITIONS: "required; 0..T-1 = logits at every position (logits are [1, P, V] in this order)"}
OUTPUTS = ("logits", "attention", "scores")
# Axis names as they appear in the graph; ints are fixed sizes filled in from the config.
SEQ, QUERY, KEY, LOGIT_POS = "seq", "query_pos", "key_pos", "logit_pos"


def expected_axes(cfg) -> dict[str, list]:
    return {
        INPUT: [1, SEQ],
        HEAD_MASK: [cfg.n_layer, cfg.n_head],
        LOGIT_POSITIONS: [LOGIT_POS],
        "logits": [1, LOGIT_POS, cfg.vocab_size],
        "attention": [cfg.n_layer, cfg.n_head, QUERY, KEY],
        "scores": [cfg.n_layer, cfg.n_head, QUERY, KEY],
    }


class BrowserGraph(torch.nn.Module):
    """What the browser runs: batch of one, attention without the batch axis."""

    def __init__(self, model: TinyTransformer):
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor, head_mask: torch.Tensor, logit_positions: torch.Tensor):
        logits, attention = self.model(input_ids, head_mask, logit_positions)
        # [1, layer, head, T, T] -> [layer, head, T, T]
        return logits, attention["pattern"][0], attention["scores"][0]


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
            output_names=list(OUTPUTS),
            dynamic_axes={
                INPUT: {1: SEQ},
                LOGIT_POSITIONS: {0: LOGIT_POS},
                "logits": {1: LOGIT_POS},
                "attention": {2: QUERY, 3: KEY},
                "scores": {2: QUERY, 3: KEY},
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
    proto.producer_name = "attention-live export"
    onnx.checker.check_model(proto, full_check=True)
    return proto.SerializeToString()


def graph_feeds(session, ids, head_mask=None, logit_positions=None) -> dict:
    """The inputs of one run of the browser graph in an onnxruntime `session`.

    ids: T token ids (or [1, T]); head_mask: [n_layer, n_head], None = every head on;
    logit_positions: None = every position, so logits are [1, T, V] as PyTorch's forward gives.
    A graph exported before an input existed runs without it when the default is asked for,
    and is refused when it is not (it cannot do what was asked)."""
    ids = np.asarray(ids, dtype=np.int64).reshape(1, -1)  # [T] or [1, T] -> [1, T]
    inputs = {node.name: node for node in session.get_inputs()}
    feeds = {INPUT: ids}
    # name: (value asked for, dtype, the default for a node of the graph)
    optional = {HEAD_MASK: (head_mask, np.float32, lambda node: np.ones(node.shape)),
                LOGIT_POSITIONS: (logit_positions, np.int64, lambda node: np.arange(ids.shape[1]))}
    for name, (value, dtype, default) in optional.items():
        if name in inputs:
            feeds[name] = np.asarray(default(inputs[name]) if value is None else value, dtype)
        elif value is not None:
            raise ValueError(f"this ONNX graph has no '{name}' input (inputs: {sorted(inputs)}): "
                             "re-export the model with the current exporter")
    return feeds
