"""The browser graph's interface without PyTorch: input and output names, axes, and `graph_feeds`,
the one way Python feeds the graph (this package's Model, export, golden.json, the head
measurements, the tests). It lives in the installable package because the package runs the graph
without torch; export/, which needs torch to write the graph, imports it from here: one copy of
the names for the writer and every reader. Needs only numpy (and onnxruntime for `session_for`)."""

from __future__ import annotations

import numpy as np

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
# What each part of the model writes toward the prediction at each logit position (direct logit
# attribution, per component and per key) and the logit lens: docs/model-files.md "Attribution
# outputs". A graph exported before they existed has none of them (graph_check.OPTIONAL).
ATTRIBUTION_OUTPUTS = ("attribution_ids", "attribution_embed", "attribution_heads", "attribution_attn_bias",
                       "attribution_mlp", "attribution_ln_bias", "attribution_keys", "lens_logits")
GRAPH_OUTPUTS = OUTPUTS + ATTRIBUTION_OUTPUTS
# The targets' count: the page's top 5 (fewer in a smaller vocabulary), then the text's next token.
ATTRIBUTION_TOP_K = 5
# Axis names as they appear in the graph; ints are fixed sizes filled in from the config.
SEQ, QUERY, KEY, LOGIT_POS = "seq", "query_pos", "key_pos", "logit_pos"


def attribution_width(vocab_size: int) -> int:
    """Targets per logit position: the top min(5, V) tokens, then the text's next token."""
    return min(ATTRIBUTION_TOP_K, vocab_size) + 1


def expected_axes(cfg) -> dict[str, list]:
    return {
        INPUT: [1, SEQ],
        HEAD_MASK: [cfg.n_layer, cfg.n_head],
        LOGIT_POSITIONS: [LOGIT_POS],
        "logits": [1, LOGIT_POS, cfg.vocab_size],
        "attention": [cfg.n_layer, cfg.n_head, QUERY, KEY],
        "scores": [cfg.n_layer, cfg.n_head, QUERY, KEY],
        **attribution_axes(cfg),
    }


def attribution_axes(cfg) -> dict[str, list]:
    L, H, J = cfg.n_layer, cfg.n_head, attribution_width(cfg.vocab_size)
    return {
        "attribution_ids": [LOGIT_POS, J],
        "attribution_embed": [LOGIT_POS, J],
        "attribution_heads": [LOGIT_POS, L, H, J],
        "attribution_attn_bias": [LOGIT_POS, L, J],
        "attribution_mlp": [LOGIT_POS, L, J],
        "attribution_ln_bias": [LOGIT_POS, J],
        "attribution_keys": [LOGIT_POS, L, H, KEY, J],
        "lens_logits": [LOGIT_POS, L, cfg.vocab_size],
    }


def session_for(onnx_bytes: bytes):
    """An onnxruntime session of a graph, on one thread (as the browser runs it: numbers must not
    depend on how a machine splits the work)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(onnx_bytes, options, providers=["CPUExecutionProvider"])


def graph_feeds(session, ids, head_mask=None, logit_positions=None) -> dict:
    """The inputs of one run of the browser graph in an onnxruntime `session`.

    ids: T token ids (or [1, T]); head_mask: [n_layer, n_head], None = every head on;
    logit_positions: None = every position, so logits are [1, T, V] as PyTorch's forward gives."""
    ids = np.asarray(ids, dtype=np.int64).reshape(1, -1)  # [T] or [1, T] -> [1, T]
    inputs = {node.name: node for node in session.get_inputs()}
    mask_shape = inputs[HEAD_MASK].shape if HEAD_MASK in inputs else None
    return {INPUT: ids, **optional_feeds(list(inputs), ids.shape[1], mask_shape, head_mask, logit_positions)}


def optional_feeds(input_names, T: int, mask_shape, head_mask=None, logit_positions=None) -> dict:
    """The values of the graph's optional inputs, by the page's rule (static/attention-view/model/
    graph-inputs.js optionalFeeds; the cases of tests/data/graph-input-cases.json): a graph
    exported before an input existed runs without it when the default is asked for, and is
    refused when it is not (Python's logits come in the order asked, so it cannot hand back every
    position's instead as the page does). Positions the page would drop (repeated, outside
    0..T-1, none at all) are refused: a negative one would silently read from the end."""
    for name, value in ((HEAD_MASK, head_mask), (LOGIT_POSITIONS, logit_positions)):
        if value is not None and name not in input_names:
            raise ValueError(f"this ONNX graph has no '{name}' input (inputs: {sorted(input_names)}): "
                             "re-export the model with the current exporter")
    feeds = {}
    if HEAD_MASK in input_names:
        feeds[HEAD_MASK] = np.asarray(np.ones(mask_shape) if head_mask is None else head_mask, np.float32)
    if LOGIT_POSITIONS in input_names:
        at = np.arange(T) if logit_positions is None else np.asarray(logit_positions)
        if not (at.ndim == 1 and at.size and np.issubdtype(at.dtype, np.integer) and 0 <= at.min() and at.max() < T
                and len(set(at.tolist())) == at.size):
            raise ValueError(f"logit_positions must be distinct positions 0 to {T - 1}, not {np.asarray(logit_positions).tolist()}")
        feeds[LOGIT_POSITIONS] = at.astype(np.int64)
    return feeds
