#!/usr/bin/env python3
"""Serve the built site on 127.0.0.1 (what `make serve` runs): Python's http.server with the
content types the page needs, and with --cors `Access-Control-Allow-Origin: *` on every answer,
so that the README's cross-origin recipe (the assets on one origin, a page that embeds them on
another) can be tried on one machine:

    python -m site_builder.serve --dir _site --port 8000 --cors     # the assets (make serve CORS=1)
    python -m http.server 8001 --bind 127.0.0.1 --directory my-chapter   # a page that embeds them
"""

from __future__ import annotations

import argparse
import functools
import http.server
import sys
from pathlib import Path
from typing import ClassVar

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

    def __init__(self, *args, cors: bool, **kwargs):
        self.cors = cors
        super().__init__(*args, **kwargs)

    def end_headers(self):
        if self.cors:
            self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage text
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def make_server(folder: Path, port: int, cors: bool = False) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(SiteHandler, directory=str(folder), cors=cors)
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def main(argv: list[str] | None = None) -> int:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("_site"), help="the built site (default _site/)")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port (default 8000)")
    parser.add_argument("--cors", action="store_true", help="send Access-Control-Allow-Origin: * on every answer")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port} is not a port number (0-65535)")
    if not (args.dir / "index.html").is_file():
        parser.error(f"{args.dir} holds no built site (index.html); run `make site` first")
    try:
        server = make_server(args.dir, args.port, args.cors)
    except OSError as err:
        parser.error(f"cannot listen on 127.0.0.1:{args.port}: {err.strerror}")
    cors = " with Access-Control-Allow-Origin: *" if args.cors else ""
    print(f"Serving {args.dir} at http://127.0.0.1:{server.server_address[1]}/{cors}  (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
