"""The attention lab's five sections as text, from its reference data (what
`python examples/attention_demo.py` prints)."""

from __future__ import annotations


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
