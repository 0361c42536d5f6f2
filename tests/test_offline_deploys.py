"""How a new deploy reaches a reader through the offline worker (site_builder/sw.js, registered by
static/offline.js): by the second reload, never mixed, whatever the server's caching headers
(month-old Last-Modified, a month's max-age, 304 to every conditional request, a rollback to
older files); across a rebuild of the served folder with reloads a few seconds apart, with
nothing alarming in the console; and the old version's cache and the closed pages' records are
deleted, so storage stays at one version's size."""

from __future__ import annotations

import hashlib

import pytest
from deploys import Versions, next_deploy, sha256_files, version_of, wait_for_storage, wait_for_version

from conftest import view_result, wait_live, watched_page
from site_builder import offline_manifest
from testbed.static_server import serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def two_versions(built_site, tmp_path_factory):
    """The site as built for this run, and a next deploy of it (deploys.next_deploy)."""
    new = next_deploy(tmp_path_factory.mktemp("deploys"))
    assert version_of(built_site) != version_of(new)
    return built_site, new


def pages_cache(state: dict) -> int:
    return next(n for name, n in state["entries"].items() if name.endswith(" pages"))


def first_visit(browser, two_versions, **server_options):
    """The first deploy, served with `server_options` (browser.serve), opened until its worker
    is in charge: (server, context, page, Versions, the responses the page got since)."""
    old, new = two_versions
    versions = Versions(sha256_files(old), sha256_files(new))
    server = serve(old, **server_options)
    context = browser.new_context()
    page = watched_page(context)
    seen = versions.watch(page, server.url)
    page.goto(f"{server.url}/index.html")
    wait_live(page)
    wait_for_version(page, old)
    return server, context, page, versions, seen


def test_a_deploy_reaches_the_reader_by_the_second_reload_never_mixed(browser, two_versions):
    """A server with month-old Last-Modified and a month's max-age on every file (the HTTP cache
    keeps the old files fresh): after the deploy, reload 1 is still wholly the old version, and
    stays so even once the new worker has taken over; reload 2 is wholly the new version, and
    within seconds the old version's cache is gone: storage is back to one version's size."""
    old, new = two_versions
    server, context, page, versions, seen = first_visit(browser, two_versions, stale=True)
    assert set(versions.of(seen).values()) == {"old"}
    page.reload()
    wait_live(page)
    first = versions.of(seen)
    assert set(first.values()) == {"old"}, first
    one_version = wait_for_storage(page, "Object.keys(s.entries).length === 2")["bytes"]

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
    # No page uses the old version any more: its cache goes, and with it half the storage.
    state = wait_for_storage(page, f"!Object.keys(s.entries).some((n) => n.endsWith({version_of(old)!r}))")
    assert sorted(n.split(" ")[-1] for n in state["entries"]) == sorted(["pages", version_of(new)])
    # every file the new worker precaches (not itself, nor the timeline, fetched on demand)
    precached = offline_manifest.manifest(new, [])["files"]
    assert state["entries"][next(n for n in state["entries"] if n.endswith(version_of(new)))] == len(precached)
    assert 0.75 * one_version < state["bytes"] < 1.25 * one_version, (state["bytes"], one_version)
    assert page.page_errors == []
    context.close()
    server.shutdown()


def test_the_page_records_stay_bounded_over_many_page_views(browser, built_site):
    server = serve(built_site)
    context = browser.new_context()
    page = watched_page(context)
    page.goto(f"{server.url}/index.html")
    wait_live(page)
    wait_for_version(page, built_site)
    for _ in range(12):
        page.reload()
        wait_live(page)
    # One record per open client, once the closed ones' records have gone: this page and, while
    # the worker has not pruned it, the module worker that runs its model (its script's request
    # binds it to the page's version). Twelve reloads without pruning would leave 26.
    state = wait_for_storage(page, "Object.entries(s.entries).every(([n, k]) => !n.endsWith(' pages') || k <= 2)")
    assert 1 <= pages_cache(state) <= 2 and len(state["entries"]) == 2, state
    assert page.page_errors == []
    context.close()
    server.shutdown()


def test_deploy_and_rollback_reach_the_reader_from_a_server_that_answers_304_wrongly(browser, two_versions):
    """A server answering "304 Not Modified" to every conditional request (as one comparing
    If-Modified-Since with files' times does after a rollback to older files): the new version,
    and then the old one again, each reach the reader by the second reload."""
    old, new = two_versions
    server, context, page, versions, seen = first_visit(browser, two_versions, always_304=True)
    seen.clear()
    for site, name in [(new, "new"), (old, "old")]:
        server.mount(site)
        page.reload()
        wait_live(page)
        wait_for_version(page, site)  # reload 1 found the version and installed it
        seen.clear()
        page.reload()
        wait_live(page)
        assert set(versions.of(seen).values()) == {name}
    assert page.page_errors == []
    context.close()
    server.shutdown()
