// @ts-check
// Read-outs of one model run (no DOM): rows and matrices for the three views, next-token
// probabilities, and the small helpers prose is written with (the view's own prose is in
// the panels). Nothing here computes attention; it only slices, averages or chains the
// `attention` output the ONNX graph returned.
//
// A run's outputs ("out") hold attention and scores as tensors (../model/attention.js) of
// shape [layer][head][query][key] (0-based indices in this module).

/**
 * What these read-outs use of a run's outputs (a result's, model/result.js outputsOf, has only these).
 * @typedef {Pick<import("../model/runs.js").Outputs, "T" | "H" | "attention">} Tensors
 */
/** @typedef {import("../state-type.js").State} State */

/** @type {WeakMap<Tensors, Record<string, unknown>>} */
const derived = new WeakMap(); // out -> {key: Float64Array}, so views are computed once per run

/** @template T @param {Tensors} out @param {string} key @param {() => T} make @returns {T} */
function cached(out, key, make) {
  let store = derived.get(out);
  if (!store) derived.set(out, (store = {}));
  if (!(key in store)) store[key] = make();
  return /** @type {T} */ (store[key]);
}

/**
 * The T x T attention matrix of one head (a view on the run's array, not a copy).
 * @param {Tensors} out @param {number} layer @param {number} head
 */
export function headMatrix(out, layer, head) {
  return out.attention.matrix(layer, head);
}

/**
 * Mean over the heads of one layer.
 * @param {Tensors} out @param {number} layer @returns {Float64Array}
 */
export function averageMatrix(out, layer) {
  return cached(out, `avg${layer}`, () => {
    const { T, H } = out;
    const m = new Float64Array(T * T);
    for (let h = 0; h < H; h++) {
      const a = headMatrix(out, layer, h);
      for (let i = 0; i < T * T; i++) m[i] += a[i] / H;
    }
    return m;
  });
}

/**
 * Attention rollout up to `layer` (Abnar & Zuidema, 2020): each layer's head-average mixed
 * half-and-half with the identity for the residual path, then chained by matrix products,
 * so row q estimates how much each input token flows into position q after that layer.
 * @param {Tensors} out @param {number} layer
 */
export function rolloutMatrix(out, layer) {
  return cached(out, `roll${layer}`, () => {
    const { T } = out;
    let acc = null;
    for (let l = 0; l <= layer; l++) {
      const avg = averageMatrix(out, l);
      const a = new Float64Array(T * T);
      for (let i = 0; i < T * T; i++) a[i] = 0.5 * avg[i];
      for (let i = 0; i < T; i++) a[i * T + i] += 0.5;
      if (acc === null) {
        acc = a;
        continue;
      }
      // next = a @ acc; both are lower-triangular, so k runs only over j..i.
      const next = new Float64Array(T * T);
      for (let i = 0; i < T; i++) {
        for (let k = 0; k <= i; k++) {
          const aik = a[i * T + k];
          if (aik === 0) continue;
          for (let j = 0; j <= k; j++) next[i * T + j] += aik * acc[k * T + j];
        }
      }
      acc = next;
    }
    // layer >= 0: the loop ran at least once
    return /** @type {Float64Array} */ (acc);
  });
}

/**
 * The matrix a view draws; `state` uses 1-based layer/head as users read them.
 * @param {Tensors} out @param {Pick<State, "layer" | "head" | "view">} state
 */
export function viewMatrix(out, state) {
  const layer = state.layer - 1;
  if (state.view === "average") return averageMatrix(out, layer);
  if (state.view === "rollout") return rolloutMatrix(out, layer);
  return headMatrix(out, layer, state.head - 1);
}

/**
 * Row `query` of the rollout through `layer`, without the full matrix: e_q·Â_layer·…·Â_0
 * is a vector times matrices, O(layers × T²) instead of O(T³) (it runs on every keystroke
 * for the small per-layer strips).
 * @param {Tensors} out @param {number} layer @param {number} query @returns {Float64Array}
 */
export function rolloutRow(out, layer, query) {
  return cached(out, `rollrow${layer}:${query}`, () => {
    const { T } = out;
    const { data } = out.attention;
    let v = new Float64Array(T);
    v[query] = 1;
    for (let l = layer; l >= 0; l--) {
      const next = new Float64Array(T);
      // v·Â = 0.5·v·avg + 0.5·v; avg is lower-triangular, so key j only sees rows i ≥ j.
      // Rows of the head-average are summed here from the heads' rows instead of reading a
      // cached T × T average: the strips ask for this on every keystroke, and building both
      // layers' averages (and their garbage) cost more than the rows v actually touches.
      for (let i = 0; i < T; i++) {
        const vi = v[i];
        if (vi === 0) continue;
        const w = (0.5 * vi) / out.H;
        for (let h = 0; h < out.H; h++) {
          const row = out.attention.offset(l, h, i);
          for (let j = 0; j <= i; j++) next[j] += w * data[row + j];
        }
        next[i] += 0.5 * vi;
      }
      v = next;
    }
    return v;
  });
}

/**
 * Row `query` of a layer's head-average, without the T × T average (see rolloutRow).
 * @param {Tensors} out @param {number} layer @param {number} query @returns {Float64Array}
 */
export function averageRow(out, layer, query) {
  return cached(out, `avgrow${layer}:${query}`, () => {
    const { T, H } = out;
    const r = new Float64Array(T);
    for (let h = 0; h < H; h++) {
      const at = out.attention.offset(layer, h, query);
      for (let j = 0; j <= query; j++) r[j] += out.attention.data[at + j] / H;
    }
    return r;
  });
}

/** @param {Tensors} out @param {Pick<State, "layer" | "head" | "view">} state @param {number} query */
export function viewRow(out, state, query) {
  if (state.view === "rollout") return rolloutRow(out, state.layer - 1, query);
  if (state.view === "average") return averageRow(out, state.layer - 1, query);
  return headRow(out, state.layer - 1, state.head - 1, query);
}

/** @param {Tensors} out @param {number} layer @param {number} head @param {number} query */
export function headRow(out, layer, head, query) {
  return out.attention.row(layer, head, query);
}

/**
 * @param {Pick<import("../model/runs.js").Outputs, "scores">} out @param {number} layer @param {number} head
 * @param {number} query
 */
export function scoreRow(out, layer, head, query) {
  return out.scores.row(layer, head, query);
}

/** The softmax of one position's logits as {max, sum}: token i's probability is
 * exp(row[i] − max) / sum, in float64 (the top 5 and the paired bars both read it this way).
 * @param {ArrayLike<number>} row
 */
export function softmaxOf(row) {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += Math.exp(row[i] - max);
  return { max, sum };
}

/**
 * Top-k next tokens from one position's logits (`row`, V values): softmax in float64.
 * @param {ArrayLike<number>} row @param {number} [k]
 */
export function topFromLogits(row, k = 5) {
  const vocab = row.length;
  const { max, sum } = softmaxOf(row);
  /** @type {{id: number, v: number}[]} */
  const best = []; // small insertion-sorted list; vocab is a few thousand
  for (let i = 0; i < vocab; i++) {
    const v = row[i];
    if (best.length === k && v <= best[k - 1].v) continue;
    let j = best.length < k ? best.length : k - 1;
    best[j] = { id: i, v };
    while (j > 0 && best[j - 1].v < v) {
      [best[j - 1], best[j]] = [best[j], best[j - 1]];
      j--;
    }
  }
  return best.map(({ id, v }) => ({ id, p: Math.exp(v - max) / sum }));
}

/**
 * Sum of the first `count` entries in float64.
 * @param {ArrayLike<number>} row @param {number} [count]
 */
export function rowSum(row, count = row.length) {
  let s = 0;
  for (let i = 0; i < count; i++) s += row[i];
  return s;
}

/**
 * Indices of the keys 0..query, heaviest first.
 * @param {ArrayLike<number>} row @param {number} query
 */
export function ranked(row, query) {
  const idx = Array.from({ length: query + 1 }, (_, i) => i);
  return idx.sort((a, b) => row[b] - row[a] || a - b);
}

/**
 * Entropy of the row over its visible keys, as a fraction of the uniform maximum.
 * @param {ArrayLike<number>} row @param {number} query
 */
export function spread(row, query) {
  if (query === 0) return 0;
  let h = 0;
  for (let k = 0; k <= query; k++) if (row[k] > 0) h -= row[k] * Math.log(row[k]);
  return h / Math.log(query + 1);
}

/** @param {number} w */
export function percent(w) {
  return `${(100 * w).toFixed(1)}%`;
}

/**
 * Whole percent, with "<1%" for a weight that is there but rounds to nothing.
 * @param {number} w
 */
export function wholePercent(w) {
  return w > 0 && w < 0.005 ? "<1%" : `${Math.round(100 * w)}%`;
}

/**
 * An English ordinal: 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st, 22nd.
 * @param {number} n
 */
export function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** @type {Record<State["view"], (s: Pick<State, "layer" | "head">) => string>} */
const VIEW_NAMES = {
  head: (s) => `Layer ${s.layer}, head ${s.head}`,
  average: (s) => `The average of layer ${s.layer}'s heads`,
  rollout: (s) => `Attention rollout through layer ${s.layer}`,
};

/** @param {Pick<State, "layer" | "head" | "view">} state */
export function viewName(state) {
  return VIEW_NAMES[state.view](state);
}

/**
 * The heaviest key of a row as "«Alice» 43%", for the small per-head views.
 * @param {ArrayLike<number>} row @param {number} query @param {string[]} names
 */
export function strongest(row, query, names) {
  // One pass, not a sort: this runs for every strip and thumbnail on every keystroke. Ties go
  // to the earlier key, as in `ranked`.
  let a = 0;
  for (let k = 1; k <= query; k++) if (row[k] > row[a]) a = k;
  return { index: a, text: `\u00ab${names[a]}\u00bb ${wholePercent(row[a])}` };
}
