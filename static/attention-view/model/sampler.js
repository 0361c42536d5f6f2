// @ts-check
// Choosing the next token from one position's logits: temperature, top-k and a seeded random
// draw, specified down to the order of every float64 operation so that the same logits, seed
// and settings pick the same tokens on every machine. Pure: no DOM, no model (the logits come
// from the ONNX graph; nothing here computes any part of the model).
//
// What "the same on every machine" rests on:
// - The random stream is mulberry32 (../../shared/rng.js): 32-bit integer arithmetic only, and each
//   draw is an integer divided by 2^32, exact in float64. One draw per sampled token; none at
//   temperature 0.
// - Every weight is computed in float64 from the float32 logits, candidates in a fixed order
//   (logit descending, ties by lower id), sums accumulated in that order. Math.exp is the one
//   operation the language does not pin to the last bit; V8 (Chrome, Edge, Node) computes it
//   in software (fdlibm), the same on every CPU.
// - The logits themselves are float32 from onnxruntime-web's wasm kernels. The same runtime
//   gives the same bits on every machine in practice, but another runtime (onnxruntime-python,
//   a future onnxruntime-web) differs in the last bits, which can move a *sampled* pick when
//   the draw lands that close to a boundary between two candidates. Greedy picks (temperature
//   0) only move where the top two logits are that close, so greedy is what tests compare
//   with Python, after checking the margin.

import { mulberry32 } from "../../shared/rng.js";

export const DEFAULTS = Object.freeze({ maxTokens: 20, temperature: 0.8, topK: 40, seed: 1 });
export const MAX_SEED = 0xffffffff;

/**
 * A seeded source of uniform draws in [0, 1): k/2^32 for a 32-bit integer k.
 * @param {number} seed
 */
export function uniformStream(seed) {
  return mulberry32(seed);
}

// A setting as given: a number, or a string from an attribute or a text field ("" = not set).
/** @param {unknown} value  as a script or an attribute gives it */
function asNumber(value) {
  if (typeof value === "number") return value;
  if (typeof value === "string" && value.trim() !== "" && /^[\s\d.eE+-]+$/.test(value)) return Number(value);
  return NaN;
}

/** @param {unknown} value */
const shown = (value) => (typeof value === "string" ? `\u201c${value}\u201d` : String(value));

/** The one wording of each setting's rule, shared by generate()'s TypeError and the widget. */
export const RULES = {
  maxTokens: "the number of tokens must be a whole number, at least 1",
  temperature: "temperature must be a number, at least 0 (0 = always the most likely token)",
  topK: "top-k must be a whole number, at least 1",
  seed: `the seed must be a whole number from 0 to ${MAX_SEED}`,
};

/** @type {Record<keyof typeof DEFAULTS, (n: number) => boolean>} */
const VALID = {
  maxTokens: (n) => Number.isInteger(n) && n >= 1,
  temperature: (n) => Number.isFinite(n) && n >= 0,
  topK: (n) => Number.isInteger(n) && n >= 1,
  seed: (n) => Number.isInteger(n) && n >= 0 && n <= MAX_SEED,
};

/**
 * Checks one setting; returns its number or throws a TypeError naming the rule and the value.
 * `value` null, undefined or "" means "not set": `fallback` is used instead.
 * @param {keyof typeof DEFAULTS} name @param {unknown} value @param {number} [fallback]
 */
export function checkSetting(name, value, fallback = DEFAULTS[name]) {
  if (value === null || value === undefined || value === "") return fallback;
  const n = asNumber(value);
  if (!VALID[name](n)) throw new TypeError(`${RULES[name][0].toUpperCase()}${RULES[name].slice(1)}, not ${shown(value)}.`);
  return n;
}

/**
 * All four settings checked (see checkSetting); the first bad one throws.
 * @param {{maxTokens?: any, temperature?: any, topK?: any, seed?: any}} settings
 */
export function checkSettings({ maxTokens, temperature, topK, seed } = {}, fallbacks = DEFAULTS) {
  return {
    maxTokens: checkSetting("maxTokens", maxTokens, fallbacks.maxTokens),
    temperature: checkSetting("temperature", temperature, fallbacks.temperature),
    topK: checkSetting("topK", topK, fallbacks.topK),
    seed: checkSetting("seed", seed, fallbacks.seed),
  };
}

/**
 * The ids of the k largest logits, largest first, ties by lower id (the one candidate order).
 * @param {ArrayLike<number>} logits @param {number} k @returns {number[]}
 */
export function topIds(logits, k) {
  const V = logits.length;
  if (k * 4 >= V) {
    const order = Array.from({ length: V }, (_, i) => i);
    order.sort((a, b) => logits[b] - logits[a] || a - b);
    return order.slice(0, k);
  }
  // Few candidates: one pass keeping a sorted list of k (a sort of the whole vocabulary costs
  // most of a millisecond per token). Ids arrive in increasing order, so a later id with an
  // equal logit goes after the earlier one, as in the sort above.
  /** @type {number[]} */
  const best = [];
  for (let i = 0; i < V; i++) {
    const v = logits[i];
    if (best.length === k && !(v > logits[best[k - 1]])) continue;
    let j = best.length < k ? best.length : k - 1;
    best[j] = i;
    while (j > 0 && logits[best[j - 1]] < v) {
      best[j] = best[j - 1];
      best[--j] = i;
    }
  }
  return best;
}

/**
 * The next token from one position's logits (V values).
 * - temperature 0: the most likely token; ties go to the lower id. No draw.
 * - otherwise: the `topK` largest logits (ties: lower id first), weights
 *   exp((z − max) / temperature) summed in that order, one draw u, and the first candidate
 *   whose running sum exceeds u × the total.
 * `p` is the chosen token's probability under the plain softmax of all V logits (temperature
 * 1, no top-k): what the model itself gave it, whatever the settings did to the draw.
 * @param {ArrayLike<number>} logits
 * @param {{temperature: number, topK: number}} settings
 * @param {() => number} uniform  draws in [0, 1) (uniformStream)
 * @returns {{id: number, p: number}}
 */
export function sampleNext(logits, { temperature, topK }, uniform) {
  const V = logits.length;
  let best = 0;
  for (let i = 1; i < V; i++) if (logits[i] > logits[best]) best = i;
  const max = logits[best];
  let total = 0;
  for (let i = 0; i < V; i++) total += Math.exp(logits[i] - max);
  const p = (/** @type {number} */ id) => Math.exp(logits[id] - max) / total;
  if (temperature === 0) return { id: best, p: p(best) };
  const k = Math.min(topK, V);
  const order = topIds(logits, k);
  const weights = new Float64Array(k);
  let sum = 0;
  for (let j = 0; j < k; j++) {
    weights[j] = Math.exp((logits[order[j]] - max) / temperature);
    sum += weights[j];
  }
  // sum ≥ 1: the best candidate's weight is exp(0).
  const target = uniform() * sum;
  let acc = 0;
  for (let j = 0; j < k; j++) {
    acc += weights[j];
    if (target < acc) return { id: order[j], p: p(order[j]) };
  }
  // Only rounding can get here (target within an ulp of the total): the last candidate that
  // has any weight.
  let j = k - 1;
  while (j > 0 && weights[j] === 0) j--;
  return { id: order[j], p: p(order[j]) };
}

/**
 * Draw number `n` (0-based) of the seed's stream. The token at position n of the window is
 * picked with draw n, so a continuation does not depend on how it was split into
 * generations: Stop and Continue, or two Continues of 10, pick the same tokens as one of 20.
 * @param {number} seed @param {number} n
 */
export function uniformAt(seed, n) {
  const uniform = uniformStream(seed);
  for (let i = 0; i < n; i++) uniform();
  return uniform();
}
