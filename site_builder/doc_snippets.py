"""The snippets and sizes the README and docs show, written from the shipped model's meta.json and
the files a build copies, never by hand (site_builder/doc_numbers.py puts them in place and checks them).

A document marks each generated part with a pair of comments, invisible once rendered:

    <!-- generated: NAME -->...<!-- /generated -->

NAME is a key of `parts()`; what sits between the comments is replaced by that part. A snippet
opens on the view the page opens on (meta.json `default`): its text, layer, head and token, so
that what an author pastes shows what the model's opening view shows.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import quote

from site_builder.build import VENDOR_FILES

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static"
NODE_MODULES = ROOT / "node_modules"
WASM = "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm"
HOST = "https://example.org/attention/"
# The iframe's height in the documented snippet: the compact view (row and head grid) fits in it
# at 760 px wide, and embed.html posts its real height for a page that resizes the frame.
IFRAME_HEIGHT = 720
# A sentence of the author's own for the second, lazily started view (no layer or head: it opens
# on the model's default ones).
LAZY_TEXT = "The Mock Turtle began to sing"
MARK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->)(?P<body>.*?)(<!-- /generated -->)", re.S)
FALLBACK = ("A live attention view: it needs JavaScript and WebAssembly, and CORS headers where its files come "
            "from another origin.")


def token_arg(d: dict) -> str | int:
    """The opening view's token as the snippet names it: the word when it is the text's last token
    and a word that occurs once in the text, else its index."""
    word = (d.get("query_text") or "").strip()
    last = d["text"].endswith(d.get("query_text") or "\0")
    once = word.isalpha() and len(re.findall(rf"\b{re.escape(word)}\b", d["text"])) == 1
    return word if last and once else d["token"]


def py(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def attr(value) -> str:
    return html.escape(str(value), quote=True)


def other_head(meta: dict) -> str:
    """A head to switch off in the API example: the earlier head the opening view depends on most
    (export's switch-off figures), else the first head that is not the view's."""
    d = meta["default"]
    so = (d.get("switch_off") or {}).get("heads") or []
    if so:
        h = max(so, key=lambda s: abs(s["weight"] - d["top_weight"]))
        return f"{h['layer']}.{h['head']}"
    cfg = meta["config"]
    return next(f"{layer}.{head}" for layer in range(1, cfg["n_layer"] + 1) for head in range(1, cfg["n_head"] + 1)
                if (layer, head) != (d["layer"], d["head"]))


def snippets(meta: dict) -> dict[str, str]:
    d = meta["default"]
    text, layer, head, token = d["text"], d["layer"], d["head"], token_arg(d)
    element = f'<attention-view text="{attr(text)}" layer="{layer}" head="{head}" token="{attr(token)}">'
    other_layer = 2 if layer == 1 and meta["config"]["n_layer"] > 1 else 1
    query = f"embed.html?text={quote(text, safe='')}&layer={layer}&head={head}&token={d['token']}"
    return {
        "notebook": "\n".join([
            "```python", "from attention_live import AttentionView",
            f"w = AttentionView(text={py(text)}, layer={layer}, head={head}, token={py(token)})", "w", "```"]),
        "notebook-api": "\n".join([
            "```python",
            f"w = AttentionView(text=..., layer={layer}, head={head}, token={py(token)}, ablate={py(other_head(meta))}, compare=None,",
            '                  view="head", scale="share", model=Model("path/to/folder"))',
            f"w.layer = {other_layer:<26}# the view redraws",
            "w.token                             # what the reader pinned (an index, or the word you gave)",
            'w.observe(lambda change: print(change["new"]["top"]), names="result")',
            'w.result["attention"]               # numpy [layer, head, query, key], exactly the browser\'s numbers', "```"]),
        "embed": "\n".join([
            "```html", f'<script type="module" src="{HOST}static/attention-view.js"></script>', "<div>",
            f"  {element}", f"    <p>{FALLBACK}</p>", "  </attention-view>", "</div>", "```"]),
        "embed-two": "\n".join([
            "```html", f'<script type="module" src="{HOST}static/attention-view.js"></script>', "",
            element, f"  <p>{FALLBACK}</p>", "</attention-view>", "",
            f'<attention-view text="{attr(LAZY_TEXT)}" loading="lazy">',
            '  <img src="/pictures/attention.png" alt="A picture of the attention view">', "</attention-view>", "```"]),
        "iframe": "\n".join([
            "```html", f'<iframe src="{HOST}{query}&compact=1"',
            f'        width="100%" height="{IFRAME_HEIGHT}" loading="lazy" title="Live attention view"',
            '        style="border: 1px solid #ccc; border-radius: 8px"></iframe>', "```"]),
        "macro": "\n".join([
            "```jinja", '{% extends "_base.html" %}', '{% from "_macros.html" import attention_view, attention_view_head %}',
            "{% block head %}{{ attention_view_head(root) }}{% endblock %}", "{% block content %}",
            f"{{{{ attention_view(text={py(text)}, layer={layer}, head={head}, token={d['token']}) }}}}",
            f"{{{{ attention_view(text={py(LAZY_TEXT)}, lazy=true,",
            '                  fallback="This view starts when you scroll to it.") }}', "{% endblock %}", "```"]),
        "books": "\n".join([
            "```html", '<script type="module" src="DEST/attention-view.js"></script>',
            f'<div><attention-view text="{attr(text)}" layer="{layer}" head="{head}"></attention-view></div>', "```"]),
        "iframe-height": str(IFRAME_HEIGHT),
    }


def megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def copied_bytes() -> dict[str, int] | None:
    """What `python -m attention_live.assets` copies (the site's static/ as site_builder/build.py copies
    it, plus the runtime files from node_modules), by part; None without node_modules."""
    vendor = [NODE_MODULES / rel for rel in VENDOR_FILES]
    if not all(p.is_file() for p in vendor):
        return None
    static = [p for p in STATIC.rglob("*") if p.is_file() and "__pycache__" not in p.parts
              and not p.name.endswith(".tmp") and not any(part.startswith(".") for part in p.relative_to(STATIC).parts)]
    return {"all": sum(p.stat().st_size for p in static + vendor), "wasm": (NODE_MODULES / WASM).stat().st_size,
            "timeline": sum(p.stat().st_size for p in static if p.is_relative_to(STATIC / "model" / "timeline"))}


def sizes(meta: dict) -> dict[str, str]:
    # meta.json's own size is that of its bytes as export writes them (compact, one line).
    meta_bytes = len((json.dumps(meta, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    folder = sum(meta["files"][name]["bytes"] for name in ("model.onnx", "tokenizer.json", "golden.json")) + meta_bytes
    out = {"model-size": megabytes(meta["files"]["model.onnx"]["bytes"]), "model-folder-size": megabytes(folder)}
    copied = copied_bytes()
    if copied:
        out.update({"assets-size": megabytes(copied["all"]), "wasm-size": megabytes(copied["wasm"]),
                    "timeline-size": megabytes(copied["timeline"])})
    return out


def parts(meta: dict) -> dict[str, str]:
    return {**snippets(meta), **sizes(meta)}


def fill(text: str, values: dict[str, str]) -> str:
    """`text` with every marked part replaced; a block part (a fenced snippet) sits on lines of
    its own between the markers. A part `values` lacks (a size without node_modules) stays."""
    def one(m: re.Match) -> str:
        name = m.group("name")
        if name not in values:
            return m.group(0)
        value = values[name]
        body = f"\n{value}\n" if value.startswith("```") else value
        return m.group(1) + body + m.group(4)

    return MARK.sub(one, text)


def names_in(text: str) -> list[str]:
    return [m.group("name") for m in MARK.finditer(text)]
