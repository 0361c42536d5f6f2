"""The page's "layer.head" syntax is read by one Python parser (attention_live/heads.py
parse_ablate) wherever Python reads it: the training settings that name heads
(train/curriculum_settings.py: synthetic_heads, text_heads_off) parse with it, and the model card names the
recorded heads as it reads them (site_builder/model_facts.py head_names). Held to the cases of
tests/data/head-syntax-cases.json that tests/test_head_syntax.py holds the page and the package to.
(export names no heads in this syntax: --head-order is LAYER:H,H,H,H, export/checks.py.)"""

from __future__ import annotations

import json

import pytest

from conftest import ROOT
from site_builder import model_facts
from train.model import ModelConfig
from train.settings import TrainSettings

CASES = json.loads((ROOT / "tests" / "data" / "head-syntax-cases.json").read_text(encoding="utf-8"))
MODEL = ModelConfig(n_layer=CASES["model"]["n_layer"], n_head=CASES["model"]["n_head"])
IDS = [f"{n}: {c['why']}" for n, c in enumerate(CASES["cases"])]


@pytest.mark.parametrize("n", range(len(CASES["cases"])), ids=IDS)
@pytest.mark.parametrize("setting", ["synthetic_heads", "text_heads_off"])
def test_training_reads_each_head_setting_as_the_page_does(n, setting):
    case = CASES["cases"][n]
    # text_heads_off needs its share exactly when it names heads
    extra = {"text_heads_off_frac": 0.5} if setting == "text_heads_off" and case.get("heads") else {}
    if "heads" in case:
        args = TrainSettings.of(corpus="x", model=MODEL, **{setting: case["ablate"]}, **extra)
        assert args.curriculum.heads(setting, MODEL) == ([(layer - 1, head - 1) for layer, head in case["heads"]] or None)
    else:
        with pytest.raises(ValueError) as err:
            TrainSettings.of(corpus="x", model=MODEL, **{setting: case["ablate"]}, text_heads_off_frac=0.5)
        assert case["error"] in str(err.value) and "layer.head" in str(err.value)


@pytest.mark.parametrize("n", [n for n, c in enumerate(CASES["cases"]) if "heads" in c],
                         ids=[i for i, c in zip(IDS, CASES["cases"]) if "heads" in c])
def test_the_model_card_names_the_heads_training_read(n):
    case = CASES["cases"][n]
    assert model_facts.head_names(case["ablate"]) == ", ".join(f"L{lh[0]}H{lh[1]}" for lh in case["heads"])
