"""attention-live: a tiny transformer's attention, computed live.

    from attention_live import Model, AttentionView
    Model().run("The Queen said").attention      # numpy [layer, head, query, key]
    AttentionView(text="The Queen said", layer=2, head=3)   # the live view in a notebook

`Model` needs onnxruntime and tokenizers only; `AttentionView` (an anywidget) is imported on
first use, so scripts that only compute never load the notebook machinery."""

from attention_live.errors import ModelError
from attention_live.heads import Head
from attention_live.model import Generation, Model, Prediction, Run, Token

__version__ = "0.1.0"
__all__ = ["AttentionView", "Generation", "Head", "Model", "ModelError", "Prediction", "Run", "Token"]


def __getattr__(name):
    if name == "AttentionView":
        from attention_live.widget import AttentionView

        return AttentionView
    raise AttributeError(f"module 'attention_live' has no attribute {name!r}")
