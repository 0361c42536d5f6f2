"""The offline worker (site_builder/sw.js, registered by static/offline.js): once a page of the site has
been opened it works with the network gone, and repeat visits compile the runtime as it
streams; the worker answers only the site's own files, and an iframe of embed.html installs
nothing. How new deploys reach readers: test_offline_deploys.py."""

from __future__ import annotations

import numpy as np
import pytest
from deploys import wait_for_version

from conftest import view_result, wait_live, watched_page
from testbed.static_server import serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

def test_reload_offline_still_runs_the_model(browser, site_url, built_site, reference):
    context = browser.new_context()
    page = watched_page(context)
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    # The worker registers after the first live result and caches every built file.
    wait_for_version(page, built_site)
    cached = page.evaluate("""async () => {
        for (const name of await caches.keys()) {
          const files = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
          if (files.includes("/index.html")) return files;
        }
        return [];
    }""")
    for needed in ("/index.html", "/static/model/model.onnx", "/static/vendor/ort-wasm-simd-threaded.wasm"):
        assert needed in cached

    context.set_offline(True)
    page.goto("about:blank")  # so the next visit is a full load, not a same-document hash change
    page.goto(f"{site_url}/index.html#text=Offline%2C%20the%20Queen%20said")
    wait_live(page)
    result = view_result(page)
    assert result["live"] and result["text"] == "Offline, the Queen said"
    ids = [t["id"] for t in result["tokens"]]
    assert ids == reference.ids("Offline, the Queen said")
    np.testing.assert_allclose(np.array(result["attention"]), reference.run(ids)["attention"], atol=1e-5)
    assert page.page_errors == []
    context.close()


def test_repeat_visit_compiles_the_runtime_while_streaming(browser, built_site):
    """On a repeat visit the 14 MB runtime comes from the worker's cache as application/wasm
    (even from a server that labels it application/octet-stream), so it compiles while it
    streams and Chrome may keep the compiled code, instead of a copy-then-compile fallback."""
    server = serve(built_site, types={".wasm": "application/octet-stream"})
    context = browser.new_context()
    page = watched_page(context)
    warnings = []
    page.on("console", lambda m: warnings.append(m.text))
    page.goto(f"{server.url}/index.html")
    wait_live(page)
    wait_for_version(page, built_site)
    wasm = []
    page.on("response", lambda r: r.url.endswith(".wasm") and wasm.append(r))
    warnings.clear()
    page.reload()
    wait_live(page)
    assert len(wasm) == 1 and wasm[0].from_service_worker
    assert wasm[0].header_value("content-type") == "application/wasm"
    assert not [w for w in warnings if "streaming compile failed" in w], warnings
    assert view_result(page)["live"]
    context.close()
    server.shutdown()


# --- Scope ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def root_site(tmp_path_factory, built_site):
    """The site at the origin root, and an unrelated page of the same origin under /blog/."""
    blog = tmp_path_factory.mktemp("blog")
    (blog / "post.html").write_text(
        '<!doctype html><meta charset="utf-8"><title>Another page</title>'
        '<link rel="stylesheet" href="post.css"><p>Not the site.</p>', encoding="utf-8")
    (blog / "post.css").write_text("p { color: green }", encoding="utf-8")
    server = serve({"/": built_site, "/blog/": blog})
    yield server
    server.shutdown()


def test_worker_answers_only_the_sites_own_files(browser, root_site, built_site):
    context = browser.new_context()
    page = watched_page(context)
    base = root_site.url
    page.goto(f"{base}/index.html")
    wait_live(page)
    wait_for_version(page, built_site)
    assert page.reload().from_service_worker  # the site itself is served by its worker
    wait_live(page)

    answered = {}
    page.on("response", lambda r: answered.__setitem__(r.url.removeprefix(base), r.from_service_worker))
    # Unknown query strings on the site's own files: the network, not the cache.
    page.evaluate("""async () => {
        await fetch("static/model/meta.json?anything=1");
        await fetch("static/site.css?v=2");
    }""")
    assert answered["/static/model/meta.json?anything=1"] is False
    assert answered["/static/site.css?v=2"] is False
    assert page.goto(f"{base}/index.html?anything").from_service_worker is False
    # A page's own view settings are the site's: embed.html?text=… works offline.
    assert page.goto(f"{base}/embed.html?text=The%20Queen&layer=1").from_service_worker is True
    # Another page of the same origin: neither it nor its files come from the site's cache.
    assert page.goto(f"{base}/blog/post.html").from_service_worker is False
    page.wait_for_load_state("load")
    assert answered["/blog/post.css"] is False
    context.close()


def test_embed_html_registers_no_worker(browser, site_url):
    """An iframe of embed.html must not install a cache of the whole site."""
    context = browser.new_context()
    page = watched_page(context)
    page.goto(f"{site_url}/embed.html?text=The%20Queen%20said")
    wait_live(page)
    page.wait_for_load_state("load")
    state = page.evaluate("""async () => ({
        registrations: (await navigator.serviceWorker.getRegistrations()).length,
        offline: performance.getEntriesByType("resource").filter((e) => e.name.includes("offline.js")).length,
        caches: (await caches.keys()).length,
    })""")
    assert state == {"registrations": 0, "offline": 0, "caches": 0}
    context.close()
