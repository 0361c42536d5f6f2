"""docs/widget.md's worked example, followed literally: its new panel module and its two lines
in features.js go into a copy of the tree, that copy is built as the site is (bundled), and
in Chromium the panel shows the number the element's `result` gives, following a pin and a
head change. The example is fixture-only: the shipped FEATURES stay as they are."""

from __future__ import annotations

import math
import re
import subprocess

import pytest

from build_tree import copy_build_sources
from conftest import ROOT, open_view, view_result, wait_live, watched_page
from testbed.built_site import BUILD
from testbed.static_server import serve

pytestmark = pytest.mark.browser

DOC = ROOT / "docs" / "widget.md"


def js_blocks() -> dict[str, str]:
    """The worked example's ```js blocks by the file their first line names (`// static/...`; a
    block that names a list in the file too, `// static/... NAME`, is another recipe's)."""
    blocks = re.findall(r"```js\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return {b.splitlines()[0].removeprefix("// ").strip(): b for b in blocks
            if b.startswith("// static/") and len(b.splitlines()[0].split()) == 2}


def follow_the_doc(tree):
    """Step 1: the new module as written. Step 2: its import after the other imports of
    features.js, its entry at the end of FEATURES."""
    blocks = js_blocks()
    module = next(path for path in blocks if path != "static/attention-view/features.js")
    (tree / module).write_text(blocks[module], encoding="utf-8")
    import_line, entry_line = blocks["static/attention-view/features.js"].splitlines()[1:3]
    features = tree / "static" / "attention-view" / "features.js"
    lines = features.read_text(encoding="utf-8").splitlines()
    last_import = max(i for i, line in enumerate(lines) if line.startswith("import "))
    lines.insert(last_import + 1, import_line)
    end = lines.index("];")
    lines.insert(end, entry_line)
    features.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return module


@pytest.fixture(scope="module")
def example_site(tmp_path_factory):
    tree = tmp_path_factory.mktemp("tree")
    copy_build_sources(tree)
    module = follow_the_doc(tree)
    # The types the doc promises: the new module passes the same check as the shipped ones.
    tsconfig = (ROOT / "tsconfig.json").read_text(encoding="utf-8")
    (tree / "tsconfig.json").write_text(tsconfig, encoding="utf-8")
    check = subprocess.run([str(ROOT / "node_modules" / ".bin" / "tsc"), "--noEmit", "-p", str(tree / "tsconfig.json")],
                           capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    out = tree / "_site"
    subprocess.run([*BUILD, "--out", str(out)], check=True, stdout=subprocess.DEVNULL, cwd=tree)
    assert (out / module).is_file()
    server = serve(out)
    yield server.url
    server.shutdown()


def effective_tokens(result) -> float:
    row = result["attention"][result["layer"] - 1][result["head"] - 1][result["token"]][: result["token"] + 1]
    return 2 ** -sum(w * math.log2(w) for w in row if w > 0)


def test_the_worked_example_paints_a_working_panel(browser, example_site):
    context = browser.new_context()
    page = watched_page(context)
    try:
        page.goto(f"{example_site}/index.html")
        wait_live(page)
        line = page.locator("attention-view .focus-panel .focus-line")
        for attrs in ({}, {"token": 2, "layer": 1, "head": 2}, {"token": 4, "layer": 2, "head": 4}):
            r = open_view(page, **attrs) if attrs else view_result(page)
            want = f"attends like {effective_tokens(r):.2f} equal tokens."
            page.locator(f"attention-view .focus-line:has-text('{want}')").wait_for(timeout=20_000)
            assert line.text_content().endswith(want)
        # Declared slot, declared place: right after the heatmap's panel.
        order = page.evaluate("""() => [...document.querySelector("attention-view").shadowRoot
          .querySelector(".body").children].map((el) => el.classList[1])""")
        assert order.index("focus-panel") == order.index("map-panel") + 1
        assert not page.page_errors and not page.console_errors
    finally:
        context.close()
