// @ts-check
// What switching heads off did, as numbers: the paired bars (every head on against the heads
// off) and the text's next token in both runs. Pure: no DOM, no model; the runs come from the
// graph with its head_mask (../model/head-set.js reads the `ablate` key).

import { softmaxOf } from "./readouts.js";

/** @typedef {import("../model/runs.js").Outputs} Outputs */
/** @typedef {import("../model/runs.js").Run} Run */

/**
 * True when `heads` switches off every head of the model.
 * @param {[number, number][]} heads  [layer, head], 1-based
 * @param {{n_layer: number, n_head: number}} config  meta.json's config
 */
export function everyHeadOff(heads, config) {
  return heads.length === config.n_layer * config.n_head;
}

/**
 * "L1H2, L2H3" (short, for titles and bar legends).
 * @param {[number, number][]} heads
 */
export function shortNames(heads) {
  return heads.map(([l, h]) => `L${l}H${h}`).join(", ");
}

/**
 * "layer 1 head 2 and layer 2 head 3" (for prose and screen readers).
 * @param {[number, number][]} heads
 */
export function longNames(heads) {
  const names = heads.map(([l, h]) => `layer ${l} head ${h}`);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/**
 * Softmax probabilities of `ids` at position `q` from a run's logits (readouts.js softmaxOf, as
 * the top 5 are computed): the paired bars need a token's probability in the run where it is
 * not among the top 5.
 * @param {Outputs} out  a run's outputs with logits at `q`
 * @param {number} q
 * @param {number[]} ids
 */
export function probsAt(out, q, ids) {
  const row = /** @type {(query: number) => Float32Array} */ (out.logitsAt)(q);
  const { max, sum } = softmaxOf(row);
  return ids.map((id) => Math.exp(row[id] - max) / sum);
}

/**
 * The paired bars at position `q`: every token in the baseline's top 5 or the ablated run's
 * top 5 (so 5 to 10 tokens), each with its probability in both runs, the most likely under
 * either run first. `baseline` and `ablated` are run outputs with logits at `q` and `topAt`.
 * @returns {{id: number, baseline: number, ablated: number}[]}
 * @param {Outputs} baseline
 * @param {Outputs} ablated
 * @param {number} q
 */
export function pairedBars(baseline, ablated, q) {
  /** @type {number[]} */
  const ids = [];
  for (const { id } of [...baseline.topAt(q), ...ablated.topAt(q)]) if (!ids.includes(id)) ids.push(id);
  const pb = probsAt(baseline, q, ids);
  const pa = probsAt(ablated, q, ids);
  const bars = ids.map((id, i) => ({ id, baseline: pb[i], ablated: pa[i] }));
  return bars.sort((a, b) => Math.max(b.baseline, b.ablated) - Math.max(a.baseline, a.ablated) || a.id - b.id);
}

/**
 * The token that actually comes next in the text after position `q`, with its probability
 * with every head on and with the heads switched off; null when `q` is the last token.
 * @param {Run} run
 * @param {number} q
 */
export function nextTokenChange(run, q) {
  const base = run.ablate ? run.baseline : run.out;
  if (q < 0 || q + 1 >= run.ids.length || !run.out?.logitsAt?.(q) || !base?.logitsAt?.(q)) return null;
  const id = run.ids[q + 1];
  const [baseline] = probsAt(base, q, [id]);
  const [ablated] = probsAt(run.out, q, [id]);
  return { id, baseline, ablated };
}

/**
 * `result`'s ablation fields for `run` at the pinned token: `ablated` ([layer, head] pairs),
 * `topBaseline` (the top 5 with every head on; `top` when no head is off) and `nextToken`.
 * `label(id)` names a token as `result.top` does.
 * @param {Run} run
 * @param {number} pinned
 * @param {(id: number) => string|null} label
 */
export function ablationResult(run, pinned, label) {
  /** @param {{id: number, p: number}} top */
  const named = ({ id, p }) => ({ id, text: label(id), p });
  const out = run.ablate ? run.baseline : run.out; // null while a baseline is still to come
  const next = nextTokenChange(run, pinned);
  return {
    ablated: run.off?.heads ?? [],
    topBaseline: out?.topAt && pinned >= 0 ? out.topAt(pinned).map(named) : [],
    nextToken: next && { id: next.id, text: label(next.id), p: next.ablated, pBaseline: next.baseline },
  };
}
