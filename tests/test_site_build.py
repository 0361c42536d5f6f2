"""`python -m site_builder.build` into a temp dir: every page rendered, partials not, runtime files
vendored, everything referenced from the page's own origin, the CSP on every page, preloads that
are the element's static imports (tests/test_site_output_folder.py: the manifest and the folder)."""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from build_tree import fake_repo
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
    # The model's worker is bundled with onnxruntime (vendor code, whose messages name web
    # pages): its own source stands in for it.
    worker = built_site / "static" / "attention-view" / "model" / "session-worker.js"
    own = [ROOT / "static" / worker.relative_to(built_site / "static") if p == worker else p
           for p in (built_site / "static").rglob("*") if p.suffix in {".js", ".mjs", ".css"} and "vendor" not in p.parts]
    assert own and worker.is_file()
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
