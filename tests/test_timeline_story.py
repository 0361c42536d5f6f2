"""The model card's and chapter 1's timeline sections follow the exported numbers: built on two
models of our own with timelines (tests/timeline_model.py) they say each one's own steps and
link the live page to each head at the step it formed; built on a model without a timeline they
are absent; and the rule that calls a change sudden or gradual reads the points it is given."""

from __future__ import annotations

import copy
import html
import json
import re
import shutil
from urllib.parse import unquote

import pytest
from other_model import other_model
from timeline_model import timeline_model, timeline_site

from site_builder import build
from site_builder.model_facts import counted
from site_builder.timeline_story import story
from testbed.built_site import build_site


def section(page: str, section_id: str) -> str | None:
    found = re.search(rf'<section id="{section_id}".*?</section>', page, re.S)
    return found.group(0) if found else None


def text_of(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()


def links(fragment: str) -> list[dict]:
    """The live-page links of a fragment, as {key: value} of their fragment."""
    out = []
    for href in re.findall(r'href="[^"]*index\.html#([^"]*)"', fragment):
        out.append(dict(part.split("=", 1) for part in html.unescape(href).split("&")))
    return out


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    out = {}
    for name in ("orchard", "lighthouse"):
        made = timeline_model(base, name)
        assert made["timeline"]["formed"], f"{name} formed no head: MODELS in tests/timeline_model.py needs retuning"
        site = timeline_site(base, name)
        out[name] = {**made, "card": (site / "model.html").read_text(encoding="utf-8"),
                     "chapter": (site / "attention.html").read_text(encoding="utf-8")}
    return out


@pytest.mark.parametrize("name", ["orchard", "lighthouse"])
def test_the_sections_say_when_each_head_formed(models, name):
    m = models[name]
    formed = sorted(m["timeline"]["formed"], key=lambda f: (f["step"], f["layer"], f["head"]))
    points = m["timeline"]["points"]
    shipped = points[-1]["step"]
    card = section(m["card"], "formed")
    rows = re.findall(r'<tr data-formed="(\d+)-(\d+)">.*?data-figure="formed-step">([\d,]+)', card, re.S)
    assert [(int(layer), int(head), int(step.replace(",", ""))) for layer, head, step in rows] == \
        [(f["layer"], f["head"], f["step"]) for f in formed]
    assert 'href="#formed"' in m["card"]  # in the card's contents
    assert counted(len(points) - 1, "snapshot") in text_of(card)
    assert f"{points[0]['heldout_bpc']:.2f}" in text_of(card) and f"{points[-1]['heldout_bpc']:.2f}" in text_of(card)
    chapter = section(m["chapter"], "training")
    for fragment in (card, chapter):
        got = links(fragment)
        assert len(got) == len(formed)
        for link, f in zip(got, formed):
            assert (int(link["layer"]), int(link["head"])) == (f["layer"], f["head"])
            # At the step it formed; at the shipped step, the shipped model (no step at all).
            assert link.get("step") == (None if f["step"] >= shipped else str(f["step"]))
            example = next(h.get("example") for h in m["meta"]["heads"] if (h["layer"], h["head"]) == (f["layer"], f["head"]))
            if example:
                assert unquote(link["text"]) == example["text"] and int(link["token"]) == example["token"]
    verdict = re.search(r'data-verdict="(\w+)"', card).group(1)
    assert verdict == re.search(r'data-verdict="(\w+)"', chapter).group(1)
    assert verdict == story(m["meta"], m["timeline"])["verdict"]


def test_two_timelines_give_two_stories(models):
    a, b = (text_of(section(models[n]["card"], "formed")) for n in ("orchard", "lighthouse"))
    assert a != b
    for name, text in (("orchard", a), ("lighthouse", b)):
        shipped = models[name]["timeline"]["points"][-1]
        # Neither is the model in static/model/: each is named as what it is, never "the shipped model".
        assert f"the exported model is step {shipped['step']:,} ({shipped['heldout_bpc']:.2f})" in text
        assert "shipped" not in text.lower()
        for f in models[name]["timeline"]["formed"]:
            assert f"L{f['layer']} H{f['head']}" in text


def test_no_timeline_no_section(tmp_path_factory):
    model = other_model(tmp_path_factory.getbasetemp())["model"]
    assert "timeline" not in json.loads((model / "meta.json").read_text(encoding="utf-8"))
    site = build_site(tmp_path_factory.mktemp("no-timeline"), "--model", str(model))
    card = (site / "model.html").read_text(encoding="utf-8")
    chapter = (site / "attention.html").read_text(encoding="utf-8")
    assert section(card, "formed") is None and 'href="#formed"' not in card
    assert section(chapter, "training") is None
    assert "Training timeline" not in card + chapter


def test_a_timeline_that_is_not_the_one_meta_json_records_fails_the_build(models, tmp_path):
    model = tmp_path / "model"
    shutil.copytree(models["orchard"]["model"], model)
    manifest = model / "timeline" / "timeline.json"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace('"formed":[', '"formed":[ '), encoding="utf-8")
    with pytest.raises(build.BuildError, match="sha256"):
        build.load_timeline(model, json.loads((model / "meta.json").read_text(encoding="utf-8")))


# --- The rule: sudden or gradual, from the points -------------------------------------------


def edited(m, at_step, **changes):
    """A copy of the model's timeline with the point at `at_step` changed."""
    timeline = copy.deepcopy(m["timeline"])
    point = next(p for p in timeline["points"] if p["step"] == at_step)
    point.update(changes)
    return timeline


def test_a_fall_faster_than_just_before_with_a_head_arriving_is_sudden(models):
    m = models["orchard"]
    real = story(m["meta"], m["timeline"])
    first = min(m["timeline"]["formed"], key=lambda f: f["step"])
    points = m["timeline"]["points"]
    at = next(i for i, p in enumerate(points) if p["step"] == first["step"])
    before, earlier = points[at - 1], points[at - 2]
    rate_before = (earlier["heldout_bpc"] - before["heldout_bpc"]) / (before["step"] - earlier["step"])
    # Three times as fast per step as in the interval before, where the head passed its threshold.
    steep = before["heldout_bpc"] - 3 * rate_before * (first["step"] - before["step"])
    told = story(m["meta"], edited(m, first["step"], heldout_bpc=steep))
    assert told["verdict"] == "sudden" and real["verdict"] == "gradual"
    assert f"L{first['layer']}H{first['head']}" in told["verdict_text"]
    assert f"between step {before['step']:,} and {first['step']:,}" in told["verdict_text"]
    assert f"from {before['heldout_bpc']:.2f} to {steep:.2f}" in told["verdict_text"]
    assert "3.0 times as fast" in told["verdict_text"]


def test_an_in_context_gain_jumping_with_a_head_is_sudden(models):
    m = models["lighthouse"]
    first = min(m["timeline"]["formed"], key=lambda f: f["step"])
    before = next(p for p in reversed(m["timeline"]["points"]) if p["step"] < first["step"])
    told = story(m["meta"], edited(m, first["step"], in_context_gain=before["in_context_gain"] + 2.0))
    assert told["verdict"] == "sudden"
    assert f"{before['in_context_gain']:+.2f} to {before['in_context_gain'] + 2.0:+.2f} nats per token" in told["verdict_text"]


def test_without_a_formed_head_the_story_says_every_head_stayed_diffuse(models):
    m = models["orchard"]
    timeline = copy.deepcopy(m["timeline"])
    timeline["formed"] = []
    for p in timeline["points"]:
        for h in p["heads"]:
            h["role"] = "diffuse"
    told = story(m["meta"], timeline)
    assert told["heads"] == [] and told["verdict"] == "gradual"
    assert "every head stayed diffuse" in told["verdict_text"]
    assert story(m["meta"], None) is None
