"""The training timeline's figures for bench/run.py, each on a page that is live and alone in its
browser context, with the offline worker done precaching (the model of the built site must have
a timeline; without one there is nothing to measure):

  bytes: what the timeline weighs (every snapshot graph and timeline.json, from meta.json and
         timeline.json) and what a page that never opens it has downloaded of it (resource
         timing, once the page is live and its worker has precached the site: must be nothing);
  open:  from clicking "Training timeline" and asking for the first snapshot in the same moment
         (as a link with `step` does) to that snapshot painted and laid out: timeline.json, the
         snapshot's graph, its session, one run and the paint (a fresh context each: nothing cached);
  step:  a step change once both snapshots' sessions exist, the way the slider makes one (its
         value set and `input` fired), to the view painted and laid out, at T = 32, alternating
         between two neighbouring snapshots.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

# Bytes of the timeline downloaded so far, from the page's own resource timing.
TIMELINE_BYTES_JS = """() => performance.getEntriesByType("resource")
  .filter((r) => r.name.includes("/timeline/")).reduce((n, r) => n + r.transferSize, 0)"""

OPEN_JS = """async (step) => {
  const el = document.querySelector("attention-view");
  const t0 = performance.now();
  el.shadowRoot.querySelector(".tl-toggle").click();
  el.setAttribute("step", String(step));
  while ((await el.ready).step !== step) {}
  el.shadowRoot.querySelector(".body").offsetHeight; // style + layout of what was drawn
  return performance.now() - t0;
}"""

STEP_JS = """async ([text, steps, indices, reps]) => {
  const el = document.querySelector("attention-view");
  el.text = text;
  el.shadowRoot.querySelector(".tl-toggle").click();
  for (const step of steps) { // both sessions made before timing
    el.setAttribute("step", String(step));
    while ((await el.ready).step !== step) {}
  }
  const slider = el.shadowRoot.querySelector(".tl-slider");
  const times = [];
  for (let i = 0; i < reps + 2; i++) {
    const t0 = performance.now();
    slider.value = String(indices[i % 2]);
    slider.dispatchEvent(new Event("input", { bubbles: true }));
    while ((await el.ready).step !== steps[i % 2]) {}
    el.shadowRoot.querySelector(".body").offsetHeight;
    const dt = performance.now() - t0;
    if (i >= 2) times.push(dt); // the first two warm the caches
  }
  return { times, tokens: el.result.tokens.length };
}"""


def load(model_dir: Path, meta: dict) -> dict | None:
    """timeline.json of the benched model, or None without one."""
    pointer = meta.get("timeline")
    return json.loads((model_dir / pointer["manifest"]).read_text(encoding="utf-8")) if pointer else None


def live_page(browser, url: str, ready_js: str):
    """A page of `url` live and alone in a browser context of its own, its offline worker done
    precaching (`ready_js`), as every steady-state figure of the bench wants it."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("attention-view[data-status=live]", state="attached", timeout=120_000)
    if not page.evaluate(ready_js):
        raise RuntimeError("the offline worker did not become active")
    return context, page


def measure(browser, url: str, meta: dict, timeline: dict, text: str, runs: int, updates: int,
            ready_js: str) -> dict:
    """The figures above; `text` has 32 tokens, `ready_js` waits for the offline worker."""
    graphs = [p for p in timeline["points"] if not p.get("shipped")]
    opens, unopened = [], []
    for _ in range(runs):
        context, page = live_page(browser, url, ready_js)
        page.wait_for_load_state("networkidle")
        unopened.append(page.evaluate(TIMELINE_BYTES_JS))
        opens.append(page.evaluate(OPEN_JS, graphs[0]["step"]))
        context.close()
    # Two neighbouring snapshots in the middle of the run.
    i = len(graphs) // 2
    pair = [graphs[i - 1]["step"], graphs[i]["step"]] if len(graphs) > 1 else [graphs[0]["step"], None]
    indices = [next(k for k, p in enumerate(timeline["points"]) if p["step"] == s) if s is not None
               else len(timeline["points"]) - 1 for s in pair]
    context, page = live_page(browser, url, ready_js)
    stepped = page.evaluate(STEP_JS, [text, pair, indices, updates])
    context.close()
    return {"total": meta["timeline"]["bytes"], "count": len(graphs), "each": statistics.median(p["bytes"] for p in graphs),
            "unopened": max(unopened), "open": statistics.median(opens), "step": statistics.median(stepped["times"]),
            "tokens": stepped["tokens"], "pair": pair}


def rows(f: dict) -> list[tuple]:
    """(measure, page, floor, ratio, target) rows for run.py's table; the floor is the bare
    page's session.run at the same T, passed in as f["bare_run"]."""
    return [
        ("timeline: bytes (all snapshots + timeline.json; downloaded before it is opened)",
         f"{f['total'] / 1e6:.2f} MB, {f['count']} × {f['each'] / 1e6:.2f} MB ({f['unopened']} B before opening)",
         "", float("nan"), "0 B before opening"),
        ("timeline: open → first snapshot painted (timeline.json + graph + session + run + paint)",
         f"{f['open']:.0f} ms", "", float("nan"), ""),
        (f"timeline: step change at T = {f['tokens']}, sessions made (run + render + layout)",
         f"{f['step']:.2f} ms", f"{f['bare_run']:.2f} ms (run)", f["step"] / f["bare_run"], "≤ 50 ms"),
    ]
