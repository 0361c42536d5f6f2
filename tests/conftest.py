"""Shared fixtures: paths, a built site served on loopback, and Debian's chromium via Playwright."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODEL_DIR = ROOT / "static" / "model"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site as `make site` builds it, into a temp dir (never the working tree's build/)."""
    out = tmp_path_factory.mktemp("site")
    subprocess.run([sys.executable, str(ROOT / "site" / "build.py"), "--out", str(out)], check=True)
    return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }

    def log_message(self, *args):  # keep pytest output readable
        pass


def serve_dir(directory: Path):
    """Serve `directory` on 127.0.0.1 and a free port; returns (base_url, server)."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


@pytest.fixture(scope="session")
def site_url(built_site):
    url, server = serve_dir(built_site)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh context per test; console errors and page errors are collected on the page."""
    context = browser.new_context()
    pg = context.new_page()
    pg.console_errors = []
    pg.page_errors = []
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
    pg.on("pageerror", lambda e: pg.page_errors.append(str(e)))
    yield pg
    context.close()
