// @ts-check
// What the training timeline says, read from timeline.json and meta.json (pure functions, no
// DOM): the held-out curve, each head's main score at every snapshot, the opening view's
// weight, and the words for one step. Nothing here is measured in the browser: export measured
// every figure on each snapshot's graph (export/timeline.py).

/** @typedef {import("../model/timeline.js").Timeline} Timeline */
/** @typedef {import("../model/timeline.js").TimelinePoint} TimelinePoint */
/** @typedef {import("../meta-type.js").Meta} Meta */

import { grouped } from "../core/numbers.js";

export { grouped };

/**
 * Held-out bits per character by step: meta.json's history (every evaluation) and the
 * snapshots' own figures where the history has none (the first steps), sorted by step.
 * @returns {{step: number, bpc: number}[]}
 * @param {Meta} meta
 * @param {Timeline} timeline
 */
export function heldoutSeries(meta, timeline) {
  const at = new Map();
  for (const p of timeline.points) at.set(p.step, p.heldout_bpc);
  for (const [step, bpc] of meta.metrics?.history ?? []) {
    if (step <= /** @type {TimelinePoint} */ (timeline.points.at(-1)).step) at.set(step, bpc);
  }
  return [...at].sort((a, b) => a[0] - b[0]).map(([step, bpc]) => ({ step, bpc }));
}

/**
 * The score that says what a head became: the score of its role at the shipped step, or for a
 * head with no role there, the role score it came closest to passing (its value over the
 * role's threshold). Null when meta.json defines no roles.
 * @returns {{name: string, label: string, role: string, atLeast: number}|null}
 * @param {Meta} meta
 * @param {Timeline} timeline
 * @param {number} layer
 * @param {number} head
 */
export function mainScore(meta, timeline, layer, head) {
  const defs = meta.head_definitions;
  // the filter keeps the roles that have a score and a threshold
  const roles = /** @type {{role: string, score: string, at_least: number}[]} */ ((defs?.roles ?? []).filter((r) => r.score && typeof r.at_least === "number"));
  const scores = headAt(/** @type {TimelinePoint} */ (timeline.points.at(-1)), layer, head)?.scores;
  if (!roles.length || !scores) return null;
  const role = /** @type {TimelinePoint["heads"][number]} */ (headAt(/** @type {TimelinePoint} */ (timeline.points.at(-1)), layer, head)).role;
  const pick = roles.find((r) => r.role === role) ??
    roles.reduce((best, r) => ((scores[r.score] ?? 0) / r.at_least > (scores[best.score] ?? 0) / best.at_least ? r : best));
  const label = defs.scores?.find((s) => s.name === pick.score)?.label ?? pick.score.replace(/_/g, " ");
  return { name: pick.score, label, role: pick.role, atLeast: pick.at_least };
}

/**
 * One head's entry at a point (heads are 1-based).
 * @param {TimelinePoint} point
 * @param {number} layer
 * @param {number} head
 */
export function headAt(point, layer, head) {
  return point.heads.find((h) => h.layer === layer && h.head === head) ?? null;
}

/**
 * A head's score `name` at every point. @returns {{step: number, value: number}[]}
 * @param {Timeline} timeline
 * @param {number} layer
 * @param {number} head
 * @param {string} name
 */
export function scoreSeries(timeline, layer, head, name) {
  return timeline.points.map((p) => ({ step: p.step, value: headAt(p, layer, head)?.scores[name] ?? 0 }));
}

/**
 * The opening view's largest weight at every point. @returns {{step: number, value: number}[]}
 * @param {Timeline} timeline
 */
export function viewSeries(timeline) {
  return timeline.points.filter((p) => p.default_view).map((p) => ({ step: p.step, value: p.default_view.top_weight }));
}

/**
 * The index of the point a step shows (the last one at or before it).
 * @param {Timeline} timeline
 * @param {number} step
 */
export function pointIndex(timeline, step) {
  let at = 0;
  timeline.points.forEach((p, i) => { if (p.step <= step) at = i; });
  return at;
}

/**
 * "step 350 of 1,500, held-out 2.09 bits per character" (what the slider says to a screen reader).
 * @param {Timeline} timeline
 * @param {TimelinePoint} point
 */
export function stepText(timeline, point) {
  const last = /** @type {TimelinePoint} */ (timeline.points.at(-1));
  const which = point.shipped ? `step ${grouped(point.step)}, the exported model` : `step ${grouped(point.step)} of ${grouped(last.step)}`;
  return `${which}, held-out ${point.heldout_bpc.toFixed(2)} bits per character`;
}

/**
 * What the selected head is at a point: "L2H3 here: content (row max 0.30; content needs 0.25)".
 * @param {{name: string, label: string, role: string, atLeast: number}|null} score  mainScore's
 * @param {TimelinePoint} point
 * @param {number} layer
 * @param {number} head
 */
export function headText(point, layer, head, score) {
  const h = headAt(point, layer, head);
  if (!h || !score) return "";
  const value = h.scores[score.name];
  const shown = typeof value === "number" ? value.toFixed(2) : "not measured";
  return `L${layer}H${head} here: ${h.role} (${score.label} ${shown}; ${score.role} needs ${score.atLeast})`;
}
