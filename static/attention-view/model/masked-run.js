// @ts-check
// Runs with heads switched off, and compare mode's second run. A run with heads off keeps its
// baseline (the same text with every head on) for the paired bars; the baseline is carried
// over from the previous run of the same text, so switching a head on or off costs one model
// run, and only a new text costs two.

import { liveRun, emptyRun, withPredictions } from "./runs.js";
import { maskFor } from "./head-set.js";

/**
 * `text` run with the heads of `off` (head-set.js parseAblate; null = every head on) switched
 * off; `run.baseline` is the every-head-on run (`out` itself when no head is off). Without
 * `baseline`, a run with heads off gets none (compare mode's second text only draws rows).
 * `positions(run)`: where to compute logits (runs.js liveRun; null: every position).
 * @param {import("./loader.js").Model} model
 * @param {string} text
 * @param {import("./head-set.js").Ablation|null} off
 * @param {import("./runs.js").Run|null} previous
 * @param {{baseline?: boolean, positions?: ((run: import("./runs.js").Run) => number[])|null}} [options]
 * @returns {Promise<import("./runs.js").Run>}
 */
export async function maskedRun(model, text, off, previous = null, { baseline = true, positions = null } = {}) {
  const heads = off?.heads ?? [];
  const ablate = off?.text ?? null;
  if (text === "") return { ...emptyRun(true), model, ablate, off, baseline: null };
  const mask = maskFor(heads, model.config);
  const run = await liveRun(model, text, mask, previous, positions);
  run.ablate = ablate;
  run.off = off;
  if (!mask || !run.out) run.baseline = run.out;
  else if (previous?.model === model && previous.text === text && previous.baseline) run.baseline = previous.baseline;
  else run.baseline = baseline ? withPredictions(await model.run(run.ids, null, positions ? positions(run) : null)) : null;
  return run;
}

/**
 * True when `run` is what `text` with `ablate` gives on `model` (null ablate = every head on).
 * @param {import("./runs.js").Run|null} run @param {import("./loader.js").Model|null} model @param {string|null|undefined} text
 * @param {string|null|undefined} ablate
 */
export function runMatches(run, model, text, ablate) {
  return !!run && run.model === model && run.text === text && (run.ablate ?? null) === (ablate ?? null);
}

/**
 * Compare mode's second run for `state` (null when compare mode is off), with the same heads
 * switched off as the first; `previous` is reused when it still matches. It only draws rows,
 * so it computes logits at its last position alone (the graph needs at least one).

 * @param {import("./loader.js").Model} model
 * @param {import("../core/state.js").State} state
 * @param {import("./runs.js").Run|null} previous
 */
export async function compareRun(model, state, previous) {
  if (state.compare === null || state.compare === undefined) return null;
  if (runMatches(previous, model, state.compare, state.ablate)) return previous;
  return maskedRun(model, state.compare, state.off, null,
    { baseline: false, positions: (run) => [run.ids.length - 1] });
}
