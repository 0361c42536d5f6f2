"""`python site/build.py` into a temp dir: every page rendered, partials not, runtime files
vendored, everything referenced from the page's own origin, the CSP on every page."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from conftest import ROOT

TEMPLATES = ROOT / "site" / "templates"
CSP = ("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; img-src 'self'; "
       "style-src 'self'; base-uri 'none'; form-action 'none'")
VENDOR = {
    "ort.wasm.min.mjs": "onnxruntime-web/dist/ort.wasm.min.mjs",
    "ort-wasm-simd-threaded.mjs": "onnxruntime-web/dist/ort-wasm-simd-threaded.mjs",
    "ort-wasm-simd-threaded.wasm": "onnxruntime-web/dist/ort-wasm-simd-threaded.wasm",
    "tokenizers.min.mjs": "@huggingface/tokenizers/dist/tokenizers.min.mjs",
}


def load_build():
    spec = importlib.util.spec_from_file_location("site_build", ROOT / "site" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
                      if not p.relative_to(built_site).parts[0] == "static")
    assert rendered == expected
    assert not list(built_site.rglob("_*.html"))


def test_vendor_files_are_the_node_modules_ones(built_site):
    vendor = built_site / "static" / "vendor"
    assert sorted(p.name for p in vendor.iterdir()) == sorted(VENDOR)
    for name, rel in VENDOR.items():
        digest = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()  # noqa: E731
        assert digest(vendor / name) == digest(ROOT / "node_modules" / rel), name


def test_static_and_model_files_are_copied(built_site):
    for src in (ROOT / "static").rglob("*"):
        if src.is_file() and "__pycache__" not in src.parts:
            rel = src.relative_to(ROOT / "static")
            assert (built_site / "static" / rel).read_bytes() == src.read_bytes(), rel
    for name in ("model.onnx", "tokenizer.json", "meta.json", "golden.json"):
        assert (built_site / "static" / "model" / name).is_file()


@pytest.mark.parametrize("name", pages())
def test_page_is_self_contained_under_csp(built_site, name):
    parser = Links()
    parser.feed((built_site / name).read_text(encoding="utf-8"))
    assert parser.csp == [CSP]
    assert parser.inline_scripts == [] and parser.style_attrs == [] and parser.styles == 0
    for url in parser.urls:
        assert not re.match(r"^([a-z][a-z0-9+.-]*:|//)", url, re.I), f"{name} points off-origin: {url}"
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
        # The SVG namespace is a name written into exported files, never fetched.
        text = path.read_text(encoding="utf-8").replace('xmlns="http://www.w3.org/2000/svg"', "")
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
    build = load_build()
    macros = build.make_env().get_template("_macros.html").module
    hostile = 'She said "hi" & <b>left</b> \'now\''
    html = str(macros.attention_view(text=hostile, layer=2, head=3, token=4, lazy=True))
    assert "<b>" not in html
    assert 'text="She said &#34;hi&#34; &amp; &lt;b&gt;left&lt;/b&gt; &#39;now&#39;"' in html
    assert 'layer="2"' in html and 'token="4"' in html and 'loading="lazy"' in html


def test_missing_node_modules_fails_clearly(tmp_path):
    """A fresh clone without `npm ci`: the build stops and says what to run."""
    fake = tmp_path / "repo"
    (fake / "site").mkdir(parents=True)
    shutil.copy2(ROOT / "site" / "build.py", fake / "site" / "build.py")
    shutil.copytree(TEMPLATES, fake / "site" / "templates")
    shutil.copytree(ROOT / "static", fake / "static")
    proc = subprocess.run([sys.executable, str(fake / "site" / "build.py"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert proc.returncode != 0
    assert "npm ci" in proc.stderr


def test_chapters_are_in_the_header_and_linked_in_order(built_site):
    """Both chapters in every page's header (marked current on their own page), and
    previous/next links between them; the iframe embed has no page chrome at all."""
    build = load_build()
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


def test_preloads_are_the_elements_static_imports(built_site):
    """Pages preload what the element imports up front, and not the export code it loads on
    a click (which would compete with the first paint)."""
    html = (built_site / "index.html").read_text(encoding="utf-8")
    preloaded = set(re.findall(r'rel="modulepreload" href="static/(attention-view/[\w-]+\.js)"', html))
    assert {"attention-view/element.js", "attention-view/controller.js", "attention-view/renderer.js",
            "attention-view/export-bar.js"} <= preloaded
    assert "attention-view/export-scene.js" not in preloaded and "attention-view/export-png.js" not in preloaded
    for name in preloaded:
        assert (built_site / "static" / name).is_file()
