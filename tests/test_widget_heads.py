"""Head roles and the all-heads thumbnails, in Debian's chromium.

The roles come from a model folder whose meta.json has `heads` (static/model/ once it has
them, else the candidate export in runs/A_model/); the same model with `heads` removed must
show no labels and raise no errors. Expected labels are written here from meta.json.
"""

from __future__ import annotations

import json
import shutil

import pytest

from browser import build_site, serve_dir
from conftest import view_result, wait_live, watched_page
from helpers import ROOT, SHADOW, expected_labels

pytestmark = pytest.mark.browser



def model_with_heads():
    for folder in (ROOT / "static" / "model", ROOT / "runs" / "A_model"):
        meta_path = folder / "meta.json"
        if meta_path.exists() and json.loads(meta_path.read_text(encoding="utf-8")).get("heads"):
            return folder
    return None


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    folder = model_with_heads()
    if folder is None:
        pytest.skip("no model folder with meta.json `heads`")
    bare = tmp_path_factory.mktemp("bare-model")
    for f in folder.iterdir():
        (shutil.copytree if f.is_dir() else shutil.copy)(f, bare / f.name)
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    stripped = {k: v for k, v in meta.items() if k not in ("heads", "head_definitions")}
    (bare / "meta.json").write_text(json.dumps(stripped), encoding="utf-8")
    servers, urls = [], {}
    for name, model in (("roles", folder), ("bare", bare)):
        url, server = serve_dir(build_site(tmp_path_factory.mktemp(f"site-{name}"), "--model", str(model)))
        servers.append(server)
        urls[name] = url
    yield urls, meta
    for server in servers:
        server.shutdown()


def errors(page) -> list:
    """Page errors and console errors, less onnxruntime's own warnings about the graph
    (the candidate export's head_mask initializer), which are the model's business."""
    return page.page_errors + [m for m in page.console_errors if "[W:onnxruntime" not in m]


def open_page(browser, url):
    context = browser.new_context()
    page = watched_page(context)
    page.goto(f"{url}/index.html")
    wait_live(page)
    return context, page


def roles_on_screen(page):
    return page.evaluate(f"""() => ({{
      minis: [...{SHADOW}.querySelectorAll(".mini-head")].map((b) => ({{
        layer: +b.dataset.layer, head: +b.dataset.head, role: b.querySelector(".mini-role").textContent,
        hidden: b.querySelector(".mini-role").hidden, title: b.title, def: b.querySelector(".role-def").textContent,
        label: b.getAttribute("aria-label") }})),
      thumbs: [...{SHADOW}.querySelectorAll(".thumb")].map((b) => ({{
        layer: +b.dataset.layer, head: +b.dataset.head, role: b.querySelector(".thumb-role").textContent,
        title: b.title, def: b.querySelector(".role-def").textContent, label: b.getAttribute("aria-label"),
        w: b.querySelector("canvas").width }})),
    }})""")


def test_thumbnails_select_heads_and_carry_the_roles(browser, sites):
    urls, meta = sites
    context, page = open_page(browser, urls["roles"])
    try:
        result = view_result(page)
        T = len(result["tokens"])
        want = expected_labels(meta)
        n = meta["config"]["n_layer"] * meta["config"]["n_head"]
        shown = roles_on_screen(page)
        assert len(shown["thumbs"]) == n and len(shown["minis"]) == n
        for item in shown["minis"] + shown["thumbs"]:
            label = want[(item["layer"], item["head"])]
            assert item["role"] == label, item
            assert item["title"] and item["title"] == item["def"] and item["title"].startswith(label.split(" \u00b7 ")[0].split(" 0")[0])
            assert f"({label})" in item["label"]
        assert all(t["w"] == T for t in shown["thumbs"])
        # Clicking a thumbnail selects its head.
        for layer, head in [(1, 2), (2, 4)]:
            page.locator(f'attention-view .thumb[data-layer="{layer}"][data-head="{head}"]').click()
            r = view_result(page)
            assert (r["layer"], r["head"], r["view"]) == (layer, head, "head")
            pressed = page.evaluate(f"""() => [...{SHADOW}.querySelectorAll('.thumb[aria-pressed=true]')]
              .map((b) => [+b.dataset.layer, +b.dataset.head])""")
            assert pressed == [[layer, head]]
        # The screen-reader table's caption names the selected head's role (it trails by 150 ms).
        page.wait_for_timeout(400)
        caption = page.evaluate(f"() => {SHADOW}.querySelector('.sr-only caption').textContent")
        assert f"({want[(2, 4)]})" in caption
        # The page's "How each head's role was measured" lists every role with its definition.
        howto = page.locator("section:has(h2:text('About these numbers')) details dl.roles").text_content()
        for rule in meta["head_definitions"]["roles"]:
            assert rule["role"] in howto
        assert not errors(page)
    finally:
        context.close()


def test_without_heads_no_labels_and_no_errors(browser, sites):
    urls, meta = sites
    context, page = open_page(browser, urls["bare"])
    try:
        view_result(page)
        shown = roles_on_screen(page)
        assert len(shown["thumbs"]) == meta["config"]["n_layer"] * meta["config"]["n_head"]
        for item in shown["minis"] + shown["thumbs"]:
            assert item["role"] == "" and item["title"] == "" and "(" not in item["label"]
        page.locator('attention-view .thumb[data-layer="1"][data-head="3"]').click()
        assert (view_result(page)["layer"], view_result(page)["head"]) == (1, 3)
        assert page.locator("dl.roles").count() == 0
        assert not errors(page)
    finally:
        context.close()


def test_see_it_do_this_loads_the_heads_example(browser, sites):
    urls, meta = sites
    context, page = open_page(browser, urls["roles"])
    try:
        view_result(page)
        heads = [h for h in meta["heads"] if h.get("example")]
        assert page.locator("attention-view .thumb-example:visible").count() == len(heads)
        for head in heads[:3]:
            ex = head["example"]
            page.locator(f'attention-view .thumb[data-layer="{head["layer"]}"][data-head="{head["head"]}"] + .thumb-example').click()
            r = view_result(page)
            assert (r["text"], r["token"], r["layer"], r["head"], r["view"]) == (
                ex["text"], ex["token"], head["layer"], head["head"], "head")
            # The same row the export measured: its weight on the example's key.
            assert r["attention"][head["layer"] - 1][head["head"] - 1][ex["token"]][ex["key"]] == pytest.approx(ex["weight"], abs=1e-3)
        assert not errors(page)
    finally:
        context.close()
