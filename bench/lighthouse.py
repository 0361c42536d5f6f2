#!/usr/bin/env python3
"""Lighthouse on the built site as `make serve` serves it (site_builder/serve.py, its compressed
copies included): index.html and embed.html, mobile (Lighthouse's default: simulated slow 4G
and a 4x slower CPU) and desktop (--preset=desktop), --runs times each, in Debian's Chromium.
Prints a markdown table of the medians: the three category scores and five metrics, with the
load average before and after. Figures, not pass/fail (docs/bench.md has the targets).

    .venv/bin/python -m bench.lighthouse [--runs 3] [--pages index.html embed.html] [--site DIR] [--no-compress]

Lighthouse itself comes from npm at the version pinned here (npx keeps it in npm's cache).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from site_builder.serve import make_server
from testbed.built_site import build_site
from testbed.chromium import CHROMIUM

LIGHTHOUSE = "lighthouse@12.8.2"
CATEGORIES = ("performance", "accessibility", "best-practices")
# Lighthouse's audit id -> (column, unit): what the table shows of each run.
METRICS = {
    "first-contentful-paint": ("FCP", "ms"),
    "largest-contentful-paint": ("LCP", "ms"),
    "total-blocking-time": ("TBT", "ms"),
    "cumulative-layout-shift": ("CLS", ""),
    "speed-index": ("SI", "ms"),
}
FORM_FACTORS = ("mobile", "desktop")


def run_once(url: str, form_factor: str, report: Path) -> dict | None:
    """One Lighthouse run: {category: score 0-100, metric id: numeric value}; None when it failed
    twice (said on stderr)."""
    cmd = ["npx", "--yes", LIGHTHOUSE, url, "--quiet", "--output=json", f"--output-path={report}",
           f"--only-categories={','.join(CATEGORIES)}", "--chrome-flags=--headless=new --no-sandbox"]
    if form_factor == "desktop":
        cmd.append("--preset=desktop")
    # Twice at most: on a busy machine a DevTools call can time out once ("Waiting for DevTools
    # protocol response has exceeded the allotted time").
    for _ in range(2):
        done = subprocess.run(cmd, env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True, text=True)
        if done.returncode == 0 and report.is_file():
            break
    if done.returncode != 0 or not report.is_file():
        # A page whose thread is blocked for seconds can make Lighthouse's own calls time out:
        # that run is left out of the medians, and the table says how many runs each row has.
        print(f"lighthouse failed on {url} ({form_factor}): {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    data = json.loads(report.read_text(encoding="utf-8"))
    row = {c: round(100 * data["categories"][c]["score"]) for c in CATEGORIES}
    row.update({m: data["audits"][m]["numericValue"] for m in METRICS})
    return row


def median_row(runs: list[dict]) -> dict:
    return {key: statistics.median(run[key] for run in runs) for key in runs[0]}


def cell(key: str, value: float) -> str:
    if key in CATEGORIES:
        return f"{value:.0f}"
    return f"{value:.3f}" if key == "cumulative-layout-shift" else f"{value:,.0f}"


def table(results: dict[tuple[str, str], list[dict | None]], runs: int) -> str:
    head = ["page", "form factor", *CATEGORIES, *(f"{col} ({unit})" if unit else col for col, unit in METRICS.values())]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (page, form_factor), rows in results.items():
        rows = [row for row in rows if row is not None]
        name = form_factor if len(rows) == runs else f"{form_factor} ({len(rows)} of {runs} runs)"
        cells = [cell(k, median_row(rows)[k]) for k in [*CATEGORIES, *METRICS]] if rows else ["failed"] * (len(head) - 2)
        lines.append("| " + " | ".join([page, name, *cells]) + " |")
    lines.append(f"\nMedians of {runs} runs each, of those that completed.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", nargs="+", default=["index.html", "embed.html"])
    parser.add_argument("--site", type=Path, help="a built site to serve (default: build one)")
    parser.add_argument("--no-compress", action="store_true", help="serve every file as it is (make serve COMPRESS=0)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    site = args.site or build_site(Path(tempfile.mkdtemp(prefix="lighthouse-site-")) / "site")
    server = make_server(site, 0, compress=not args.no_compress)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    load_before = os.getloadavg()
    results: dict[tuple[str, str], list[dict | None]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # Interleaved: a slow moment of the machine spreads over every page and form factor.
            for i in range(args.runs):
                for page in args.pages:
                    for form_factor in FORM_FACTORS:
                        report = Path(tmp) / f"{page}-{form_factor}-{i}.json"
                        results.setdefault((page, form_factor), []).append(run_once(f"{url}/{page}", form_factor, report))
    finally:
        server.shutdown()
    load_after = os.getloadavg()
    print(table(results, args.runs))
    served = "uncompressed" if args.no_compress else "with the build's brotli/gzip copies"
    print(f"Served {served}. Load average (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after; "
          f"{os.cpu_count()} cores.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
