"""A fault-injecting server for the widget's tests: the built site (conftest `built_site`),
served with cacheable headers (so the browser's HTTP cache is in play, as on a real host), plus
per-path faults (a corrupt copy, a 404, a download that stalls), extra files and a request log."""

from __future__ import annotations

import functools
import hashlib
import http.server
import threading
from pathlib import Path

import pytest

from conftest import view_result  # noqa: F401  (the widget tests import it from here)
from helpers import MODEL_DIR, ROOT  # noqa: F401  (the widget tests import them from here)
from testbed.static_server import SITE_TYPES as TYPES


def corrupt(data: bytes) -> bytes:
    """The same length with bytes flipped in the middle: the kind of damage nothing but a
    checksum notices (onnxruntime happily loads a model whose weights changed)."""
    b = bytearray(data)
    mid = len(b) // 2
    for i in range(mid, min(len(b), mid + 64)):
        b[i] ^= 0x5A
    return bytes(b)


class FaultServer:
    """Serves `site` on 127.0.0.1. `fault(path, *behaviours)` queues what the next requests
    for `path` get, one behaviour per request, then normal answers:
      ("corrupt",)      the file with flipped bytes
      ("truncate", n)   the first n bytes only (a short, complete response)
      ("status", code)  an empty answer with that HTTP status
      ("stall", n)      the headers and n bytes, then nothing more (never finishes)
      ("drop",)         the connection closed without an answer (a server that went away)
    Every answer says `Cache-Control: max-age=3600`, so a retry that does not bypass the HTTP
    cache gets the same copy back. `requests` lists every path asked for."""

    def __init__(self, site: Path):
        self.site = site
        self.faults: dict[str, list[tuple]] = {}
        self.files: dict[str, bytes] = {}
        self.requests: list[str] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()
        handler = functools.partial(_Handler, self)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def fault(self, path: str, *behaviours: tuple):
        with self.lock:
            self.faults[path] = list(behaviours)

    def count(self, suffix: str) -> int:
        return sum(p.endswith(suffix) for p in self.requests)

    def reset(self):
        with self.lock:
            self.faults.clear()
            self.files.clear()
            self.requests.clear()

    def close(self):
        self.stop.set()
        self.httpd.shutdown()


class _Handler(http.server.BaseHTTPRequestHandler):
    def __init__(self, server_state: FaultServer, *args, **kwargs):
        self.state = server_state
        super().__init__(*args, **kwargs)

    def log_message(self, *args):
        pass

    def do_GET(self):
        st = self.state
        path = self.path.split("?", 1)[0]
        with st.lock:
            st.requests.append(path)
            queue = st.faults.get(path)
            behaviour = queue.pop(0) if queue else ("ok",)
        if path in st.files:
            body = st.files[path]
        else:
            file = (st.site / path.lstrip("/")).resolve()
            if not file.is_file() or st.site.resolve() not in file.parents:
                return self._send(404, b"not found", path)
            body = file.read_bytes()
        kind = behaviour[0]
        if kind == "drop":
            self.close_connection = True
            return
        try:
            if kind == "status":
                return self._send(behaviour[1], b"", path)
            if kind == "corrupt":
                return self._send(200, corrupt(body), path)
            if kind == "truncate":
                return self._send(200, body[: behaviour[1]], path)
            if kind == "stall":
                self.send_response(200)
                self._headers(path, len(body))
                self.wfile.write(body[: behaviour[1]])
                self.wfile.flush()
                st.stop.wait(120)  # never finishes; the browser gives up (or the test ends)
                return
            return self._send(200, body, path)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _headers(self, path: str, length: int):
        self.send_header("Content-Type", TYPES.get(Path(path).suffix, "application/octet-stream"))
        self.send_header("Content-Length", str(length))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()

    def _send(self, code: int, body: bytes, path: str):
        self.send_response(code)
        self._headers(path, len(body))
        self.wfile.write(body)


@pytest.fixture(scope="session")
def fault_server(built_site):
    server = FaultServer(built_site)
    yield server
    server.close()


@pytest.fixture
def faults(fault_server):
    """The fault server, emptied of faults, extra files and logged requests."""
    fault_server.reset()
    yield fault_server
    fault_server.reset()


@pytest.fixture
def wpage(browser):
    """A fresh context (so an empty HTTP cache) per test, collecting page errors."""
    context = browser.new_context()
    pg = context.new_page()
    pg.page_errors = []
    pg.on("pageerror", lambda e: pg.page_errors.append(str(e)))
    yield pg
    context.close()


def page_html(attrs: str = "", timeout_ms: int | None = None, src: str | None = None) -> bytes:
    """A page with one <attention-view ATTRS>, added only after the download timeout is set
    (the element starts downloading the moment it is connected)."""
    setup = f"setDownloadTimeout({timeout_ms});" if timeout_ms else ""
    src_attr = f' src="{src}"' if src else ""
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>widget test</title></head>
<body><div id="host"></div>
<script type="module">
import {{ setDownloadTimeout }} from "/static/attention-view.js";
{setup}
document.getElementById("host").innerHTML = '<attention-view id="v"{src_attr} {attrs}><p>fallback</p></attention-view>';
</script></body></html>""".encode()


def wait_status(page, status: str, timeout: float = 60_000):
    page.wait_for_selector(f"attention-view[data-status={status}]", state="attached", timeout=timeout)


def status_text(page) -> str:
    return page.evaluate("() => document.querySelector('attention-view').shadowRoot.querySelector('.status-text').textContent")


def click_retry(page):
    page.locator("attention-view .retry").click()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
