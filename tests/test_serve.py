"""site_builder/serve.py, what `make serve` runs: the built site on 127.0.0.1 with the content types the
page needs, `Access-Control-Allow-Origin: *` with --cors (and only then), one error line and
exit code 2 for bad input."""

from __future__ import annotations

import subprocess
import urllib.request

import pytest

from helpers import ROOT
from testbed.built_site import SERVE


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
