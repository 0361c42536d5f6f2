"""A model folder's graph checked against its meta.json at load: the graph's inputs, outputs and
fixed axes are what meta.json's config says (feeds.expected_axes), and the tokenizer writes no id
the graph has no row for. Without it a meta.json that says 3 layers of a 2-layer graph loads and
fails at the first run with onnxruntime's own error."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from attention_live.errors import ModelError
from attention_live.feeds import ATTRIBUTION_OUTPUTS, HEAD_MASK, INPUT, LOGIT_POSITIONS, expected_axes

# Inputs a graph exported before they existed does without (feeds.graph_feeds feeds them only when
# present), and outputs it does without (a Run of it has no attribution).
OPTIONAL = {HEAD_MASK, LOGIT_POSITIONS, *ATTRIBUTION_OUTPUTS}


def check_graph(folder: Path, config: dict, session, tokenizer_size: int) -> None:
    nodes = {node.name: node.shape for node in [*session.get_inputs(), *session.get_outputs()]}
    described = ", ".join(f"{k} {config[k]}" for k in ("n_layer", "n_head", "vocab_size"))
    for name, axes in expected_axes(SimpleNamespace(**config)).items():
        if name not in nodes:
            if name in OPTIONAL:
                continue
            raise ModelError(f"{folder / 'model.onnx'} has no {name!r} {'input' if name == INPUT else 'output'}: "
                             "it is not a graph `python -m export` wrote")
        shape = nodes[name]
        fixed_differs = len(shape) != len(axes) or any(
            isinstance(want, int) and isinstance(got, int) and want != got for want, got in zip(axes, shape))
        if fixed_differs:
            raise ModelError(f"{folder / 'meta.json'} does not describe its model.onnx: the graph's {name} has shape "
                             f"{list(shape)}, and meta.json's config ({described}) says {list(axes)}")
    if tokenizer_size > config["vocab_size"]:
        raise ModelError(f"{folder / 'tokenizer.json'} has {tokenizer_size} tokens, more than meta.json's "
                         f"vocab_size {config['vocab_size']}: it is not this model's tokenizer")
