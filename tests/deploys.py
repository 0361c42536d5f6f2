"""Deploys of the site for the offline worker's tests: the version a build wrote, a "next
deploy" that changes a model file, JavaScript and HTML, which version each response a page got
belongs to, and what the worker keeps in cache storage."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from helpers import MODEL_DIR
from testbed.built_site import build_site

# In the page: wait (up to 60 s) until the worker of `version` is the registration's active
# worker, with nothing installing or waiting, and its cache is filled; returns the cache names.
WAIT_FOR_VERSION = """async (version) => {
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    const reg = await navigator.serviceWorker.getRegistration();
    const names = await caches.keys();
    if (reg && reg.active && !reg.installing && !reg.waiting && names.some((n) => n.endsWith(version))) {
      return names;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}"""

# In the page: {cache name: number of entries}, and the bytes of every cached body (what the
# browser's storage estimate reports only once it has freed a deleted cache, whenever it does).
CACHE_STORAGE = """async () => {
  const entries = {};
  let bytes = 0;
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    const requests = await cache.keys();
    entries[name] = requests.length;
    for (const request of requests) bytes += (await (await cache.match(request)).arrayBuffer()).byteLength;
  }
  return { entries, bytes };
}"""


def version_of(site: Path) -> str:
    """The version the build wrote into the worker's manifest."""
    first = (site / "sw.js").read_text(encoding="utf-8").splitlines()[0]
    return json.loads(first.removeprefix("self.OFFLINE = ").rstrip(";"))["version"]


def sha256_files(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in site.rglob("*") if p.is_file()}


def wait_for_version(page, site: Path) -> list[str]:
    names = page.evaluate(WAIT_FOR_VERSION, version_of(site))
    assert names is not None, f"the worker of version {version_of(site)} did not become active within 60 s"
    return names


def next_model(base: Path) -> Path:
    """static/model/ with a changed meta.json: a model folder for a second build."""
    model = base / "model-v2"
    shutil.copytree(MODEL_DIR, model)
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    meta["deploy_note"] = "second deploy"
    (model / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return model


def next_deploy(base: Path) -> Path:
    """A second build by the real build script, with a changed model file (meta.json), changed
    JavaScript and changed HTML."""
    new = build_site(base / "v2", "--model", str(next_model(base)))
    for path in (new / "static").rglob("*.js"):
        if "vendor" not in path.parts:
            path.write_text(path.read_text(encoding="utf-8") + "\n// second deploy\n", encoding="utf-8")
    for path in new.glob("*.html"):
        path.write_text(path.read_text(encoding="utf-8") + "<!-- second deploy -->\n", encoding="utf-8")
    build_site(new, "--manifest-only")
    return new


class Versions:
    """Which deploy each response a page received belongs to, by the sha256 of its body."""

    def __init__(self, old: dict[str, str], new: dict[str, str]):
        """old, new: {path: sha256} of the two deploys (sha256_files)."""
        self.old, self.new = old, new
        # Only files that differ between the deploys tell them apart; sw.js is not a file of the
        # page but the worker, which every page view fetches to look for a new version.
        self.telling = {p for p in self.old if self.old[p] != self.new.get(p) and p != "sw.js"}

    def watch(self, page, base: str):
        seen = []

        def on_response(response):
            path = response.url.split("?")[0].removeprefix(base + "/")
            if path in self.telling:
                seen.append((path, response))

        page.on("response", on_response)
        return seen

    def of(self, seen) -> dict[str, str]:
        """{path: "old" | "new" | "neither"} for what the page was served (bodies read now,
        before the page navigates away)."""
        out = {}
        for path, response in seen:
            digest = hashlib.sha256(response.body()).hexdigest()
            out[path] = "old" if digest == self.old[path] else "new" if digest == self.new[path] else "neither"
        seen.clear()
        return out


def wait_for_storage(page, done: str, timeout: float = 60) -> dict:
    """CACHE_STORAGE once the JavaScript condition `done` holds of it (as `s`)."""
    for _ in range(int(timeout * 10)):
        state = page.evaluate(CACHE_STORAGE)
        if page.evaluate(f"(s) => {done}", state):
            return state
        page.wait_for_timeout(100)
    raise AssertionError(f"cache storage never reached {done}: {state}")
