"""`make check-host URL=...` (site_builder/check_host.py) against `make serve`'s server: with the
build's copies it finds no problem and reports brotli on the runtime; without them (make serve
COMPRESS=0, a host that does not compress) one line of advice per uncompressed file; no site
there is one error line and exit code 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import ROOT
from testbed.site_server import serve_site
from testbed.static_server import serve

CHECK = [sys.executable, "-m", "site_builder.check_host"]
WASM = "static/vendor/ort-wasm-simd-threaded.wasm"


def check(url: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CHECK, url], capture_output=True, text=True, cwd=ROOT, timeout=300)


def row(output: str, name: str) -> list[str]:
    return next(line.split() for line in output.splitlines() if line.startswith(name + " "))


@pytest.mark.parametrize("compress", [True, False])
def test_reports_what_the_host_sends(built_site, compress):
    server = serve_site(built_site, compress=compress)
    try:
        proc = check(f"{server.url}/index.html")
    finally:
        server.stop()
    wasm = row(proc.stdout, WASM)
    raw = (built_site / WASM).stat().st_size
    if compress:
        assert proc.returncode == 0 and proc.stdout.rstrip().endswith("no problem found"), proc.stdout
        assert wasm[1:5] == ["200", "br", f"{(built_site / f'{WASM}.br').stat().st_size:,}", f"{raw:,}"]
    else:
        assert proc.returncode == 1, proc.stdout
        assert wasm[1:5] == ["200", "-", f"{raw:,}", f"{raw:,}"]
        advice = [line for line in proc.stdout.splitlines() if line.startswith("- ")]
        assert any(line.startswith(f"- {WASM}: sent uncompressed (14.") for line in advice), advice
        assert len([line for line in advice if WASM in line]) == 1
    assert "application/wasm" in wasm and "last-modified" in wasm
    assert "CORS: no Access-Control-Allow-Origin" in proc.stdout
    assert proc.stderr == ""


def test_a_host_that_labels_the_runtime_wrongly_is_told(built_site):
    server = serve(built_site, cors=True, types={".wasm": "application/octet-stream"})
    try:
        proc = check(server.url)
    finally:
        server.shutdown()
    assert proc.returncode == 1
    assert f"- {WASM}: sent as application/octet-stream; it must be application/wasm" in proc.stdout
    assert "CORS: Access-Control-Allow-Origin: *" in proc.stdout


@pytest.mark.parametrize(("url", "message"), [
    ("ftp://example.org/", "is not an http:// or https:// address"),
    ("http://127.0.0.1:9/", "cannot reach"),
    (None, "is not a deployed site of this project"),
])
def test_no_site_there_is_one_error_line(tmp_path, url, message):
    (tmp_path / "index.html").write_text("<p>another site</p>", encoding="utf-8")
    server = serve_site(tmp_path)
    try:
        proc = check(url or server.url)
    finally:
        server.stop()
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], proc.stderr
