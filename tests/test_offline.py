"""Once a page of the site has been opened, it works again with the network gone."""

import numpy as np

from conftest import view_result, wait_live, watched_page


def test_reload_offline_still_runs_the_model(browser, site_url, reference):
    context = browser.new_context()
    page = watched_page(context)
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    # The worker registers after the first live result and caches every built file.
    cached = page.evaluate("""async () => {
        const never = new Promise((resolve) => setTimeout(() => resolve(null), 30000));
        if (!(await Promise.race([navigator.serviceWorker.ready, never]))) return null;
        const names = await caches.keys();
        const cache = await caches.open(names[0]);
        return {names, files: (await cache.keys()).map((r) => new URL(r.url).pathname)};
    }""")
    assert cached is not None, "no service worker became active within 30 s"
    assert len(cached["names"]) == 1
    for needed in ("/index.html", "/static/model/model.onnx", "/static/vendor/ort-wasm-simd-threaded.wasm"):
        assert needed in cached["files"]

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
