"""Debian's chromium through Playwright, never a Playwright-downloaded browser."""

from __future__ import annotations

import os

# Another binary (or none: CHROMIUM=/nonexistent) for the Playwright tests.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def launch(playwright):
    """Debian's chromium with the shared flags."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
