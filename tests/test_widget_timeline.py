"""The training timeline in real Chromium, on a model of our own with a timeline
(tests/timeline_model.py): at `step=N` the page gives what onnxruntime-python gives running
snapshot N's graph (attention, top 5, heads switched off, the heads' roles); quick step changes
end on the last step's numbers; nothing of the timeline is fetched until the control is opened;
a corrupt snapshot is refused with the error shown, and "Try again" recovers."""

from __future__ import annotations

import numpy as np
import pytest
from timeline_model import timeline_model, timeline_site

from conftest import assert_chips_show, view_result, wait_live, watched_page
from reference import Reference, assert_top5
from widget_faults import FaultServer, click_retry, status_text, wait_status

pytestmark = pytest.mark.browser

SENTENCES = ["The small bird finds the river near the old king.", "A dog greets my friend and the cat follows."]
TIMELINE = "/static/model/timeline/"


@pytest.fixture(scope="module")
def orchard(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    made = timeline_model(base)
    server = FaultServer(timeline_site(base))
    yield {**made, "server": server, "url": server.url}
    server.close()


@pytest.fixture
def tpage(browser, orchard):
    """A fresh context per test (empty HTTP cache, no worker yet), the server's log emptied."""
    orchard["server"].reset()
    context = browser.new_context()
    yield watched_page(context)
    context.close()


def snapshot(orchard, step: int) -> Reference:
    point = next(p for p in orchard["timeline"]["points"] if p["step"] == step)
    graph = (orchard["model"] / "timeline" / point["file"]).read_bytes()
    return Reference(graph, orchard["model"] / "tokenizer.json")


def snapshot_steps(orchard) -> list[int]:
    return [p["step"] for p in orchard["timeline"]["points"] if not p.get("shipped")]


def set_view(page, **attrs) -> dict:
    page.evaluate("""(attrs) => { const el = document.querySelector("attention-view");
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null) el.removeAttribute(k); else el.setAttribute(k, String(v));
      } }""", attrs)
    return view_result(page)


def shadow_text(page, selector: str) -> str:
    return page.locator(f"attention-view {selector}").first.text_content()


def assert_is_snapshot(result: dict, ref: Reference, head_mask=None):
    ids = [t["id"] for t in result["tokens"]]
    assert ids == ref.ids(result["text"])
    want = ref.run(ids, head_mask)
    np.testing.assert_allclose(np.array(result["attention"]), want["attention"], atol=1e-5)
    assert_top5(result["top"], want["probs"][result["token"]])


def test_a_step_is_that_snapshots_graph(tpage, orchard):
    page = tpage
    steps = snapshot_steps(orchard)
    page.goto(f"{orchard['url']}/index.html#step={steps[1]}")
    wait_live(page)
    for step, text in [(steps[1], SENTENCES[0]), (steps[0], SENTENCES[1]), (steps[-1], SENTENCES[0])]:
        result = set_view(page, step=step, text=text, layer=2, head=1, token=4)
        assert result["step"] == step
        ref = snapshot(orchard, step)
        assert_is_snapshot(result, ref)
        row = ref.run(ref.ids(text))["attention"][1, 0, 4]
        assert_chips_show(page, "attention-view .row-panel", row, 4)
        assert shadow_text(page, ".tl-readout").startswith(f"Showing step {step:,} of ")
        # The heads' role labels are that step's, as export measured them on its graph.
        point = next(p for p in orchard["timeline"]["points"] if p["step"] == step)
        roles = page.locator("attention-view .thumb-role").all_text_contents()
        assert [r.split(" ")[0] for r in roles] == [h["role"].split(" ")[0] for h in point["heads"]]
    # Heads switched off at a step: that snapshot's graph with those heads masked.
    result = set_view(page, ablate="1.2")
    assert result["step"] == steps[-1] and result["ablated"] == [[1, 2]]
    cfg = orchard["meta"]["config"]
    mask = np.ones((cfg["n_layer"], cfg["n_head"]), dtype=np.float32)
    mask[0, 1] = 0
    assert_is_snapshot(result, snapshot(orchard, steps[-1]), mask)
    # Back to the shipped model: the attribute gone, the shipped graph's numbers.
    result = set_view(page, step=None, ablate=None)
    assert result["step"] is None
    assert_is_snapshot(result, Reference(orchard["model"]))
    assert page.console_errors == [] and page.page_errors == []


def test_quick_step_changes_end_on_the_last_steps_numbers(tpage, orchard):
    page = tpage
    page.goto(f"{orchard['url']}/index.html")
    wait_live(page)
    steps = snapshot_steps(orchard)
    walk = [steps[i % len(steps)] for i in range(7, -3, -1)]  # ten changes, loaded and not, back and forth
    page.evaluate("""async ([walk, text]) => {
      const el = document.querySelector("attention-view");
      el.setAttribute("text", text);
      for (const step of walk) {
        el.setAttribute("step", String(step));
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    }""", [walk, SENTENCES[1]])
    result = view_result(page)
    assert result["step"] == walk[-1]
    ref = snapshot(orchard, walk[-1])
    assert_is_snapshot(result, ref)
    last = len(result["tokens"]) - 1
    layer, head = result["layer"], result["head"]
    assert_chips_show(page, "attention-view .row-panel", ref.run(ref.ids(SENTENCES[1]))["attention"][layer - 1, head - 1, last], last)
    assert shadow_text(page, ".tl-readout").startswith(f"Showing step {walk[-1]:,} of ")
    assert page.get_attribute("attention-view", "data-status") == "live"
    assert page.console_errors == [] and page.page_errors == []


def test_nothing_of_the_timeline_is_fetched_until_it_is_opened(tpage, orchard):
    page = tpage
    server = orchard["server"]
    page.goto(f"{orchard['url']}/index.html")
    wait_live(page)
    # The offline worker has precached the site by now: none of the timeline is in it.
    assert page.evaluate("""async () => {
      const deadline = Date.now() + 60000;
      while (Date.now() < deadline) {
        const reg = await navigator.serviceWorker.getRegistration();
        if (reg?.active && !reg.installing && !reg.waiting) return true;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return false;
    }""")
    page.wait_for_load_state("networkidle")
    assert [p for p in server.requests if p.startswith(TIMELINE)] == []
    assert page.locator("attention-view .tl-svg").count() == 0

    page.locator("attention-view .tl-toggle").click()
    page.locator("attention-view .tl-svg").wait_for()
    assert server.count("timeline.json") == 1
    # The keyboard on the slider: ← goes one snapshot back from the shipped model.
    slider = page.locator("attention-view .tl-slider")
    slider.focus()
    page.keyboard.press("ArrowLeft")
    steps = snapshot_steps(orchard)
    result = view_result(page)
    assert result["step"] == steps[-1]
    point = next(p for p in orchard["timeline"]["points"] if p["step"] == steps[-1])
    shipped = orchard["timeline"]["points"][-1]["step"]
    assert slider.get_attribute("aria-valuetext") == (
        f"step {steps[-1]:,} of {shipped:,}, held-out {point['heldout_bpc']:.2f} bits per character")
    assert page.evaluate("location.hash").endswith(f"&step={steps[-1]}")
    # Closing the control goes back to the shipped model.
    page.locator("attention-view .tl-toggle").click()
    assert view_result(page)["step"] is None
    assert page.console_errors == [] and page.page_errors == []


def test_a_corrupt_snapshot_is_refused_and_try_again_recovers(tpage, orchard):
    page = tpage
    server = orchard["server"]
    steps = snapshot_steps(orchard)
    first, bad = steps[0], steps[2]  # not neighbours: showing the first never fetches the bad one ahead
    page.goto(f"{orchard['url']}/index.html#step={first}")
    wait_live(page)
    assert view_result(page)["step"] == first
    file = next(p["file"] for p in orchard["timeline"]["points"] if p["step"] == bad)
    server.fault(f"{TIMELINE}{file}", ("corrupt",))
    page.evaluate("(step) => document.querySelector('attention-view').setAttribute('step', String(step))", bad)
    wait_status(page, "error")
    assert "corrupt" in status_text(page) and f"training step {bad:,}" in status_text(page)
    # Nothing of the step before stays on screen under this one's name.
    assert page.evaluate("() => document.querySelector('attention-view').result") is None
    assert page.locator("attention-view .body").is_hidden()
    click_retry(page)
    wait_live(page)
    result = view_result(page)
    assert result["step"] == bad
    assert_is_snapshot(result, snapshot(orchard, bad))
    assert server.count(file) == 2  # the retry asked the server again, past the HTTP cache
    assert page.page_errors == []


def test_play_walks_through_every_snapshot_to_the_shipped_model(tpage, orchard):
    page = tpage
    page.goto(f"{orchard['url']}/index.html")
    wait_live(page)
    page.evaluate("""() => { window.steps = [];
      document.querySelector("attention-view").addEventListener("change", (e) => window.steps.push(e.detail.step)); }""")
    page.locator("attention-view .tl-toggle").click()
    play = page.locator("attention-view .tl-play")
    page.locator("attention-view .tl-svg").wait_for()
    play.click()
    page.locator("attention-view .tl-play[aria-pressed=true]").wait_for()
    page.locator("attention-view .tl-play[aria-pressed=false]").wait_for(timeout=60_000)
    assert page.evaluate("window.steps") == [*snapshot_steps(orchard), None]
    assert view_result(page)["step"] is None
    assert page.console_errors == [] and page.page_errors == []
