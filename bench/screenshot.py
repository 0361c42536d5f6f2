"""`make screenshot`: docs/screenshot.png, the live page as a reader first sees it (1280 px wide,
light mode, the default view on the live model), taken with the suite's own Chromium and
server setup (testbed/) from a fresh build, so the README's picture is never drawn by
hand and never older than the code that draws the page."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from testbed.built_site import ROOT, build_site
from testbed.chromium import launch
from testbed.static_server import serve_dir

OUT = ROOT / "docs" / "screenshot.png"


def main() -> int:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        url, server = serve_dir(build_site(Path(tmp) / "site"))
        try:
            with sync_playwright() as pw:
                browser = launch(pw)
                # As tall as the picture: panels off screen are not rendered (content-visibility).
                context = browser.new_context(viewport={"width": 1280, "height": 1400}, color_scheme="light",
                                              reduced_motion="reduce", device_scale_factor=1)
                page = context.new_page()
                page.goto(f"{url}/index.html")
                page.wait_for_selector("attention-view[data-status=live]", state="attached", timeout=120_000)
                page.evaluate("() => document.querySelector('attention-view').ready")
                # Two frames: the first decides which panels are on screen (content-visibility),
                # the second paints them.
                page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
                page.mouse.move(0, 0)
                view = page.locator("attention-view")
                box = view.bounding_box()
                # The page's header and the view down to the end of its heatmap panel.
                page.screenshot(path=str(OUT), clip={"x": 0, "y": 0, "width": 1280, "height": min(1400, box["y"] + box["height"])},
                                full_page=True)
                browser.close()
        finally:
            server.shutdown()
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
