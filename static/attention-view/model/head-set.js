// @ts-check
// Which heads are switched off: the `ablate` state key ("1.2 2.3": layer.head pairs, 1-based),
// read once per state change into a sorted list, and the head_mask the ONNX graph takes for
// it. The graph does the switching (its `head_mask` input zeroes a head's output before the
// layer's output projection); nothing here computes any part of the model.

import { grouped } from "../core/numbers.js";

const PAIR = /^(\d+)\.(\d+)$/;

/** A grid of any size: what parseAblate keeps before a model's own size is known. */
export const ANY_MODEL = Object.freeze({ n_layer: Infinity, n_head: Infinity });

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
 * @param {string|null|undefined} value @param {{n_layer: number, n_head: number}} config
 */
export function parseAblate(value, config) {
  /** @type {[number, number][]} */
  const heads = [];
  const bad = new Map(); // phrase -> how many entries it stands for
  /** @param {string} phrase */
  const report = (phrase) => bad.set(phrase, (bad.get(phrase) ?? 0) + 1);
  const seen = new Set();
  for (const entry of String(value ?? "").split(/[\s,]+/u)) {
    if (entry === "") continue;
    const m = PAIR.exec(entry);
    if (!m) {
      report(`${quoted(entry)} is not a layer.head pair such as 1.2`);
      continue;
    }
    const layer = Number(m[1]);
    const head = Number(m[2]);
    if (layer < 1 || layer > config.n_layer) {
      report(`${quoted(entry)}: there is no layer ${layer} (the model has layers 1\u2013${config.n_layer})`);
    } else if (head < 1 || head > config.n_head) {
      report(`${quoted(entry)}: layer ${layer} has no head ${head} (it has heads 1\u2013${config.n_head})`);
    } else if (!seen.has(`${layer}.${head}`)) {
      seen.add(`${layer}.${head}`);
      heads.push([layer, head]);
    }
  }
  heads.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return { heads, text: formatAblate(heads), errors: summarise(bad) };
}

// An attribute can hold any amount of text: the message names each kind of mistake once, with
// a count, and a handful of them at most, so that it stays a sentence.
const LISTED = 5;
const QUOTED = 24;

/** @param {string} entry */
function quoted(entry) {
  const chars = [...entry];
  return `\u201c${chars.length > QUOTED ? `${chars.slice(0, QUOTED - 1).join("")}\u2026` : entry}\u201d`;
}

/** @param {Map<string, number>} bad */
function summarise(bad) {
  const phrases = [...bad].map(([phrase, n]) => (n > 1 ? `${phrase} (${grouped(n)} times)` : phrase));
  if (phrases.length <= LISTED) return phrases;
  const more = phrases.length - LISTED;
  return [...phrases.slice(0, LISTED), `and ${grouped(more)} more like ${more === 1 ? "it" : "these"}`];
}

/**
 * [[1, 2], [2, 3]] -> "1.2 2.3"; null for no heads (no attribute).
 * @param {[number, number][]} heads
 */
export function formatAblate(heads) {
  return heads.length ? heads.map(([l, h]) => `${l}.${h}`).join(" ") : null;
}

/**
 * Whether [layer, head] is among `heads` (1-based pairs, as parseAblate gives them).
 * @param {[number, number][]|null|undefined} heads @param {number} layer @param {number} head
 */
export function isHeadOff(heads, layer, head) {
  return !!heads?.some(([l, h]) => l === layer && h === head);
}

/**
 * The canonical `ablate` with one head switched the other way.
 * @param {string|null} ablate @param {number} layer @param {number} head @param {{n_layer: number, n_head: number}} config
 */
export function toggleHead(ablate, layer, head, config) {
  const { heads } = parseAblate(ablate, config);
  const at = heads.findIndex(([l, h]) => l === layer && h === head);
  if (at >= 0) heads.splice(at, 1);
  else heads.push([layer, head]);
  return parseAblate(formatAblate(heads), config).text;
}

/**
 * The graph's head_mask for the heads switched off: a flat, layer-major Float32Array of
 * n_layer·n_head ones with a 0 for every head in `heads`; null when every head is on (Model.run
 * then feeds all ones). Every caller of Model.run that should honour the switches uses this.
 * @param {[number, number][]} heads  1-based [layer, head] pairs (parseAblate)
 * @param {{n_layer: number, n_head: number}} config
 */
export function maskFor(heads, config) {
  const { n_layer: L, n_head: H } = config;
  if (!heads.length) return null;
  const mask = new Float32Array(L * H).fill(1);
  for (const [l, h] of heads) mask[(l - 1) * H + (h - 1)] = 0;
  return mask;
}

