"""Attention as soft lookup: a numpy-only lab in five sections.

Every random number comes from one generator, ``np.random.default_rng(seed)``,
drawn in a fixed order, so a seed pins every figure the chapter page shows.
``reference_data()`` returns those figures (and the inputs that produced them)
as plain JSON-ready data; the site build renders the page from it and the
JS-vs-Python test feeds the same inputs to ``static/lab/math.js``.

    python examples/attention_demo.py           # the five sections, as text
    python examples/attention_demo.py --json    # reference_data() as JSON
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

DEFAULT_SEED = 37
D_MODEL = 8
D_K = 4
VAR_WIDTHS = (4, 64, 256)
VAR_DRAWS = 10_000
SAT_WIDTH = 256
FD_STEP = 1e-5
LOOKUP_SHARPNESS = (3.0, 8.0)
# One tilted configuration, so the JS test also covers non-orthogonal keys.
LOOKUP_TILTED = (8.0, 0.5)
NOISE_SCALE = 0.5
TYPE_BUMP = 1.0
WEIGHT_SCALE = 0.5

# (name, type); the order is the row order of X everywhere.
ENTITIES = [
    ("okafor", "Professor"),
    ("lindqvist", "Professor"),
    ("amara", "Student"),
    ("jonas", "Student"),
    ("mei", "Student"),
    ("graphs24", "Paper"),
    ("sparse23", "Paper"),
    ("proofs22", "Paper"),
    ("northfield", "Institution"),
    ("harbortech", "Institution"),
    ("learning", "Topic"),
    ("logic", "Topic"),
    ("vision", "Topic"),
]
TYPES = ["Professor", "Student", "Paper", "Institution", "Topic"]
DEFAULT_QUERY = "okafor"


# ---------------------------------------------------------------- the math
def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    # Shifting by the max changes nothing mathematically but keeps exp() <= 1,
    # so the unscaled d_k = 256 logits cannot overflow.
    shifted = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def attention(X, Wq, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    raw = Q @ K.T
    scaled = raw / math.sqrt(Wq.shape[1])
    A = softmax(scaled, axis=1)
    return {"Q": Q, "K": K, "V": V, "raw": raw, "scaled": scaled, "A": A, "O": A @ V}


def top_k(row: np.ndarray, k: int) -> list[int]:
    # Stable sort so ties resolve to the lower index, as in the JS module.
    return [int(i) for i in np.argsort(-row, kind="stable")[:k]]


def softmax_jacobian(p: np.ndarray) -> np.ndarray:
    return np.diag(p) - np.outer(p, p)


def finite_difference_jacobian(z: np.ndarray, h: float = FD_STEP) -> np.ndarray:
    n = z.size
    J = np.empty((n, n))
    for j in range(n):
        step = np.zeros(n)
        step[j] = h
        J[:, j] = (softmax(z + step) - softmax(z - step)) / (2 * h)
    return J


def tilted_keys(rho: float, n: int = 4) -> np.ndarray:
    """n unit keys whose pairwise cosine is exactly rho (rho = 0 gives I_n).

    The rows of the symmetric square root of (1 - rho) I + rho 11^T have
    exactly that Gram matrix: a + b on the diagonal, b off it.
    """
    a = math.sqrt(1.0 - rho)
    b = (math.sqrt(1.0 + (n - 1) * rho) - a) / n
    return a * np.eye(n) + b * np.ones((n, n))


def cosine(u: np.ndarray, v: np.ndarray) -> float:
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def lookup(V: np.ndarray, c: float, rho: float = 0.0, slot: int = 2) -> dict:
    K = tilted_keys(rho, V.shape[0])
    logits = (c * K[slot]) @ K.T
    p = softmax(logits)
    o = p @ V
    n_other = V.shape[0] - 1
    return {
        "c": c,
        "rho": rho,
        "keys": K,
        "logits": logits,
        "p": p,
        "output": o,
        "p_slot": float(p[slot]),
        # Only exact for orthonormal keys, where the logits are (0, 0, c, 0).
        "closed_form": math.exp(c) / (math.exp(c) + n_other),
        "cos": cosine(o, V[slot]),
    }


def required_sharpness(rho: float, target: float = 0.99, n: int = 4) -> float:
    """The c at which the target slot reaches `target` when the other n - 1
    keys sit at cosine rho: p = 1 / (1 + (n - 1) e^{-c (1 - rho)})."""
    if rho >= 1:
        return math.inf
    return math.log((n - 1) * target / (1 - target)) / (1 - rho)


# ------------------------------------------------------ the seeded experiment
def build_world(rng: np.random.Generator) -> np.ndarray:
    X = NOISE_SCALE * rng.normal(size=(len(ENTITIES), D_MODEL))
    for i, (_, kind) in enumerate(ENTITIES):
        t = TYPES.index(kind)
        # Two dimensions per type (t and t + 3) so same-type rows share a
        # direction the projections can pick up; neighbouring types overlap.
        X[i, t] += TYPE_BUMP
        X[i, t + 3] += TYPE_BUMP
    return X


def projections(rng: np.random.Generator, width: int = D_K):
    # A row of X has squared norm about 4 (noise 8 * 0.25 plus two bumps of 1),
    # so weights of std 0.5 give q and k components of roughly unit variance:
    # scaled logits then spread by about 1, a row that is neither flat nor
    # one-hot. The usual 1/sqrt(d) = 0.35 makes an untrained row nearly flat.
    return tuple(WEIGHT_SCALE * rng.normal(size=(D_MODEL, width)) for _ in range(3))


def reference_data(seed: int = DEFAULT_SEED) -> dict:
    """Every input and output the chapter page needs, as JSON-ready lists."""
    rng = np.random.default_rng(seed)
    names = [n for n, _ in ENTITIES]
    query = names.index(DEFAULT_QUERY)

    # [1] one head on the academic world
    X = build_world(rng)
    Wq, Wk, Wv = projections(rng)
    head = attention(X, Wq, Wk, Wv)
    row_sum_err = float(np.max(np.abs(head["A"].sum(axis=1) - 1.0)))

    # [2] variance of q.k, then saturation of 13 keys at d_k = 256
    variance = []
    for d in VAR_WIDTHS:
        q = rng.normal(size=(VAR_DRAWS, d))
        k = rng.normal(size=(VAR_DRAWS, d))
        var = float(((q * k).sum(axis=1)).var())
        variance.append({"d_k": d, "var": var, "ratio": var / d})
    sat_q = rng.normal(size=SAT_WIDTH)
    sat_K = rng.normal(size=(len(ENTITIES), SAT_WIDTH))
    sat_logits = sat_K @ sat_q
    p_unscaled = softmax(sat_logits)
    p_scaled = softmax(sat_logits / math.sqrt(SAT_WIDTH))

    # [3] softmax Jacobian, analytic vs central differences
    z = rng.normal(size=5)
    p = softmax(z)
    J = softmax_jacobian(p)
    J_fd = finite_difference_jacobian(z)

    # [4] retrieval limit: orthonormal keys, q = c * k_2
    V_lookup = rng.normal(size=(4, 4))
    cases = [lookup(V_lookup, c) for c in LOOKUP_SHARPNESS]
    tilted = lookup(V_lookup, *LOOKUP_TILTED)

    # [5] two heads of width 4, concatenated, mixed by W_o
    heads = []
    for _ in range(2):
        hq, hk, hv = projections(rng)
        out = attention(X, hq, hk, hv)
        heads.append({"Wq": hq, "Wk": hk, "Wv": hv, "A": out["A"], "O": out["O"],
                      "top1": [top_k(r, 1)[0] for r in out["A"]]})
    concat = np.concatenate([h["O"] for h in heads], axis=1)
    Wo = rng.normal(size=(D_MODEL, D_MODEL)) / math.sqrt(D_MODEL)
    mixed = concat @ Wo

    data = {
        "seed": seed,
        "d_model": D_MODEL,
        "d_k": D_K,
        "names": names,
        "types": [t for _, t in ENTITIES],
        "type_list": TYPES,
        "weight_scale": WEIGHT_SCALE,
        "default_query": query,
        "X": X,
        "Wq": Wq, "Wk": Wk, "Wv": Wv,
        "section1": {
            **{k: head[k] for k in ("Q", "K", "V", "raw", "scaled", "A", "O")},
            "top3": [top_k(r, 3) for r in head["A"]],
            "max_row_sum_error": row_sum_err,
        },
        "section2": {
            "draws": VAR_DRAWS,
            "variance": variance,
            "saturation": {
                "d_k": SAT_WIDTH,
                "logits": sat_logits,
                "p_unscaled": p_unscaled,
                "p_scaled": p_scaled,
                "max_unscaled": float(p_unscaled.max()),
                "max_scaled": float(p_scaled.max()),
            },
        },
        "section3": {
            "z": z, "p": p, "J": J, "J_fd": J_fd, "h": FD_STEP,
            "max_diff": float(np.max(np.abs(J - J_fd))),
            "max_abs_entry": float(np.max(np.abs(J))),
        },
        "section4": {"V": V_lookup, "slot": 2, "cases": cases, "tilted": tilted,
                     "needed_c": required_sharpness(0.0)},
        "section5": {
            "heads": heads,
            "Wo": Wo,
            "concat": concat,
            "out": mixed,
            "shapes": {"X": list(X.shape), "head_out": list(heads[0]["O"].shape),
                       "concat": list(concat.shape), "Wo": list(Wo.shape),
                       "out": list(mixed.shape)},
        },
    }
    return _plain(data)


def _plain(obj):
    """numpy -> lists/floats, recursively, so json.dumps and jinja's tojson work."""
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--query", choices=[n for n, _ in ENTITIES], default=DEFAULT_QUERY)
    ap.add_argument("--json", action="store_true", help="dump reference_data() as JSON")
    args = ap.parse_args(argv)
    # Run as a script, this file's folder is first on the import path (its neighbours import it).
    from lab_checks import checks
    from lab_report import report

    data = reference_data(args.seed)
    if args.json:
        print(json.dumps(data))
        return 0
    print(report(data, data["names"].index(args.query)))
    failed = [c for c in checks(data) if not c["passed"]]
    for c in failed:
        print(f"FAILED: {c['name']}: {c['measured']} (want {c['bound']})")
    assert not failed, f"{len(failed)} check(s) failed"
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
