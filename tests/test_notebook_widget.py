"""The notebook widget for real: the built wheel imported by a kernel of a JupyterLab (and a
Notebook 7) server on loopback, a notebook run in Chromium, the view live on the model running in the page, a trait
set in Python redrawing it, a click in it changing the trait, and no request leaving the
server's origin."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from notebook_server import (
    NOTEBOOK_OWN_ERRORS,
    JupyterServer,
    execute,
    open_notebook,
    record_requests,
    run_all,
    write_notebook,
)
from package_build import built_wheel, installed_wheel

from conftest import set_attributes, view_result, wait_live

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TEXT = "The Queen turned to Alice and said"
CELLS = [
    # What the kernel sends the page, file by file: [name, bytes] of every buffer of the widget's
    # "files" answers (counted on their way out, then sent as ever).
    "import ipywidgets\n"
    "sent = []\n"
    "send_as_ever = ipywidgets.Widget.send\n"
    "def send_counted(self, content, buffers=None):\n"
    "    if isinstance(content, dict) and content.get('type') == 'files':\n"
    "        sent.extend([name, len(b)] for name, b in zip(content['names'], buffers or []))\n"
    "    return send_as_ever(self, content, buffers)\n"
    "ipywidgets.Widget.send = send_counted",
    "from attention_live import AttentionView\n"
    f"w = AttentionView(text={TEXT!r}, layer=2, head=3, token='said')\nw",
    # A second view of the same model: one download, one session for both.
    "w2 = AttentionView(text='Alice looked at the Hatter', layer=1, head=1)\nw2",
]


@pytest.fixture(scope="module")
def wheel_path():
    return installed_wheel()


# The app, and where it opens a notebook.
FRONT_ENDS = {"lab": "/lab/tree/view.ipynb", "notebook": "/notebooks/view.ipynb"}


@pytest.fixture(scope="module", params=list(FRONT_ENDS))
def lab(request, tmp_path_factory, wheel_path):
    root = tmp_path_factory.mktemp("notebooks")
    write_notebook(root / "view.ipynb", CELLS)
    server = JupyterServer(request.param, root, tmp_path_factory.mktemp("jupyter"), wheel_path)
    server.notebook_path = FRONT_ENDS[request.param]
    yield server
    server.stop()


@pytest.fixture(scope="module")
def notebook(browser, lab):
    context = browser.new_context()
    page = context.new_page()
    page.page_errors = []
    page.on("pageerror", lambda e: str(e) in NOTEBOOK_OWN_ERRORS or page.page_errors.append(f"{e}\n{e.stack}"))
    page.requests = record_requests(page)
    open_notebook(page, f"{lab.url}{lab.notebook_path}?token={lab.token}")
    run_all(page)
    page.wait_for_selector("attention-view[data-status=live] >> nth=1", state="attached", timeout=120_000)
    yield page
    context.close()


def python_result(page, expr: str) -> dict:
    return json.loads(execute(page, f"import json\nprint(json.dumps({expr}))"))


def python_until(page, expr: str, want, timeout_s: float = 60):
    """`expr` evaluated in the kernel until it equals `want` (a widget's message to the kernel
    is asynchronous), or its last value once the time is up."""
    deadline = time.monotonic() + timeout_s
    while (got := python_result(page, expr)) != want and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    return got


def test_the_view_runs_live_in_the_notebook_from_the_wheel(notebook):
    statuses = notebook.eval_on_selector_all("attention-view", "els => els.map((e) => e.dataset.status)")
    assert statuses == ["live", "live"]
    # Two views, one model: the page asked the kernel once for the runtime and once for the
    # model, and both views load the same folder (so the loader gives them one session).
    asked = notebook.evaluate("() => [...globalThis[Symbol.for('attention-live.notebook')].asked.keys()]")
    assert len(asked) == 2 and "runtime" in asked
    assert len(set(notebook.eval_on_selector_all("attention-view", "els => els.map((e) => e.getAttribute('src'))"))) == 1
    assert notebook.page_errors == []
    # The kernel imported the wheel, not the checkout.
    assert str(installed_wheel()) in execute(notebook, "import attention_live; print(attention_live.__file__)")


def test_views_without_a_step_are_sent_the_model_once_and_no_byte_of_its_timeline(notebook):
    # Two live views, no step set: the kernel sent the runtime and the model's files, each once,
    # and none of the training timeline's (about 12 MB for the shipped model).
    sent = python_result(notebook, "sent")
    names = [name for name, _ in sent]
    assert sorted(names) == sorted(["ort-wasm-simd-threaded.wasm", "model.onnx", "tokenizer.json", "meta.json", "golden.json"])


def test_the_view_reports_its_live_result_to_python(notebook):
    notebook.wait_for_function("() => document.querySelector('attention-view').result?.live")
    got = python_result(notebook, "None if w.result is None else {'layer': w.result['layer'], 'head': w.result['head'], "
                                  "'token': w.result['token'], 'shape': list(w.result['attention'].shape), "
                                  "'texts': [t['text'] for t in w.result['tokens']]}")
    assert got is not None
    assert (got["layer"], got["head"]) == (2, 3)
    assert got["texts"][got["token"]] == " said"
    assert got["shape"] == [2, 4, len(got["texts"]), len(got["texts"])]


def test_a_trait_set_in_python_redraws_the_view(notebook):
    execute(notebook, "w.layer = 1\nw.head = 2")
    notebook.wait_for_selector("attention-view[layer='1'][head='2'] >> nth=0", state="attached")
    shown = view_result(notebook)
    assert (shown["layer"], shown["head"]) == (1, 2)
    # ... and the view's result comes back to Python for the new head.
    assert python_until(notebook, "[w.result['layer'], w.result['head']]", [1, 2]) == [1, 2]


def test_a_click_in_the_view_changes_the_python_trait(notebook):
    chip = notebook.locator("attention-view").first.locator(".chip").nth(1)
    chip.click()
    notebook.wait_for_selector("attention-view[token='1'] >> nth=0", state="attached")
    assert python_until(notebook, "w.token", 1) == 1
    view_result(notebook)  # settled: the click goes to the view as drawn
    notebook.locator("attention-view").first.locator("button.head-switch[data-layer='1'][data-head='4']").first.click()
    notebook.wait_for_selector("attention-view[ablate='1.4'] >> nth=0", state="attached")
    assert python_until(notebook, "w.ablate", "1.4") == "1.4"


def test_a_training_step_set_in_python_is_shown_by_that_snapshot(notebook):
    # 400 is no snapshot, so the page's rule shows the last one at or before it, 350, and the
    # view's result says so. The kernel sent the timeline's files the view read, each once, and
    # not the whole timeline.
    execute(notebook, "w.step = 400")
    notebook.wait_for_selector("attention-view[step='400'] >> nth=0", state="attached")
    assert python_until(notebook, "w.result['step']", 350) == 350
    timeline = [name for name, _ in python_result(notebook, "sent") if name.startswith("timeline/")]
    assert {"timeline/timeline.json", "timeline/step-00350.onnx"} <= set(timeline)
    everything = python_result(notebook, "w.model.meta['timeline']['steps']")  # timeline.json and a graph per snapshot
    assert len(timeline) == len(set(timeline)) < everything
    execute(notebook, "w.step = None")
    assert python_until(notebook, "w.result['step']", None) is None


def test_a_step_chosen_on_the_views_own_timeline_reaches_python(notebook):
    # The notebook view shows the page's timeline control; opening it asks the kernel for
    # timeline.json, and a snapshot picked on its slider is `step` in Python.
    second = notebook.locator("attention-view").nth(1)
    second.locator("button.tl-toggle").click()
    slider = second.locator("input.tl-slider")
    slider.wait_for(state="visible")
    slider.evaluate("(s) => { s.value = '1'; s.dispatchEvent(new Event('input', { bubbles: true })); }")
    step = python_until(notebook, "w2.step", 10)
    assert step == 10 and python_until(notebook, "w2.result['step']", 10) == 10
    execute(notebook, "w2.step = None")  # the tests below read the shipped model's numbers
    assert python_until(notebook, "w2.result['step']", None) is None


def test_no_request_leaves_the_servers_origin(notebook, lab):
    outside = [u for u in notebook.requests if not u.startswith((lab.url, lab.url.replace("http", "ws"), "blob:", "data:"))]
    assert notebook.requests and outside == []


def test_the_same_numbers_in_python_in_the_notebook_and_on_the_page(notebook, browser, site_url):
    """One sentence's attention from Model.run (onnxruntime), the notebook view's synced result
    and the built page (both onnxruntime-web): equal within 1e-6."""
    text = "Alice looked at the Hatter"
    got = python_until(notebook, "w2.result is not None and w2.result['text'] == " + repr(text), True)
    assert got is True
    numbers = python_result(notebook, "{'python': __import__('attention_live').Model().run(" + repr(text) + ").attention.tolist(), "
                                      "'widget': w2.result['attention'].tolist()}")
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{site_url}/index.html")
        wait_live(page)
        on_page = set_attributes(page, text=text)["attention"]
    finally:
        context.close()
    python, widget = np.asarray(numbers["python"]), np.asarray(numbers["widget"])
    assert python.shape == widget.shape == np.asarray(on_page).shape == (2, 4, 6, 6)  # six tokens
    assert np.abs(widget - python).max() <= 1e-6
    assert np.abs(np.asarray(on_page) - python).max() <= 1e-6


def test_the_notebook_view_shows_what_pushed_its_prediction(notebook):
    """The What pushed panel and the logit lens, drawn in the notebook view as on the page from
    the graph's attribution outputs (the runtime the kernel hands over runs on the page's thread):
    its bars add up to the top prediction's logit, and the attribution reaches Python in
    `w.result` with Run.attribution's numbers."""
    text = "Alice looked at the Hatter"
    assert python_until(notebook, "w2.result is not None and w2.result['text'] == " + repr(text), True) is True
    view = notebook.locator("attention-view").nth(1)
    view.locator(".push-panel .push-row").first.wait_for(state="visible")
    shown = view.evaluate("""(el) => { const root = el.shadowRoot;
      return { title: root.querySelector(".push-panel .panel-title").textContent,
        values: [...root.querySelectorAll(".push-row:not([hidden]) .push-value")].map((v) => v.textContent),
        sum: root.querySelector(".push-table tfoot .push-value").textContent,
        lens: root.querySelector(".lens-line").textContent,
        position: el.result.attribution.position }; }""")
    got = python_result(notebook, "(lambda a, w: {'python': {'ids': [t.id for t in a.tokens], 'logits': a.logits.tolist(), "
                                  "'heads': a.heads.tolist(), 'text': a.tokens[0].text, 'lens': [[p.id for p in top] for top in "
                                  "__import__('attention_live').Model().run(" + repr(text) + f").lens({shown['position']})]}}, "
                                  "'widget': w and {'ids': [t['id'] for t in w['tokens']], 'logits': w['logits'], 'heads': w['heads'], "
                                  "'lens': [[p['id'] for p in top] for top in w2.result['lens']]}})"
                                  "(__import__('attention_live').Model().run(" + repr(text) + f").attribution({shown['position']}), "
                                  "w2.result.get('attribution'))")
    python, widget = got["python"], got["widget"]
    number = lambda s: float(s.replace("\u2212", "-"))  # noqa: E731
    assert shown["title"] == f"What pushed \u00ab{python['text'].strip()}\u00bb"
    heads = np.asarray(python["heads"])  # [layer, head, k]
    assert len(shown["values"]) == heads[..., 0].size + 2 * heads.shape[0] + 2  # heads, MLPs, biases, embedding, LayerNorm
    assert number(shown["sum"]) == pytest.approx(python["logits"][0], abs=0.0051)
    assert sum(map(number, shown["values"])) == pytest.approx(python["logits"][0], abs=0.006 * len(shown["values"]))
    assert "after layer 1" in shown["lens"]
    # Python's w.result has the view's attribution and lens: Run.attribution's and Run.lens's.
    assert widget is not None and widget["ids"] == python["ids"] and widget["lens"] == python["lens"]
    assert np.abs(np.asarray(widget["heads"]) - heads).max() <= 1e-4
    assert np.abs(np.asarray(widget["logits"]) - python["logits"]).max() <= 1e-4
