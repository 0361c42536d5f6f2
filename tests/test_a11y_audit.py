"""An accessibility audit of every page by axe-core (the npm package pinned in package.json,
injected from node_modules/: nothing is fetched at run time): the live page, both chapters, the
model card, embed.html and its compact form, at 1280 and 375 px, light and dark, with every
view's training timeline, math, compare and Continue options open. No serious or critical
violation is allowed but the exceptions below, each with its reason. One page per site page,
reused for its four audits (two widths x two colour schemes)."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PAGES = ["index.html", "attention.html", "lab.html", "model.html", "embed.html", "embed.html?compact=1"]
WIDTHS = [1280, 375]
SCHEMES = ["light", "dark"]
BLOCKING = {"serious", "critical"}

# (rule, a piece of the failing node's HTML, why it is allowed). Nothing else passes.
EXCEPTIONS = [
    ("label-content-name-mismatch", '<button class="mini ',
     "A head's strip button shows, over its small picture of the row, the labels of the row's "
     "strongest key and of the pinned token (aria-hidden: marks on the picture); its name says the "
     "same in words ('Layer 1, head 3 (diffuse): strongest «Alice» 67%'). axe counts those marks as "
     "the button's visible text, which no readable name can contain word for word."),
]

# Opens what a reader can open in every view on the page, once every view is live: the
# training timeline, the math, compare and the Continue options (and the embed code and the
# thumbnails, which are opened the same way). Lazy views start at once, and every panel is laid
# out (its content-visibility is `auto` off screen: axe would not see a skipped panel's text).
OPEN_EVERYTHING = """async () => {
  const views = [...document.querySelectorAll("attention-view")];
  for (const el of views) {
    el.loading = "eager";
    el.style.setProperty("--av-panel-visibility", "visible");
  }
  for (const el of views) await el.ready;
  const opened = { timeline: 0, math: 0, compare: 0, continue: 0 };
  for (const el of views) {
    const root = el.shadowRoot;
    const open = (selector, kind) => {
      const button = root.querySelector(selector);
      if (!button || button.closest("[hidden]")) return;
      if (button.getAttribute("aria-expanded") !== "true" && button.getAttribute("aria-pressed") !== "true") button.click();
      if (kind) opened[kind] += 1;
    };
    open(".tl-toggle", "timeline");
    open(".gen-more", "continue");
    open(".compare-toggle", "compare");
    open(".embed-toggle");
    open(".thumbs-toggle");
    const math = root.querySelector("details.math");
    if (math) { math.open = true; opened.math += 1; }
  }
  for (const el of views) await el.ready;
  return opened;
}"""

# Two frames: the view lays out its columns in the frame after a resize (core/skeleton.js).
SETTLE = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"

RUN_AXE = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return JSON.stringify(result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: JSON.stringify(n.target), html: n.html.slice(0, 160),
                                 summary: n.failureSummary, impact: n.impact })),
  })));
}"""


def excused(rule: str, html: str) -> bool:
    return any(rule == r and html.startswith(piece) for r, piece, _ in EXCEPTIONS)


def blocking(violations: list[dict]) -> list[str]:
    """The serious and critical failures no exception covers, one line each."""
    lines = []
    for v in violations:
        for node in v["nodes"]:
            impact = node["impact"] or v["impact"]
            if impact in BLOCKING and not excused(v["id"], node["html"]):
                lines.append(f"[{impact}] {v['id']} ({v['help']}) at {node['target']}: {node['html']}\n"
                             f"    {node['summary']}")
    return lines


def wait_timelines(page) -> None:
    """Every open timeline has drawn its chart (the snapshots' list arrives after the click)."""
    for k in range(page.locator("attention-view .tl-toggle[aria-expanded=true]").count()):
        page.locator("attention-view .tl-svg").nth(k).wait_for(state="attached", timeout=60_000)


@pytest.mark.parametrize("path", PAGES)
def test_no_serious_or_critical_violation(browser, site_url, path):
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{site_url}/{path}")
        opened = page.evaluate(OPEN_EVERYTHING)
        if path in ("index.html", "embed.html"):
            # The audit covers the open states only if they opened.
            assert min(opened.values()) >= 1, opened
        wait_timelines(page)
        page.evaluate(AXE.read_text(encoding="utf-8"))
        found = {}
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            for scheme in SCHEMES:
                page.emulate_media(color_scheme=scheme)
                page.evaluate(SETTLE)
                found[f"{width} px, {scheme}"] = blocking(json.loads(page.evaluate(RUN_AXE)))
        failures = {k: v for k, v in found.items() if v}
        assert not failures, f"{path}:\n" + "\n".join(f"--- {k}\n" + "\n".join(v) for k, v in failures.items())
        assert errors == []
    finally:
        context.close()


def test_every_exception_still_matches_something(browser, site_url):
    """An exception no page needs any more is removed, not kept as a blank cheque."""
    context = browser.new_context(viewport={"width": WIDTHS[0], "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{site_url}/index.html")
        page.evaluate(OPEN_EVERYTHING)
        page.evaluate(AXE.read_text(encoding="utf-8"))
        violations = json.loads(page.evaluate(RUN_AXE))
        for rule, piece, _ in EXCEPTIONS:
            assert any(v["id"] == rule and any(n["html"].startswith(piece) for n in v["nodes"]) for v in violations), rule
    finally:
        context.close()
