// @ts-check
// The view: what one paint shows. Built by the controller after every update from the run on
// screen and the resolved state, and handed to every feature's paint.

import { pinnedIndex, shownIndex } from "./state.js";
import { toResult } from "../model/result.js";

/**
 * @typedef {Object} View
 * @property {import("../model/runs.js").Run} run
 * @property {import("../model/runs.js").Outputs|null} out
 * @property {import("../model/token-labels.js").TokenLabel[]} labels
 * @property {string[]} names
 * @property {import("./state.js").State} state  resolved, with `preview`
 * @property {number} pinned  0-based, -1 without tokens
 * @property {number} shown  the hovered token while previewing, else the pinned one
 * @property {import("./state.js").Meta} meta  the meta.json of the run's model: a training
 *   step's has that step's head roles (model/timeline.js)
 * @property {(id: number) => string|null} pieceOf
 * @property {boolean} focusChip  the pin moved by keyboard: the pinned chip takes the focus
 */

/**
 * @param {import("../model/runs.js").Run} run
 * @param {import("./state.js").State} state
 * @param {import("./state.js").Meta} meta
 * @returns {View}
 */
export function viewOf(run, state, meta, focusChip = false) {
  const count = run.labels.length;
  return {
    run,
    out: run.out,
    labels: run.labels,
    names: run.names,
    state,
    pinned: pinnedIndex(state, count, run.labels),
    shown: shownIndex(state, count, run.labels),
    meta: run.model?.meta ?? meta,
    pieceOf: run.pieceOf,
    focusChip,
  };
}

/**
 * The element's `result` for the run on screen: result.js toResult, with every part's fields.
 * @param {import("../model/runs.js").Run} run
 * @param {import("./state.js").State} state
 * @param {import("./state.js").Meta} meta
 * @param {import("./feature.js").Part[]} parts
 */
export function resultOf(run, state, meta, parts) {
  const view = viewOf(run, state, meta);
  const result = toResult(run, view.state, view.pinned);
  for (const part of parts) part.result?.(result, view);
  return result;
}
