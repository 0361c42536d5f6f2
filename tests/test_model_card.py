"""model.html, the model card: every figure on it equals meta.json's, on four builds: the site
as committed (`built_site`, static/model/meta.json, whatever format that is), a "full" build where
every format-2 field the committed one lacks is filled in with sample values
(tests/model_card_builds.py), a second, different model and a model with an induction circuit."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import pytest
from circuit_model import CIRCUIT_MODEL
from html_tree import Node, parse, squash
from model_card_builds import SCORE_KEYS, committed_meta, full_site
from other_model import other_model

from testbed.built_site import build_site


@pytest.fixture(scope="session")
def other_site(tmp_path_factory) -> tuple[Path, dict]:
    """The site built on a second, different model (tests/other_model.py), as `make serve MODEL=` does."""
    model = other_model(tmp_path_factory.getbasetemp())["model"]
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    return build_site(tmp_path_factory.mktemp("other-site"), "--model", str(model)), meta


@pytest.fixture(scope="session")
def circuit_site(tmp_path_factory) -> tuple[Path, dict]:
    """The site built on the committed model with an induction circuit (tests/data/circuit-model/)."""
    model = CIRCUIT_MODEL
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    return build_site(tmp_path_factory.mktemp("circuit-card"), "--model", str(model)), meta


@pytest.fixture(params=["committed", "full", "other", "circuit"])
def card(request, built_site, full_site) -> tuple[Node, dict]:
    """(model.html parsed, the meta.json it was built from), for each of the four builds."""
    if request.param == "committed":
        site, meta = built_site, committed_meta()
    elif request.param in ("other", "circuit"):
        site, meta = request.getfixturevalue(f"{request.param}_site")
    else:
        site, meta = full_site
    return parse((site / "model.html").read_text(encoding="utf-8")), meta


def figure(doc: Node, name: str) -> str:
    node = doc.find(data_figure=name)
    assert node is not None, f"no data-figure={name!r}"
    return squash(node.text())


# --- the figures -----------------------------------------------------------------------------


def test_architecture_matches_meta(card):
    doc, meta = card
    cfg = meta["config"]
    assert figure(doc, "n_params") == f"{meta['n_params']:,}"
    # Every occurrence, not just the first: the lede and the table.
    assert len(doc.find_all(data_figure="n_params")) >= 2
    assert all(squash(n.text()) == f"{meta['n_params']:,}" for n in doc.find_all(data_figure="n_params"))
    for key in ("n_layer", "n_head", "d_model", "d_head", "d_ff", "n_ctx", "vocab_size"):
        assert figure(doc, key) == f"{cfg[key]:,}", key
    scheme = (meta.get("positions") or {}).get("scheme") or cfg.get("positions")
    assert figure(doc, "positions") == {"alibi": "ALiBi", "learned": "learned", None: "not recorded"}[scheme]
    if scheme == "alibi":
        for layer, row in enumerate(meta["positions"]["slopes"], 1):
            for head, slope in enumerate(row, 1):
                assert float(figure(doc, f"slope-{layer}-{head}")) == pytest.approx(slope, rel=1e-6)


def test_file_sizes_and_hashes_match_meta(card):
    doc, meta = card
    rows = doc.find_all("tr", data_file=True)
    assert [r.attrs["data-file"] for r in rows] == list(meta["files"])
    for row in rows:
        info = meta["files"][row.attrs["data-file"]]
        assert squash(row.find(data_figure="bytes").text()) == f"{info['bytes']:,}"
        assert squash(row.find(data_figure="sha").text()) == info["sha256"][:12]


def test_each_text_matches_meta(card):
    doc, meta = card
    corpus = meta["corpus"]
    expected = [corpus] + list(corpus.get("companions") or [])
    rows = doc.find_all("tr", data_text=True)
    assert [r.attrs["data-text"] for r in rows] == [t["name"] for t in expected]
    for row, t in zip(rows, expected):
        assert squash(row.find("th").text()) == t["name"]
        assert squash(row.find(data_figure="chars").text()) == f"{t['chars']:,}"
        assert squash(row.find(data_figure="sha").text()) == t["sha256"][:12]
    assert figure(doc, "heldout_chars") == f"{corpus['heldout_chars']:,}"
    assert figure(doc, "description") == squash(corpus["description"])


def test_bits_per_char_bars_match_meta(card):
    doc, meta = card
    m = meta["metrics"]
    values = {"model": m["heldout_bpc"], **m["baselines_bpc"]}
    chart = doc.find("svg", class_="mc-bars")
    assert chart.attrs["role"] == "img" and chart.find("title") is not None
    bars = chart.find_all("g", class_="mc-bar")
    assert len(bars) == len(values) == 4
    assert {b.attrs["data-bar"] for b in bars} == set(values)
    shown = [float(b.find("rect").attrs["width"]) for b in bars]
    for bar, width in zip(bars, shown):
        value = values[bar.attrs["data-bar"]]
        assert squash(bar.find(data_figure="bpc").text()) == f"{value:.3f}"
        # Bars are drawn to scale (from 0).
        assert width / shown[0] == pytest.approx(value / values[bars[0].attrs["data-bar"]], rel=1e-3)
    assert [values[b.attrs["data-bar"]] for b in bars] == sorted(values.values())
    assert figure(doc, "heldout_bpc") == f"{m['heldout_bpc']:.3f}"
    assert figure(doc, "ratio") == f"{m['heldout_bpc'] / m['baselines_bpc']['bzip2']:.3f}"


def test_training_curve_has_a_point_per_history_entry(card):
    doc, meta = card
    history = meta["metrics"].get("history")
    line = doc.find("polyline", class_="mc-line")
    if not history:
        assert line is None and doc.find(data_missing="history") is not None
        return
    points = [tuple(map(float, p.split(","))) for p in line.attrs["points"].split()]
    assert len(points) == len(history) == int(line.attrs["data-points"])
    xs = [p[0] for p in points]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    # y is a decreasing affine function of bits/char (more bits/char is drawn higher up).
    (xa, ya), (xb, yb) = points[0], points[-1]
    (sa, va), (sb, vb) = history[0], history[-1]
    for (x, y), (step, value) in zip(points, history):
        assert x - xa == pytest.approx((xb - xa) * (step - sa) / (sb - sa), abs=0.02)
        if va != vb:
            assert y - ya == pytest.approx((yb - ya) * (value - va) / (vb - va), abs=0.02)
    assert (ya - yb) * (va - vb) <= 0
    # The best step is marked where its point is.
    best = meta["metrics"]["best_step"]
    i = [h[0] for h in history].index(best)
    mark = doc.find("circle", class_="mc-best")
    assert (float(mark.attrs["cx"]), float(mark.attrs["cy"])) == points[i]
    assert f"step {best:,}" in squash(doc.find("text", class_="mc-best-label").text())
    svg = doc.find("svg", class_="mc-curve")
    assert svg.attrs["role"] == "img" and svg.find("title") is not None
    assert len(doc.find("table", class_="mc-history").find("tbody").find_all("tr")) == len(history)


def test_head_rows_match_meta(card):
    doc, meta = card
    heads = meta.get("heads") or []
    rows = doc.find_all("tr", data_head=True)
    if not heads:
        assert rows == [] and doc.find(data_missing="heads") is not None
        return
    assert [r.attrs["data-head"] for r in rows] == [f"{h['layer']}-{h['head']}" for h in heads]
    # The columns meta.json's registry copy names (a model exported before a score existed lacks it).
    keys = [r["name"] for r in (meta.get("head_definitions") or {}).get("scores") or []] or SCORE_KEYS
    for row, h in zip(rows, heads):
        assert squash(row.find(data_figure="role").text()) == h["role"]
        for key in keys:
            assert squash(row.find(data_score=key).text()) == f"{h['scores'][key]:.3f}", (h["layer"], h["head"], key)
        # The copying score as a role hint where it is decisive (>= 0.5 from 0), and only there.
        copying = h["scores"].get("copying")
        hint = row.find(data_figure="copying-hint")
        if copying is None or abs(copying) < 0.5:
            assert hint is None, (h["layer"], h["head"])
        else:
            assert squash(hint.text()) == ("· copies" if copying > 0 else "· suppresses"), (h["layer"], h["head"])


def test_the_induction_circuit_matches_meta(card):
    doc, meta = card
    c = meta.get("circuit")
    if not c:
        assert doc.find(id="circuit") is None and doc.find(data_circuit=True) is None
        return
    minus = lambda x: f"{x:.2f}".replace("-", "\u2212")  # noqa: E731
    lede = squash(doc.find(data_circuit=f"{c['head']['layer']}-{c['head']['head']}").text())
    assert f"puts {c['induction']:.2f} of each" in lede and f"{minus(c['in_context_gain'])} nats" in lede
    reads = c["composes_with"]
    off = next(s for s in c["switch_off"] if (s["layer"], s["head"]) == (reads["layer"], reads["head"]))
    assert (f"composes with layer {reads['layer']} head {reads['head']}" in lede
            and f"falls to {off['induction']:.2f} and the gain to {minus(off['in_context_gain'])}" in lede)
    rows = doc.find_all("tr", data_switched=True)
    assert [r.attrs["data-switched"] for r in rows] == [f"{s['layer']}-{s['head']}" for s in c["switch_off"]]
    for row, s in zip(rows, c["switch_off"]):
        assert [squash(td.text()) for td in row.find_all("td")] == [f"{s['induction']:.2f}", minus(s["in_context_gain"])]


def test_head_example_links_decode_to_the_example(card):
    doc, meta = card
    heads = meta.get("heads") or []
    links = doc.find_all("a", class_="mc-example")
    assert len(links) == sum(1 for h in heads if h.get("example"))
    for link, h in zip(links, [h for h in heads if h.get("example")]):
        url = urllib.parse.urlsplit(link.attrs["href"])
        assert url.path == "index.html" and not url.query
        params = urllib.parse.parse_qs(url.fragment, keep_blank_values=True, strict_parsing=True)
        assert params == {"text": [h["example"]["text"]], "token": [str(h["example"]["token"])],
                          "layer": [str(h["layer"])], "head": [str(h["head"])], "view": ["head"]}
        # The state.js key order, with %20 for spaces (never "+", which would decode to a plus).
        assert list(params) == ["text", "token", "layer", "head", "view"] and "+" not in url.fragment


def test_default_view_evidence_matches_meta(card):
    doc, meta = card
    d = meta["default"]
    if "top_weight" not in d:
        assert doc.find(data_figure="top_weight") is None
        return
    assert figure(doc, "top_weight") == f"{d['top_weight']:.0%}"
    if d.get("story"):
        s = d["story"]["sentence_set"]
        assert figure(doc, "sentence_set") == f"{s['agree']} of {s['total']}"
        assert doc.find(data_missing="story") is None
    else:
        assert doc.find(data_figure="sentence_set") is None and doc.find(data_missing="story") is not None


def test_tables_and_charts_are_accessible(card):
    doc, _ = card
    for table in doc.find_all("table"):
        assert table.find("caption") is not None and squash(table.find("caption").text())
        box = table.parent
        assert "mc-scroll" in box.attrs.get("class", ""), "every table scrolls in its own container"
        assert box.attrs.get("tabindex") == "0" and box.attrs.get("role") == "region"
        assert doc.find(id=box.attrs["aria-labelledby"]) is not None
    for svg in doc.find_all("svg"):
        assert svg.attrs.get("role") == "img"
        ids = svg.attrs["aria-labelledby"].split()
        assert svg.find("title").attrs["id"] == ids[0] and all(doc.find(id=i) for i in ids)
    assert [squash(h.text()) for h in doc.find_all("h1")] == ["Model card"]
