"""static/attention-view/model/sampler.js under Node: the seeded stream is integer arithmetic (a Python
re-implementation, attention_live.sampler, gives the very same draws), the picks follow the documented order of
operations (the same spec written in Python picks the same tokens from the same float32 logits),
and every bad setting gets its one clear message. The browser tests cover generation itself."""

from __future__ import annotations

import numpy as np
import pytest

from attention_live.sampler import mulberry32
from attention_live.sampler import pick_with_margin as pick
from conftest import run_node

M32 = 0xFFFFFFFF

SAMPLER_JS = """
import { readFileSync } from "node:fs";
const S = await import(process.cwd() + "/static/attention-view/model/sampler.js");
const d = JSON.parse(readFileSync(0, "utf8"));
const out = {};
out.streams = d.seeds.map((seed) => { const u = S.uniformStream(seed); return Array.from({ length: 50 }, u); });
out.at = d.seeds.map((seed) => [0, 1, 17, 127].map((n) => S.uniformAt(seed, n)));
out.picks = d.cases.map((c) => {
  const draws = [];
  const pick = S.sampleNext(c.logits, c.settings, () => { const u = S.uniformAt(c.seed, c.n); draws.push(u); return u; });
  return { ...pick, draws: draws.length };
});
out.errors = d.bad.map(([name, value]) => {
  try { S.checkSetting(name, value); return null; } catch (err) { return [err.name, err.message]; }
});
out.top = d.cases.map((c) => [1, 3, 40, c.logits.length].map((k) => S.topIds(c.logits, k)));
out.defaults = S.checkSettings({});
out.strings = S.checkSettings({ maxTokens: "5", temperature: " 0.5 ", topK: "3", seed: "4294967295" });
process.stdout.write(JSON.stringify(out));
"""


BAD = [
    ("temperature", -1), ("temperature", -0.001), ("temperature", "abc"), ("temperature", "NaN"),
    ("temperature", "Infinity"), ("temperature", "1e999"),
    ("topK", 0), ("topK", -3), ("topK", 2.5), ("topK", "ten"),
    ("seed", 1.5), ("seed", -1), ("seed", 2**32), ("seed", "0x10"), ("seed", "seven"),
    ("maxTokens", 0), ("maxTokens", -5), ("maxTokens", 1.5),
]


@pytest.fixture(scope="module")
def js():
    rng = np.random.default_rng(5)
    cases = []
    for n in range(120):
        V = int(rng.integers(2, 300))
        logits = (rng.normal(size=V) * rng.uniform(0.5, 6)).astype(np.float32)
        if n % 10 == 0:
            logits[: V // 3] = logits.max()  # ties: the lower id goes first
        temperature = [0, 0.3, 0.8, 1, 1.7, 1e-6][n % 6]
        top_k = [1, 2, 5, 40, 10**6][n % 5]
        cases.append({"logits": [float(x) for x in logits], "settings": {"temperature": temperature, "topK": top_k},
                      "seed": int(rng.integers(0, 2**32)), "n": int(rng.integers(0, 128))})
    payload = {"seeds": [0, 1, 7, 123456789, M32], "cases": cases, "bad": BAD}
    return payload, run_node(SAMPLER_JS, payload)


def test_the_stream_is_integer_arithmetic_the_same_in_python(js):
    payload, out = js
    for seed, stream in zip(payload["seeds"], out["streams"]):
        u = mulberry32(seed)
        assert stream == [u() for _ in range(50)], seed  # exact: k / 2^32 for a 32-bit k
        assert all(0 <= x < 1 for x in stream)
    for seed, at in zip(payload["seeds"], out["at"]):
        u = mulberry32(seed)
        draws = [u() for _ in range(128)]
        assert at == [draws[n] for n in [0, 1, 17, 127]]


def test_picks_follow_the_specified_order_of_operations(js):
    payload, out = js
    checked = 0
    for c, got in zip(payload["cases"], out["picks"]):
        z = np.asarray(c["logits"], dtype=np.float64)
        t, k = c["settings"]["temperature"], c["settings"]["topK"]
        u = mulberry32(c["seed"])
        for _ in range(c["n"]):
            u()
        want, margin = pick(z, t, k, u())
        # p: the chosen token under the plain softmax of every logit.
        p = np.exp(z - z.max())
        assert got["p"] == pytest.approx(p[got["id"]] / p.sum(), rel=1e-12)
        assert got["draws"] == (0 if t == 0 else 1)
        if t == 0:
            assert got["id"] == int(np.argmax(z))  # first maximum: ties go to the lower id
        else:
            # Math.exp may differ from Python's in the last bit; only a draw that close to a
            # boundary could pick differently, and none of these is.
            assert margin > 1e-9, c
            assert got["id"] == want
            order = sorted(range(len(z)), key=lambda i: (-z[i], i))
            assert got["id"] in order[: min(k, len(z))]  # top-k
        checked += 1
    assert checked == len(payload["cases"])


def test_candidates_are_ordered_by_logit_then_id(js):
    payload, out = js
    for c, tops in zip(payload["cases"], out["top"]):
        z = c["logits"]
        order = sorted(range(len(z)), key=lambda i: (-z[i], i))
        for k, got in zip([1, 3, 40, len(z)], tops):
            assert got == order[:k]  # both the one-pass list (few candidates) and the sort


def test_top_k_1_and_a_tiny_temperature_pick_a_most_likely_token(js):
    payload, out = js
    seen = 0
    for c, got in zip(payload["cases"], out["picks"]):
        z = np.asarray(c["logits"])
        top = np.flatnonzero(z == z.max())
        if c["settings"]["topK"] == 1:
            assert got["id"] == top[0]  # the one candidate: the first maximum
            seen += 1
        elif c["settings"]["temperature"] == 1e-6:
            assert got["id"] in top
            seen += 1
    assert seen >= 30


def test_bad_settings_get_one_clear_message(js):
    _, out = js
    words = {"temperature": "Temperature must be a number, at least 0", "topK": "Top-k must be a whole number, at least 1",
             "seed": "The seed must be a whole number from 0 to 4294967295",
             "maxTokens": "The number of tokens must be a whole number, at least 1"}
    for (name, value), err in zip(BAD, out["errors"]):
        assert err is not None, (name, value)
        kind, message = err
        assert kind == "TypeError"
        assert message.startswith(words[name]), message
        assert message.endswith(".") and "not " in message


def test_defaults_and_attribute_strings(js):
    _, out = js
    assert out["defaults"] == {"maxTokens": 20, "temperature": 0.8, "topK": 40, "seed": 1}
    assert out["strings"] == {"maxTokens": 5, "temperature": 0.5, "topK": 3, "seed": M32}
