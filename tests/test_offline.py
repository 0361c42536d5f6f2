"""The offline worker (site/sw.js, registered by static/offline.js): once a page of the site has
been opened it works with the network gone; a new deploy reaches the reader by the second reload
and no page ever runs on files of two versions, whatever the server's caching headers; the
worker answers only the site's own files, and an iframe of embed.html installs nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from browser import build_site, serve
from conftest import view_result, wait_live, watched_page

pytestmark = [pytest.mark.browser, pytest.mark.slow]

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


def test_reload_offline_still_runs_the_model(browser, site_url, built_site, reference):
    context = browser.new_context()
    page = watched_page(context)
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    # The worker registers after the first live result and caches every built file.
    wait_for_version(page, built_site)
    cached = page.evaluate("""async () => {
        for (const name of await caches.keys()) {
          const files = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
          if (files.includes("/index.html")) return files;
        }
        return [];
    }""")
    for needed in ("/index.html", "/static/model/model.onnx", "/static/vendor/ort-wasm-simd-threaded.wasm"):
        assert needed in cached

    context.set_offline(True)
    page.goto("about:blank")  # so the next visit is a full load, not a same-document hash change
    page.goto(f"{site_url}/index.html#text=Offline%2C%20the%20Queen%20said")
    wait_live(page)
    result = view_result(page)
    assert result["live"] and result["text"] == "Offline, the Queen said"
    ids = [t["id"] for t in result["tokens"]]
    assert ids == reference.ids("Offline, the Queen said")
    np.testing.assert_allclose(np.array(result["attention"]), reference.run(ids)["attention"], atol=1e-5)
    assert page.page_errors == []
    context.close()


# --- A new deploy --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_versions(tmp_path_factory, root):
    """Two builds of the site by the real build script: the current one, and a "next deploy"
    with a changed model file (meta.json), changed JavaScript and changed HTML."""
    base = tmp_path_factory.mktemp("deploys")
    old = build_site(base / "v1")
    model = base / "model-v2"
    shutil.copytree(root / "static" / "model", model)
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    meta["deploy_note"] = "second deploy"
    (model / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    new = build_site(base / "v2", "--model", str(model))
    for path in (new / "static").rglob("*.js"):
        if "vendor" not in path.parts:
            path.write_text(path.read_text(encoding="utf-8") + "\n// second deploy\n", encoding="utf-8")
    for path in new.glob("*.html"):
        path.write_text(path.read_text(encoding="utf-8") + "<!-- second deploy -->\n", encoding="utf-8")
    build_site(new, "--manifest-only")
    assert version_of(old) != version_of(new)
    return old, new


class Versions:
    """Which deploy each response a page received belongs to, by the sha256 of its body."""

    def __init__(self, old: Path, new: Path):
        self.old, self.new = sha256_files(old), sha256_files(new)
        # Only files that differ between the deploys tell them apart.
        self.telling = {p for p in self.old if self.old[p] != self.new.get(p)}

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


def test_a_deploy_reaches_the_reader_by_the_second_reload_never_mixed(browser, two_versions):
    """A server with month-old Last-Modified and a month's max-age on every file (the HTTP cache
    keeps the old files fresh): after the deploy, reload 1 is still wholly the old version, and
    stays so even once the new worker has taken over; reload 2 is wholly the new version."""
    old, new = two_versions
    versions = Versions(old, new)
    server = serve(old, stale=True)
    context = browser.new_context()
    page = watched_page(context)
    seen = versions.watch(page, server.url)

    page.goto(f"{server.url}/index.html")
    wait_live(page)
    wait_for_version(page, old)
    assert set(versions.of(seen).values()) == {"old"}
    page.reload()
    wait_live(page)
    first = versions.of(seen)
    assert set(first.values()) == {"old"}, first

    server.mount(new)  # the deploy
    page.reload()
    wait_live(page)
    reload1 = versions.of(seen)
    assert "index.html" in reload1 and "static/model/meta.json" in reload1
    assert set(reload1.values()) == {"old"}, reload1

    # The update check of that page view installs the new version, which takes over the
    # worker; the open page still gets the files of the version it was loaded with.
    names = wait_for_version(page, new)
    assert any(n.endswith(version_of(old)) for n in names), "the open page's version was deleted"
    later = page.evaluate("""async () => Promise.all(
        ["static/model/meta.json", "static/offline.js", "index.html"].map((u) => fetch(u).then((r) => r.text())))""")
    for path, text in zip(["static/model/meta.json", "static/offline.js", "index.html"], later):
        assert hashlib.sha256(text.encode()).hexdigest() == versions.old[path], f"{path}: the old page got a new file"
    seen.clear()

    page.reload()
    wait_live(page)
    reload2 = versions.of(seen)
    assert set(reload2.values()) == {"new"}, reload2
    js = [p for p in reload2 if p.endswith(".js")]
    assert "index.html" in reload2 and "static/model/meta.json" in reload2 and len(js) >= 3, reload2
    assert view_result(page)["live"]
    assert page.page_errors == []
    context.close()
    server.shutdown()


def test_repeat_visit_compiles_the_runtime_while_streaming(browser, built_site):
    """On a repeat visit the 14 MB runtime comes from the worker's cache as application/wasm
    (even from a server that labels it application/octet-stream), so it compiles while it
    streams and Chrome may keep the compiled code, instead of a copy-then-compile fallback."""
    server = serve(built_site, types={".wasm": "application/octet-stream"})
    context = browser.new_context()
    page = watched_page(context)
    warnings = []
    page.on("console", lambda m: warnings.append(m.text))
    page.goto(f"{server.url}/index.html")
    wait_live(page)
    wait_for_version(page, built_site)
    wasm = []
    page.on("response", lambda r: r.url.endswith(".wasm") and wasm.append(r))
    warnings.clear()
    page.reload()
    wait_live(page)
    assert len(wasm) == 1 and wasm[0].from_service_worker
    assert wasm[0].header_value("content-type") == "application/wasm"
    assert not [w for w in warnings if "streaming compile failed" in w], warnings
    assert view_result(page)["live"]
    context.close()
    server.shutdown()


# --- Scope ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def root_site(tmp_path_factory, built_site):
    """The site at the origin root, and an unrelated page of the same origin under /blog/."""
    blog = tmp_path_factory.mktemp("blog")
    (blog / "post.html").write_text(
        '<!doctype html><meta charset="utf-8"><title>Another page</title>'
        '<link rel="stylesheet" href="post.css"><p>Not the site.</p>', encoding="utf-8")
    (blog / "post.css").write_text("p { color: green }", encoding="utf-8")
    server = serve({"/": built_site, "/blog/": blog})
    yield server
    server.shutdown()


def test_worker_answers_only_the_sites_own_files(browser, root_site, built_site):
    context = browser.new_context()
    page = watched_page(context)
    base = root_site.url
    page.goto(f"{base}/index.html")
    wait_live(page)
    wait_for_version(page, built_site)
    assert page.reload().from_service_worker  # the site itself is served by its worker
    wait_live(page)

    answered = {}
    page.on("response", lambda r: answered.__setitem__(r.url.removeprefix(base), r.from_service_worker))
    # Unknown query strings on the site's own files: the network, not the cache.
    page.evaluate("""async () => {
        await fetch("static/model/meta.json?anything=1");
        await fetch("static/site.css?v=2");
    }""")
    assert answered["/static/model/meta.json?anything=1"] is False
    assert answered["/static/site.css?v=2"] is False
    assert page.goto(f"{base}/index.html?anything").from_service_worker is False
    # A page's own view settings are the site's: embed.html?text=… works offline.
    assert page.goto(f"{base}/embed.html?text=The%20Queen&layer=1").from_service_worker is True
    # Another page of the same origin: neither it nor its files come from the site's cache.
    assert page.goto(f"{base}/blog/post.html").from_service_worker is False
    page.wait_for_load_state("load")
    assert answered["/blog/post.css"] is False
    context.close()


def test_embed_html_registers_no_worker(browser, site_url):
    """An iframe of embed.html must not install a cache of the whole site."""
    context = browser.new_context()
    page = watched_page(context)
    page.goto(f"{site_url}/embed.html?text=The%20Queen%20said")
    wait_live(page)
    page.wait_for_load_state("load")
    state = page.evaluate("""async () => ({
        registrations: (await navigator.serviceWorker.getRegistrations()).length,
        offline: performance.getEntriesByType("resource").filter((e) => e.name.includes("offline.js")).length,
        caches: (await caches.keys()).length,
    })""")
    assert state == {"registrations": 0, "offline": 0, "caches": 0}
    context.close()
