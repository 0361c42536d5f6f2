"""`AttentionView`: the page's <attention-view> as an anywidget, with the model running in the
notebook's browser. Every state key of the element (its one list, STATE_KEYS in the widget's
state module, its schema read at wheel-build time into `_assets/state_schema.json`) is a synced
trait, checked by the page's rules (view_settings.py); `result` is the live result, sent back
by the view after every change. The model folder and onnxruntime's wasm reach the browser as
binary buffers of the widget's own messages: no URL is fetched, so it works without internet,
CDN or extra server. The training timeline's files go one by one, when the view reads them (a
step is shown, or its timeline opened): a view that never shows a step gets none of them."""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache

import anywidget
import numpy as np
import traitlets

from attention_live.errors import ModelError
from attention_live.folder import ASSETS, EMBED, VIEW_FILES
from attention_live.model import Model
from attention_live.view_settings import check_setting, from_wire

BUNDLE = ASSETS / "widget.mjs"
STATE_SCHEMA_FILE = ASSETS / "state_schema.json"
# A file's name inside a model folder: relative, no part starting with a dot (so no "..").
INSIDE = re.compile(r"(?:[\w-][\w.-]*/)*[\w-][\w.-]*")
# The one wasm onnxruntime-web's wasm build loads (site_builder/build.py copies it to vendor/).
WASM = EMBED / "vendor" / "ort-wasm-simd-threaded.wasm"


def _built(path):
    if not path.is_file():
        raise ModelError(f"the widget's front end is not built ({path} is missing): install the wheel `make wheel` builds")
    return path


@cache
def state_schema() -> dict[str, dict]:
    """The element's state keys, in its schema's order: {key: {"type", "choices"?}}."""
    return {k["key"]: k for k in json.loads(_built(STATE_SCHEMA_FILE).read_text(encoding="utf-8"))}


def state_keys() -> tuple[str, ...]:
    return tuple(state_schema())


@cache
def _wasm() -> bytes:
    return _built(WASM).read_bytes()


def _timeline_names(folder, meta: dict) -> list[str]:
    """The training timeline's files as the view names them (static/attention-view/model/timeline.js:
    the manifest meta.json points to, and each snapshot's graph beside it), [] for a model without
    one. The view is told their names with the model's files and asks for each when it reads it,
    so `step` works in a notebook as on the page."""
    pointer = meta.get("timeline")
    if pointer is None:
        return []
    manifest = pointer.get("manifest") if isinstance(pointer, dict) else None
    broken = ModelError(f"{folder / 'meta.json'} points to no readable training timeline: export the model again")
    if not (isinstance(manifest, str) and INSIDE.fullmatch(manifest) and manifest.endswith(".json")):
        raise broken
    try:
        points = json.loads((folder / manifest).read_text(encoding="utf-8"))["points"]
        files = [p["file"] for p in points if p.get("file") is not None]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise broken
    here = manifest[:manifest.rfind("/") + 1]
    if not all(isinstance(f, str) and "/" not in f and f.endswith(".onnx") and INSIDE.fullmatch(here + f) for f in files):
        raise broken
    return [manifest, *(here + f for f in files)]


@cache
def _folder_files(folder) -> tuple[str, dict[str, bytes], tuple[str, ...]]:
    """(content hash, {name: bytes}, timeline names) of a model folder: the files every view reads,
    and the names of its training timeline's (about 12 MB for the shipped model's 18 snapshots),
    checked to be there but read only when the view asks for one (_timeline_file)."""
    missing = [n for n in VIEW_FILES if not (folder / n).is_file()]
    if missing:
        raise ModelError(f"{folder} has no {' and no '.join(missing)}, which the view needs: export the model again")
    files = {n: (folder / n).read_bytes() for n in VIEW_FILES}
    try:
        meta = json.loads(files["meta.json"])
    except ValueError:
        raise ModelError(f"{folder / 'meta.json'} is not valid JSON: export the model again")
    names = _timeline_names(folder, meta if isinstance(meta, dict) else {})
    missing = [n for n in names if not (folder / n).is_file()]
    if missing:
        raise ModelError(f"{folder} has no {missing[0]}, which its meta.json's training timeline lists: export the model again")
    # meta.json records timeline.json's sha256, and timeline.json each snapshot's: hashing the
    # view's files names the timeline too.
    digest = hashlib.sha256()
    for name, data in files.items():
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest(), files, tuple(names)


def _timeline_file(folder, name) -> bytes:
    """One file of the folder's training timeline, by the name the view asks for: only the ones
    its meta.json lists, so a message from the page reads nothing else."""
    if name not in _folder_files(folder)[2]:
        raise ModelError(f"{name!r} is no file of this model's training timeline")
    try:
        return (folder / name).read_bytes()
    except OSError as err:
        raise ModelError(f"{folder / name} could not be read ({err.strerror}): export the model again")


class StateKey(traitlets.TraitType):
    """One of the element's attributes. On the wire it is the attribute's string (None = not
    set, the element's default); in Python it has its type (view_settings.check_setting): an
    int for layer, head, step, topk and seed, a float for temperature, an index or a word for
    token ("said#2"), "1.2 2.3" for ablate (given as such or as [(1, 2), (2, 3)]), else a string."""

    def __init__(self, spec: dict, **kwargs):
        super().__init__(default_value=None, allow_none=True, **kwargs)
        self.spec = spec
        self.tag(sync=True, to_json=self._to_json, from_json=self._from_json)

    def validate(self, obj, value):
        if value is None:
            return None
        spec = self.spec
        return check_setting(spec["key"], spec["type"], spec.get("choices") or (), obj.model.meta, value)

    def _to_json(self, value, widget):
        return None if value is None else str(value)

    def _from_json(self, value, widget):
        return from_wire(self.spec["key"], self.spec["type"], value)


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
        source, _, _ = _folder_files(self.model.folder)
        super().__init__(_source=source, **state)
        self.on_msg(self._answer)

    @traitlets.observe("_result")
    def _on_result(self, change):
        self.result = _result(change["new"])

    def _answer(self, _widget, content, _buffers):
        """The view asks for the files it runs: "runtime" (the wasm), "model" (the files every
        view reads, and the names of the ones it may ask for later) or "timeline" (one of those,
        by `name`, when it shows a step)."""
        if not isinstance(content, dict) or content.get("type") != "files":
            return
        want, folder = content.get("want"), self.model.folder
        answer = {"type": "files", "want": want, "source": None}
        if want == "runtime":
            files = {WASM.name: _wasm()}
        elif want == "model":
            answer["source"], files, answer["later"] = _folder_files(folder)
        elif want == "timeline":
            name = content.get("name")
            answer.update(source=_folder_files(folder)[0], name=name)
            try:
                files = {name: _timeline_file(folder, name)}
            except ModelError as err:
                self.send({**answer, "names": [], "error": str(err)})
                return
        else:
            return
        self.send({**answer, "names": list(files)}, buffers=list(files.values()))


@cache
def _shipped() -> Model:
    return Model()


def _make_view_class():
    traits = {name: StateKey(spec) for name, spec in state_schema().items()}
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
