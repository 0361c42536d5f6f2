"""The widget mounts and paints its panels in slices (static/attention-view/core/slices.js): work
that runs past a slice gives the page a turn before the next step, work that fits in one slice
never yields, and work that went stale meanwhile stops. Each step's length is made certain by
waiting on the clock (a step of SLICE_MS + 2 ms always overruns a slice; a step of no work
never does on any machine that runs three of them inside SLICE_MS), so the order is fixed."""

from __future__ import annotations

from conftest import run_node

SLICES_JS = """
import { readFileSync } from "node:fs";
const { inSlices, SLICE_MS } = await import(process.cwd() + "/static/attention-view/core/slices.js");
const { stepMs, wantedSteps } = JSON.parse(readFileSync(0, "utf8"));
const log = [];
setTimeout(() => log.push("page"), 0); // the page's own task, queued before the work starts
let done = 0;
const finished = await inSlices([0, 1, 2], (i) => {
  const until = performance.now() + (stepMs === null ? 0 : SLICE_MS + stepMs);
  while (performance.now() < until) {}
  log.push(`step ${i}`);
  done++;
}, () => wantedSteps === null || done < wantedSteps);
await new Promise((resolve) => setTimeout(resolve, 5));
process.stdout.write(JSON.stringify({ log, finished }));
"""


def test_steps_past_a_slice_let_the_page_in_before_the_next():
    got = run_node(SLICES_JS, {"stepMs": 2, "wantedSteps": None})
    assert got == {"log": ["step 0", "page", "step 1", "step 2"], "finished": True}


def test_work_that_fits_in_a_slice_never_yields():
    got = run_node(SLICES_JS, {"stepMs": None, "wantedSteps": None})
    assert got == {"log": ["step 0", "step 1", "step 2", "page"], "finished": True}


def test_work_that_went_stale_stops_at_the_next_turn():
    got = run_node(SLICES_JS, {"stepMs": 2, "wantedSteps": 1})
    assert got == {"log": ["step 0", "page"], "finished": False}
