#!/usr/bin/env python3
"""Cold loads on emulated network links: the live page against the floor page (bench/bare.html),
both from `make serve`'s server with the build's compressed copies (testbed/site_server.py), in
Debian's chromium with its network emulation (DevTools protocol, Network.emulateNetworkConditions:
every request of the page and its workers waits the link's latency and shares its bandwidth).
Figures, not pass/fail; prints a markdown table (`make bench` runs it after bench/run.py).

    .venv/bin/python -m bench.slow_link [--runs 1]

Per link: bytes on the wire before the first live result (encoded sizes, headers included, the
runtime's worker counted), time to the first attention row painted (from golden.json, before the
model runs) and time to live, each from navigation start, medians of --runs cold loads (a fresh
browser context each: empty HTTP cache, no service worker), page and floor interleaved. One more
row: the page from a host that sends every file as it is, on the fast link.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

from bench.run import load_figures
from testbed.built_site import ROOT, build_site, site_csp
from testbed.chromium import launch
from testbed.site_server import serve_site

# name: (latency ms, download bit/s, upload bit/s)
LINKS = {
    "20 Mbit/s, 40 ms": (40, 20e6, 5e6),
    "1.6 Mbit/s, 150 ms": (150, 1.6e6, 750e3),
}
TIMEOUT_MS = 600_000


def bench_site(model: Path) -> tuple[Path, str]:
    """The built site with the floor page beside it (its CSP the site's); returns (folder, the floor's path)."""
    out = build_site(Path(tempfile.mkdtemp(prefix="bench-slow-")) / "site", "--model", str(model))
    (out / "bench").mkdir()
    shutil.copy2(ROOT / "bench" / "bare.js", out / "bench" / "bare.js")
    bare_html = (ROOT / "bench" / "bare.html").read_text(encoding="utf-8")
    (out / "bench" / "bare.html").write_text(bare_html.replace("{{ csp }}", site_csp(out)), encoding="utf-8")
    return out, "bench/bare.html"


def cold_load(browser, url: str, link: tuple[float, float, float], page: bool) -> dict:
    latency, down, up = link
    context = browser.new_context()
    pg = context.new_page()
    cdp = context.new_cdp_session(pg)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": latency,
                                                  "downloadThroughput": down / 8, "uploadThroughput": up / 8})
    pg.goto(url, timeout=TIMEOUT_MS)
    if page:
        pg.wait_for_selector("attention-view[data-status=live]", state="attached", timeout=TIMEOUT_MS)
        pg.wait_for_timeout(100)  # let the first-row mark's animation frame fire
        figures = load_figures(pg, "attention-view:live", "attention-view:first-row")
    else:
        pg.wait_for_selector("html[data-ready]", state="attached", timeout=TIMEOUT_MS)
        figures = load_figures(pg, "bare:first-result", None)
    context.close()
    return figures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="cold loads of each page on each link (default 1)")
    parser.add_argument("--model", type=Path, default=ROOT / "static" / "model",
                        help="the model folder to build the site on (default static/model/)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    meta = json.loads((args.model / "meta.json").read_text(encoding="utf-8"))
    out, bare_path = bench_site(args.model)
    compressed, plain = serve_site(out), serve_site(out, compress=False)
    query = f"?text={quote(meta['default']['text'])}"
    load_at_start = os.getloadavg()[0]
    loads = {(link, kind): [] for link in LINKS for kind in ("page", "bare")}
    with sync_playwright() as pw:
        browser = launch(pw)
        version = browser.version
        for _ in range(args.runs):
            for link, conditions in LINKS.items():
                for kind in ("page", "bare"):  # interleaved, so drifting machine load hits both
                    url = f"{compressed.url}/index.html" if kind == "page" else f"{compressed.url}/{bare_path}{query}"
                    loads[link, kind].append(cold_load(browser, url, conditions, kind == "page"))
        fast = next(iter(LINKS))
        raw = [cold_load(browser, f"{plain.url}/index.html", LINKS[fast], True) for _ in range(args.runs)]
        browser.close()
    compressed.stop()
    plain.stop()
    shutil.rmtree(out.parent, ignore_errors=True)

    def med(rows, key):
        return statistics.median(r[key] for r in rows)

    print(f"\nChromium {version}, {os.cpu_count()} CPU cores (1-min load average at the start: {load_at_start:.2f}, "
          f"at the end: {os.getloadavg()[0]:.2f}), emulated links (Chromium's network emulation), "
          f"served with the build's .br/.gz copies; medians of {args.runs} cold load(s) per page and link.\n")
    print("| link | measure | page | bare floor | ratio |")
    print("|---|---|---|---|---|")
    for link in LINKS:
        page, bare = loads[link, "page"], loads[link, "bare"]
        pb, bb = med(page, "bytes"), med(bare, "bytes")
        print(f"| {link} | bytes on the wire before the first live result | {pb / 1e6:.2f} MB | {bb / 1e6:.2f} MB | {pb / bb:.2f} |")
        first, bare_live = med(page, "first"), med(bare, "live")
        print(f"| {link} | first attention row painted | {first / 1e3:.2f} s | {bare_live / 1e3:.2f} s (first result) | "
              f"{first / bare_live:.2f} |")
        live = med(page, "live")
        print(f"| {link} | live | {live / 1e3:.2f} s | {bare_live / 1e3:.2f} s | {live / bare_live:.2f} |")
    print(f"| {fast}, host without compression | bytes / live | {med(raw, 'bytes') / 1e6:.2f} MB / "
          f"{med(raw, 'live') / 1e3:.2f} s | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
