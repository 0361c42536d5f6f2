"""The offline worker and the training timeline (site_builder/sw.js and build.py): the timeline's files
are listed apart from the precached ones, so a first visit caches none of them; a snapshot a page
has opened is kept, and works with the network gone."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from deploys import wait_for_version
from timeline_model import timeline_model, timeline_site

from conftest import view_result, wait_live, watched_page
from reference import Reference
from site_builder.precompress import is_copy
from testbed.static_server import serve


def worker_manifest(site) -> dict:
    first = (site / "sw.js").read_text(encoding="utf-8").splitlines()[0]
    return json.loads(first.removeprefix("self.OFFLINE = ").rstrip(";"))


@pytest.fixture(scope="module")
def orchard(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    return {**timeline_model(base), "site": timeline_site(base)}


def test_the_timeline_is_listed_apart_from_the_precached_files(orchard):
    manifest = worker_manifest(orchard["site"])
    folder = orchard["site"] / "static" / "model" / "timeline"
    timeline = {p.relative_to(orchard["site"]).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in folder.iterdir() if not is_copy(p)}  # the build's .br/.gz copies are not listed
    assert len(timeline) == len(orchard["timeline"]["points"])  # every snapshot's graph and timeline.json
    assert manifest["lazy"] == timeline
    assert not set(timeline) & set(manifest["files"])
    assert "static/model/model.onnx" in manifest["files"]


@pytest.mark.browser
@pytest.mark.slow
def test_an_opened_step_works_offline(browser, orchard):
    server = serve(orchard["site"])
    context = browser.new_context()
    page = watched_page(context)
    try:
        page.goto(f"{server.url}/index.html")
        wait_live(page)
        wait_for_version(page, orchard["site"])
        page.reload()  # now a page of the worker's
        wait_live(page)
        step = orchard["timeline"]["points"][1]["step"]
        text = "The cat follows the long road."
        page.evaluate("([step, text]) => { const el = document.querySelector('attention-view');"
                      " el.setAttribute('text', text); el.setAttribute('step', String(step)); }", [step, text])
        assert view_result(page)["step"] == step

        context.set_offline(True)
        page.goto("about:blank")
        page.goto(f"{server.url}/index.html#step={step}&text=The%20cat%20follows%20the%20long%20road.")
        wait_live(page)
        result = view_result(page)
        assert result["step"] == step and result["live"]
        point = orchard["timeline"]["points"][1]
        ref = Reference((orchard["model"] / "timeline" / point["file"]).read_bytes(), orchard["model"] / "tokenizer.json")
        ids = [t["id"] for t in result["tokens"]]
        np.testing.assert_allclose(np.array(result["attention"]), ref.run(ids)["attention"], atol=1e-5)
        assert page.page_errors == []
    finally:
        context.close()
        server.shutdown()
