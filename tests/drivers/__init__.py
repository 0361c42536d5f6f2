"""The suite's browser layer for tests that run in every engine: one small page interface over
Playwright/Chromium (chromium.py), puppeteer-core/Firefox ESR through a Node bridge speaking
JSON lines (firefox.py, firefox_bridge.mjs) and Selenium/WebKitGTK under Xvfb (webkit.py).

A test says what a reader does (open, reload, click, press, type) and reads the page through
JavaScript (`evaluate`); each engine implements only the few primitives below. Every page of
the test site carries recorder.js (see `instrument`), so all three engines are held to the same
rule for console and window errors, whatever their drivers can report."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from helpers import ROOT
from testbed.built_site import BUILD

ENGINES = ("chromium", "firefox", "webkit")
RECORDER = Path(__file__).with_name("recorder.js")
RECORDER_KEY = "test-recorder"  # recorder.js's sessionStorage key
# The element `selector` number `nth` inside the first <attention-view>'s shadow root.
FIND = "(([selector, nth]) => document.querySelector('attention-view').shadowRoot.querySelectorAll(selector)[nth])"
# JSON has no -Infinity (masked attention scores): it travels as a marker.
TO_JSON = "(v) => JSON.stringify(v === undefined ? null : v, (k, x) => (x === -Infinity ? '__-inf__' : x))"


class Page:
    """One tab in a fresh profile. Engines implement goto, reload, press, type, close and the
    underscored primitives; `expression` is JavaScript whose value (a Promise is awaited) is a
    string, and `finder` an expression that gives an element."""

    engine = ""

    def goto(self, url: str) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    def press(self, key: str) -> None:
        """A key as the focused element receives it: "ArrowRight", "Home", "Space", "h"…"""
        raise NotImplementedError

    def type(self, text: str) -> None:
        """Types `text` key by key into the focused element."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _evaluate(self, expression: str) -> str:
        raise NotImplementedError

    def _click(self, finder: str) -> None:
        raise NotImplementedError

    def _focus(self, finder: str) -> None:
        raise NotImplementedError

    def _native_errors(self) -> list[str]:
        """What the engine's own driver reported (console errors, uncaught errors); may be none."""
        return []

    # --- the shared part -----------------------------------------------------------------

    def evaluate(self, fn: str, arg=None):
        """Calls the JavaScript function `fn` (source text, may be async) with `arg` (JSON) in the
        page; returns its value through JSON."""
        text = self._evaluate(f"Promise.resolve(({fn})({json.dumps(arg)})).then({TO_JSON})")
        return json.loads(text.replace('"__-inf__"', "-Infinity"))

    def click(self, selector: str, nth: int = 0) -> None:
        """A real click (pointer events) on an element of the view's shadow root."""
        self._click(f"{FIND}({json.dumps([selector, nth])})")

    def focus(self, selector: str, nth: int = 0) -> None:
        self._focus(f"{FIND}({json.dumps([selector, nth])})")

    def wait_for(self, fn: str, arg=None, timeout: float = 60) -> None:
        """Until the JavaScript function `fn(arg)` (may be async) gives a truthy value, polled in
        the page. The function is part of the expression: a CSP without 'unsafe-eval' forbids
        making one from a string in the page."""
        done = self.evaluate(f"""async ([arg, ms]) => {{
          const test = {fn};
          for (const end = Date.now() + ms; Date.now() < end;) {{
            if (await test(arg)) return true;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }}
          return false;
        }}""", [arg, timeout * 1000])
        assert done, f"{self.engine}: not within {timeout} s: {fn}"

    def wait_live(self, timeout: float = 90) -> None:
        """Until the page's first <attention-view> runs on the live model (or failed: the caller checks)."""
        try:
            self.wait_for("""() => ["live", "error"].includes(document.querySelector("attention-view")?.dataset.status)""",
                          timeout=timeout)
        except AssertionError:
            status = self.evaluate("""() => { const el = document.querySelector("attention-view");
              return [location.href, el?.dataset.status, el?.shadowRoot?.querySelector(".status-text")?.textContent,
                      document.title, (document.body?.innerText ?? "").slice(0, 200),
                      !!navigator.serviceWorker?.controller]; }""")
            raise AssertionError(f"{self.engine}: the view never went live: {status} {self.problems()}") from None

    def result(self) -> dict:
        """`element.result` once `element.ready` has resolved: the live numbers of the view."""
        return self.evaluate("""async () => { const el = document.querySelector("attention-view");
          await el.ready; return el.result; }""")

    def problems(self) -> list[str]:
        """Every console error or warning and window error since the last call (then forgotten):
        the recorder's, in every engine, and the driver's own where it has one."""
        recorded = self.evaluate(f"""() => {{ const all = JSON.parse(sessionStorage.getItem("{RECORDER_KEY}") || "[]");
          sessionStorage.removeItem("{RECORDER_KEY}"); return all; }}""")
        return recorded + self._native_errors()


class Engine:
    name = ""
    version = ""

    def new_page(self) -> Page:
        raise NotImplementedError

    def quit(self) -> None:
        pass


def launch(name: str, playwright_browser=None) -> Engine:
    """A running engine: "chromium" wraps the session's Playwright browser; "firefox" and
    "webkit" start their own (and stop it on quit())."""
    if name == "chromium":
        from drivers.chromium import ChromiumEngine

        return ChromiumEngine(playwright_browser)
    if name == "firefox":
        from drivers.firefox import FirefoxEngine

        return FirefoxEngine()
    if name == "webkit":
        from drivers.webkit import WebKitEngine

        return WebKitEngine()
    raise ValueError(f"no engine {name!r} (engines: {', '.join(ENGINES)})")


def instrument(site: Path, out: Path) -> Path:
    """A copy of the built `site` whose pages load recorder.js first thing in <head>, with the
    worker's manifest rewritten for it (so the offline worker caches and checks it too)."""
    shutil.copytree(site, out)
    shutil.copy2(RECORDER, out / "test-recorder.js")
    for page in out.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        src = "../" * (len(page.relative_to(out).parts) - 1) + "test-recorder.js"
        assert html.count("<head>\n") == 1, page
        page.write_text(html.replace("<head>\n", f'<head>\n  <script src="{src}"></script>\n'), encoding="utf-8")
    subprocess.run([*BUILD, "--out", str(out), "--manifest-only"], check=True,
                   stdout=subprocess.DEVNULL, cwd=ROOT)
    return out
