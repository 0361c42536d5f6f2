"""A rebuild of the served folder (`make site` while `make serve` runs) reaches a reader who
reloads every few seconds by the second reload after it, and the console stays quiet: the real
build script rebuilding the folder that the real site_builder/serve.py serves, and a reload that comes
while the build is under way (paused while it writes the new site beside the served one, which
it replaces only once complete: the served folder is then still the old site, whole)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from deploys import Versions, next_model, sha256_files, version_of, wait_for_version

from conftest import wait_live, watched_page
from helpers import ROOT
from testbed.built_site import BUILD, SERVE

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CADENCE = 6  # seconds between a reader's reloads


class SiteServer:
    """`python -m site_builder.serve` (what `make serve` runs) on a free port; `log` has its request lines."""

    def __init__(self, folder):
        self.process = subprocess.Popen([*SERVE, "--dir", str(folder), "--port", "0"], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, cwd=ROOT)
        first = self.process.stdout.readline()
        self.url = first.split(" at ")[1].split("/ ")[0].rstrip("/")
        self.log: list[str] = []
        threading.Thread(target=lambda: self.log.extend(iter(self.process.stderr.readline, "")), daemon=True).start()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def paused_rebuild(folder, model):
    """The real build into `folder`, stopped once it has begun writing the new site beside it
    (site_builder/build.py: a `.NAME.building-*` folder, renamed into place when complete); SIGCONT lets
    it finish."""
    build = subprocess.Popen([*BUILD, "--out", str(folder), "--model", str(model)],
                             stdout=subprocess.DEVNULL, cwd=ROOT)
    while not any(folder.parent.glob(f".{folder.name}.building-*/static")) and build.poll() is None:
        time.sleep(0.001)
    build.send_signal(signal.SIGSTOP)
    assert build.poll() is None, "the build finished before it could be paused"
    return build


def test_a_rebuild_reaches_a_reader_reloading_every_few_seconds_by_the_second_reload(browser, built_site, tmp_path):
    folder = Path(shutil.copytree(built_site, tmp_path / "served"))  # the site as served before the rebuild
    before = sha256_files(folder)
    server = SiteServer(folder)
    context = browser.new_context()
    page = watched_page(context)
    said = []
    page.on("console", lambda m: m.type in ("warning", "error") and said.append((m.text, m.location["url"])))
    try:
        page.goto(f"{server.url}/index.html")
        wait_live(page)
        wait_for_version(page, folder)

        build = paused_rebuild(folder, next_model(tmp_path))
        assert sha256_files(folder) == before  # mid-build, the served folder is the old site, whole
        checks = sum("GET /sw.js" in line for line in server.log)
        reload1 = time.monotonic()
        page.reload()  # mid-build: the old version
        wait_live(page)
        for _ in range(300):  # the page looked for a new version and found the old one
            if any("GET /sw.js" in line for line in server.log[checks:]):
                break
            page.wait_for_timeout(100)
        else:
            raise AssertionError(f"no update check during the build: {server.log[checks:]}")
        build.send_signal(signal.SIGCONT)
        assert build.wait(timeout=120) == 0
        versions = Versions(before, sha256_files(folder))
        assert "static/model/meta.json" in versions.telling

        # The next reload, a few seconds on, is wholly the new version.
        # Once the new version is installed (however long that takes here), the reader's cadence.
        installed = page.evaluate("""async (version) => {
          for (const end = Date.now() + 60000; Date.now() < end;) {
            const reg = await navigator.serviceWorker.getRegistration();
            if (!reg.installing && (await caches.keys()).some((n) => n.endsWith(version))) return true;
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          return false;
        }""", version_of(folder))
        assert installed, "the new version was not installed after the build had finished"
        page.wait_for_timeout(max(0, CADENCE - (time.monotonic() - reload1)) * 1000)
        seen = versions.watch(page, server.url)
        page.reload()
        wait_live(page)
        reload2 = versions.of(seen)
        assert "static/model/meta.json" in reload2 and set(reload2.values()) == {"new"}, reload2
        assert said == []  # not even a failed request: no reload ever met half a site
        assert page.page_errors == []
    finally:
        context.close()
        server.stop()
