"""Static files on 127.0.0.1 and a free port, served from a thread: plain, with CORS, with a
careless production server's caching headers, answering 304 to every conditional request, or
several folders mounted on one origin (and remounted while serving: a "deploy")."""

from __future__ import annotations

import email.utils
import http.server
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import ClassVar

# The content types a static host must send: the project's one list (`make serve`'s).
from site_builder.serve import TYPES as SITE_TYPES

MONTH = 30 * 24 * 3600


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
