"""The induction story in real Chromium, on a model whose meta.json records a circuit (the
committed tests/data/circuit-model/, trained with the induction curriculum; its README says how):
"Repeat it" appends the text to itself and pins the row where the repeat raised the next token's
probability most, among those where the induction head visibly looks at the token that followed
the pinned one the first time (export's rule); switching off the head it reads gives the
numbers of the graph with that head masked. Every figure is checked against onnxruntime-python on
the same text. A model without a circuit shows no such controls."""

from __future__ import annotations

import json
import re

import pytest
from circuit_model import CIRCUIT_MODEL, python_rows
from other_model import other_model

from conftest import view_result, wait_live
from export.circuit import example_row
from reference import Reference
from testbed.built_site import build_site
from testbed.static_server import serve_dir

pytestmark = pytest.mark.browser

TEXT = "The Queen turned round and said"


@pytest.fixture(scope="module")
def circuit():
    c = json.loads((CIRCUIT_MODEL / "meta.json").read_text(encoding="utf-8"))["circuit"]
    return (c["head"]["layer"], c["head"]["head"]), (c["composes_with"]["layer"], c["composes_with"]["head"])


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    site = build_site(tmp_path_factory.mktemp("circuit-site"), "--model", str(CIRCUIT_MODEL))
    url, server = serve_dir(site)
    yield url
    server.shutdown()


@pytest.fixture(scope="module")
def reference():
    return Reference(CIRCUIT_MODEL)


def settled(page, text, query):
    """The view's result once it shows `text` with the induction row `query` pinned."""
    page.wait_for_function(
        "([t, q]) => { const r = document.querySelector('attention-view').result;"
        " return r && r.text === t && r.induction && r.induction.pinned && r.induction.pinned.query === q; }",
        arg=[text, query], timeout=30_000)
    return view_result(page)


def story_row(reference, text, head):
    """(query, key, weight) of the row "Repeat it" should pin, by export's rule
    (export/circuit.py example_row) on onnxruntime-python's numbers; the last token left out."""
    ids, rows, _ = python_rows(reference, text, head)
    probs = reference.run(ids)["probs"]
    return example_row([row for row in rows if row[0] < len(ids) - 1], lambda q: float(probs[q][ids[q + 1]]))


def pct(w):
    return f"{round(100 * w)}%" if w >= 0.005 else "<1%"


def test_repeat_it_pins_the_row_where_the_repeat_taught_the_model_most(page, site_url, reference, circuit):
    head, _ = circuit
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    page.evaluate("(t) => { document.querySelector('attention-view').text = t; }", TEXT)
    view_result(page)
    page.get_by_role("button", name="Repeat it").click()
    doubled = f"{TEXT} {TEXT}"
    q, k, w = story_row(reference, doubled, head)
    r = settled(page, doubled, q)
    ids, rows, mean = python_rows(reference, doubled, head)
    assert (r["layer"], r["head"], r["view"]) == (*head, "head")
    assert r["token"] == q
    assert r["induction"]["pinned"] == {"query": q, "key": k, "weight": pytest.approx(w, abs=1e-5)}
    assert r["induction"]["rows"] == len(rows) and r["induction"]["mean"] == pytest.approx(mean, abs=1e-5)
    line = page.locator("attention-view .induction .story-text").inner_text()
    assert f"puts {pct(w)} on" in line and f"{pct(mean)} on average" in line
    assert page.get_by_role("button", name="Show the repeat").is_visible()  # already repeated: no third copy
    assert page.console_errors == [] and page.page_errors == []


def test_switching_off_the_head_it_reads_gives_the_masked_graphs_numbers(page, site_url, reference, circuit):
    head, reads = circuit
    doubled = f"{TEXT} {TEXT}"
    page.goto(f"{site_url}/index.html#text={doubled.replace(' ', '%20')}&layer={head[0]}&head={head[1]}")
    wait_live(page)
    page.get_by_role("button", name="Show the repeat").click()
    on = settled(page, doubled, story_row(reference, doubled, head)[0])
    page.get_by_role("button", name=f"switch off layer {reads[0]} head {reads[1]}").last.click()
    page.wait_for_function("() => document.querySelector('attention-view').result?.ablated?.length === 1")
    r = view_result(page)
    assert r["ablated"] == [list(reads)]
    _, rows_off, mean_off = python_rows(reference, doubled, head, off=reads)
    _, _, mean_on = python_rows(reference, doubled, head)
    assert r["induction"]["mean"] == pytest.approx(mean_off, abs=1e-5)
    assert r["induction"]["meanAllOn"] == pytest.approx(mean_on, abs=1e-5) == on["induction"]["mean"]
    q = on["token"]
    w_off = next(w for qq, _, w in rows_off if qq == q)
    assert r["induction"]["pinned"]["weight"] == pytest.approx(w_off, abs=1e-5)
    line = page.locator("attention-view .induction .story-text").inner_text()
    assert re.search(rf"With layer {reads[0]} head {reads[1]} off, .*{re.escape(pct(mean_off))} on average.*"
                     rf"\({re.escape(pct(mean_on))} with it on\)", line), line
    assert page.get_by_role("button", name=f"switch on layer {reads[0]} head {reads[1]}").last.is_visible()
    assert page.console_errors == [] and page.page_errors == []


def test_a_model_without_a_circuit_shows_no_induction_controls(page, tmp_path_factory):
    model = other_model(tmp_path_factory.getbasetemp())["model"]
    assert json.loads((model / "meta.json").read_text(encoding="utf-8"))["circuit"] is None
    site = build_site(tmp_path_factory.mktemp("no-circuit-site"), "--model", str(model))
    url, server = serve_dir(site)
    try:
        page.goto(f"{url}/index.html")
        wait_live(page)
        r = view_result(page)
        assert "induction" not in r
        assert page.locator("attention-view .induction").count() == 0
        assert page.get_by_role("button", name="Repeat it").count() == 0
    finally:
        server.shutdown()


def test_a_text_longer_than_the_window_is_cut_so_that_both_copies_fit(page, site_url):
    things = ["bank", "book", "garden", "rabbit", "watch", "door", "key", "bottle", "cake", "fan", "glove", "pool"]
    long = " ".join(f"On day {i} Alice looked at the {t} and thought about it." for i, t in enumerate(things))
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    page.evaluate("(t) => { document.querySelector('attention-view').text = t; }", long)
    assert view_result(page)["truncated"] is not None
    page.get_by_role("button", name="Repeat it").click()
    page.wait_for_function("() => document.querySelector('attention-view').result?.induction?.pinned")
    r = view_result(page)
    half = (len(r["text"]) - 1) // 2
    assert r["text"][:half] == r["text"][half + 1:] and long.startswith(r["text"][:half])
    assert r["truncated"] is None  # both copies in the window
    assert page.console_errors == [] and page.page_errors == []


def test_repeat_it_keeps_both_copies_whole_when_the_text_is_denser_at_its_start(page, site_url, reference):
    """The cut is counted in tokens, not estimated from characters: a text whose start has more
    tokens per character than the rest (made-up names, then plain words) still repeats whole,
    as the longest start (cut before a space) whose two copies fit in the window."""
    n_ctx = json.loads((CIRCUIT_MODEL / "meta.json").read_text(encoding="utf-8"))["config"]["n_ctx"]
    names = " ".join(f"Zquorblax{i}xv Vrunqel{i}zz" for i in range(14))
    long = f"{names} and then the cat sat on the mat and the dog sat by the door. " * 3
    page.goto(f"{site_url}/index.html")
    wait_live(page)
    page.evaluate("(t) => { document.querySelector('attention-view').text = t; }", long)
    view_result(page)
    page.get_by_role("button", name="Repeat it").click()
    page.wait_for_function("(t) => { const r = document.querySelector('attention-view').result;"
                           " return r && r.text !== t && r.induction?.pinned; }", arg=long, timeout=30_000)
    r = view_result(page)
    half = (len(r["text"]) - 1) // 2
    part = r["text"][:half]
    assert r["text"] == f"{part} {part}" and long.startswith(part) and long[len(part)] == " "
    ids = reference.ids(r["text"])
    assert [t["id"] for t in r["tokens"]] == ids and r["truncated"] is None
    assert len(ids) <= n_ctx
    # The longest such start: one more word would not fit twice.
    longer = long[: long.index(" ", len(part) + 1)]
    assert len(reference.ids(f"{longer} {longer}")) > n_ctx
    assert page.console_errors == [] and page.page_errors == []
