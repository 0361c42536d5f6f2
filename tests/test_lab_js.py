"""static/lab/math.js and examples/attention_demo.py agree on the same inputs.

The Python reference's inputs (X, the weights, the logits, the stored values)
go to Node as JSON; math.js recomputes every section and the outputs are
compared entry by entry. The generators differ on purpose, so random draws are
never compared: only deterministic functions of shared inputs.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from examples import attention_demo as demo
from helpers import ROOT

TOL = 1e-9
MATH_JS = ROOT / "static" / "lab" / "math.js"
RNG_JS = ROOT / "static" / "shared" / "rng.js"

# Runs in Node; argv[1] is math.js's file URL, the inputs arrive on stdin.
NODE_SCRIPT = r"""
const lab = await import(process.argv[1]);
let text = "";
for await (const chunk of process.stdin) text += chunk;
const d = JSON.parse(text);
const s1 = lab.attention(d.X, d.Wq, d.Wk, d.Wv);
const s3 = lab.jacobianPanel(d.section3.z, 1, d.section3.h);
const hot = lab.jacobianPanel(d.section3.z, d.extra.temperature, d.section3.h);
const cases = d.section4.cases.map((c) => lab.lookup(d.section4.V, c.c, c.rho));
const t = d.section4.tilted;
const mh = lab.multiHead(d.X, d.section5.heads, d.section5.Wo);
console.log(JSON.stringify({
  s1: { ...s1, top3: s1.A.map((r) => lab.topK(r, 3)), rowSumError: lab.rowSumError(s1.A) },
  sat: lab.saturation(d.section2.saturation.logits, d.section2.saturation.d_k),
  variance: lab.sampleVariance(d.extra.samples),
  s3, hot,
  cases, tilted: lab.lookup(d.section4.V, t.c, t.rho),
  required: d.extra.rhos.map((r) => lab.requiredSharpness(r)),
  mh: { ...mh, shapes: [lab.shape(mh.concat), lab.shape(mh.out)] },
}));
"""



@pytest.fixture(scope="module")
def ref():
    data = demo.reference_data()
    rng = np.random.default_rng(123)
    data["extra"] = {
        "samples": (rng.normal(size=2000) * 16.0 + 3.0).tolist(),
        "temperature": 0.15,
        "rhos": [0.0, 0.5, 0.9],
    }
    return data


@pytest.fixture(scope="module")
def js(ref):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH; the JS-vs-Python test needs Node 20")
    proc = subprocess.run(
        [node, "--input-type=module", "-e", NODE_SCRIPT, "--", MATH_JS.as_uri()],
        input=json.dumps(ref), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def close(a, b, tol=TOL):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    diff = float(np.max(np.abs(a - b))) if a.size else 0.0
    assert diff <= tol, f"max |js - py| = {diff:.3e}"
    return diff


def test_node_is_20_or_newer():
    out = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout
    assert int(out.strip().lstrip("v").split(".")[0]) >= 20, out


def test_section1_one_head_agrees(ref, js):
    s1 = ref["section1"]
    for key in ("Q", "K", "V", "raw", "scaled", "A", "O"):
        close(js["s1"][key], s1[key])
    assert js["s1"]["top3"] == s1["top3"]
    assert js["s1"]["rowSumError"] < 1e-12


def test_section2_variance_and_saturation_agree(ref, js):
    close([js["variance"]], [float(np.var(ref["extra"]["samples"]))])
    sat = ref["section2"]["saturation"]
    close(js["sat"]["pUnscaled"], sat["p_unscaled"])
    close(js["sat"]["pScaled"], sat["p_scaled"])
    close([js["sat"]["maxUnscaled"], js["sat"]["maxScaled"]],
          [sat["max_unscaled"], sat["max_scaled"]])


def test_section3_jacobian_agrees(ref, js):
    s3 = ref["section3"]
    close(js["s3"]["p"], s3["p"])
    close(js["s3"]["J"], s3["J"])
    # Finite differences divide rounding noise by 2h, so JS and numpy may
    # differ around 1e-11 here; both still sit far inside the 1e-6 gate.
    close(js["s3"]["Jfd"], s3["J_fd"], tol=1e-9)
    assert js["s3"]["maxDiff"] < 1e-6
    close([js["s3"]["maxEntry"]], [s3["max_abs_entry"]])


def test_section3_temperature_matches_python_softmax(ref, js):
    T = ref["extra"]["temperature"]
    p = demo.softmax(np.asarray(ref["section3"]["z"]) / T)
    close(js["hot"]["p"], p)
    close(js["hot"]["J"], demo.softmax_jacobian(p))
    # Colder softmax, smaller Jacobian: the saturation claim the page makes.
    assert js["hot"]["maxEntry"] < ref["section3"]["max_abs_entry"]


def test_section4_retrieval_agrees(ref, js):
    s4 = ref["section4"]
    for got, want in zip(js["cases"] + [js["tilted"]], s4["cases"] + [s4["tilted"]]):
        close(got["keys"], want["keys"])
        close(got["p"], want["p"])
        close(got["output"], want["output"])
        close([got["pSlot"], got["closedForm"], got["cos"]],
              [want["p_slot"], want["closed_form"], want["cos"]])
    by_c = {c["c"]: c for c in js["cases"]}
    assert round(by_c[3.0]["pSlot"], 4) == 0.8700
    assert round(by_c[8.0]["pSlot"], 4) == 0.9990
    assert by_c[8.0]["cos"] >= 0.99


def test_required_sharpness_formula(ref, js):
    for rho, c in zip(ref["extra"]["rhos"], js["required"]):
        res = demo.lookup(np.asarray(ref["section4"]["V"]), c, rho)
        assert math.isclose(res["p_slot"], 0.99, abs_tol=1e-12), (rho, res["p_slot"])


def test_section5_multi_head_agrees(ref, js):
    s5 = ref["section5"]
    for got, want in zip(js["mh"]["heads"], s5["heads"]):
        close(got["A"], want["A"])
        close(got["O"], want["O"])
        assert got["top1"] == want["top1"]
    close(js["mh"]["concat"], s5["concat"])
    close(js["mh"]["out"], s5["out"])
    assert js["mh"]["shapes"] == [[13, 8], [13, 8]]


def test_rng_is_seeded_and_roughly_normal():
    script = (
        "const { seededNormal } = await import(process.argv[1]);"
        "const a = seededNormal(42), b = seededNormal(42);"
        "const xs = Array.from({ length: 20000 }, a);"
        "const ys = Array.from({ length: 20000 }, b);"
        "console.log(JSON.stringify({ same: xs.every((x, i) => x === ys[i]), xs }));"
    )
    proc = subprocess.run(["node", "--input-type=module", "-e", script, "--", RNG_JS.as_uri()],
                          capture_output=True, text=True, check=True, timeout=60)
    out = json.loads(proc.stdout)
    assert out["same"]
    xs = np.asarray(out["xs"])
    assert abs(xs.mean()) < 0.03 and abs(xs.var() - 1) < 0.05
