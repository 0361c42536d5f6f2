"""The element's own messages name the cause of a failed load, in words a page's author can act
on: a Content-Security-Policy without 'wasm-unsafe-eval' (and no "Try again", which cannot
help), a file missing (which one, the 404), a model folder on another origin without CORS
headers, a meta.json without a field the widget reads (which field). Each message is one
sentence. In real browsers against real servers on loopback (tests/widget_faults.py)."""

from __future__ import annotations

import json
import re

import pytest

from testbed.static_server import serve
from widget_faults import (  # noqa: F401  (fixtures)
    MODEL_DIR,
    ROOT,
    fault_server,
    faults,
    page_html,
    status_text,
    wait_status,
    wpage,
)

pytestmark = pytest.mark.browser

TEXT = "The Queen turned to Alice and said"
PAGE = "/t/page.html"
WASM = "ort-wasm-simd-threaded.wasm"
# The site's own CSP less 'wasm-unsafe-eval' (and with 'unsafe-inline': the test page's one script).
NO_WASM_CSP = ("default-src 'none'; script-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self'; "
               "style-src 'self'; base-uri 'none'; form-action 'none'")


def one_sentence(text: str) -> str:
    assert text.endswith(".") and not text.endswith(".."), text
    assert "-sASSERTIONS" not in text and "undefined" not in text and "NaN" not in text, text
    return text


def retry_shown(page) -> bool:
    return page.locator("attention-view .retry").is_visible()


def failed(page, faults, attrs=f'text="{TEXT}"', src=None, head=""):
    html = page_html(attrs, src=src)
    faults.files[PAGE] = html.replace(b"<title>", head.encode() + b"<title>", 1)
    page.goto(faults.url + PAGE)
    wait_status(page, "error")
    return one_sentence(status_text(page))


def meta_without(*path: str) -> bytes:
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    *parents, last = path
    node = meta
    for key in parents:
        node = node[key]
    del node[last]
    return json.dumps(meta).encode()


@pytest.mark.parametrize("path, says", [(("config",), "meta.json has no config."),
                                        (("config", "n_head"), "meta.json has no config.n_head."),
                                        (("positions", "slopes"), "meta.json has no positions.slopes."),
                                        # Required by meta.json's schema (model/meta-fields.js), though no panel reads it on load.
                                        (("default", "top_key_text"), "meta.json has no default.top_key_text."),
                                        (("format_version",), "meta.json has no format_version, and this version reads "
                                                              "format 2 only: export the model again with `python -m export`.")])
def test_a_meta_json_without_a_field_the_widget_reads_names_it(wpage, faults, path, says):
    faults.files["/static/model/meta.json"] = meta_without(*path)
    text = failed(wpage, faults)
    assert text == f"Could not load the model: {says}"
    assert wpage.locator("attention-view .chip").count() == 0  # no "NaN%" chips
    assert wpage.page_errors == []


def test_a_meta_json_field_of_the_wrong_kind_says_what_it_must_be(wpage, faults):
    meta = json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    meta["config"]["n_layer"] = "two"
    faults.files["/static/model/meta.json"] = json.dumps(meta).encode()
    assert failed(wpage, faults).endswith('meta.json\'s config.n_layer must be a positive whole number, not "two".')


def test_a_missing_runtime_wasm_names_the_file_and_the_404(wpage, faults):
    faults.fault(f"/static/vendor/{WASM}", ("status", 404))
    text = failed(wpage, faults)
    assert f"{WASM} answered HTTP 404 at {faults.url}/static/vendor/{WASM}" in text, text
    assert "no available backend" not in text
    assert retry_shown(wpage)  # a deploy that was half done: trying again may help


def test_a_missing_model_file_names_it_and_the_likely_cause(wpage, faults):
    faults.fault("/static/model/model.onnx", ("status", 404))
    text = failed(wpage, faults)
    assert f"model.onnx answered HTTP 404 at {faults.url}/static/model/model.onnx" in text
    assert "a wrong src" in text
    assert retry_shown(wpage)


def test_a_page_whose_csp_forbids_wasm_says_what_to_add_and_offers_no_retry(wpage, faults):
    head = f'<meta http-equiv="Content-Security-Policy" content="{NO_WASM_CSP}">'
    text = failed(wpage, faults, head=head)
    assert "Content-Security-Policy" in text and "add 'wasm-unsafe-eval' to its script-src" in text, text
    assert not retry_shown(wpage)
    assert wpage.page_errors == []


@pytest.fixture(scope="module")
def other_origin(built_site):
    """The built site again on another port (another origin), without CORS headers."""
    server = serve(built_site)
    yield server.url
    server.shutdown()


def test_a_model_folder_on_another_origin_without_cors_names_cors(wpage, faults, other_origin):
    text = failed(wpage, faults, src=f"{other_origin}/static/model/")
    assert f"meta.json could not be fetched from {other_origin}/static/model/meta.json" in text, text
    assert "CORS" in text and "Access-Control-Allow-Origin" in text
    assert retry_shown(wpage)


def test_a_same_origin_server_that_does_not_answer_is_not_blamed_on_cors(wpage, faults):
    faults.fault("/static/model/meta.json", ("drop",))
    text = failed(wpage, faults)
    assert "meta.json could not be fetched" in text and "did not answer" in text and "CORS" not in text


# --- The fallback an author pastes names CORS, wherever the snippet comes from ----------------


def fallbacks() -> dict[str, str]:
    embed_menu = (ROOT / "static" / "attention-view" / "share" / "embed-menu.js").read_text(encoding="utf-8")
    macro = (ROOT / "site_builder" / "templates" / "_macros.html").read_text(encoding="utf-8")
    docs = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return {
        "Copy embed code": re.search(r'FALLBACK = "([^"]+)"', embed_menu).group(1),
        "the macro": re.search(r'else "([^"]+)"', macro).group(1),
        "docs/embedding.md": re.search(r"<attention-view [^>]*>\n  <p>([^<]+)</p>", docs).group(1),
        "README.md": re.search(r"<attention-view [^>]*>\n\s*<p>([^<]+)</p>", readme).group(1),
    }


def test_every_default_fallback_says_another_origin_needs_cors():
    found = fallbacks()
    assert len(set(found.values())) == 1, found  # one wording, wherever an author copies it from
    assert all("CORS" in text and "another" in text for text in found.values()), found


# --- Each engine words a refused compile its own way: the element's message is the same ------


def test_the_csp_message_is_the_same_in_every_engine(engine, engine_site, tmp_path):
    csp = NO_WASM_CSP.replace(" 'unsafe-inline'", "")
    (tmp_path / "csp.html").write_text(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" '
        f'content="{csp}"><title>No wasm allowed</title><link rel="icon" href="/static/favicon.svg">'
        '<script type="module" src="/static/attention-view.js"></script></head>'
        f'<body><attention-view text="{TEXT}"><p>fallback</p></attention-view></body></html>', encoding="utf-8")
    server = serve({"/": engine_site, "/blog/": tmp_path})
    tab = engine.new_page()
    try:
        tab.goto(f"{server.url}/blog/csp.html")
        tab.wait_for("() => document.querySelector('attention-view')?.dataset.status === 'error'")
        text, retry_hidden = tab.evaluate("""() => { const root = document.querySelector("attention-view").shadowRoot;
          return [root.querySelector(".status-text").textContent, root.querySelector(".retry").hidden]; }""")
        assert one_sentence(text).endswith("add 'wasm-unsafe-eval' to its script-src."), (engine.name, text)
        assert retry_hidden, engine.name
    finally:
        tab.close()
        server.shutdown()
