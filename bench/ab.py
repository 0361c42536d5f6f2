#!/usr/bin/env python3
"""Interleaved A/B of the live page's cold start: the site built from a git revision (A) against
the site built from the work tree (B), each load in a fresh browser context, A and B alternating
so that drifting machine load hits both alike. Prints the medians and every load.

    .venv/bin/python -m bench.ab [--base main] [--runs 9] [--a-flags=--no-bundle] [--b-flags=...]

--base . builds A from the work tree too: with --a-flags / --b-flags (site_builder/build.py options, e.g.
--no-bundle) that compares two builds of the same code.

Figures from the page's own Performance timeline: first attention row (from golden.json), live
model ready, and when the wasm request started. Pause other work on the machine first (make
bench does the same for the background training: see docs/bench.md).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from testbed.built_site import BUILD, ROOT
from testbed.chromium import launch
from testbed.static_server import serve

TIMES_JS = """() => {
  const at = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
  const wasm = performance.getEntriesByType("resource").find((r) => r.name.endsWith(".wasm"));
  return { first: at("attention-view:first-row"), live: at("attention-view:live"), wasm: wasm ? wasm.startTime : null };
}"""


def tree_at(revision: str, into: Path) -> Path:
    """The repository's files at `revision` (git archive), with this work tree's node_modules."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    (into / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    return into


def build(tree: Path, out: Path, flags: str) -> Path:
    # A revision from before the build became the package site_builder/ ran it as a script.
    command = BUILD if (tree / "site_builder").is_dir() else [sys.executable, str(tree / "site" / "build.py")]
    subprocess.run([*command, "--out", str(out), *flags.split()], check=True, stdout=subprocess.DEVNULL, cwd=tree)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="git revision of A (default main)")
    parser.add_argument("--runs", type=int, default=9, help="cold loads of each (default 9)")
    parser.add_argument("--a-flags", default="", help="site_builder/build.py options for A")
    parser.add_argument("--b-flags", default="", help="site_builder/build.py options for B")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="ab-"))
    tree_a = ROOT if args.base == "." else tree_at(args.base, work / "a")
    sites = {"A": build(tree_a, work / "site-a", args.a_flags), "B": build(ROOT, work / "site-b", args.b_flags)}
    servers = {k: serve(v) for k, v in sites.items()}
    loads = {"A": [], "B": []}
    load_avg = os.getloadavg()[0]
    with sync_playwright() as pw:
        browser = launch(pw)
        for _ in range(args.runs):
            for kind in ("A", "B"):
                context = browser.new_context()
                page = context.new_page()
                page.goto(f"{servers[kind].url}/index.html")
                page.wait_for_selector("attention-view[data-status=live]", state="attached", timeout=120_000)
                page.wait_for_timeout(100)  # the first-row mark waits for an animation frame
                loads[kind].append(page.evaluate(TIMES_JS))
                context.close()
        browser.close()
    for server in servers.values():
        server.shutdown()
    print(f"A = {args.base} {args.a_flags}, B = the work tree {args.b_flags}; {args.runs} cold loads each, interleaved; "
          f"1-min load average at the start {load_avg:.2f}, at the end {os.getloadavg()[0]:.2f}")
    print("| | first row (ms) | live (ms) | wasm request starts (ms) |")
    print("|---|---|---|---|")
    for kind, rows in loads.items():
        med = {k: statistics.median(r[k] for r in rows) for k in ("first", "live")}
        # The page's own timeline has no wasm request when the runtime fetches it from a worker.
        wasm = [r["wasm"] for r in rows if r["wasm"] is not None]
        print(f"| {kind} | {med['first']:.0f} | {med['live']:.0f} | {f'{statistics.median(wasm):.0f}' if wasm else 'in a worker'} |")
    for kind, rows in loads.items():
        print(kind, "live:", " ".join(f"{r['live']:.0f}" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
