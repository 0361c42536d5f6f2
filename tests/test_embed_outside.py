"""Embedding with one script tag, on pages that are NOT part of the site.

The host server's root is a fresh temp dir: the built site is mounted at /assets/ (a
symlink) and the test pages live in /blog/, so a page reaches the element only through the
absolute URL of /assets/static/attention-view.js, as a course page on another part of a
server would. A second pair of servers checks the cross-origin case: assets on one port
(with CORS headers), the page on another.

Expected numbers come from the committed model through onnxruntime-python (`reference`).
"""

from __future__ import annotations

from urllib.parse import urlparse

import numpy as np
import pytest

from conftest import WATCH_CSP, assert_chips_show, serve_dir, view_result, wait_live

pytestmark = pytest.mark.browser

MODEL_FILES = ("model.onnx", "tokenizer.json", "meta.json", "golden.json", ".wasm", "ort.wasm.min.mjs")


def html_page(script_url: str, body: str, csp: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<title>A page outside the site</title>
<link rel="icon" href="{script_url.rsplit("/", 1)[0]}/favicon.svg">
<script type="module" src="{script_url}"></script>
</head><body><h1>Somebody else's course page</h1>
{body}
</body></html>"""


@pytest.fixture(scope="module")
def host(tmp_path_factory, built_site, site_csp):
    """(root dir, base URL, CSP) of a server whose root is not the site: site at /assets/, pages at
    /blog/, each page as strict as the site's own (its CSP, read from the build)."""
    root = tmp_path_factory.mktemp("host")
    (root / "assets").symlink_to(built_site, target_is_directory=True)
    (root / "blog").mkdir()
    url, server = serve_dir(root)
    yield root, url, site_csp
    server.shutdown()


def write(host, name: str, body: str) -> str:
    root, url, csp = host
    (root / "blog" / name).write_text(html_page(f"{url}/assets/static/attention-view.js", body, csp), encoding="utf-8")
    return f"{url}/blog/{name}"


THREE = """
<attention-view id="a" text="The cat sat on the mat." layer="1" head="1" token="2"><p class="fb">fallback a</p></attention-view>
<attention-view id="b" text="Alice said &quot;no&quot; &lt;b&gt; twice" layer="2" head="4" token="-1"></attention-view>
<attention-view id="c" layer="2" head="3" view="average"></attention-view>
"""


def test_three_widgets_outside_the_site_share_one_download_and_session(page, host, reference, meta):
    url = write(host, "three.html", THREE)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.add_init_script(WATCH_CSP)
    page.goto(url)
    for sel in ("#a", "#b", "#c"):
        wait_live(page, sel)

    expected = {
        "#a": ("The cat sat on the mat.", 1, 1, 2, "head"),
        "#b": ('Alice said "no" <b> twice', 2, 4, -1, "head"),
        "#c": (meta["default"]["text"], 2, meta["default"]["head"], meta["default"]["token"], "average"),
    }
    for sel, (text, layer, head, token, view) in expected.items():
        assert page.get_attribute(sel, "data-status") == "live"
        r = view_result(page, sel)
        ids = reference.ids(text)
        q = token % len(ids)
        assert (r["text"], r["layer"], r["head"], r["token"], r["view"]) == (text, layer, head, q, view)
        assert [t["id"] for t in r["tokens"]] == ids
        att = reference.run(ids)["attention"]
        np.testing.assert_allclose(np.array(r["attention"]), att, atol=1e-5, rtol=0)
        row = att[layer - 1].mean(axis=0)[q] if view == "average" else att[layer - 1, head - 1, q]
        assert_chips_show(page, sel, row, q)

    model = [u for u in requests if u.endswith("/model.onnx")]
    assert model == [f"{host[1]}/assets/static/model/model.onnx"]  # one download for three widgets
    assert sum(u.endswith(".wasm") for u in requests) == 1
    # One ORT session: the three elements hold the very same runner object.
    same = page.evaluate("""() => {
      const [a, b, c] = document.querySelectorAll("attention-view");
      return a._controller.model !== null && a._controller.model === b._controller.model && b._controller.model === c._controller.model
        && a._controller.model.session === c._controller.model.session;
    }""")
    assert same is True
    assert all(u.startswith(host[1] + "/") for u in requests), requests
    assert not page.locator(".fb").is_visible()  # the fallback gave way to the live view
    assert page.evaluate("window.__csp") == []
    assert page.console_errors == [] and page.page_errors == []


LAZY = ("<p>Scroll down: the live view is far below.</p>\n" + "<p>filler paragraph</p>\n" * 120 +
        '<attention-view id="lazy" loading="lazy" text="A lazy view of the Queen" layer="1" head="3">'
        '<p id="fb">Static fallback: a live attention view goes here.</p></attention-view>\n')


def test_lazy_widget_downloads_nothing_until_scrolled_into_view(page, host, reference):
    url = write(host, "lazy.html", LAZY)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url)
    page.wait_for_load_state("networkidle")  # every module has arrived; nothing more is coming
    assert any(u.endswith("/assets/static/attention-view/widget.js") for u in requests)  # the script did load
    assert [u for u in requests if u.endswith(MODEL_FILES)] == []
    assert page.get_attribute("#lazy", "data-status") is None
    assert page.evaluate("document.querySelector('#lazy').shadowRoot") is None
    assert page.locator("#fb").is_visible()

    page.locator("#lazy").scroll_into_view_if_needed()
    wait_live(page, "#lazy")
    r = view_result(page, "#lazy")
    ids = reference.ids("A lazy view of the Queen")
    assert [t["id"] for t in r["tokens"]] == ids
    q = len(ids) - 1
    assert_chips_show(page, "#lazy", reference.run(ids)["attention"][0, 2, q], q)
    assert sum(u.endswith("/model.onnx") for u in requests) == 1
    assert not page.locator("#fb").is_visible()
    assert page.console_errors == [] and page.page_errors == []


def test_without_javascript_the_fallback_shows(browser, host):
    url_three = write(host, "three-nojs.html", THREE)
    url_lazy = write(host, "lazy-nojs.html", LAZY)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(url_three)
    assert page.locator("#a .fb").is_visible()
    assert page.locator("#a .fb").text_content() == "fallback a"
    page.goto(url_lazy)
    page.locator("#fb").scroll_into_view_if_needed()
    assert page.locator("#fb").is_visible()
    assert [u for u in requests if u.endswith(MODEL_FILES)] == []
    context.close()


@pytest.fixture(scope="module")
def cross_origin(tmp_path_factory, built_site):
    """Assets on one origin (served with and without CORS headers), pages on another."""
    pages = tmp_path_factory.mktemp("other-origin")
    assets_cors, s1 = serve_dir(built_site, cors=True)
    assets_plain, s2 = serve_dir(built_site)
    page_url, s3 = serve_dir(pages)
    yield pages, page_url, assets_cors, assets_plain
    for s in (s1, s2, s3):
        s.shutdown()


def cross_origin_page(pages, page_url, assets, name):
    # The host page's own CSP must name the assets' origin for scripts, fetches and styles.
    csp = (f"default-src 'none'; script-src {assets} 'wasm-unsafe-eval'; connect-src {assets}; "
           f"style-src {assets}; img-src {assets}; base-uri 'none'; form-action 'none'")
    body = ('<attention-view id="x" text="Across origins, the Queen said" layer="2" head="1">'
            '<p id="fb">fallback</p></attention-view>')
    (pages / name).write_text(html_page(f"{assets}/static/attention-view.js", body, csp), encoding="utf-8")
    return f"{page_url}/{name}"


def test_cross_origin_embed_works_when_the_assets_send_cors_headers(page, cross_origin, reference):
    pages, page_url, assets, _ = cross_origin
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(cross_origin_page(pages, page_url, assets, "cors.html"))
    wait_live(page, "#x")
    assert page.get_attribute("#x", "data-status") == "live"
    r = view_result(page, "#x")
    ids = reference.ids("Across origins, the Queen said")
    assert [t["id"] for t in r["tokens"]] == ids
    np.testing.assert_allclose(np.array(r["attention"]), reference.run(ids)["attention"], atol=1e-5, rtol=0)
    # The model folder defaults to "beside the script", i.e. on the assets' origin.
    model = [u for u in requests if u.endswith("/model.onnx")]
    assert model == [f"{assets}/static/model/model.onnx"]
    origins = {f"{urlparse(u).scheme}://{urlparse(u).netloc}" for u in requests}
    assert origins == {page_url, assets}
    assert page.page_errors == []


def test_cross_origin_embed_without_cors_headers_keeps_the_fallback(page, cross_origin):
    """Documents why the README asks for CORS headers: the module script itself is refused."""
    pages, page_url, _, assets_plain = cross_origin
    failed = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.goto(cross_origin_page(pages, page_url, assets_plain, "no-cors.html"))
    page.wait_for_load_state("networkidle")
    assert any(u.endswith("/static/attention-view.js") for u in failed)
    assert page.locator("#fb").is_visible()
    assert page.get_attribute("#x", "data-status") is None
