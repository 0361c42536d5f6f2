// @ts-check
// The training timeline's state: its key (a training step; absent: the shipped model) and its
// action.

import { asString, toInt } from "../../core/state.js";

/** @type {import("../../core/state.js").StateKey[]} */
export const TIMELINE_KEYS = [
  {
    key: "step", property: "step", type: "step", fallback: null, live: true, initial: toInt,
    // Only a model with a timeline has earlier steps; from the shipped step on it is the shipped model.
    parse: (a, _, meta) => {
      const n = toInt(a);
      const shipped = meta.metrics?.best_step ?? Infinity;
      return meta.timeline && n !== null && n >= 0 && n < shipped ? n : null;
    },
    format: asString, doc: "a training step: the model as its last snapshot up to that step was; absent: the shipped model",
  },
];

/**
 * step {step}: a training step, null for the shipped model.
 * @type {Object<string, import("../../core/actions.js").Reducer>}
 */
export const TIMELINE_ACTIONS = {
  step: (state, action) => ({ ...state, step: action.step }),
};
