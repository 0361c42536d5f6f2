"""The position schemes are one list in the trainer and on the page: each scheme of
tests/data/position-cases.json is accepted by train/model.py ModelConfig exactly when the page's
meta.json check (static/attention-view/model/meta-check.js) accepts it, and what export writes
for a model of each scheme (export/__main__.py positions_meta) is what the page reads
(readouts/positions.js positionScheme: the scheme, and for ALiBi each head's slope)."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, run_node
from train.model import ModelConfig

CASES = json.loads((ROOT / "tests" / "data" / "position-cases.json").read_text(encoding="utf-8"))
L, H = CASES["model"]["n_layer"], CASES["model"]["n_head"]
SCHEMES = CASES["schemes"]
SMALL = {"vocab_size": 97, "n_ctx": 32, "n_layer": L, "n_head": H, "d_model": 16, "d_ff": 32, "dropout": 0.0}

PAGE_JS = """
import { readFileSync } from "node:fs";
const { checkMeta } = await import(process.cwd() + "/static/attention-view/model/meta-check.js");
const { positionScheme } = await import(process.cwd() + "/static/attention-view/readouts/positions.js");
const { config, blocks } = JSON.parse(readFileSync(0, "utf8"));
// A whole meta.json (the shipped one, whose every other field the check accepts) with only the
// config and the positions record replaced: the check then speaks of the positions alone.
const base = JSON.parse(readFileSync(process.cwd() + "/static/model/meta.json", "utf8"));
const read = (positions) => {
  const meta = { ...base, config: { ...base.config, ...config }, positions };
  try { checkMeta(meta); } catch (err) { return { error: String(err.message) }; }
  const p = positionScheme(meta);
  const slopes = [];
  for (let l = 1; l <= config.n_layer; l++) for (let h = 1; h <= config.n_head; h++) if (p.scheme === "alibi") slopes.push(p.slope(l, h));
  return { scheme: p.scheme, slopes };
};
process.stdout.write(JSON.stringify(blocks.map(read)));
"""
CONFIG = {"n_layer": L, "n_head": H, "n_ctx": 32, "vocab_size": 97, "d_model": 16, "d_head": 4}


def page_reads(blocks: list[dict]) -> list[dict]:
    return run_node(PAGE_JS, {"config": CONFIG, "blocks": blocks})


@pytest.fixture(scope="module")
def page_schemes():
    ones = [[1.0] * H for _ in range(L)]
    return page_reads([{"scheme": c["scheme"], "slopes": ones} for c in SCHEMES])


@pytest.mark.parametrize("n", range(len(SCHEMES)), ids=[c["why"] for c in SCHEMES])
def test_the_page_and_the_trainer_accept_the_same_schemes(page_schemes, n):
    case = SCHEMES[n]
    if case["ok"]:
        assert page_schemes[n]["scheme"] == case["scheme"]
        assert ModelConfig(**SMALL, positions=case["scheme"]).positions == case["scheme"]
    else:
        assert "positions.scheme" in page_schemes[n]["error"]
        with pytest.raises(ValueError, match="positions="):
            ModelConfig(**SMALL, positions=case["scheme"])


def test_the_page_reads_what_export_writes_for_each_scheme():
    from export.__main__ import positions_meta
    from train.model import TinyTransformer

    accepted = [c["scheme"] for c in SCHEMES if c["ok"]]
    # With ALiBi: layer 1's slopes scaled, and layer 2's own list, its two last heads equally flat.
    standard = [2.0 ** (-8.0 * (h + 1) / H) for h in range(H)]
    flat_twice = standard[:-2] + standard[-1:] * 2
    alibi = {"layer1_slope_scale": 4.0, "layer2_slopes": ",".join(map(str, flat_twice))}
    models = [TinyTransformer(ModelConfig(**SMALL, positions=s, **(alibi if s == "alibi" else {}))) for s in accepted]
    written = [json.loads(json.dumps(positions_meta(m))) for m in models]
    for scheme, model, read in zip(accepted, models, page_reads(written)):
        assert read.get("scheme") == scheme, read
        if scheme == "alibi":
            want = [float(s) for b in model.blocks for s in b.attn.alibi_slopes]
            assert read["slopes"] == pytest.approx(want, abs=1e-8)
            assert read["slopes"][0] == pytest.approx(4 * standard[0], abs=1e-8)  # layer 1's, scaled
            assert read["slopes"][H:2 * H] == pytest.approx(flat_twice, abs=1e-8)  # layer 2's, as listed
            assert read["slopes"][2 * H - 2] == read["slopes"][2 * H - 1]
