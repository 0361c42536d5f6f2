"""The widget in marimo (anywidget's own support there): examples/notebooks/marimo_app.py served
by `marimo run` on loopback with the built wheel, live in Chromium, a click in the view reaching
Python (a dependent cell re-runs), a Python-side trait change redrawing it, nothing fetched from
outside the server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest
from notebook_server import free_port
from package_build import built_wheel, installed_wheel

from conftest import wait_live
from helpers import ROOT

pytestmark = [pytest.mark.browser, pytest.mark.slow]

pytest.importorskip("marimo")


@pytest.fixture(scope="module")
def marimo_url(tmp_path_factory):
    wheel = installed_wheel()
    home = tmp_path_factory.mktemp("marimo")
    shutil.copy2(ROOT / "examples" / "notebooks" / "marimo_app.py", home / "app.py")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(wheel), "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
    with open(home / "marimo.log", "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "marimo", "run", "app.py", "--headless", "--no-token",
                                 "--host", "127.0.0.1", "--port", str(port)], cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            break
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, f"marimo did not start: see {home / 'marimo.log'}"
            time.sleep(0.5)
    yield url
    proc.terminate()
    proc.wait(timeout=20)


def test_the_view_is_live_in_marimo_both_ways(marimo_url, page):
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(marimo_url)
    wait_live(page, timeout=120_000)
    assert page.get_attribute("attention-view", "data-status") == "live"
    # A click in the view: the cell that reads the widget's value runs again with it.
    page.locator("attention-view .chip").nth(1).click()
    page.get_by_text("pinned token: 1,").wait_for()
    # Python sets a trait (the button's cell): the view redraws on layer 1.
    page.get_by_role("button", name="show layer 1").click()
    page.wait_for_selector("attention-view[layer='1']", state="attached")
    # (marimo renders outputs in shadow roots of its own: reach the element through a locator)
    shown = page.locator("attention-view").evaluate("async (el) => { const r = await el.ready; return [r.layer, r.head]; }")
    assert shown == [1, 3]
    assert [u for u in requests if not u.startswith((marimo_url, "blob:", "data:"))] == []
    assert page.page_errors == []
