"""Chapter 1 ("Attention"): two live views (the second lazy; a third for a model with a circuit), sentences about the model
computed from the live numbers (checked here against onnxruntime-python), links between the
chapters, and a page that still reads without JavaScript."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pytest
from math_reference import load_model, score_parts

from conftest import WATCH_CSP, percent_matches, view_result, wait_live

PCT = r"(\d+%|<1%)"


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.views, self.links, self.claims = [], [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "attention-view":
            self.views.append(a)
        if tag == "a":
            self.links.append((a.get("href"), a.get("rel")))
        if "data-claim" in a:
            self.claims.append((a["data-claim"], a["data-for"]))


def parse(built_site, name) -> Page:
    p = Page()
    p.feed((built_site / name).read_text(encoding="utf-8"))
    return p


def test_chapter_is_built_with_two_views_and_linked_both_ways(built_site, meta):
    ch = parse(built_site, "attention.html")
    # A third, in "Attention on attention", only for a model with an induction circuit
    # (tests/test_chapter_induction.py).
    circuit = ["view-3"] if (meta.get("circuit") or {}).get("example") else []
    assert [v["id"] for v in ch.views] == ["view-1", "view-2", *circuit]
    first, second = ch.views[:2]
    assert "loading" not in first and second.get("loading") == "lazy"
    assert first["text"] != second["text"]
    assert (first["layer"], first["head"]) != (second["layer"], second["head"])
    # Every claim belongs to one of the views.
    assert {c for c, _ in ch.claims} >= {"top", "heads", "distance", "spread", "cost", "scale", "masked"}
    assert {v for _, v in ch.claims} == {"view-1", "view-2", *circuit}
    hrefs = [h for h, _ in ch.links]
    assert ("lab.html", "next") in ch.links and "index.html" in hrefs
    lab = parse(built_site, "lab.html")
    assert ("attention.html", "prev") in lab.links  # chapter 2 links back (via the shared base)
    index_links = [h for h, _ in parse(built_site, "index.html").links]
    assert "attention.html" in index_links and "lab.html" in index_links


def names_of(result):
    return [t["text"].strip() for t in result["tokens"]]


def assert_named_share(names, row, q, name, pct, at_least=0.0):
    """Some token called `name` at or before q has the claimed percentage, and a weight of at
    least `at_least` (the rank the sentence gives it) up to float noise: the browser's and
    Python's onnxruntime may order two nearly equal weights differently."""
    candidates = [k for k in range(q + 1) if names[k] == name]
    assert candidates, (name, names)
    assert any(percent_matches(pct, row[k]) and row[k] >= at_least - 1e-5 for k in candidates), (
        name, pct, at_least, [row[k] for k in candidates])


@pytest.mark.browser
def test_live_claims_follow_the_numbers_and_the_second_view_waits(page, site_url, reference, meta):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.add_init_script(WATCH_CSP)
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{site_url}/attention.html")
    wait_live(page, "#view-1")
    page.wait_for_selector(".live[data-for=view-1][data-claim=top][data-state]", state="attached")
    assert page.get_attribute("#view-2", "data-status") is None  # lazy: far below the fold

    r = view_result(page, "#view-1")
    ids = reference.ids(r["text"])
    assert [t["id"] for t in r["tokens"]] == ids
    att = reference.run(ids)["attention"]
    names = names_of(r)
    layer, head, q = r["layer"], r["head"], r["token"]
    assert (layer, head, q) == (meta["default"]["layer"], meta["default"]["head"], meta["default"]["token"])
    T = len(ids)

    def claim(name, view="view-1"):
        return page.locator(f".live[data-for={view}][data-claim={name}]").text_content()

    row = att[layer - 1, head - 1, q]
    m = re.search(rf"spends {PCT} of its budget on «(.+?)»(?: \(itself\))? and {PCT} on «(.+?)»", claim("top"))
    assert m, claim("top")
    ranked = np.sort(row[: q + 1])[::-1]
    assert_named_share(names, row, q, m.group(2), m.group(1), at_least=ranked[0])
    assert_named_share(names, row, q, m.group(4), m.group(3), at_least=ranked[1])

    m = re.search(rf"ranges from {PCT} \(head (\d), on «(.+?)»\) to {PCT} \(head (\d), on «(.+?)»\)", claim("heads"))
    assert m, claim("heads")
    best = att[layer - 1, :, q, : q + 1].max(axis=1)
    lo_head, hi_head = int(m.group(2)), int(m.group(5))
    assert best[lo_head - 1] <= best.min() + 1e-5 and best[hi_head - 1] >= best.max() - 1e-5
    assert percent_matches(m.group(1), best.min()) and percent_matches(m.group(4), best.max())

    n_heads = meta["config"]["n_layer"] * meta["config"]["n_head"]
    assert f"{T} \u00d7 {T} = {T * T:,} weights" in claim("cost")
    assert f"heads fill {n_heads * T * T:,}" in claim("cost")
    masked = int((att[layer - 1, head - 1][np.triu_indices(T, 1)] == 0).sum())
    assert masked == T * (T - 1) // 2
    assert claim("masked").startswith(f"In the first view's head, {masked:,} of the {T * T:,} weights are exactly 0")

    # The sentence reports q·k/√d, before the distance bias: computed from the checkpoint's weights.
    model = load_model()
    scores = score_parts(model, ids, layer, head, q)["qk_scaled"]
    if meta.get("positions", {}).get("scheme") == "alibi":
        slope = float(model.blocks[layer - 1].attn.alibi_slopes[head - 1])
        shown = f"{slope:.2f}" if abs(slope) >= 0.01 else f"{float(f'{slope:.2g}'):g}"  # never a bare "0.00"
        assert f"takes {shown} off per token of distance" in claim("scale")
    m = re.search(r"divided by √\d+ they run from (\S+) to ([^,;\s]+)[,;] ", claim("scale"))
    num = lambda s: float(s.replace("\u2212", "-"))  # noqa: E731
    assert abs(num(m.group(1)) - scores.min()) <= 0.005 + 1e-5 and abs(num(m.group(2)) - scores.max()) <= 0.005 + 1e-5

    # Pin another token: the sentences follow.
    page.locator("#view-1 .chip").nth(3).click()
    page.wait_for_selector(".live[data-for=view-1][data-claim=top][data-state^='3/']", state="attached")
    row3 = att[layer - 1, head - 1, 3]
    m = re.search(rf"«(.+?)» spends {PCT} of its budget on «(.+?)»", claim("top"))
    assert m.group(1) == names[3]
    assert_named_share(names, row3, 3, m.group(3), m.group(2), at_least=row3[:4].max())

    # The second view starts once scrolled to, on the model already downloaded.
    assert sum(u.endswith("/model.onnx") for u in requests) == 1
    page.locator("#view-2").scroll_into_view_if_needed()
    wait_live(page, "#view-2")
    page.wait_for_selector(".live[data-for=view-2][data-claim=distance][data-state]", state="attached")
    r2 = view_result(page, "#view-2")
    ids2 = reference.ids(r2["text"])
    q2 = int(page.get_attribute("#view-2", "token")) % len(ids2)  # pinned where the page built it to be
    assert r2["token"] == q2
    row2 = reference.run(ids2)["attention"][r2["layer"] - 1, r2["head"] - 1, q2]
    names2 = names_of(r2)
    m = re.search(rf"gives {PCT} to its neighbour «(.+?)» and {PCT} to «(.+?)», (\d+) tokens back", claim("distance", "view-2"))
    assert m, claim("distance", "view-2")
    assert m.group(2) == names2[q2 - 1] and m.group(4) == names2[0] and int(m.group(5)) == q2
    assert percent_matches(m.group(1), row2[q2 - 1]) and percent_matches(m.group(3), row2[0])
    assert sum(u.endswith("/model.onnx") for u in requests) == 1
    assert all(u.startswith(site_url + "/") for u in requests), requests  # nothing off the origin
    assert page.evaluate("window.__csp") == []
    assert page.console_errors == [] and page.page_errors == []


@pytest.mark.browser
def test_chapter_without_javascript(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site_url}/attention.html")
    for view in ("#view-1", "#view-2"):
        assert page.locator(f"{view} .av-fallback").is_visible()
    placeholders = page.locator(".live").all_text_contents()
    assert placeholders and all("appears here" in t for t in placeholders)
    assert page.locator(".site-nav a[href='lab.html']").is_visible()
    context.close()
