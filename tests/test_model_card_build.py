"""The model card in the built site: every page's header links to it, and a meta.json that lacks
a field export writes builds no card at all (the build refuses it in one line naming the field)."""

from __future__ import annotations

import subprocess

import pytest
from html_tree import parse
from model_card_builds import build_with_meta, committed_meta, sample_v2_fields

from testbed.built_site import BUILD, ROOT


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
