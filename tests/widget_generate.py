"""Shared by the "Continue" tests (test_widget_generate*.py): the reference decoders in Python
(greedy, and sampler.js's documented sampling) on onnxruntime-python's logits, the module's live
page put back to a plain view, and small page helpers."""

from __future__ import annotations

import math
from urllib.parse import parse_qs

import numpy as np
import pytest

from attention_live.sampler import mulberry32
from conftest import view_result
from helpers import SHADOW

# Picks are compared with Python only where no step is this close to a tie (top-2 logits, or a
# draw and a boundary between candidates over the total weight): float32 noise between two
# runtimes is far smaller, so the comparison cannot hinge on the machine's float path.
MARGIN = 1e-3


def greedy(reference, ids, n, head_mask=None):
    """Greedy decoding in onnxruntime-python: (ids, probabilities, smallest top-2 margin)."""
    out, probs, margins = [], [], []
    for _ in range(n):
        r = reference.run(ids + out, head_mask)
        z = r["logits"][-1].astype(np.float64)
        top = np.sort(z)[-2:]
        margins.append(top[1] - top[0])
        nxt = int(np.argmax(z))
        out.append(nxt)
        probs.append(float(r["probs"][-1][nxt]))
    return out, probs, min(margins)


def spec_sample(reference, ids, n, temperature, top_k, seed):
    """sampler.js's documented picks, in Python, on onnxruntime-python's logits: (ids, the
    smallest distance of a draw from a boundary between two candidates, over the total)."""
    out, margins = [], []
    for _ in range(n):
        z = reference.run(ids + out)["logits"][-1].astype(np.float64)
        uniform = mulberry32(seed)
        for _ in range(len(ids) + len(out)):  # position n of the window takes draw n
            uniform()
        u = uniform()
        order = sorted(range(len(z)), key=lambda i: (-z[i], i))[:top_k]
        weights = [math.exp((z[i] - z[order[0]]) / temperature) for i in order]
        total = 0.0
        for w in weights:
            total += w
        acc, cumulative = 0.0, []
        for w in weights:
            acc += w
            cumulative.append(acc)
        pick = next((i for i, c in zip(order, cumulative) if u * total < c), order[-1])
        margins.append(min(abs(c - u * total) for c in cumulative) / total)
        out.append(pick)
    return out, min(margins)


def open_options(page) -> None:
    """Opens the "Continue options" disclosure (tokens, temperature, top-k, seed), if closed;
    `page` may be a Page or a Frame."""
    more = page.locator("attention-view .gen-more")
    if more.get_attribute("aria-expanded") != "true":
        more.click()


@pytest.fixture
def page(reused_live_page):
    """The module's live page in its default view (conftest reused_live_page), with the Continue
    controls at their defaults, their options open, and a count of the view's `generate` change
    events."""
    open_options(reused_live_page)
    reused_live_page.evaluate(
        """() => {
          const el = document.querySelector("attention-view");
          el.shadowRoot.querySelector(".gen-input[data-setting=maxTokens]").value = "20";
          window.__gen = { count: 0, typedAt: null };
          if (!window.__genListener) {
            window.__genListener = true;
            el.addEventListener("change", (e) => { if (e.detail.action === "generate") window.__gen.count++; });
          }
        }"""
    )
    return reused_live_page


def set_text(page, text):
    page.evaluate("(t) => { document.querySelector('attention-view').text = t; }", text)
    return view_result(page)


def generate(page, options):
    """`el.generate(options)`: {"ok": result} or {"error": [name, message]}, plus what the view shows."""
    return page.evaluate(
        """async (options) => {
          const el = document.querySelector("attention-view");
          try {
            const res = await el.generate(options);
            return { ok: res, shown: el.result.tokens.map((t) => t.id), text: el.text };
          } catch (err) {
            return { error: [err.name, err.message], shown: el.result.tokens.map((t) => t.id), text: el.text };
          }
        }""",
        options,
    )


def shadow(page, js):
    return page.evaluate(f"() => {{ const s = {SHADOW}; return {js}; }}")


def ids_of(result):
    return [t["id"] for t in result["tokens"]]


def hash_params(page):
    return parse_qs(page.evaluate("location.hash").lstrip("#"), keep_blank_values=True)
