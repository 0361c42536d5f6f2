#!/usr/bin/env python3
"""Build the static site: render site/templates with jinja2 and copy the runtime files.

A script, not a package: a top-level `site` package would shadow Python's own `site` module.

    python site/build.py [--out _site/] [--model DIR]
    python site/build.py --out DIR --manifest-only   # re-hash an already built (or edited) folder

The output folder holds the site and nothing else (setuptools writes its own `build/`, which
is why the site does not live there).

Every template whose path has no part starting with `_` is rendered to the same relative
path under the output folder (partials such as `_base.html` are only included). `static/`
is copied to OUT/static/, and the handful of runtime files the page needs from node_modules
go to OUT/static/vendor/, beside the modules that import them (ORT finds its wasm relative
to its own URL, so they must sit together). Last, OUT/sw.js is written: site/sw.js behind a
manifest of every built file with its sha256 and a version derived from all of them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import posixpath
import re
import shutil
import sys
from functools import lru_cache
from pathlib import Path

import jinja2

ROOT = Path(__file__).resolve().parent.parent
# The build's helper modules (model_card.py, model_facts.py) import as top-level modules from
# here; the folder itself is never a package (it would shadow Python's own `site`).
sys.path.insert(0, str(ROOT / "site"))
TEMPLATES = ROOT / "site" / "templates"
STATIC = ROOT / "static"
NODE_MODULES = ROOT / "node_modules"

# Only what the page loads: the wasm-only ORT build (the default entry pulls a 28 MB wasm)
# and the tokenizer's dependency-free ES module.
VENDOR_FILES = [
    "onnxruntime-web/dist/ort.wasm.min.mjs",
    "onnxruntime-web/dist/ort-wasm-simd-threaded.mjs",
    "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm",
    "@huggingface/tokenizers/dist/tokenizers.min.mjs",
]


# The course chapters, in reading order: the header links them all, and each chapter page
# gets "previous / next" links (rendered by _base.html from this list, so a chapter template
# needs no navigation of its own).
CHAPTERS = [
    {"page": "attention.html", "title": "Attention"},
    {"page": "lab.html", "title": "Attention as soft lookup"},
]

# The element's public entry (where embeds load it; its folder may be reorganised freely):
# pages preload what it imports statically (see live_view_modules).
ELEMENT_ENTRY = "attention-view.js"

# The site's one Content-Security-Policy (rendered into every page by _base.html; the tests and
# the benchmark read it from the built pages). Scripts and styles only from this origin, wasm
# compilation allowed (onnxruntime-web needs it), no inline code, no other origins.
CSP = ("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; img-src 'self'; "
       "style-src 'self'; base-uri 'none'; form-action 'none'")

# The service worker's script, written to the site root (its folder is the worker's scope).
SERVICE_WORKER = "sw.js"


class BuildError(RuntimeError):
    pass


@lru_cache(maxsize=1)
def lab_reference():
    """The numbers of the attention lab: examples/attention_demo.py's reference_data(), committed as
    examples/lab_reference.json so that building the site needs no numpy (tests/test_lab_python.py
    checks that the file is what the script computes; `python examples/attention_demo.py --json >
    examples/lab_reference.json` rewrites it). Read only when a template calls this, so a site
    without the lab still builds every other page."""
    path = ROOT / "examples" / "lab_reference.json"
    if not path.exists():
        raise BuildError(f"{path} is missing; a template asked for lab_reference()")
    return json.loads(path.read_text(encoding="utf-8"))


def model_card(meta: dict) -> dict:
    """The model card's figures (model.html), derived from `meta` by site/model_card.py."""
    import model_card

    return model_card.card(meta)


def model_facts(meta: dict) -> dict:
    """What the other pages say about the model, derived from `meta` by site/model_facts.py."""
    import model_facts

    return model_facts.facts(meta)


def load_meta(model_dir: Path) -> dict:
    path = model_dir / "meta.json"
    if not path.exists():
        raise BuildError(f"{path} is missing; run `python -m export` to write the model files")
    return json.loads(path.read_text(encoding="utf-8"))


def template_names(env: jinja2.Environment) -> list[str]:
    def is_page(name: str) -> bool:
        return not any(part.startswith((".", "_")) for part in name.split("/"))

    return sorted(n for n in env.list_templates() if is_page(n))


def static_imports(entry: str) -> list[str]:
    """The own modules `entry` (a path under static/) pulls in through static
    `import ... from "./x.js"` / `"../dir/x.js"` statements, itself included, as paths relative
    to static/. Dynamic `import()` (the export code, loaded on the first click) is left out on
    purpose: preloading it would only compete with what the first paint needs. Vendor modules
    are left out too (pages preload the runtime explicitly)."""
    pattern = re.compile(r"""^\s*(?:import|export)\s[^;]*?from\s+["'](\.{1,2}/[\w./-]+\.m?js)["']""", re.MULTILINE)
    seen: list[str] = []
    todo = [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        folder = posixpath.dirname(name)
        for spec in pattern.findall((STATIC / name).read_text(encoding="utf-8")):
            rel = posixpath.normpath(posixpath.join(folder, spec))
            if not rel.startswith(("../", "vendor/")) and (STATIC / rel).is_file():
                todo.append(rel)
    return sorted(seen)


def make_env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # every template is HTML; user-facing strings must never become markup
        undefined=jinja2.StrictUndefined,  # a typo in a template fails the build, not the page
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["lab_reference"] = lab_reference
    env.globals["model_card"] = model_card
    env.globals["model_facts"] = model_facts
    # The element's modules, so pages can preload the whole graph at once instead of
    # discovering it import by import (see _macros.html: live_view_preloads).
    env.globals["live_view_modules"] = [m for m in static_imports(ELEMENT_ENTRY) if m != ELEMENT_ENTRY]
    env.globals["chapters"] = CHAPTERS
    env.globals["csp"] = CSP
    return env


def render(out: Path, meta: dict) -> list[str]:
    env = make_env()
    names = template_names(env)
    for name in names:
        # `root` is the relative way back to the site root, so nested pages link correctly.
        root = "../" * name.count("/")
        html = env.get_template(name).render(meta=meta, root=root, page=name)
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html, encoding="utf-8")
    return names


def copy_static(out: Path, model_dir: Path) -> None:
    target = out / "static"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(STATIC, target, ignore=shutil.ignore_patterns("__pycache__", "*.tmp", ".*"))
    if model_dir.resolve() != (STATIC / "model").resolve():
        shutil.rmtree(target / "model", ignore_errors=True)
        shutil.copytree(model_dir, target / "model")


def copy_vendor(out: Path) -> None:
    if not NODE_MODULES.is_dir():
        raise BuildError(f"{NODE_MODULES} is missing: run `npm ci` first")
    vendor = out / "static" / "vendor"
    vendor.mkdir(parents=True, exist_ok=True)
    for rel in VENDOR_FILES:
        src = NODE_MODULES / rel
        if not src.exists():
            raise BuildError(f"{src} is missing: run `npm ci` (package-lock.json pins the versions)")
        shutil.copy2(src, vendor / src.name)


STATE_KEYS = re.compile(r"export\s+const\s+STATE_KEYS\s*=\s*\[([^\]]*)\]")


def page_params(static: Path) -> list[str]:
    """The view settings pages read from their query string: the widget's one list of state
    keys (`export const STATE_KEYS = [...]` in its state module, wherever that lives). The
    worker answers a page with these parameters from its cache, and sends any other query to
    the network."""
    found = []
    for path in sorted(static.rglob("*.js")):
        if "vendor" in path.relative_to(static).parts:
            continue
        for match in STATE_KEYS.finditer(path.read_text(encoding="utf-8")):
            found.append(re.findall(r"""["']([\w-]+)["']""", match.group(1)))
    if len(found) != 1:
        print(f"warning: {len(found)} STATE_KEYS lists under {static}; pages with a query string "
              "will not be served offline", file=sys.stderr)
        return []
    return found[0]


def manifest(out: Path) -> dict:
    """{"version", "files": {path: sha256}, "params"} for every file under `out` but the worker
    itself. The version is a hash of all paths and contents: any change to any file changes it."""
    files = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        name = path.relative_to(out).as_posix()
        if name != SERVICE_WORKER and not name.startswith("."):
            files[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    digest = hashlib.sha256("".join(f"{name}\0{sha}\n" for name, sha in files.items()).encode())
    return {"version": digest.hexdigest()[:16], "files": files, "params": page_params(out / "static")}


def write_service_worker(out: Path) -> dict:
    """OUT/sw.js: site/sw.js behind one generated line, `self.OFFLINE = {version, files}`.
    The manifest lives in the worker script itself, so a changed file changes the worker's
    bytes, which is what makes the browser install the new version (see site/sw.js)."""
    data = manifest(out)
    header = f"self.OFFLINE = {json.dumps(data, separators=(',', ':'))};\n"
    source = (ROOT / "site" / "sw.js").read_text(encoding="utf-8")
    tmp = out / (SERVICE_WORKER + ".tmp")
    tmp.write_text(header + source, encoding="utf-8")
    tmp.replace(out / SERVICE_WORKER)
    return data


def clear_output(out: Path) -> None:
    """An empty output folder, so it holds this build's files and nothing else (a stale file
    would be served, and listed in the worker's manifest). Only a folder that is empty or holds
    an earlier build (it has sw.js) is emptied: a mistyped --out never deletes anything else."""
    if out.exists():
        if not out.is_dir():
            raise BuildError(f"{out} is not a folder")
        entries = list(out.iterdir())
        if entries and not (out / SERVICE_WORKER).is_file():
            raise BuildError(f"{out} is not empty and holds no earlier site build ({SERVICE_WORKER}); "
                             "choose an empty or new folder")
        for entry in entries:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    out.mkdir(parents=True, exist_ok=True)


def build(out: Path, model_dir: Path = STATIC / "model") -> list[str]:
    meta = load_meta(model_dir)
    clear_output(out)
    copy_static(out, model_dir)
    copy_vendor(out)
    pages = render(out, meta)
    write_service_worker(out)  # last: it lists and hashes everything the steps above wrote
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_site", help="output folder (default _site/)")
    parser.add_argument(
        "--model", type=Path, default=STATIC / "model",
        help="folder with model.onnx, tokenizer.json, meta.json, golden.json (default static/model/)",
    )
    parser.add_argument(
        "--manifest-only", action="store_true",
        help="only rewrite OUT/sw.js from the files already in OUT (after editing a built folder)",
    )
    args = parser.parse_args(argv)
    if args.manifest_only:
        if not args.out.is_dir():
            print(f"build failed: {args.out} is not a built site folder", file=sys.stderr)
            return 1
        data = write_service_worker(args.out)
        print(f"wrote {args.out / SERVICE_WORKER}: version {data['version']}, {len(data['files'])} files")
        return 0
    try:
        pages = build(args.out, args.model)
    except BuildError as err:
        print(f"build failed: {err}", file=sys.stderr)
        return 1
    print(f"built {len(pages)} page(s) into {args.out}: {', '.join(pages)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
