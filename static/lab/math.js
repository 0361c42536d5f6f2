// The lab's arithmetic, mirroring examples/attention_demo.py line for line in
// meaning. No DOM and no globals: tests/test_lab_js.py runs this file under
// Node on the Python reference's inputs and compares the outputs to 1e-9.
// Matrices are arrays of row arrays; vectors are plain arrays of numbers.

export function dot(u, v) {
  let s = 0;
  for (let i = 0; i < u.length; i++) s += u[i] * v[i];
  return s;
}

export function transpose(A) {
  return A[0].map((_, j) => A.map((row) => row[j]));
}

export function matmul(A, B) {
  const Bt = transpose(B);
  return A.map((row) => Bt.map((col) => dot(row, col)));
}

export function shape(M) {
  return [M.length, M[0].length];
}

// Subtracting the max keeps every exponent <= 0, so unscaled logits with a
// spread of tens of units (d_k = 256) still give finite probabilities.
export function softmax(z, temperature = 1) {
  const u = z.map((x) => x / temperature);
  const m = Math.max(...u);
  const e = u.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

export function attention(X, Wq, Wk, Wv) {
  const Q = matmul(X, Wq);
  const K = matmul(X, Wk);
  const V = matmul(X, Wv);
  const raw = matmul(Q, transpose(K));
  const root = Math.sqrt(Wq[0].length);
  const scaled = raw.map((row) => row.map((x) => x / root));
  const A = scaled.map((row) => softmax(row));
  return { Q, K, V, raw, scaled, A, O: matmul(A, V) };
}

// Indices of the k largest entries; ties go to the lower index, as numpy's
// stable argsort does in the reference.
export function topK(row, k) {
  return row
    .map((x, i) => [x, i])
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, k)
    .map(([, i]) => i);
}

export function rowSumError(A) {
  return Math.max(...A.map((row) => Math.abs(row.reduce((a, b) => a + b, 0) - 1)));
}

// J[i][j] = dp_i / du_j for p = softmax(u): diag(p) - p p^T.
export function softmaxJacobian(p) {
  return p.map((pi, i) => p.map((pj, j) => (i === j ? pi : 0) - pi * pj));
}

// Central differences in the softmax's own input u = z / temperature, the same
// variable the analytic Jacobian is taken in.
export function finiteDifferenceJacobian(u, h = 1e-5) {
  const n = u.length;
  const J = u.map(() => new Array(n).fill(0));
  for (let j = 0; j < n; j++) {
    const up = u.slice();
    const down = u.slice();
    up[j] += h;
    down[j] -= h;
    const pu = softmax(up);
    const pd = softmax(down);
    for (let i = 0; i < n; i++) J[i][j] = (pu[i] - pd[i]) / (2 * h);
  }
  return J;
}

export function maxAbs(M) {
  return Math.max(...M.flat().map(Math.abs));
}

export function maxAbsDiff(A, B) {
  const a = A.flat();
  const b = B.flat();
  return Math.max(...a.map((x, i) => Math.abs(x - b[i])));
}

export function jacobianPanel(z, temperature = 1, h = 1e-5) {
  const u = z.map((x) => x / temperature);
  const p = softmax(u);
  const J = softmaxJacobian(p);
  const Jfd = finiteDifferenceJacobian(u, h);
  return { u, p, J, Jfd, maxDiff: maxAbsDiff(J, Jfd), maxEntry: maxAbs(J), maxP: Math.max(...p) };
}

// numpy's var(): mean squared deviation from the mean (ddof = 0), two passes.
export function sampleVariance(xs) {
  let mean = 0;
  for (const x of xs) mean += x;
  mean /= xs.length;
  let s = 0;
  for (const x of xs) s += (x - mean) * (x - mean);
  return s / xs.length;
}

// `normal` is a function returning one standard normal draw per call.
export function dotVariance(dk, draws, normal) {
  const dots = new Float64Array(draws);
  for (let n = 0; n < draws; n++) {
    let s = 0;
    for (let i = 0; i < dk; i++) s += normal() * normal();
    dots[n] = s;
  }
  const variance = sampleVariance(dots);
  return { dk, draws, variance, ratio: variance / dk };
}

export function saturation(logits, dk) {
  const pUnscaled = softmax(logits);
  const pScaled = softmax(logits, Math.sqrt(dk));
  return {
    pUnscaled,
    pScaled,
    maxUnscaled: Math.max(...pUnscaled),
    maxScaled: Math.max(...pScaled),
  };
}

export function randomLogits(dk, nKeys, normal) {
  const q = Array.from({ length: dk }, normal);
  return Array.from({ length: nKeys }, () => dot(Array.from({ length: dk }, normal), q));
}

// n unit keys with pairwise cosine exactly rho: the rows of the symmetric
// square root of (1 - rho) I + rho 11^T. rho = 0 gives the identity.
export function tiltedKeys(rho, n = 4) {
  const a = Math.sqrt(1 - rho);
  const b = (Math.sqrt(1 + (n - 1) * rho) - a) / n;
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (i === j ? a : 0) + b),
  );
}

export function cosine(u, v) {
  return dot(u, v) / Math.sqrt(dot(u, u) * dot(v, v));
}

export function lookup(V, c, rho = 0, slot = 2) {
  const keys = tiltedKeys(rho, V.length);
  const q = keys[slot].map((x) => c * x);
  const logits = keys.map((k) => dot(q, k));
  const p = softmax(logits);
  const output = transpose(V).map((col) => dot(p, col));
  return {
    c,
    rho,
    keys,
    logits,
    p,
    output,
    pSlot: p[slot],
    closedForm: Math.exp(c) / (Math.exp(c) + (V.length - 1)),
    cos: cosine(output, V[slot]),
  };
}

// Sharpness c at which the target slot reaches probability `target` when the
// other n - 1 keys sit at cosine rho: p = 1 / (1 + (n-1) e^{-c(1-rho)}).
export function requiredSharpness(rho, target = 0.99, n = 4) {
  if (rho >= 1) return Infinity;
  return Math.log(((n - 1) * target) / (1 - target)) / (1 - rho);
}

export function multiHead(X, heads, Wo) {
  const per = heads.map((h) => {
    const out = attention(X, h.Wq, h.Wk, h.Wv);
    return { A: out.A, O: out.O, top1: out.A.map((row) => topK(row, 1)[0]) };
  });
  const concat = X.map((_, i) => per.flatMap((h) => h.O[i]));
  const out = matmul(concat, Wo);
  return { heads: per, concat, out };
}
