"""The site around the view, in every engine (tests/drivers): the offline worker registers on a
compressed first visit and a reload runs the model with the server stopped; embed.html in an iframe posts its height, and
the README's listener fits the frame to it. No console or window error in either."""

from __future__ import annotations

from urllib.parse import quote

import numpy as np
import pytest
from deploys import WAIT_FOR_VERSION, version_of
from test_widget_embed_code import readme_listener

from testbed.site_server import serve_site
from testbed.static_server import serve

pytestmark = pytest.mark.browser

TEXT = "Offline, the Queen said"


@pytest.fixture
def tab(engine):
    page = engine.new_page()
    yield page
    page.close()


def test_the_offline_worker_serves_a_reload_with_the_server_stopped(engine, tab, engine_site, reference):
    """The first visit from `make serve`'s server, which sends the build's compressed copies (the
    worker keeps and checks the decoded files), then a reload with nothing listening."""
    server = serve_site(engine_site)
    tab.goto(f"{server.url}/index.html")
    tab.wait_live()
    assert tab.evaluate(WAIT_FOR_VERSION, version_of(engine_site)), f"{engine.name}: no worker of this version"
    server.stop()  # nothing listens on the port any more
    for path in ("/index.html", "/static/vendor/ort-wasm-simd-threaded.wasm", "/static/model/model.onnx"):
        # Chromium asks 127.0.0.1 for br; an engine that keeps br for HTTPS gets gzip.
        assert server.encodings(path) and server.encodings(path) <= {"br", "gzip"}, (engine.name, path, server.sent)

    tab.goto("about:blank")  # so the next visit is a full page load
    tab.goto(f"{server.url}/index.html#text={quote(TEXT)}")
    tab.wait_live()
    result = tab.result()
    assert result["live"] and result["text"] == TEXT
    ids = [t["id"] for t in result["tokens"]]
    assert ids == reference.ids(TEXT)
    np.testing.assert_allclose(np.array(result["attention"]), reference.attention(ids), atol=1e-5)
    assert tab.problems() == []


def test_embed_html_in_an_iframe_posts_its_height(engine, tab, engine_site, tmp_path):
    (tmp_path / "chapter.html").write_text(
        '<!doctype html><html><head><meta charset="utf-8"><title>A chapter</title><link rel="icon" href="data:,">'
        '</head><body>'
        '<h1>A chapter</h1><iframe src="/embed.html?text=The%20cat%20sat&token=-1" width="100%" height="300" '
        f'title="Live attention view"></iframe><p>After the frame.</p><script>{readme_listener()}</script></body></html>',
        encoding="utf-8")
    server = serve({"/": engine_site, "/blog/": tmp_path})
    try:
        tab.goto(f"{server.url}/blog/chapter.html")
        tab.wait_for("""() => document.querySelector("iframe").contentDocument
          ?.querySelector("attention-view")?.dataset.status === "live" """, timeout=90)
        # The frame as tall as its own content, with nothing left to scroll inside it, once the
        # last message has landed.
        tab.wait_for("""() => {
          const f = document.querySelector("iframe"), d = f.contentDocument, e = d.documentElement;
          const b = d.body.getBoundingClientRect(), mb = parseFloat(getComputedStyle(d.body).marginBottom);
          return f.style.height !== "" && Math.abs(f.clientHeight - Math.ceil(b.bottom + f.contentWindow.scrollY + mb)) <= 1
            && e.scrollHeight <= e.clientHeight + 1;
        }""", timeout=30)
        assert tab.evaluate("() => document.querySelector('iframe').clientHeight") > 300, engine.name
        assert tab.problems() == []
    finally:
        server.shutdown()
