"""The model runs in the page's one worker (static/attention-view/model/runtime.js): the page's
own thread never compiles onnxruntime's wasm nor even loads its module, every run (the first
view, a typed sentence, every element's) is answered from the worker, and the pages' CSP allows
that worker and nothing more. A host page that forbids workers still goes live, with the model
on its own thread (docs/embedding.md), in every engine."""

from __future__ import annotations

import re

import pytest

from conftest import wait_live
from helpers import ROOT
from testbed.static_server import serve

pytestmark = pytest.mark.browser

TEXT = "The Queen turned to Alice and said"

# Every wasm module the window compiles, by size (the element's 8-byte probe of whether the
# page allows wasm at all is not the runtime's): installed before any script of the page.
WATCH_WASM = """
window.__wasm = [];
const size = (b) => b?.byteLength ?? b?.buffer?.byteLength ?? -1;
const note = (what, b) => { if (size(b) !== 8) window.__wasm.push(`${what} ${size(b)}`); };
for (const name of ["compile", "instantiate", "validate"]) {
  const real = WebAssembly[name];
  WebAssembly[name] = function (b, ...rest) { note(name, b); return real.call(this, b, ...rest); };
}
for (const name of ["compileStreaming", "instantiateStreaming"]) {
  const real = WebAssembly[name];
  WebAssembly[name] = function (...args) { window.__wasm.push(name); return real.apply(this, args); };
}
"""

# What the window itself fetched of onnxruntime (a worker's requests are in its own timeline).
RUNTIME_IN_WINDOW = """() => performance.getEntriesByType("resource").map((e) => e.name.split("?")[0])
  .filter((name) => /ort[.-][^/]*\\.(mjs|wasm)$/.test(name))"""


# What the runtime's worker posts the window, each message by its kind (a module, or else an answer).
WATCH_WORKER = """
window.__posted = [];
const RealWorker = window.Worker;
window.Worker = class extends RealWorker {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", ({ data }) =>
      window.__posted.push(data?.module instanceof WebAssembly.Module ? `${data.kind} module` : "answer"));
  }
};
"""


def csp_directives(csp: str) -> dict[str, str]:
    return dict(d.strip().split(" ", 1) for d in csp.split(";"))


def test_no_run_happens_on_the_pages_thread(page, site_url):
    page.add_init_script(WATCH_WASM)
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    first = page.evaluate("document.querySelector('attention-view').result")
    page.evaluate("(t) => { document.querySelector('attention-view').text = t; }", TEXT)
    page.wait_for_selector("attention-view[data-status=live]", state="attached")
    typed = page.evaluate("""async () => { const el = document.querySelector('attention-view');
      await el.ready; return el.result; }""")
    assert first["live"] and typed["live"] and typed["text"] == TEXT and typed["attention"]
    assert page.evaluate("window.__wasm") == []
    assert page.evaluate(RUNTIME_IN_WINDOW) == []
    workers = [w.url for w in page.workers]
    assert len(workers) == 1 and workers[0].endswith("/static/attention-view/model/session-worker.js"), workers
    assert page.console_errors == [] and page.page_errors == []


def test_the_window_holds_the_runtimes_compiled_module_for_a_reload(page, site_url):
    # A reloaded page's worker gets every compiled function of the module the previous page
    # still holds (model/session-worker.js); the window holds the worker's, compiling nothing.
    page.add_init_script(WATCH_WORKER + WATCH_WASM)
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    posted = page.evaluate("window.__posted")
    assert [p for p in posted if p != "answer"] == ["compiled module"], posted
    assert page.evaluate("window.__wasm") == []
    assert page.console_errors == [] and page.page_errors == []


def test_the_csp_gains_the_worker_and_nothing_else(site_csp):
    directives = csp_directives(site_csp)
    assert directives.pop("worker-src") == "'self'"
    assert directives == {"default-src": "'none'", "script-src": "'self' 'wasm-unsafe-eval'", "connect-src": "'self'",
                          "img-src": "'self'", "style-src": "'self'", "base-uri": "'none'", "form-action": "'none'"}
    # The policy docs/embedding.md gives a host page allows the worker the same way.
    docs = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    documented = [csp_directives(" ".join(c.split())) for c in re.findall(r"default-src 'none';[^`]+", docs)]
    assert documented and all(d.get("worker-src") == "'self'" for d in documented), documented


def host_page(folder, csp: str) -> None:
    (folder / "no-workers.html").write_text(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" '
        f'content="{csp}"><title>No workers allowed</title><link rel="icon" href="/static/favicon.svg">'
        '<script type="module" src="/static/attention-view.js"></script></head>'
        f'<body><attention-view text="{TEXT}"><p>fallback</p></attention-view></body></html>', encoding="utf-8")


def test_a_page_that_forbids_workers_runs_the_model_itself_in_every_engine(engine, engine_site, site_csp, tmp_path):
    host_page(tmp_path, site_csp.replace("worker-src 'self'", "worker-src 'none'"))
    server = serve({"/": engine_site, "/blog/": tmp_path})
    tab = engine.new_page()
    try:
        tab.goto(f"{server.url}/blog/no-workers.html")
        tab.wait_live()
        result = tab.result()
        assert result["live"] and result["text"] == TEXT and result["attention"], engine.name
        # The fallback, not a worker after all: the window loaded the runtime itself.
        assert any(name.endswith("ort.wasm.min.mjs") for name in tab.evaluate(RUNTIME_IN_WINDOW)), engine.name
    finally:
        tab.close()
        server.shutdown()
