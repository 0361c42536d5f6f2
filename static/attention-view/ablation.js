// Switching heads off: the `ablate` attribute ("1.2 2.3": layer.head pairs, 1-based), the
// head_mask the ONNX graph takes for it, and the numbers the paired bars show. Pure: no DOM,
// no model. The graph does the switching (its `head_mask` input zeroes a head's output before
// the layer's output projection); nothing here re-computes any part of the model.

import { softmaxOf } from "./readouts.js";

const PAIR = /^(\d+)\.(\d+)$/;

/**
 * @typedef {Object} Ablation
 * @property {[number, number][]} heads  the heads switched off, [layer, head] 1-based, sorted, unique
 * @property {string|null} text  their canonical attribute form ("1.2 2.3"), null when none
 * @property {string[]} errors  one phrase per entry that names no head of this model
 */

/**
 * Reads an `ablate` attribute for a model with `config.n_layer` x `config.n_head` heads.
 * Entries are separated by spaces or commas; an entry that is malformed or names a head the
 * model does not have is left out and reported in `errors`, the rest still apply.
 * @returns {Ablation}
 */
export function parseAblate(value, config) {
  const heads = [];
  const errors = [];
  const seen = new Set();
  for (const entry of String(value ?? "").split(/[\s,]+/u)) {
    if (entry === "") continue;
    const m = PAIR.exec(entry);
    if (!m) {
      errors.push(`\u201c${entry}\u201d is not a layer.head pair such as 1.2`);
      continue;
    }
    const layer = Number(m[1]);
    const head = Number(m[2]);
    if (layer < 1 || layer > config.n_layer) {
      errors.push(`\u201c${entry}\u201d: there is no layer ${layer} (the model has layers 1\u2013${config.n_layer})`);
    } else if (head < 1 || head > config.n_head) {
      errors.push(`\u201c${entry}\u201d: layer ${layer} has no head ${head} (it has heads 1\u2013${config.n_head})`);
    } else if (!seen.has(`${layer}.${head}`)) {
      seen.add(`${layer}.${head}`);
      heads.push([layer, head]);
    }
  }
  heads.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return { heads, text: formatAblate(heads), errors };
}

/** [[1, 2], [2, 3]] -> "1.2 2.3"; null for no heads (no attribute). */
export function formatAblate(heads) {
  return heads.length ? heads.map(([l, h]) => `${l}.${h}`).join(" ") : null;
}

/** The canonical `ablate` with one head switched the other way. */
export function toggleHead(ablate, layer, head, config) {
  const { heads } = parseAblate(ablate, config);
  const at = heads.findIndex(([l, h]) => l === layer && h === head);
  if (at >= 0) heads.splice(at, 1);
  else heads.push([layer, head]);
  return parseAblate(formatAblate(heads), config).text;
}

/**
 * The graph's head_mask for a state: a flat, layer-major Float32Array of n_layer·n_head ones
 * with a 0 for every head the state switches off; null when every head is on (Model.run then
 * feeds all ones). Every caller of Model.run that should honour the switches uses this.
 */
export function maskFor(state, meta) {
  const { n_layer: L, n_head: H } = meta.config;
  const { heads } = parseAblate(state?.ablate ?? null, meta.config);
  if (!heads.length) return null;
  const mask = new Float32Array(L * H).fill(1);
  for (const [l, h] of heads) mask[(l - 1) * H + (h - 1)] = 0;
  return mask;
}

/** True when `heads` switches off every head of the model. */
export function everyHeadOff(heads, config) {
  return heads.length === config.n_layer * config.n_head;
}

/** "L1H2, L2H3" (short, for titles and bar legends). */
export function shortNames(heads) {
  return heads.map(([l, h]) => `L${l}H${h}`).join(", ");
}

/** "layer 1 head 2 and layer 2 head 3" (for prose and screen readers). */
export function longNames(heads) {
  const names = heads.map(([l, h]) => `layer ${l} head ${h}`);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/**
 * Softmax probabilities of `ids` at position `q` from a run's logits (readouts.js softmaxOf, as
 * the top 5 are computed): the paired bars need a token's probability in the run where it is
 * not among the top 5.
 */
export function probsAt(out, q, ids) {
  const row = out.logitsAt(q);
  const { max, sum } = softmaxOf(row);
  return ids.map((id) => Math.exp(row[id] - max) / sum);
}

/**
 * The paired bars at position `q`: every token in the baseline's top 5 or the ablated run's
 * top 5 (so 5 to 10 tokens), each with its probability in both runs, the most likely under
 * either run first. `baseline` and `ablated` are run outputs with logits at `q` and `topAt`.
 * @returns {{id: number, baseline: number, ablated: number}[]}
 */
export function pairedBars(baseline, ablated, q) {
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
 */
export function ablationResult(run, pinned, config, label) {
  const named = ({ id, p }) => ({ id, text: label(id), p });
  const out = run.ablate ? run.baseline : run.out; // null while a baseline is still to come
  const next = nextTokenChange(run, pinned);
  return {
    ablated: parseAblate(run.ablate ?? null, config).heads,
    topBaseline: out?.topAt && pinned >= 0 ? out.topAt(pinned).map(named) : [],
    nextToken: next && { id: next.id, text: label(next.id), p: next.ablated, pBaseline: next.baseline },
  };
}
