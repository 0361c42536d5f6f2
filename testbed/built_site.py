"""The site as the real build writes it (`python -m site_builder.build`, what `make site` runs),
and what a built site says about itself."""

from __future__ import annotations

import re
import subprocess
import sys
from html import unescape
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The build and the server as `make site` and `make serve` run them; run from the repository's
# root (cwd=ROOT), where `-m` finds site_builder/.
BUILD = [sys.executable, "-m", "site_builder.build"]
SERVE = [sys.executable, "-m", "site_builder.serve"]


def build_site(out: Path, *args: str) -> Path:
    """Build the site into OUT (further build options in ARGS); returns OUT."""
    subprocess.run([*BUILD, "--out", str(out), *args], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return out


def site_csp(site: Path) -> str:
    """The Content-Security-Policy of a built site, as the build wrote it into its live page
    (site_builder/build.py's CSP is the one copy; tests and the benchmark read it from here)."""
    html = (site / "index.html").read_text(encoding="utf-8")
    found = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
    assert len(found) == 1, "the live page must carry exactly one CSP"
    return unescape(found[0])
