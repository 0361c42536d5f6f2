"""The attention lab's claims, measured from its reference data (examples/attention_demo.py's
reference_data()): examples/validate.py prints them, and the tests feed a deliberately broken
copy of the data and watch the matching check fail."""

from __future__ import annotations

import math

import numpy as np

try:  # imported as examples.lab_checks (the tests), or from its own folder (python examples/validate.py)
    from examples.attention_demo import cosine, finite_difference_jacobian, softmax
except ImportError:
    from attention_demo import cosine, finite_difference_jacobian, softmax


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
