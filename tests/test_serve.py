"""site_builder/serve.py, what `make serve` runs: the built site on 127.0.0.1 with the content types the
page needs, the build's precompressed copies by Accept-Encoding (none with --no-compress),
`Access-Control-Allow-Origin: *` with --cors (and only then), one error line and exit code 2 for
bad input."""

from __future__ import annotations

import subprocess
import urllib.request

import pytest

from conftest import wait_live, watched_page
from helpers import ROOT
from site_builder.precompress import decode
from testbed.built_site import SERVE
from testbed.site_server import serve_site


@pytest.fixture
def start(built_site):
    running = []

    def start(*args):
        process = subprocess.Popen([*SERVE, "--dir", str(built_site), "--port", "0", *args],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
        running.append(process)
        return process.stdout.readline().split(" at ")[1].split()[0].rstrip("/")

    yield start
    for process in running:
        process.terminate()
        process.wait(timeout=30)


def headers(url: str) -> dict:
    with urllib.request.urlopen(url) as response:
        return {k.lower(): v for k, v in response.headers.items()}


@pytest.mark.parametrize("cors", [False, True])
def test_serves_the_site_with_its_types_and_cors_only_when_asked(start, cors):
    base = start(*(["--cors"] if cors else []))
    types = {"index.html": "text/html; charset=utf-8", "static/attention-view.js": "text/javascript",
             "static/vendor/ort.wasm.min.mjs": "text/javascript", "static/model/meta.json": "application/json",
             "static/vendor/ort-wasm-simd-threaded.wasm": "application/wasm"}
    for path, kind in types.items():
        got = headers(f"{base}/{path}")
        assert got["content-type"] == kind, path
        assert got.get("access-control-allow-origin") == ("*" if cors else None), path


@pytest.mark.parametrize(("args", "message"), [
    (["--dir", "no-such-folder"], "holds no built site"),
    (["--port", "70000"], "is not a port number"),
    (["--port", "eight"], "invalid int value"),
])
def test_bad_input_is_one_error_line_and_exit_code_2(tmp_path, args, message):
    proc = subprocess.run([*SERVE, *args], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], proc.stderr


def fetch(url: str, accept_encoding: str | None, method: str = "GET") -> tuple[dict, bytes]:
    request = urllib.request.Request(url, method=method)
    if accept_encoding is not None:
        request.add_header("Accept-Encoding", accept_encoding)
    with urllib.request.urlopen(request) as response:  # urllib decodes nothing: the bytes as sent
        return {k.lower(): v for k, v in response.headers.items()}, response.read()


WASM = "static/vendor/ort-wasm-simd-threaded.wasm"


@pytest.mark.parametrize(("accept", "coding"), [
    ("gzip, deflate, br, zstd", "br"), ("gzip", "gzip"), ("br;q=0, gzip", "gzip"), ("*", "br"),
    (None, None), ("identity", None), ("zstd", None),
])
def test_negotiates_the_precompressed_copies(start, built_site, accept, coding):
    """The build's .br/.gz copies by Accept-Encoding, brotli first, labelled as the file they
    encode; the file itself to a client that takes neither. Every answer for a file with copies
    says that it varies by Accept-Encoding, so a cache between keeps the encodings apart."""
    base = start()
    for path in (WASM, "index.html", ""):
        got, body = fetch(f"{base}/{path}", accept)
        original = (built_site / (path or "index.html")).read_bytes()
        assert got.get("content-encoding") == coding, path
        assert got["vary"] == "Accept-Encoding"
        assert got["content-type"] == ("application/wasm" if path == WASM else "text/html; charset=utf-8")
        assert int(got["content-length"]) == len(body)
        assert (decode(body, coding) if coding else body) == original, path
        head, nothing = fetch(f"{base}/{path}", accept, method="HEAD")
        assert nothing == b"" and head["content-length"] == got["content-length"]
        assert head.get("content-encoding") == coding


def test_no_compress_sends_every_file_as_it_is(start, built_site):
    base = start("--no-compress")
    got, body = fetch(f"{base}/{WASM}", "gzip, deflate, br")
    assert "content-encoding" not in got and "vary" not in got
    assert body == (built_site / WASM).read_bytes()


@pytest.mark.browser
def test_a_browser_gets_brotli(browser, built_site):
    """Chromium asks for br from 127.0.0.1 and gets the copies: far fewer bytes cross the wire
    than the runtime decodes."""
    server = serve_site(built_site)
    context = browser.new_context()
    page = watched_page(context)
    answers = {}
    page.on("response", lambda r: answers.__setitem__(r.url.removeprefix(server.url), r))
    page.goto(f"{server.url}/index.html")
    wait_live(page)
    for path in ("/index.html", f"/{WASM}", "/static/model/model.onnx"):
        assert server.encodings(path) == {"br"}, path
    wasm = answers[f"/{WASM}"]
    assert wasm.all_headers()["content-encoding"] == "br"
    assert wasm.all_headers()["content-type"] == "application/wasm"
    # The body as it crossed the wire: the .br copy's bytes (Playwright counts encoded bytes).
    assert wasm.request.sizes()["responseBodySize"] == (built_site / f"{WASM}.br").stat().st_size
    assert page.page_errors == [] and page.console_errors == []
    context.close()
    server.stop()
