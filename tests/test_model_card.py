"""model.html, the model card: every figure on it equals meta.json's, it builds from an older
meta.json that lacks heads/history/positions/companions (and says so), every page's header
links to it, and in real Chromium it loads clean under the CSP and fits 375 px.

Two builds are checked: the site as committed (`built_site`, static/model/meta.json, whatever
format that is) and a "full" build from a copy of that meta.json where every format-2 field the
committed one lacks is filled in with sample values (so heads, history and companions are always
exercised, with example texts full of characters that need URL-encoding)."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import pytest
from circuit_model import CIRCUIT_MODEL
from other_model import other_model

from conftest import MODEL_DIR, WATCH_CSP, watched_page
from export.head_scores import SCORE_NAMES
from testbed.built_site import BUILD, ROOT, build_site
from testbed.static_server import serve_dir

SCORE_KEYS = list(SCORE_NAMES)  # the registry's order: the card's columns follow it
TRICKY_TEXT = 'She said "hi" & <b>left</b> 50% + more #2, café — ok?'


# --- a tiny DOM from html.parser (no lxml/bs4 in the environment) ----------------------------


class Node:
    def __init__(self, tag: str, attrs: dict, parent: Node | None):
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.iter()

    def find_all(self, tag: str | None = None, **attrs) -> list[Node]:
        def ok(n: Node) -> bool:
            if tag and n.tag != tag:
                return False
            for k, v in attrs.items():
                k = k.rstrip("_").replace("_", "-")
                if v is True:
                    if k not in n.attrs:
                        return False
                elif k == "class":
                    if v not in (n.attrs.get("class") or "").split():
                        return False
                elif n.attrs.get(k) != v:
                    return False
            return True

        return [n for n in self.iter() if ok(n)]

    def find(self, tag: str | None = None, **attrs) -> Node | None:
        found = self.find_all(tag, **attrs)
        return found[0] if found else None


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, dict(attrs), self.cur))

    def handle_endtag(self, tag):
        node = self.cur
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.cur = node.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(html: str) -> Node:
    builder = TreeBuilder()
    builder.feed(html)
    return builder.root


def squash(text: str) -> str:
    return " ".join(text.split())


# --- the two builds --------------------------------------------------------------------------


def sample_v2_fields(meta: dict) -> dict:
    """`meta` with every format-2 field it lacks filled in with sample values (kept as they are
    when present, so a committed format-2 meta.json is tested as it is)."""
    full = copy.deepcopy(meta)
    cfg = full["config"]
    n_layer, n_head = cfg["n_layer"], cfg["n_head"]
    full.setdefault("positions", {"scheme": "alibi",
                                  "slopes": [[2 ** (-8 * (h + 1) / n_head) for h in range(n_head)]] * n_layer,
                                  "standard_slopes": [2 ** (-8 * (h + 1) / n_head) for h in range(n_head)]})
    cfg.setdefault("positions", full["positions"]["scheme"])
    metrics = full["metrics"]
    if "history" not in metrics:
        metrics["history"] = [[50 * (i + 1), round(3.0 - 0.8 * (1 - 0.9 ** i), 5)] for i in range(23)]
        metrics["best_step"] = min(metrics["history"], key=lambda h: h[1])[0]
    full["corpus"].setdefault("companions", [
        {"name": "one.txt", "chars": 123_456, "sha256": "ab" * 32},
        {"name": "two & three.txt", "chars": 7_890, "sha256": "cd" * 32},
    ])
    if not full.get("heads"):
        full["heads"] = []
        for layer in range(1, n_layer + 1):
            for head in range(1, n_head + 1):
                i = (layer - 1) * n_head + head
                scores = {k: round(0.0123 * i + 0.001 * j, 4) for j, k in enumerate(SCORE_KEYS)}
                full["heads"].append({
                    "layer": layer, "head": head, "role": ["previous token", "diffuse", "content", "self"][i % 4],
                    "scores": scores,
                    "example": {"text": f"{TRICKY_TEXT} {i}", "token": 3 + i, "key": 2, "weight": 0.5 + i / 100,
                                "query_text": " said", "key_text": " \""}})
    full.setdefault("head_definitions", {k: f"what {k} measures" for k in SCORE_KEYS} | {
        "roles": [{"order": 1, "role": "previous token", "score": "previous_token", "at_least": 0.3},
                  {"order": 2, "role": "diffuse", "score": None, "at_least": None}],
        "role_rule": "the first passing rule"})
    full["default"].setdefault("top_weight", 0.61)
    full["default"].setdefault("top_key", 4)
    full["default"].setdefault("story", {"name": "speaker", "definition": "what the story claims",
                                         "sentence_set": {"agree": 27, "total": 40, "share": 0.675}})
    full["format_version"] = 2
    return full


def committed_meta() -> dict:
    return json.loads((MODEL_DIR / "meta.json").read_text(encoding="utf-8"))


def build_with_meta(out: Path | None, model_dir: Path, meta: dict) -> Path:
    """The real build script on a model folder that holds this meta.json beside the committed
    model's files (linked, not copied: the build checks each against the sizes and sha256 the
    meta.json records, which these edited copies keep), and its timeline when it points to one.
    out None: the folder alone, not built."""
    model_dir.mkdir(parents=True, exist_ok=True)
    names = list(meta.get("files") or {})
    if meta.get("timeline"):
        manifest = meta["timeline"]["manifest"]
        here = manifest.rpartition("/")[0]
        points = json.loads((MODEL_DIR / manifest).read_text(encoding="utf-8"))["points"]
        names += [manifest, *(f"{here}/{p['file']}" for p in points if p.get("file"))]
    for name in names:
        (model_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (model_dir / name).symlink_to(MODEL_DIR / name)
    (model_dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return build_site(out, "--model", str(model_dir)) if out else model_dir


@pytest.fixture(scope="session")
def full_site(tmp_path_factory) -> tuple[Path, dict]:
    meta = sample_v2_fields(committed_meta())
    tmp = tmp_path_factory.mktemp("card-full")
    return build_with_meta(tmp / "site", tmp / "model", meta), meta


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


def test_every_page_header_links_to_the_model_card(built_site):
    for path in sorted(built_site.glob("*.html")):
        doc = parse(path.read_text(encoding="utf-8"))
        header = doc.find("header", class_="site-header")
        if path.name == "embed.html":
            assert header is None  # the iframe page has no site chrome at all
            continue
        links = [a for a in header.find_all("a") if a.attrs.get("href") == "model.html"]
        assert len(links) == 1, path.name
        assert (links[0].attrs.get("aria-current") == "page") == (path.name == "model.html"), path.name


@pytest.mark.parametrize("field", ["heads", "head_definitions", "positions", "metrics.history", "corpus.companions"])
def test_a_meta_json_without_a_recorded_field_is_refused_naming_it(tmp_path, field):
    """meta.json has one definition (attention_live/meta.schema.json): a folder whose meta.json
    lacks what export writes (an older or hand-made one) builds no model card that would have to
    guess; the build refuses it in one line that names the field."""
    meta = sample_v2_fields(committed_meta())
    *parents, last = field.split(".")
    node = meta
    for key in parents:
        node = node[key]
    node.pop(last)
    model_dir = build_with_meta(None, tmp_path / "model", meta)
    proc = subprocess.run([*BUILD, "--out", str(tmp_path / "site"), "--model", str(model_dir)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and last in lines[0], lines
    assert not (tmp_path / "site").exists()


# --- real Chromium ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def full_site_url(full_site):
    url, server = serve_dir(full_site[0])
    yield url
    server.shutdown()


@pytest.mark.browser
@pytest.mark.parametrize("which", ["committed", "full"])
def test_model_card_in_chromium_at_375px(browser, site_url, full_site_url, full_site, which):
    """Loads with no console error and no CSP violation; at 375 px the document does not scroll
    sideways (wide tables scroll inside their own containers); each example link's hash reads
    back, through the live page's own state.js, as the example's text/token/layer/head."""
    base = site_url if which == "committed" else full_site_url
    meta = committed_meta() if which == "committed" else full_site[1]
    context = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        page = watched_page(context)
        page.add_init_script(WATCH_CSP)
        page.goto(f"{base}/model.html")
        page.wait_for_load_state("load")
        layout = page.evaluate("""() => ({
          doc: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
          boxes: [...document.querySelectorAll(".mc-scroll")].map((el) => ({
            overflow: getComputedStyle(el).overflowX, right: el.getBoundingClientRect().right,
            inner: el.scrollWidth, outer: el.clientWidth})),
          svgs: [...document.querySelectorAll("svg.mc-chart")].map((el) => el.getBoundingClientRect().right),
          css: [...document.styleSheets].map((s) => s.href && s.href.split("/").pop()),
        })""")
        assert layout["doc"][0] <= layout["doc"][1] == 375, layout["doc"]
        assert "model-card.css" in layout["css"]
        assert layout["boxes"] and all(b["overflow"] == "auto" and b["right"] <= 375 for b in layout["boxes"])
        assert all(right <= 375 for right in layout["svgs"])
        if meta.get("heads"):
            assert any(b["inner"] > b["outer"] for b in layout["boxes"]), "the heads table scrolls in its box"
            decoded = page.evaluate("""async () => {
              const { fromHash } = await import("./static/attention-view/state.js");
              return [...document.querySelectorAll("a.mc-example")].map((a) => fromHash(new URL(a.href).hash));
            }""")
            expected = [{"text": h["example"]["text"], "token": str(h["example"]["token"]),
                         "layer": str(h["layer"]), "head": str(h["head"]), "view": "head"} for h in meta["heads"]]
            # Keys the live page may add later (a colour scale, say) stay unset: the page's defaults.
            assert [{k: v for k, v in d.items() if k in e or v is not None} for d, e in zip(decoded, expected)] \
                == expected
        # Keyboard: Tab reaches the scrolling regions (and the links).
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.tagName") == "A"
        assert page.evaluate("window.__csp") == []
        assert page.console_errors == [] and page.page_errors == []
    finally:
        context.close()
