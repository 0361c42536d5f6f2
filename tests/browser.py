"""The one copy of the browser and test-server setup, shared by the tests (conftest.py) and the
benchmark (bench/run.py): Debian's chromium through Playwright, and static file servers on
127.0.0.1 (plain, CORS, hostile caching headers, wrong 304s, several folders mounted on one
origin). Firefox and WebKit are driven from tests/drivers/."""

from __future__ import annotations

import email.utils
import http.server
import importlib.util
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse
from html import unescape
from pathlib import Path
from typing import ClassVar

from helpers import ROOT

BUILD_SCRIPT = ROOT / "site" / "build.py"
# Another binary (or none: CHROMIUM=/nonexistent) for the Playwright tests.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MONTH = 30 * 24 * 3600


def _site_module(name: str):
    """A script of site/ by file path (a `site` package would shadow Python's own module)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "site" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The content types a static host must send: the project's one list (site/serve.py, `make serve`).
SITE_TYPES: dict[str, str] = _site_module("serve").TYPES


def launch(playwright):
    """Debian's chromium (never a Playwright-downloaded browser) with the shared flags."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def build_site(out: Path, *args: str) -> Path:
    """Run the real build script (`python site/build.py --out OUT ...`)."""
    subprocess.run([sys.executable, str(BUILD_SCRIPT), "--out", str(out), *args], check=True,
                   stdout=subprocess.DEVNULL)
    return out


def site_csp(site: Path) -> str:
    """The Content-Security-Policy of a built site, as the build wrote it into its live page
    (site/build.py's CSP is the one copy; tests and the benchmark read it from here)."""
    html = (site / "index.html").read_text(encoding="utf-8")
    found = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert len(found) == 1, "the live page must carry exactly one CSP"
    return unescape(found[0])


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with the types the page needs, from the server's mounts:
    `server.mounts` is a list of (url prefix, folder), longest prefix first, and may be changed
    while serving (a "deploy" in the tests)."""

    extensions_map: ClassVar[dict[str, str]] = {**http.server.SimpleHTTPRequestHandler.extensions_map, **SITE_TYPES}

    def guess_type(self, path):
        return self.server.types.get(Path(path).suffix) or super().guess_type(path)

    def translate_path(self, path):
        clean = urllib.parse.unquote(urllib.parse.urlsplit(path).path)
        for prefix, folder in self.server.mounts:
            if clean.startswith(prefix) or clean + "/" == prefix:
                self.directory = str(folder)
                return super().translate_path("/" + path[len(prefix):])
        return str(Path(self.server.mounts[-1][1]) / ".no-such-file")

    def send_head(self):
        conditional = "If-Modified-Since" in self.headers or "If-None-Match" in self.headers
        if self.server.always_304 and conditional and Path(self.translate_path(self.path)).is_file():
            self.send_response(http.server.HTTPStatus.NOT_MODIFIED)
            self.end_headers()
            return None
        return super().send_head()

    def send_header(self, keyword, value):
        if self.server.stale and keyword.lower() == "last-modified":
            value = email.utils.formatdate(time.time() - MONTH, usegmt=True)
        super().send_header(keyword, value)

    def end_headers(self):
        if self.server.cors:
            self.send_header("Access-Control-Allow-Origin", "*")
        if self.server.stale:
            self.send_header("Cache-Control", f"public, max-age={MONTH}")
        super().end_headers()

    def log_message(self, *args):  # keep pytest output readable
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, mounts, cors=False, stale=False, types=None, always_304=False):
        super().__init__(("127.0.0.1", 0), Handler)
        self.mount(mounts)
        self.cors = cors
        self.stale = stale
        self.always_304 = always_304
        self.types = types or {}
        self.url = f"http://127.0.0.1:{self.server_address[1]}"

    def mount(self, mounts) -> None:
        """Serve `mounts` from now on: a folder (at /) or {url prefix: folder}."""
        if not isinstance(mounts, dict):
            mounts = {"/": mounts}
        self.mounts = sorted(((p if p.endswith("/") else p + "/", Path(f)) for p, f in mounts.items()),
                             key=lambda m: -len(m[0]))

    def handle_error(self, request, client_address):
        # A browser context closed mid-download (the offline worker caches 15 MB): not a failure.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def serve(mounts, cors: bool = False, stale: bool = False, types: dict | None = None,
          always_304: bool = False) -> Server:
    """Serve a folder (or {url prefix: folder}) on 127.0.0.1 and a free port, in a thread.
    cors: `Access-Control-Allow-Origin: *` on every answer (what a host serving the assets to
    pages of other origins must send). stale: the headers of a careless production server,
    `Last-Modified` a month ago and `Cache-Control: max-age` of a month, on every file.
    types: {".ext": "Content-Type"} to send instead of the right ones. always_304: "304 Not
    Modified" to every conditional request, whatever changed (the worst case of servers that
    compare If-Modified-Since with a file's time, to the second: after a rollback to files with
    older times, or a rebuild within the same second)."""
    server = Server(mounts, cors=cors, stale=stale, types=types, always_304=always_304)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def serve_dir(directory: Path, cors: bool = False):
    """Serve `directory` on 127.0.0.1 and a free port; returns (base_url, server)."""
    server = serve(directory, cors=cors)
    return server.url, server


def host_page(site_url, page, query: str, width: int = 640, height: int = 700, head: str = "", after: str = "") -> None:
    """A foreign 'platform' page (no CSP of ours, routed on the test server's origin) holding one
    iframe of embed.html?QUERY, WIDTH x HEIGHT; `head` goes in its <head>, `after` after the frame."""
    html = (f'<!doctype html><html><head><meta charset="utf-8"><title>platform</title>{head}</head><body>'
            f'<p>Course text before the embed.</p>'
            f'<iframe src="embed.html?{query}" width="{width}" height="{height}" title="Live attention view"></iframe>'
            f'{after}</body></html>')
    page.route(f"{site_url}/platform.html", lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(f"{site_url}/platform.html")
