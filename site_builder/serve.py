#!/usr/bin/env python3
"""Serve the built site on 127.0.0.1 (what `make serve` runs): Python's http.server with the
content types the page needs; the build's precompressed copies (FILE.br, FILE.gz:
site_builder/precompress.py) to a client whose Accept-Encoding takes them, brotli first, with
`Content-Encoding` and `Vary: Accept-Encoding` (--no-compress: every file as it is); and with --cors
`Access-Control-Allow-Origin: *` on every answer,
so that the README's cross-origin recipe (the assets on one origin, a page that embeds them on
another) can be tried on one machine:

    python -m site_builder.serve --dir _site --port 8000 --cors     # the assets (make serve CORS=1)
    python -m http.server 8001 --bind 127.0.0.1 --directory my-chapter   # a page that embeds them
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import sys
import urllib.parse
from pathlib import Path
from typing import ClassVar

from site_builder.precompress import SUFFIXES

# What the page loads, by the types browsers require of them: module scripts must be served
# as JavaScript, and onnxruntime-web compiles its wasm while it streams in only when it is
# labelled application/wasm.
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".onnx": "application/octet-stream",
    ".svg": "image/svg+xml",
}


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map: ClassVar[dict[str, str]] = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def __init__(self, *args, cors: bool, compress: bool = True, **kwargs):
        self.cors = cors
        self.compress = compress
        self.coding: str | None = None  # the Content-Encoding of this answer
        self.has_copies = False  # whether this URL has other encodings (then caches must key by Accept-Encoding)
        super().__init__(*args, **kwargs)

    def accepted(self) -> set[str]:
        """The codings Accept-Encoding allows (a q=0 refuses one; `*` stands for any)."""
        allowed = set()
        for part in self.headers.get("Accept-Encoding", "").lower().split(","):
            name, *params = (item.strip() for item in part.split(";"))
            quality = next((p[2:] for p in params if p.startswith("q=")), "1")
            try:
                refused = float(quality) == 0
            except ValueError:
                refused = False
            if name and not refused:
                allowed.add("gzip" if name == "x-gzip" else name)
        return set(SUFFIXES) if "*" in allowed else allowed

    def translate_path(self, path):
        """The file to send: FILE.br or FILE.gz in place of FILE when the client takes it.
        http.server's send_head then sends that file with its length and date, and guess_type
        and end_headers below label it as FILE."""
        local = super().translate_path(path)
        index = os.path.join(local, "index.html")
        if os.path.isdir(local) and urllib.parse.urlsplit(path).path.endswith("/") and os.path.isfile(index):
            local = index
        self.coding, self.has_copies = None, False
        if not self.compress or not os.path.isfile(local):
            return local
        copies = [c for c, suffix in SUFFIXES.items() if os.path.isfile(local + suffix)]
        self.has_copies = bool(copies)
        self.coding = next((c for c in copies if c in self.accepted()), None)
        return local + SUFFIXES[self.coding] if self.coding else local

    def guess_type(self, path):
        if self.coding:
            path = str(path).removesuffix(SUFFIXES[self.coding])
        return super().guess_type(path)

    def end_headers(self):
        if self.coding:
            self.send_header("Content-Encoding", self.coding)
        if self.has_copies:
            self.send_header("Vary", "Accept-Encoding")
        if self.cors:
            self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage text
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def make_server(folder: Path, port: int, cors: bool = False, compress: bool = True) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(SiteHandler, directory=str(folder), cors=cors, compress=compress)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("_site"), help="the built site (default _site/)")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port (default 8000)")
    parser.add_argument("--cors", action="store_true", help="send Access-Control-Allow-Origin: * on every answer")
    parser.add_argument("--no-compress", action="store_true",
                        help="send every file as it is, never its .br/.gz copy (a host that does not compress)")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port} is not a port number (0-65535)")
    if not (args.dir / "index.html").is_file():
        parser.error(f"{args.dir} holds no built site (index.html); run `make site` first")
    try:
        server = make_server(args.dir, args.port, args.cors, compress=not args.no_compress)
    except OSError as err:
        parser.error(f"cannot listen on 127.0.0.1:{args.port}: {err.strerror}")
    cors = " with Access-Control-Allow-Origin: *" if args.cors else ""
    raw = " without the .br/.gz copies" if args.no_compress else ""
    print(f"Serving {args.dir} at http://127.0.0.1:{server.server_address[1]}/{cors}{raw}  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
