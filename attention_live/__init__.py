"""attention-live: a tiny transformer's attention, computed live.

    from attention_live import Model, AttentionView
    Model().run("The Queen said").attention      # numpy [layer, head, query, key]
    AttentionView(text="The Queen said", layer=2, head=3)   # the live view in a notebook

`Model` needs onnxruntime and tokenizers, `AttentionView` (an anywidget) the notebook machinery;
each is imported on first use, so scripts that only compute never load the notebook, and the
package's standard-library modules (meta_schema, integrity) import where only the standard
library is installed: the site builder checks model folders with them under `make serve`'s
jinja2-only install."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from attention_live.errors import ModelError
from attention_live.heads import Head

if TYPE_CHECKING:  # what IDEs and type checkers see; at run time, __getattr__ below
    from attention_live.model import Generation, Model, Prediction, Run, Token
    from attention_live.widget import AttentionView

__version__ = "0.1.0"
__all__ = ["AttentionView", "Generation", "Head", "Model", "ModelError", "Prediction", "Run", "Token"]

# The names that need more than the standard library, and the module each is defined in.
_ON_FIRST_USE = {
    **dict.fromkeys(["Generation", "Model", "Prediction", "Run", "Token"], "attention_live.model"),
    "AttentionView": "attention_live.widget",
}


def __getattr__(name):
    if name in _ON_FIRST_USE:
        value = getattr(import_module(_ON_FIRST_USE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'attention_live' has no attribute {name!r}")


def __dir__():
    # help() and tab completion list the names imported on first use too.
    return sorted({*globals(), *__all__})
