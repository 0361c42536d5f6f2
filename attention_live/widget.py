"""`AttentionView`: the page's <attention-view> as an anywidget, with the model running in the
notebook's browser. Every state key of the element (its one list, STATE_KEYS in the widget's
state module, read at wheel-build time into `_assets/state_keys.json`) is a synced trait;
`result` is the live result, sent back by the view after every change. The model folder and
onnxruntime's wasm reach the browser as binary buffers of the widget's own messages: no URL
is fetched, so it works without internet, CDN or extra server."""

from __future__ import annotations

import hashlib
import json
from functools import cache

import anywidget
import numpy as np
import traitlets

from attention_live.errors import ModelError
from attention_live.folder import ASSETS, EMBED, VIEW_FILES
from attention_live.heads import check_head, format_ablate, parse_ablate
from attention_live.model import Model

BUNDLE = ASSETS / "widget.mjs"
STATE_KEYS_FILE = ASSETS / "state_keys.json"
# The one wasm onnxruntime-web's wasm build loads (site/build.py copies it to vendor/).
WASM = EMBED / "vendor" / "ort-wasm-simd-threaded.wasm"


def _built(path):
    if not path.is_file():
        raise ModelError(f"the widget's front end is not built ({path} is missing): install the wheel `make wheel` builds")
    return path


@cache
def state_keys() -> tuple[str, ...]:
    return tuple(json.loads(_built(STATE_KEYS_FILE).read_text(encoding="utf-8")))


@cache
def _wasm() -> bytes:
    return _built(WASM).read_bytes()


@cache
def _folder_files(folder) -> tuple[str, dict[str, bytes]]:
    """(content hash, {name: bytes}) of the files the view reads from a model folder."""
    missing = [n for n in VIEW_FILES if not (folder / n).is_file()]
    if missing:
        raise ModelError(f"{folder} has no {' and no '.join(missing)}, which the view needs: export the model again")
    files = {n: (folder / n).read_bytes() for n in VIEW_FILES}
    digest = hashlib.sha256()
    for name, data in files.items():
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest(), files


def _number(text: str):
    try:
        return int(text)
    except ValueError:
        return float(text)


class StateKey(traitlets.TraitType):
    """One of the element's attributes. On the wire it is the attribute's string (None = not
    set, the element's default); in Python it has its type: `kind` is int, float, "token" (an
    index or a word such as "said#2"), "ablate" ("1.2 2.3" or [(1, 2), (2, 3)]) or str."""

    def __init__(self, kind=str, **kwargs):
        super().__init__(default_value=None, allow_none=True, **kwargs)
        self.kind = kind
        self.tag(sync=True, to_json=self._to_json, from_json=self._from_json)

    def validate(self, obj, value):
        if value is None:
            return None
        name, config = self.name, obj.model.config
        if self.kind == "ablate":
            return format_ablate(parse_ablate(config, value))
        if self.kind == "token":
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                raise ModelError(f"token must be a token index or a word such as 'said', not {value!r}")
            return value
        if self.kind in (int, float):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or (self.kind is int and value != int(value)):
                raise ModelError(f"{name} must be a {'whole ' if self.kind is int else ''}number, not {value!r}")
            value = self.kind(value)
            if name == "layer":
                check_head(config, value, 1)
            elif name == "head":
                check_head(config, 1, value)
            return value
        if not isinstance(value, str):
            raise ModelError(f"{name} must be a string, not {type(value).__name__}")
        return value

    def _to_json(self, value, widget):
        return None if value is None else str(value)

    def _from_json(self, value, widget):
        if value is None or self.kind in (str, "ablate"):
            return value
        if self.kind == "token":
            return int(value) if value.lstrip("-").isdigit() else value
        try:
            return self.kind(_number(value))
        except (ValueError, OverflowError):
            return value  # the reader typed something the element will reject: keep it as written


KINDS = {"layer": int, "head": int, "topk": int, "seed": int, "temperature": float, "token": "token", "ablate": "ablate"}


def _result(raw: dict | None) -> dict | None:
    """The view's result with attention and scores as numpy [layer, head, query, key]."""
    if not raw:
        return None
    shape = tuple(raw["shape"])
    arrays = {k: np.frombuffer(bytes(raw[k]), dtype=np.float32).reshape(shape) for k in ("attention", "scores")}
    return {**{k: v for k, v in raw.items() if k != "shape"}, **arrays}


class _View(anywidget.AnyWidget):
    _source = traitlets.Unicode("").tag(sync=True)
    _result = traitlets.Dict(allow_none=True, default_value=None).tag(sync=True)
    result = traitlets.Any(None)  # the live result after every change; observe it with names="result"

    def __init__(self, model: Model | None = None, **state):
        self.model = model if model is not None else _shipped()
        if not isinstance(self.model, Model):
            raise ModelError(f"model must be an attention_live.Model, not {type(model).__name__}")
        unknown = sorted(set(state) - set(state_keys()))
        if unknown:
            raise ModelError(f"AttentionView has no setting {unknown[0]!r}: its settings are {', '.join(state_keys())}")
        source, _ = _folder_files(self.model.folder)
        super().__init__(_source=source, **state)
        self.on_msg(self._answer)

    @traitlets.observe("_result")
    def _on_result(self, change):
        self.result = _result(change["new"])

    def _answer(self, _widget, content, _buffers):
        """The view asks for the files it runs: "runtime" (the wasm) or "model" (the folder)."""
        if not isinstance(content, dict) or content.get("type") != "files":
            return
        want = content.get("want")
        if want == "runtime":
            files, source = {WASM.name: _wasm()}, None
        elif want == "model":
            source, files = _folder_files(self.model.folder)
        else:
            return
        self.send({"type": "files", "want": want, "source": source, "names": list(files)}, buffers=list(files.values()))


@cache
def _shipped() -> Model:
    return Model()


def _make_view_class():
    traits = {name: StateKey(KINDS.get(name, str)) for name in state_keys()}
    traits["_esm"] = _built(BUNDLE)
    doc = (f"The live attention view in a notebook. Settings (synced both ways): {', '.join(state_keys())}; "
           "`model=Model(path)` for another exported model; `result` is the live result.")
    return type("AttentionView", (_View,), {**traits, "__doc__": doc, "__module__": __name__})


def __getattr__(name):
    # The class is made on first use: its traits come from the built front end's state keys.
    if name == "AttentionView":
        globals()["AttentionView"] = view = _make_view_class()
        return view
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
