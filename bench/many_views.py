"""Many eager views on one page, for bench/run.py: the longest main-thread task while 15
<attention-view> elements start together (each builds its UI when meta.json arrives and runs
the model when it is ready; done in one task, that blocked input for up to 2 s). Measured by a
`longtask` PerformanceObserver that the page starts before the widget's script, in a fresh
context each time, until every view is live."""

from __future__ import annotations

import statistics
from pathlib import Path

COUNT = 15

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>{count} views</title>
<script>
  window.longest = 0; window.blocked = 0;
  new PerformanceObserver((list) => {{
    for (const e of list.getEntries()) {{ window.longest = Math.max(window.longest, e.duration); window.blocked += e.duration; }}
  }}).observe({{ type: "longtask", buffered: true }});
</script>
<script type="module" src="../static/attention-view.js"></script></head><body>
{views}
</body></html>"""

ALL_LIVE_JS = f"""() => {{
  const views = [...document.querySelectorAll("attention-view")];
  return views.length === {COUNT} && views.every((v) => v.dataset.status === "live");
}}"""


def write_page(site: Path) -> str:
    """bench/many.html in the built `site`: COUNT eager views of different sentences."""
    views = "\n".join(f'<attention-view text="The Queen said {"very " * i}loudly"></attention-view>' for i in range(COUNT))
    (site / "bench" / "many.html").write_text(PAGE.format(count=COUNT, views=views), encoding="utf-8")
    return "bench/many.html"


def measure(browser, url: str, runs: int) -> dict:
    longest, blocked = [], []
    for _ in range(runs):
        context = browser.new_context()
        page = context.new_page()
        page.goto(url)
        page.wait_for_function(ALL_LIVE_JS, timeout=120_000)
        page.wait_for_timeout(200)  # the last paint's task ends and is reported
        longest.append(page.evaluate("window.longest"))
        blocked.append(page.evaluate("window.blocked"))
        context.close()
    return {"longest": statistics.median(longest), "range": (min(longest), max(longest)), "blocked": statistics.median(blocked)}


def rows(f: dict) -> list[tuple]:
    lo, hi = f["range"]
    return [(f"{COUNT} eager views on one page: longest main-thread task while they start",
             f"{f['longest']:.0f} ms ({lo:.0f}–{hi:.0f}; {f['blocked']:.0f} ms in long tasks)", "", float("nan"), "")]
