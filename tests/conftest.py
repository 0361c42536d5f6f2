"""Shared fixtures: a built site served on loopback (built once per run), Debian's chromium via
Playwright, every engine of tests/drivers, the reference model, and the live view's pages."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import drivers
from helpers import MODEL_DIR, ROOT
from reference import Reference
from testbed.built_site import build_site, site_csp
from testbed.chromium import launch
from testbed.static_server import serve_dir

# Fixtures that start a browser: a test that uses one must be marked `browser`, so that
# `pytest -m "not browser"` runs on a machine without any.
BROWSER_FIXTURES = {"browser", "engine"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    unmarked = [item.nodeid for item in items
                if BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())) and not item.get_closest_marker("browser")]
    if unmarked:
        raise pytest.UsageError("these tests start a browser but are not marked `browser`: " + ", ".join(unmarked))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site as `make site` builds it, into a temp dir (never the working tree's _site/)."""
    return build_site(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="session", name="site_csp")
def site_csp_fixture(built_site) -> str:
    """The site's CSP as the build wrote it (compare pages and test hosts against this, never
    against a copy of the policy)."""
    return site_csp(built_site)


@pytest.fixture(scope="session")
def site_url(built_site):
    url, server = serve_dir(built_site)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = launch(pw)
        yield b
        b.close()


def watched_page(context):
    """A new page that collects its console errors and page errors as attributes."""
    pg = context.new_page()
    pg.console_errors = []
    pg.page_errors = []
    pg.on("console", lambda m: m.type == "error" and pg.console_errors.append(m.text))
    pg.on("pageerror", lambda e: pg.page_errors.append(str(e)))
    return pg


@pytest.fixture
def page(browser):
    """A fresh context per test; console errors and page errors are collected on the page."""
    context = browser.new_context()
    yield watched_page(context)
    context.close()


# --- The live view: the committed model as Python sees it, and pages that wait for it ---------


@pytest.fixture(scope="session")
def meta() -> dict:
    import json

    return json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def reference() -> Reference:
    """static/model/ in onnxruntime-python (tests/reference.py): what the page must reproduce."""
    return Reference(MODEL_DIR)


def wait_live(page, selector: str = "attention-view", timeout: float = 60_000):
    """Wait until an <attention-view> runs on the live model (or failed: the caller checks)."""
    page.wait_for_selector(
        f"{selector}[data-status=live], {selector}[data-status=error]", state="attached", timeout=timeout
    )


@pytest.fixture
def live_page(page, site_url):
    """The built index page with its <attention-view> on the live model."""
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    return page


def open_view(page, **attrs):
    """Set attributes on the page's first <attention-view> and return its live `result` for them."""
    page.evaluate(
        """(attrs) => {
          const el = document.querySelector("attention-view");
          for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
        }""",
        attrs,
    )
    return view_result(page)


def view_result(page, selector: str = "attention-view") -> dict:
    """`element.result` once `element.ready` has resolved (the live numbers for the current text)."""
    import json

    # As one JSON string: Playwright's own serializer is slow on 2 x 131k nested numbers.
    # JSON has no -Infinity (masked scores), so it travels as a marker Python's json reads back.
    text = page.evaluate(
        """async (sel) => {
          const el = document.querySelector(sel);
          await el.ready;
          return JSON.stringify(el.result, (k, v) => (v === -Infinity ? "__-inf__" : v));
        }""",
        selector,
    )
    return json.loads(text.replace('"__-inf__"', "-Infinity"))


def run_node(script: str, payload=None, timeout: float = 120) -> object:
    """Run an ES-module script under Node with `payload` as JSON on stdin; returns its JSON stdout."""
    import json
    import shutil

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    proc = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps(payload), capture_output=True, text=True, cwd=ROOT, timeout=timeout, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def shared_live_page(browser, site_url):
    """One live index page per test module (a cold load compiles 14 MB of wasm; ~2 s each)."""
    context = browser.new_context()
    pg = watched_page(context)
    pg.goto(f"{site_url}/index.html")
    wait_live(pg)
    yield pg
    context.close()


# Puts a page's first <attention-view> back to its default view: no generation running, nothing
# focused (first: leaving a field commits what it holds), no attribute a test may have set (the
# view's state keys, src, loading; not the page's id nor the element's own data-status), no hash,
# no open details.
RESET_VIEW = """() => {
  const el = document.querySelector("attention-view");
  el.stop();
  el.shadowRoot?.activeElement?.blur?.();
  document.activeElement?.blur?.();
  history.replaceState(null, "", location.pathname);
  for (const name of el.getAttributeNames()) {
    if (name !== "id" && !name.startsWith("data-")) el.removeAttribute(name);
  }
  el.shadowRoot?.querySelector("details[open]")?.removeAttribute("open");
}"""


@pytest.fixture
def reused_live_page(shared_live_page):
    """The module's live page put back to its default view (RESET_VIEW, the mouse away); the
    test must end it without a console or page error."""
    pg = shared_live_page
    pg.mouse.move(0, 0)
    pg.evaluate(RESET_VIEW)
    view_result(pg)
    pg.console_errors.clear()
    pg.page_errors.clear()
    yield pg
    assert pg.console_errors == [] and pg.page_errors == []


def set_attributes(page, **attrs) -> dict:
    """Sets (or, for None, removes) attributes of the page's attention-view; its next result."""
    page.evaluate(
        """(attrs) => { const el = document.querySelector("attention-view");
          for (const [k, v] of Object.entries(attrs)) {
            if (v === null) el.removeAttribute(k); else el.setAttribute(k, String(v));
          } }""",
        attrs,
    )
    return view_result(page)


def embed_codes(page) -> dict:
    """"Copy embed code"'s snippets as shown: {"script": …, "iframe": …, "jinja": …} (menu open)."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelector("attention-view").shadowRoot
      .querySelectorAll(".embed-code")].map((t) => [t.dataset.kind, t.textContent]))""")


# --- Embedding: what a widget shows on screen, checked against a reference row ---------------


def percent_matches(text: str, weight: float) -> bool:
    """A whole percent as the page writes it ("43%", or "<1%" for a small nonzero weight)."""
    if text == "<1%":
        return 0 < 100 * weight < 0.5 + 1e-6
    return abs(int(text.rstrip("%")) - 100 * weight) <= 0.5 + 1e-4


def assert_chips_show(page, selector: str, row, query: int):
    """The widget's chips show `row` (a reference row) up to the query; later chips are masked.
    `page` may be a Page or a Frame."""
    shown = page.locator(f"{selector} .chip .chip-pct").all_text_contents()
    assert len(shown) == len(row), (shown, len(row))
    for k, text in enumerate(shown):
        if k <= query:
            assert percent_matches(text, float(row[k])), (selector, k, text, row[k])
        else:
            assert text == "\u00b7", (selector, k, text)


def chip_label(text: str) -> str:
    """What a chip shows for a token's text (token-labels.js chipText), for texts without controls:
    "⋯" for the tail of a split character, "␣" for each space of a spaces-only token, marks and
    format characters alone (a variation selector) after a dotted circle "◌"."""
    import unicodedata

    if text == "":
        return "\u22ef"
    if set(text) == {" "}:
        return "\u2423" * len(text)
    if not any(ch.isspace() for ch in text) and all(unicodedata.category(ch)[0] == "M" or unicodedata.category(ch) == "Cf"
                                                     for ch in text):
        return "\u25cc" + text
    return text


WATCH_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


# --- Every engine: Chromium, Firefox ESR and WebKitGTK (tests/drivers) --------------------------


@pytest.fixture(scope="session")
def engine_site(built_site, tmp_path_factory) -> Path:
    """The built site with the console recorder in every page (drivers.instrument)."""
    return drivers.instrument(built_site, tmp_path_factory.mktemp("engines") / "site")


@pytest.fixture(scope="session")
def engine_site_url(engine_site):
    url, server = serve_dir(engine_site)
    yield url
    server.shutdown()


@pytest.fixture(scope="session", params=drivers.ENGINES)
def engine(request):
    """Each engine in turn (Chromium is the session's Playwright browser)."""
    playwright_browser = request.getfixturevalue("browser") if request.param == "chromium" else None
    running = drivers.launch(request.param, playwright_browser)
    yield running
    running.quit()
