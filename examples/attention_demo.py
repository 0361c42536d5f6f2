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


# ------------------------------------------------------------------ checks
def checks(data: dict) -> list[dict]:
    """The lab's claims as (name, measured figure, bound, passed) records.

    Measured from the data handed in, so validate.py and the tests can feed a
    deliberately broken copy and watch the matching check fail.
    """
    out = []

    def check(name, measured, bound, passed):
        out.append({"name": name, "measured": measured, "bound": bound, "passed": bool(passed)})

    A = np.asarray(data["section1"]["A"])
    err = float(np.max(np.abs(A.sum(axis=1) - 1.0)))
    check("every softmax row sums to 1", err, "< 1e-12", err < 1e-12)
    V = np.asarray(data["section1"]["V"])
    o_err = float(np.max(np.abs(np.asarray(data["section1"]["O"]) - A @ V)))
    check("output rows are A @ V", o_err, "< 1e-12", o_err < 1e-12)

    for row in data["section2"]["variance"]:
        dev = abs(row["ratio"] - 1.0)
        check(f"Var(q.k) at d_k={row['d_k']} within 3% of d_k", row["var"],
              f"{0.97 * row['d_k']:.2f}..{1.03 * row['d_k']:.2f}", dev <= 0.03)
    sat = data["section2"]["saturation"]
    check("d_k=256, 13 keys: unscaled softmax saturates (max p)", sat["max_unscaled"],
          "> 0.9", sat["max_unscaled"] > 0.9)
    check("d_k=256, 13 keys: scaled softmax stays soft (max p)", sat["max_scaled"],
          "< 0.5", sat["max_scaled"] < 0.5)

    s3 = data["section3"]
    z = np.asarray(s3["z"])
    diff = float(np.max(np.abs(np.asarray(s3["J"]) - finite_difference_jacobian(z, s3["h"]))))
    check("softmax Jacobian vs central differences (max diff)", diff, "< 1e-6", diff < 1e-6)

    s4 = data["section4"]
    V4 = np.asarray(s4["V"])
    for case in s4["cases"]:
        c, slot = case["c"], s4["slot"]
        K = np.asarray(case["keys"])
        p = softmax((c * K[slot]) @ K.T)
        exact = math.exp(c) / (math.exp(c) + 3)
        gap = abs(float(p[slot]) - exact)
        check(f"c={c:g}: p(slot 2) = e^c/(e^c+3) = {exact:.4f}", float(p[slot]),
              "gap < 1e-12", gap < 1e-12)
        if c >= 8:
            cos = cosine(p @ V4, V4[slot])
            check(f"c={c:g}: cos(output, v_2)", cos, ">= 0.99", cos >= 0.99)

    s5 = data["section5"]
    shape = list(np.asarray(s5["concat"]).shape), list(np.asarray(s5["out"]).shape)
    check("multi-head concat and W_o output shapes", f"{shape[0]} -> {shape[1]}",
          "[13, 8] -> [13, 8]", shape == ([13, 8], [13, 8]))
    q = data["default_query"]
    tops = [data["names"][h["top1"][q]] for h in s5["heads"]]
    check(f"heads' top-1 keys for {data['names'][q]} differ", " vs ".join(tops),
          "different", tops[0] != tops[1])
    return out


# ---------------------------------------------------------------- printing
def _vec(v, fmt="{:.4f}"):
    return "[" + ", ".join(fmt.format(x) for x in v) + "]"


def report(data: dict, query: int | None = None) -> str:
    names, types = data["names"], data["types"]
    q = data["default_query"] if query is None else query
    s1 = data["section1"]
    lines = [f"seed {data['seed']}: 13 entities, d = {data['d_model']}, d_k = {data['d_k']}", ""]
    lines.append(f"[1] one head, query = {names[q]} ({types[q]})")
    lines.append(f"  {'key':<11} {'type':<12} {'q.k':>8} {'/sqrt(d_k)':>10} {'softmax':>8}")
    top = s1["top3"][q]
    for j in range(len(names)):
        mark = "  <- top-1" if j == top[0] else ""
        lines.append(f"  {names[j]:<11} {types[j]:<12} {s1['raw'][q][j]:8.4f} "
                     f"{s1['scaled'][q][j]:10.4f} {s1['A'][q][j]:8.4f}{mark}")
    lines.append("  top-3: " + ", ".join(f"{names[j]} {s1['A'][q][j]:.4f}" for j in top))
    lines.append(f"  output row O[{names[q]}] = {_vec(s1['O'][q])}")
    lines.append(f"  max |row sum - 1| over all 13 rows = {s1['max_row_sum_error']:.2e}")

    s2 = data["section2"]
    lines += ["", f"[2] why sqrt(d_k): Var(q.k) over {s2['draws']:,} draws of unit normals"]
    for row in s2["variance"]:
        lines.append(f"  d_k = {row['d_k']:>3}: var = {row['var']:9.4f}   ratio to d_k = "
                     f"{row['ratio']:.4f}")
    sat = s2["saturation"]
    lines.append(f"  13 keys at d_k = {sat['d_k']}: max softmax p = {sat['max_unscaled']:.4f} "
                 f"unscaled, {sat['max_scaled']:.4f} scaled by 1/sqrt(d_k)")

    s3 = data["section3"]
    lines += ["", "[3] softmax Jacobian J = diag(p) - p p^T vs central differences"]
    lines.append(f"  z = {_vec(s3['z'])}")
    lines.append(f"  p = {_vec(s3['p'])}")
    for i, row in enumerate(s3["J"]):
        lines.append(f"  J[{i}] = {_vec(row, '{:+.5f}')}")
    lines.append(f"  max |J - finite difference (h={s3['h']:g})| = {s3['max_diff']:.2e}")

    s4 = data["section4"]
    lines += ["", "[4] retrieval limit: keys = I_4, q = c * k_2"]
    for case in s4["cases"]:
        lines.append(f"  c = {case['c']:g}: p = {_vec(case['p'])}  p(slot 2) = "
                     f"{case['p_slot']:.4f} (e^c/(e^c+3) = {case['closed_form']:.4f})  "
                     f"cos(o, v_2) = {case['cos']:.4f}")
    t = s4["tilted"]
    lines.append(f"  keys tilted to pairwise cos {t['rho']:g}, c = {t['c']:g}: "
                 f"p(slot 2) = {t['p_slot']:.4f}, cos(o, v_2) = {t['cos']:.4f}")

    s5 = data["section5"]
    sh = s5["shapes"]
    lines += ["", "[5] two heads of width 4, concatenated, mixed by W_o"]
    lines.append(f"  X {tuple(sh['X'])} -> each head O {tuple(sh['head_out'])} -> concat "
                 f"{tuple(sh['concat'])} @ W_o {tuple(sh['Wo'])} -> {tuple(sh['out'])}")
    tops = [names[h["top1"][q]] for h in s5["heads"]]
    lines.append(f"  top-1 key for {names[q]}: head 1 -> {tops[0]}, head 2 -> {tops[1]}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--query", choices=[n for n, _ in ENTITIES], default=DEFAULT_QUERY)
    ap.add_argument("--json", action="store_true", help="dump reference_data() as JSON")
    args = ap.parse_args(argv)
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
