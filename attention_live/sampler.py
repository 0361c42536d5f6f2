"""The page's sampler (static/attention-view/model/sampler.js) in Python, operation for operation:
mulberry32 draws in 32-bit integers (each an exact k / 2^32), and each pick computed in float64
from float32 logits, candidates by logit descending then lower id, sums in that order. Given
the same logits it picks the page's tokens; the logits come from onnxruntime here and from
onnxruntime-web there, which may differ in the last bits, so a sampled pick can only differ
where a draw lands that close to a boundary between two candidates."""

from __future__ import annotations

import math

import numpy as np

M32 = 0xFFFFFFFF
MAX_SEED = M32


def _imul(a: int, b: int) -> int:
    return (a * b) & M32


def mulberry32(seed: int):
    """static/shared/rng.js: a seeded stream of uniform draws in [0, 1)."""
    a = seed & M32

    def uniform() -> float:
        nonlocal a
        a = (a + 0x6D2B79F5) & M32
        t = a
        t = _imul(t ^ (t >> 15), t | 1)
        t ^= (t + _imul(t ^ (t >> 7), t | 61)) & M32
        return ((t ^ (t >> 14)) & M32) / 4294967296

    return uniform


def uniform_at(seed: int, n: int) -> float:
    """Draw number n (0-based) of the seed's stream: the page picks the token at position n with it."""
    uniform = mulberry32(seed)
    for _ in range(n):
        uniform()
    return uniform()


def candidates(logits, k: int) -> list[int]:
    """The ids of the k largest logits, largest first, ties by lower id."""
    z = np.asarray(logits, dtype=np.float64)
    order = np.lexsort((np.arange(len(z)), -z))  # by -logit, then by id
    return [int(i) for i in order[:k]]


def plain_p(logits, token: int) -> float:
    """The token's probability under the plain softmax of every logit (what the model gave it)."""
    z = np.asarray(logits, dtype=np.float64)
    w = np.exp(z - z.max())
    return float(w[token] / w.sum())


def pick(logits, temperature: float, top_k: int, u: float | None) -> int:
    """sampler.js sampleNext: temperature 0 is the first maximum (no draw); otherwise the first
    of the top-k candidates whose running sum of exp((z - max) / temperature) exceeds u x the total."""
    return pick_with_margin(logits, temperature, top_k, u)[0]


def pick_with_margin(logits, temperature: float, top_k: int, u: float | None) -> tuple[int, float | None]:
    """pick(), and how close the draw came to a boundary between two candidates, as a share of
    the total weight (None at temperature 0): two runtimes may pick differently only where it is tiny."""
    z = [float(x) for x in logits]
    best = max(range(len(z)), key=lambda i: (z[i], -i))
    if temperature == 0:
        return best, None
    order = candidates(z, min(top_k, len(z)))
    weights = [math.exp((z[i] - z[best]) / temperature) for i in order]
    total = 0.0
    for w in weights:
        total += w
    target = u * total
    acc, margin = 0.0, math.inf
    for i, w in zip(order, weights):
        acc += w
        margin = min(margin, abs(acc - target) / total)
        if target < acc:
            return i, margin
    # Only rounding gets here (the target within an ulp of the total): the last weighted candidate.
    j = len(order) - 1
    while j > 0 and weights[j] == 0:
        j -= 1
    return order[j], margin
