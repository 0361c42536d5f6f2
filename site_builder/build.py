#!/usr/bin/env python3
"""Build the static site: render site_builder/templates with jinja2 and copy the runtime files.

A script, not a package: a top-level `site` package would shadow Python's own `site` module.

    python -m site_builder.build [--out _site/] [--model DIR]
    python -m site_builder.build --out DIR --manifest-only   # re-hash an already built (or edited) folder

The output folder holds the site and nothing else (setuptools writes its own `build/`, which
is why the site does not live there).

Every template whose path has no part starting with `_` is rendered to the same relative
path under the output folder (partials such as `_base.html` are only included). `static/`
is copied to OUT/static/, and the handful of runtime files the page needs from node_modules
go to OUT/static/vendor/, beside the modules that import them (ORT finds its wasm relative
to its own URL, so they must sit together). Then OUT/sw.js is written: site_builder/sw.js behind a
manifest of every built file with its sha256 and a version derived from all of them. Last, the
checked .br/.gz copies beside every file worth compressing (site_builder/precompress.py), which
the manifest does not list: they are the same files in other encodings.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import jinja2

# The one check of a model folder against its meta.json, and of meta.json against its schema:
# standard-library modules of the package, which import without numpy or onnxruntime (a site
# build has jinja2 alone).
from attention_live import integrity, meta_schema
from site_builder import model_card, model_facts, timeline_story
from site_builder.offline_manifest import SERVICE_WORKER, write_service_worker
from site_builder.output_folder import OutputFolderError, replacing
from site_builder.precompress import PrecompressError, compress_folder
from site_builder.state_keys import page_params, state_keys

ROOT = Path(__file__).resolve().parent.parent

TEMPLATES = ROOT / "site_builder" / "templates"
STATIC = ROOT / "static"
NODE_MODULES = ROOT / "node_modules"

WORKER_RUNTIME = "onnxruntime-web/dist/ort.wasm.bundle.min.mjs"
# Only what the page loads: the wasm-only ORT build (the default entry pulls a 28 MB wasm)
# and the tokenizer's dependency-free ES module; and the runtime's source map, which its module
# names (a browser's developer tools ask for it, and a 404 is an error there).
VENDOR_FILES = [
    "onnxruntime-web/dist/ort.wasm.min.mjs",
    "onnxruntime-web/dist/ort.wasm.min.mjs.map",
    "onnxruntime-web/dist/ort-wasm-simd-threaded.mjs",
    "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm",
    # The same runtime as one file (its wasm's loader inlined), which the model's worker imports:
    # bundle_widget bundles it into session-worker.js; --no-bundle serves it as it is.
    WORKER_RUNTIME,
    "@huggingface/tokenizers/dist/tokenizers.min.mjs",
]


# The course chapters, in reading order: the header links them all, and each chapter page
# gets "previous / next" links (rendered by _base.html from this list, so a chapter template
# needs no navigation of its own).
CHAPTERS = [
    {"page": "attention.html", "title": "Attention"},
    {"page": "lab.html", "title": "Attention as soft lookup"},
]

# The widget as one module (bundled in the built site: bundle_widget), which the public entry
# (static/attention-view.js, where embeds load it) and the site's pages import; pages preload
# it (_macros.html live_view_preloads).
WIDGET_MODULE = "attention-view/widget.js"
# The modules the build bundles in place, with esbuild's extra options for each: the widget,
# and the scripts that import it with a module of their own (kept outside: one instance).
BUNDLES = {
    WIDGET_MODULE: [],
    "attention-view/preload.js": ["--external:./widget.js"],
    "pages/app.js": ["--external:../attention-view/widget.js"],
    # The worker that owns onnxruntime (paths.js SESSION_WORKER): loaded by URL, one module.
    "attention-view/model/session-worker.js": [],
}
# The bundler's own binary, for this machine: `npm ci` installs it with the rest, and
# site_builder/runtime_files.py (make serve's light install) fetches it alone.
_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower(), platform.machine())
BUNDLER_FILE = f"@esbuild/{platform.system().lower()}-{_ARCH}/bin/esbuild"
ESBUILD = NODE_MODULES / BUNDLER_FILE

# The site's one Content-Security-Policy (rendered into every page by _base.html; the tests and
# the benchmark read it from the built pages). Scripts and styles only from this origin, wasm
# compilation allowed (onnxruntime-web needs it), the runtime's worker from this origin
# (static/attention-view/model/runtime.js), no inline code, no other origins.
CSP = ("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; img-src 'self'; "
       "style-src 'self'; base-uri 'none'; form-action 'none'; worker-src 'self'")


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


def load_meta(model_dir: Path) -> dict:
    """The model's meta.json, every file it lists checked to be the one it records (a page must
    never run a graph its meta.json does not describe)."""
    path = model_dir / "meta.json"
    if not path.exists():
        raise BuildError(f"{path} is missing; run `python -m export` to write the model files")
    try:
        meta = integrity.read_meta_json(model_dir)
        meta_schema.check_meta(meta)
        integrity.check_files(model_dir, meta)
    except (integrity.FolderMismatch, meta_schema.MetaInvalid) as err:
        raise BuildError(f"{path}: {err}" if isinstance(err, meta_schema.MetaInvalid) else str(err)) from None
    return meta


def load_timeline(model_dir: Path, meta: dict) -> dict | None:
    """The model's timeline.json, it and every snapshot it lists checked against what meta.json
    records; None without one."""
    if not meta.get("timeline"):
        return None
    try:
        manifest = integrity.check_timeline(model_dir, meta)[0]
    except integrity.FolderMismatch as err:
        raise BuildError(str(err)) from None
    return json.loads((model_dir / manifest).read_bytes())


def template_names(env: jinja2.Environment) -> list[str]:
    def is_page(name: str) -> bool:
        return not any(part.startswith((".", "_")) for part in name.split("/"))

    return sorted(n for n in env.list_templates() if is_page(n))


def bundle_widget(out: Path) -> None:
    """In the built site, attention-view/widget.js (the widget's composition root) becomes the
    bundle of everything it imports: one request instead of a waterfall of ~45 modules
    (docs/bench.md has the A/B). preload.js becomes the bundle of the two small modules it
    starts the runtime with, and the live page's script the bundle of its own two; both still
    import widget.js, so that there is one instance of the loader. Each is bundled in place from the copies under
    OUT/static/, so its source map points at the unbundled modules, which stay in the site
    beside it, and holds their text (sourcesContent: developer tools show it with no more
    requests). The onnxruntime and tokenizer modules stay files of their own (paths.js: they
    are loaded by URL)."""
    if not ESBUILD.exists():
        raise BuildError(f"{ESBUILD} is missing: run `npm ci` (or site_builder/runtime_files.py) first")
    for name, extra in BUNDLES.items():
        path = out / "static" / name
        proc = subprocess.run([str(ESBUILD), str(path), "--bundle", "--minify", "--format=esm", "--target=es2022",
                               "--sourcemap", f"--outfile={path}", "--allow-overwrite",
                               "--log-level=warning", *extra], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise BuildError(f"esbuild could not bundle {name}: {proc.stderr.strip()}")
    # Now inside session-worker.js and loaded by nothing else: the offline worker would precache it.
    (out / "static" / "vendor" / Path(WORKER_RUNTIME).name).unlink()


def make_env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # every template is HTML; user-facing strings must never become markup
        undefined=jinja2.StrictUndefined,  # a typo in a template fails the build, not the page
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["lab_reference"] = lab_reference
    env.globals["model_card"] = model_card.card  # site_builder/model_card.py
    env.globals["model_facts"] = model_facts.facts  # site_builder/model_facts.py
    env.globals["timeline_story"] = timeline_story.story  # site_builder/timeline_story.py
    env.globals["widget_module"] = WIDGET_MODULE
    env.globals["view_attributes"] = view_attributes
    env.globals["chapters"] = CHAPTERS
    env.globals["csp"] = CSP
    return env


def render(out: Path, meta: dict, timeline: dict | None = None) -> list[str]:
    env = make_env()
    names = template_names(env)
    for name in names:
        # `root` is the relative way back to the site root, so nested pages link correctly.
        root = "../" * name.count("/")
        html = env.get_template(name).render(meta=meta, timeline=timeline, root=root, page=name)
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


def view_attributes(values: dict, id=None, src=None) -> list[tuple[str, object]]:
    """The attributes of one <attention-view> (the macro in _macros.html): `id`, the state keys
    given in `values` in the schema's order, then `src`; None writes nothing. A key that is no
    state key fails the build (a typo would otherwise vanish from the page)."""
    unknown = sorted(set(values) - set(state_keys()))
    if unknown:
        raise BuildError(f"attention_view() got {', '.join(unknown)}: not a state key ({', '.join(state_keys())})")
    pairs = [("id", id), *((k, values.get(k)) for k in state_keys()), ("src", src)]
    return [(name, value) for name, value in pairs if value is not None]


def build(out: Path, model_dir: Path = STATIC / "model", bundle: bool = True) -> list[str]:
    meta = load_meta(model_dir)
    timeline = load_timeline(model_dir, meta)
    with replacing(out) as work:
        copy_static(work, model_dir)
        copy_vendor(work)
        if bundle:
            bundle_widget(work)
        try:
            pages = render(work, meta, timeline)
        except (jinja2.TemplateError, KeyError, TypeError, ValueError) as exc:  # a meta.json the pages cannot read
            raise BuildError(f"cannot render the pages from {model_dir / 'meta.json'}: {type(exc).__name__}: {exc}") from exc
        write_service_worker(work, page_params())  # last: it lists and hashes everything the steps above wrote
        compress_folder(work)  # the worker's own script too; the manifest lists the files, not their copies
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_site", help="output folder (default _site/)")
    parser.add_argument(
        "--model", type=Path, default=STATIC / "model",
        help="folder with model.onnx, tokenizer.json, meta.json, golden.json (default static/model/)",
    )
    parser.add_argument(
        "--no-bundle", action="store_true",
        help="serve the widget's modules as they are in static/ (for development; slower to start)",
    )
    parser.add_argument(
        "--manifest-only", action="store_true",
        help="only rewrite OUT/sw.js from the files already in OUT (after editing a built folder)",
    )
    args = parser.parse_args(argv)
    try:
        if args.manifest_only:
            if not args.out.is_dir():
                raise BuildError(f"{args.out} is not a built site folder")
            data = write_service_worker(args.out, page_params())
            compress_folder(args.out)  # an edited file's old .br/.gz would be served in its place
            print(f"wrote {args.out / SERVICE_WORKER}: version {data['version']}, {len(data['files'])} files")
        else:
            pages = build(args.out, args.model, bundle=not args.no_bundle)
            print(f"built {len(pages)} page(s) into {args.out}: {', '.join(pages)}")
    except (BuildError, OutputFolderError, PrecompressError) as err:
        # One line and exit code 2, as every command of the project answers bad input.
        print(f"error: the site was not built: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
