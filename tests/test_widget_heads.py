"""Head roles and the all-heads thumbnails, in Debian's chromium.

The roles come from a model folder whose meta.json has `heads` (static/model/ once it has
them, else the candidate export in runs/A_model/); the same model with `heads` removed is no
model folder (meta.json's schema requires them) and is refused by name. Expected labels are
written here from meta.json.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import view_result, wait_live, watched_page
from helpers import ROOT, SHADOW, expected_labels
from testbed.built_site import BUILD, build_site
from testbed.static_server import serve_dir

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
    url, server = serve_dir(build_site(tmp_path_factory.mktemp("site-roles"), "--model", str(folder)))
    yield {"roles": url, "bare": bare}, meta
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
            # The name carries the role: in brackets on a strip, as shown (name first) on a thumbnail.
            assert f"({label})" in item["label"] or item["label"].startswith(f"L{item['layer']} H{item['head']} {label}:")
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


def test_without_heads_the_folder_is_refused_by_name(sites, tmp_path):
    urls, _ = sites
    proc = subprocess.run([*BUILD, "--out", str(tmp_path / "site"), "--model", str(urls["bare"])],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert proc.returncode == 2 and "meta.json has no heads" in proc.stderr, proc.stderr
    assert not (tmp_path / "site").exists()


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
