"""docs/notebooks.md's book and docs recipes, built for real: the sample Sphinx book (a MyST
Markdown chapter, myst-parser) and MkDocs site under examples/notebooks/, with the view's files
copied by the built wheel's `python -m attention_live.assets`, served on loopback and checked
live in Chromium: the chapter's numbers are Model.run's within export's parity bound, and no request leaves the
server's origin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from package_build import built_wheel, installed_wheel

from conftest import view_result, wait_live
from export.parity import ATOL as PARITY_ATOL
from export.parity import RTOL as PARITY_RTOL
from helpers import ROOT
from testbed.static_server import serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EXAMPLES = ROOT / "examples" / "notebooks"
TEXT = "The Queen turned to Alice and said"
# tool: (its source folder, where its assets go in it, the command that builds it into OUT, the page)
RECIPES = {
    "sphinx": ("sphinx", "_static/attention-live", [sys.executable, "-m", "sphinx", "-q", "-b", "html", ".", "OUT"], "index.html"),
    "mkdocs": ("mkdocs", "docs/attention-live", [sys.executable, "-m", "mkdocs", "build", "-q", "-d", "OUT"], "index.html"),
}


@pytest.fixture(scope="module")
def wheel_path():
    return installed_wheel()


@pytest.fixture(scope="module", params=list(RECIPES))
def built(request, tmp_path_factory, wheel_path):
    folder, assets, command, page = RECIPES[request.param]
    source = tmp_path_factory.mktemp(request.param) / "src"
    shutil.copytree(EXAMPLES / folder, source)
    out = source.parent / "out"
    env = {**os.environ, "PYTHONPATH": str(wheel_path)}
    subprocess.run([sys.executable, "-m", "attention_live.assets", assets], cwd=source, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([str(out) if part == "OUT" else part for part in command], cwd=source, env=env, check=True)
    server = serve(out)
    yield f"{server.url}/{page}"
    server.shutdown()


def test_the_chapter_shows_the_live_view_with_pythons_numbers(built, page, reference):
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(f"{m.text} {m.location.get('url')}"))
    page.goto(built)
    wait_live(page)
    assert page.get_attribute("attention-view", "data-status") == "live"
    shown = view_result(page)
    want = reference.run(reference.ids(TEXT))["attention"]
    assert shown["text"] == TEXT and (shown["layer"], shown["head"]) == (2, 3)
    assert np.abs(np.asarray(shown["attention"]) - want).max() <= PARITY_ATOL + PARITY_RTOL  # weights are <= 1
    origin = built.rsplit("/", 1)[0]
    assert [u for u in requests if not u.startswith((origin, "data:", "blob:"))] == []
    # Chromium asks for /favicon.ico by itself when a page names none (Sphinx's default theme).
    assert page.page_errors == [] and [e for e in errors if not e.endswith("/favicon.ico")] == []


def test_the_element_is_not_wrapped_in_a_paragraph(built, page):
    page.goto(built)
    wait_live(page)
    assert page.evaluate("() => document.querySelector('attention-view').parentElement.tagName") == "DIV"
