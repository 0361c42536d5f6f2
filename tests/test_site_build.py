"""`python -m site_builder.build` into a temp dir: every page rendered, partials not, runtime files
vendored, everything referenced from the page's own origin, the CSP on every page, a manifest
of every file for the offline worker, and an output folder that holds the site and nothing else."""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from build_tree import copy_build_sources
from conftest import ROOT
from site_builder import build
from site_builder.precompress import is_copy
from testbed.built_site import BUILD

TEMPLATES = ROOT / "site_builder" / "templates"
VENDOR = {
    "ort.wasm.min.mjs": "onnxruntime-web/dist/ort.wasm.min.mjs",
    "ort.wasm.min.mjs.map": "onnxruntime-web/dist/ort.wasm.min.mjs.map",
    "ort-wasm-simd-threaded.mjs": "onnxruntime-web/dist/ort-wasm-simd-threaded.mjs",
    "ort-wasm-simd-threaded.wasm": "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm",
    "tokenizers.min.mjs": "@huggingface/tokenizers/dist/tokenizers.min.mjs",
}


def pages() -> list[str]:
    return sorted(
        p.relative_to(TEMPLATES).as_posix() for p in TEMPLATES.rglob("*")
        if p.is_file() and not any(part.startswith(("_", ".")) for part in p.relative_to(TEMPLATES).parts)
    )


class Links(HTMLParser):
    """Every URL-ish attribute, inline <script>/<style> and style= attribute in a page."""

    def __init__(self):
        super().__init__()
        self.urls, self.inline_scripts, self.style_attrs, self.styles, self.csp = [], [], [], 0, []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("src", "href", "action", "poster", "data"):
            if a.get(key):
                self.urls.append(a[key])
        if "style" in a:
            self.style_attrs.append(tag)
        if any(k.startswith("on") for k in a):
            self.inline_scripts.append(f"{tag} handler")
        if tag == "script":
            # A data block (<script type="application/json">) never runs; the CSP allows it.
            kind = (a.get("type") or "text/javascript").lower()
            runs = kind in {"module", "text/javascript", "application/javascript", ""}
            self._in_script = runs and "src" not in a
        if tag == "style":
            self.styles += 1
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp.append(a.get("content"))

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.inline_scripts.append(data.strip()[:60])


def test_every_page_is_rendered_and_no_partial(built_site):
    expected = pages()
    assert "index.html" in expected
    for name in expected:
        html = (built_site / name).read_text(encoding="utf-8")
        assert "{{" not in html and "{%" not in html, name
    rendered = sorted(p.relative_to(built_site).as_posix() for p in built_site.rglob("*.html")
                      if p.relative_to(built_site).parts[0] != "static")
    assert rendered == expected
    assert not list(built_site.rglob("_*.html"))


def test_vendor_files_are_the_node_modules_ones(built_site):
    vendor = built_site / "static" / "vendor"
    assert sorted(p.name for p in vendor.iterdir() if not is_copy(p)) == sorted(VENDOR)
    for name, rel in VENDOR.items():
        digest = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()
        assert digest(vendor / name) == digest(ROOT / "node_modules" / rel), name


def test_static_and_model_files_are_copied(built_site):
    # Every file as it is, but those the build bundles in place (site_builder/build.py BUNDLES).
    bundled = {Path(name) for name in build.BUNDLES}
    assert Path("attention-view/widget.js") in bundled
    for src in (ROOT / "static").rglob("*"):
        if src.is_file() and "__pycache__" not in src.parts:
            rel = src.relative_to(ROOT / "static")
            if rel not in bundled:
                assert (built_site / "static" / rel).read_bytes() == src.read_bytes(), rel
    for rel in bundled:
        bundle = (built_site / "static" / rel).read_text(encoding="utf-8")
        # Self-contained, but for the one shared instance of the widget.
        assert static_imports(built_site / "static", rel.as_posix()) <= {rel.as_posix(), "attention-view/widget.js"}
        assert bundle.rstrip().endswith(f"//# sourceMappingURL={rel.name}.map")
        source_map = json.loads((built_site / "static" / f"{rel}.map").read_text(encoding="utf-8"))
        # Every source's text is in the map (developer tools and audits read it from there).
        assert len(source_map.get("sourcesContent") or []) == len(source_map["sources"]) > 0, rel
        assert all(source_map["sourcesContent"]), rel
    for name in ("model.onnx", "tokenizer.json", "meta.json", "golden.json"):
        assert (built_site / "static" / "model" / name).is_file()


def test_csp_is_strict(site_csp):
    directives = dict(d.strip().split(" ", 1) for d in site_csp.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == "'self' 'wasm-unsafe-eval'"
    for name in ("connect-src", "img-src", "style-src"):
        assert directives[name] == "'self'", name
    assert directives["base-uri"] == "'none'" and directives["form-action"] == "'none'"
    assert not re.search(r"unsafe-inline|'unsafe-eval'|https?:|\*|data:|blob:", site_csp)


@pytest.mark.parametrize("name", pages())
def test_page_is_self_contained_under_csp(built_site, site_csp, name):
    parser = Links()
    parser.feed((built_site / name).read_text(encoding="utf-8"))
    assert parser.csp == [site_csp]
    assert parser.inline_scripts == [] and parser.style_attrs == [] and parser.styles == 0
    for url in parser.urls:
        assert not re.match(r"^([a-z][a-z0-9+.-]*:|//)", url, re.IGNORECASE), f"{name} points off-origin: {url}"
        if url.startswith("#"):
            continue
        target = (built_site / name).parent / url.split("#")[0].split("?")[0]
        assert target.exists(), f"{name} links to a missing file: {url}"


def test_own_scripts_and_styles_name_no_other_origin(built_site):
    """Our modules and stylesheets contain no absolute URL at all (vendor code is checked by the
    browser tests, which see every request)."""
    own = [p for p in (built_site / "static").rglob("*") if p.suffix in {".js", ".mjs", ".css"}
           and "vendor" not in p.parts]
    assert own
    for path in own:
        # The SVG namespace is a name (written into exported files, and the timeline chart's
        # elements are created in it), never fetched.
        text = path.read_text(encoding="utf-8").replace("http://www.w3.org/2000/svg", "")
        assert not re.search(r"https?://|url\(\s*['\"]?//", text), path
    # The live view's own modules never parse strings as HTML or code.
    for path in (built_site / "static").glob("*.js"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function", text), path


def test_index_uses_the_element_and_meta(built_site, meta):
    html = (built_site / "index.html").read_text(encoding="utf-8")
    assert "<attention-view" in html
    assert 'src="static/pages/app.js"' in html
    assert f"{meta['n_params']:,}" in html


def test_macro_escapes_attributes():
    macros = build.make_env().get_template("_macros.html").module
    hostile = 'She said "hi" & <b>left</b> \'now\''
    html = str(macros.attention_view(text=hostile, layer=2, head=3, token=4, lazy=True))
    assert "<b>" not in html
    assert 'text="She said &#34;hi&#34; &amp; &lt;b&gt;left&lt;/b&gt; &#39;now&#39;"' in html
    assert 'layer="2"' in html and 'token="4"' in html and 'loading="lazy"' in html


def test_missing_node_modules_fails_clearly(tmp_path):
    """A fresh clone without `npm ci`: the build stops and says what to run."""
    fake = fake_repo(tmp_path)
    (fake / "node_modules").unlink()
    proc = subprocess.run([*BUILD, "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, check=False, cwd=fake)
    assert proc.returncode != 0
    assert "npm ci" in proc.stderr


def test_chapters_are_in_the_header_and_linked_in_order(built_site):
    """Both chapters in every page's header (marked current on their own page), and
    previous/next links between them; the iframe embed has no page chrome at all."""
    chapters = [c["page"] for c in build.CHAPTERS]
    assert chapters == ["attention.html", "lab.html"]
    for name in ("index.html", *chapters):
        html = (built_site / name).read_text(encoding="utf-8")
        nav = html[html.index('<nav class="site-nav"'):]
        nav = nav[: nav.index("</nav>")]
        assert re.findall(r'href="([^"]+)"', nav) == chapters, name
        current = re.findall(r'href="([^"]+)" aria-current="page"', nav)
        assert current == ([name] if name in chapters else []), name
    first = (built_site / "attention.html").read_text(encoding="utf-8")
    second = (built_site / "lab.html").read_text(encoding="utf-8")
    assert 'rel="next" href="lab.html"' in first and 'rel="prev"' not in first
    assert 'rel="prev" href="attention.html"' in second and 'rel="next"' not in second
    embed = (built_site / "embed.html").read_text(encoding="utf-8")
    assert "site-header" not in embed and "site-nav" not in embed and "chapter-nav" not in embed
    assert 'class="embed-full"' in embed


STATIC_IMPORT = re.compile(r"""(?:^|[;}\s])(?:import|export)\s*[^;()]*?from\s*["'](\.{1,2}/[\w./-]+\.m?js)["']""", re.MULTILINE)


def static_imports(static: Path, entry: str) -> set[str]:
    """The own modules `entry` (a path under a built static/) pulls in through static imports,
    itself included; vendor modules are left out (pages preload the runtime explicitly)."""
    seen, todo = set(), [entry]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for spec in STATIC_IMPORT.findall((static / name).read_text(encoding="utf-8")):
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(name), spec))
            if not rel.startswith(("../", "vendor/")) and (static / rel).is_file():
                todo.append(rel)
    return seen


def test_preloads_are_the_elements_static_imports(built_site):
    """Pages preload what the element's public entry imports up front in the built site (found
    by following its static imports: the widget is one bundled module there), and not the code
    it loads later with a dynamic import() (which would compete with the first paint)."""
    html = (built_site / "index.html").read_text(encoding="utf-8")
    preloaded = set(re.findall(r'rel="modulepreload" href="static/([\w/.-]+\.js)"', html))
    static = built_site / "static"
    graph = static_imports(static, "attention-view.js")
    assert preloaded == graph - {"attention-view.js"}
    # The whole widget in one module: nothing of it is discovered import by import.
    assert preloaded == {"attention-view/widget.js"}
    lazy = set()
    for name in graph:
        assert (static / name).is_file(), name
        for spec in re.findall(r"""import\(\s*["'](\.{1,2}/[\w./-]+\.js)["']""", (static / name).read_text(encoding="utf-8")):
            lazy.add((static / name).parent.joinpath(spec).resolve().relative_to(static.resolve()).as_posix())
    assert not (lazy - graph) & preloaded


def sw_manifest(site) -> dict:
    first = (site / "sw.js").read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("self.OFFLINE = ") and first.endswith(";")
    return json.loads(first.removeprefix("self.OFFLINE = ")[:-1])


def test_worker_manifest_lists_every_file_with_its_hash(built_site):
    """The offline worker checks what it caches against these hashes: every built file but the
    worker itself, each with its sha256, and a version that changes with any file. The model's
    training timeline, if it has one, is listed apart (`lazy`: kept once fetched, never precached).
    The precompressed copies (FILE.br, FILE.gz) are not listed: the worker keeps FILE decoded."""
    manifest = sw_manifest(built_site)
    files = {p.relative_to(built_site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in built_site.rglob("*") if p.is_file() and p.name != "sw.js" and not is_copy(p)}
    assert {**manifest["files"], **manifest["lazy"]} == files
    copies = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*") if is_copy(p)}
    assert "static/vendor/ort-wasm-simd-threaded.wasm.br" in copies
    assert not copies & {*manifest["files"], *manifest["lazy"]}
    assert all(name.startswith("static/model/timeline/") for name in manifest["lazy"])
    assert re.fullmatch(r"[0-9a-f]{16}", manifest["version"])
    # The query parameters the worker lets through to a cached page: the widget's state keys,
    # which embed.html reads from its query string.
    assert {"text", "layer", "head", "token", "view"} <= set(manifest["params"])


def test_manifest_only_rehashes_an_edited_build(built_site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(built_site, copy)
    before = sw_manifest(copy)
    (copy / "static" / "site.css").write_text("/* edited */\n", encoding="utf-8")
    subprocess.run([*BUILD, "--out", str(copy), "--manifest-only"],
                   check=True, capture_output=True, cwd=ROOT)
    after = sw_manifest(copy)
    assert after["version"] != before["version"]
    assert after["files"]["static/site.css"] == hashlib.sha256(b"/* edited */\n").hexdigest()
    assert {k: v for k, v in after["files"].items() if k != "static/site.css"} == \
        {k: v for k, v in before["files"].items() if k != "static/site.css"}


# --- The output folder ---------------------------------------------------------------------


def make_targets() -> dict[str, str]:
    """The folders `make site` writes and `make serve` serves, from the Makefile itself."""
    proc = subprocess.run(["make", "-n", "-C", str(ROOT), "serve"], capture_output=True, text=True, check=True)
    out = re.findall(r"-m site_builder\.build --out (\S+)", proc.stdout)
    served = re.findall(r"(?:http\.server .*--directory|-m site_builder\.serve --dir) (\S+)", proc.stdout)
    assert len(out) == 1 and len(served) == 1, proc.stdout
    return {"out": out[0], "served": served[0]}


def fake_repo(tmp_path):
    fake = tmp_path / "repo"
    fake.mkdir()
    return copy_build_sources(fake)


def test_served_folder_holds_only_the_site_after_pip_install(tmp_path):
    """`pip install .` leaves setuptools' build/bdist.*/ and build/lib/ in the repo; `make serve`
    must not serve them: the site gets a folder of its own, and that folder holds exactly the
    files of the build (each listed in the worker's manifest) and the worker."""
    targets = make_targets()
    assert targets["out"] == targets["served"]
    fake = fake_repo(tmp_path)
    for junk in ("build/bdist.linux-x86_64/wheel/attention_live/x.py", "build/lib/train/model.py"):
        (fake / junk).parent.mkdir(parents=True, exist_ok=True)
        (fake / junk).write_text("# setuptools output\n", encoding="utf-8")
    out = fake / targets["out"]
    assert not out.exists(), f"make site writes into {targets['out']}/, where setuptools builds too"
    subprocess.run([*BUILD, "--out", str(out)], check=True, capture_output=True, cwd=fake)
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and not is_copy(p)}
    assert files == set(sw_manifest(out)["files"]) | set(sw_manifest(out)["lazy"]) | {"sw.js"}
    assert all(f.endswith(".html") and "/" not in f or f.startswith("static/") or f == "sw.js" for f in files)


def test_rebuild_drops_stale_files_and_never_clears_a_foreign_folder(built_site, tmp_path):
    out = tmp_path / "site"
    shutil.copytree(built_site, out)
    (out / "old-page.html").write_text("stale", encoding="utf-8")
    (out / "static" / "gone.js").write_text("stale", encoding="utf-8")
    subprocess.run([*BUILD, "--out", str(out)], check=True, capture_output=True, cwd=ROOT)
    assert not (out / "old-page.html").exists() and not (out / "static" / "gone.js").exists()
    assert "old-page.html" not in sw_manifest(out)["files"]

    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine", encoding="utf-8")
    proc = subprocess.run([*BUILD, "--out", str(foreign)],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert proc.returncode != 0 and "not empty" in proc.stderr
    assert [p.name for p in foreign.iterdir()] == ["keep.txt"]


def test_a_failed_build_leaves_the_previous_site_whole(built_site, tmp_path):
    """A meta.json the pages cannot read fails the build with one `error:` line, after the
    static files were already copied; the site built before stays as it was, and nothing of the
    failed build is left beside it."""
    out = tmp_path / "site"
    shutil.copytree(built_site, out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    model = tmp_path / "model"
    shutil.copytree(ROOT / "static" / "model", model)
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    # A score without its definition: meta.json's schema leaves the scores to the registry
    # (export/head_scores.py), so the folder loads and the pages fail on it.
    del meta["head_definitions"]["induction"]
    (model / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    proc = subprocess.run([*BUILD, "--out", str(out), "--model", str(model)],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the site was not built: cannot render the pages"), lines
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model", "site"]
