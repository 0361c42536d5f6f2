"""Chapter 1's "Attention on attention" section: present only for a model whose meta.json records
an induction circuit with its example (the committed tests/data/circuit-model/, and the shipped
model), absent for a model without one; its third live view opens on the example, and its two live
sentences give the induction head's numbers with every head on and with the head it reads
switched off, checked against onnxruntime-python."""

from __future__ import annotations

import json
import re

import pytest
from circuit_model import CIRCUIT_MODEL, head_off, python_rows
from test_chapter_attention import parse

from conftest import percent_matches
from reference import Reference
from testbed.built_site import build_site
from testbed.static_server import serve_dir


@pytest.fixture(scope="module")
def circuit_meta():
    return json.loads((CIRCUIT_MODEL / "meta.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def circuit_site(tmp_path_factory):
    return build_site(tmp_path_factory.mktemp("circuit-chapter"), "--model", str(CIRCUIT_MODEL))


def test_the_section_is_built_from_the_circuit_and_only_with_one(circuit_site, circuit_meta, built_site, meta):
    c = circuit_meta["circuit"]
    ch = parse(circuit_site, "attention.html")
    third = [v for v in ch.views if v["id"] == "view-3"]
    assert len(third) == 1 and third[0].get("loading") == "lazy"
    v, ex = third[0], c["example"]
    assert (v["text"], int(v["layer"]), int(v["head"]), int(v["token"])) == (
        ex["text"], c["head"]["layer"], c["head"]["head"], ex["token"])
    assert {claim for claim, view in ch.claims if view == "view-3"} == {"induction", "induction-off"}
    html = (circuit_site / "attention.html").read_text(encoding="utf-8")
    off = next(s for s in c["switch_off"] if (s["layer"], s["head"]) == tuple(c["composes_with"].values()))
    assert (f"layer {c['head']['layer']} head {c['head']['head']} puts {c['induction']:.2f} of each" in html
            and f"leaves it {off['induction']:.2f}" in html)
    shipped = meta.get("circuit")
    views = {v["id"]: v for v in parse(built_site, "attention.html").views}
    if not shipped:  # a shipped model without a circuit: no such section
        assert 'id="composition"' not in (built_site / "attention.html").read_text(encoding="utf-8")
        assert "view-3" not in views
    else:  # the shipped model's own circuit, on its own example
        ex = shipped["example"]
        assert (views["view-3"]["text"], int(views["view-3"]["layer"]), int(views["view-3"]["head"])) == (
            ex["text"], shipped["head"]["layer"], shipped["head"]["head"])


@pytest.mark.parametrize("which", ["circuit model", "shipped"])
def test_the_section_says_what_the_head_it_reads_does(which, circuit_site, circuit_meta, built_site, meta):
    """The earlier head is described by its measured role: a previous-token head as such, any
    other by how little it puts on the token before (the shipped model's L1H2 is diffuse)."""
    site, m = (circuit_site, circuit_meta) if which == "circuit model" else (built_site, meta)
    if not m.get("circuit"):
        pytest.skip("this model has no circuit")
    w = m["circuit"]["composes_with"]
    h = next(h for h in m["heads"] if (h["layer"], h["head"]) == (w["layer"], w["head"]))
    prev = f"{h['scores']['previous_token']:.2f}"
    html = (site / "attention.html").read_text(encoding="utf-8")
    if h["role"] == "previous token":
        assert f"it puts {prev} of each row on the token just before" in html
    else:
        assert f"it puts only {prev} of a row on the token just before (its measured role: {h['role']})" in html


def claim(page, name):
    return page.locator(f'.live[data-claim="{name}"]').inner_text()


@pytest.mark.browser
def test_the_live_sentences_give_the_heads_numbers_on_and_off(page, circuit_site, circuit_meta):
    c = circuit_meta["circuit"]
    head = (c["head"]["layer"], c["head"]["head"])
    reads = (c["composes_with"]["layer"], c["composes_with"]["head"])
    url, server = serve_dir(circuit_site)
    try:
        page.goto(f"{url}/attention.html")
        page.locator("#view-3").scroll_into_view_if_needed()
        page.wait_for_function("() => document.querySelector('#view-3').result?.induction?.pinned")
        reference = Reference(CIRCUIT_MODEL)
        text = c["example"]["text"]
        ids, rows, mean = python_rows(reference, text, head)
        q, k, w = next(r for r in rows if r[0] == c["example"]["token"])
        page.wait_for_function("() => !document.querySelector('.live[data-claim=induction]').textContent.includes('appears here')")
        on = claim(page, "induction")
        m = re.search(r"puts (\d+%|<1%) of its budget on .*Over the (\d+) tokens .* puts (\d+%|<1%) on average", on)
        assert m, on
        assert percent_matches(m.group(1), w) and int(m.group(2)) == len(rows) and percent_matches(m.group(3), mean)
        assert "is on now" in claim(page, "induction-off")

        page.locator("#view-3").get_by_role("button", name=f"switch off layer {reads[0]} head {reads[1]}").last.click()
        page.wait_for_function("() => document.querySelector('.live[data-claim=\"induction-off\"]').textContent.includes(' off, ')")
        off = claim(page, "induction-off")
        _, rows_off, mean_off = python_rows(reference, text, head, off=reads)
        w_off = next(r[2] for r in rows_off if r[0] == q)
        probs = {label: reference.run(ids, mask)["probs"][q, ids[q + 1]] for label, mask in
                 (("on", None), ("off", head_off(reads)))}
        m = re.search(r"now puts (\d+%|<1%) on .*seen before, (\d+%|<1%) on average .*\((\d+%|<1%) with every head on\)"
                      r"\. The model's chance of .* coming next is (\d+%|<1%) \((\d+%|<1%) with every head on\)", off)
        assert m, off
        assert percent_matches(m.group(1), w_off) and percent_matches(m.group(2), mean_off)
        assert percent_matches(m.group(3), mean)
        assert percent_matches(m.group(4), probs["off"]) and percent_matches(m.group(5), probs["on"])
        assert page.console_errors == [] and page.page_errors == []
    finally:
        server.shutdown()
