"""`make serve`'s own server (site_builder/serve.py) on 127.0.0.1 and a free port, in a thread:
the built site with its precompressed copies negotiated, or with compress=False every file as it
is. It records what it sent (`sent`: path, status, Content-Encoding), so a test can tell that a
visit was a compressed one."""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path

from site_builder.serve import SiteHandler


class RecordingHandler(SiteHandler):
    def log_request(self, code="-", size="-"):
        self.server.sent.append((self.path.split("?")[0], int(code), self.coding))

    def log_message(self, *args):  # keep pytest output readable
        pass


class SiteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A browser that goes away mid-download (a closed context, a stopped bench run): not a failure.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)

    def encodings(self, path: str) -> set[str | None]:
        """The Content-Encodings the server answered `path` (e.g. "/index.html") with."""
        return {coding for sent, status, coding in self.sent if sent == path and status == 200}

    def stop(self) -> None:
        """Stop serving and close the port: nothing listens there any more."""
        self.shutdown()
        self.server_close()


def serve_site(folder: Path, compress: bool = True, cors: bool = False) -> SiteServer:
    handler = functools.partial(RecordingHandler, directory=str(folder), cors=cors, compress=compress)
    server = SiteServer(("127.0.0.1", 0), handler)
    server.sent = []
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
