// @ts-check
// "What pushed": its state key (which prediction's pushes are shown) and its action.

import { asString } from "../../core/state.js";

/** The top 5 by rank, then the text's next token. */
export const TARGETS = ["1", "2", "3", "4", "5", "next"];

/** @type {import("../../core/state.js").StateKey[]} */
export const ATTRIBUTION_KEYS = [
  {
    key: "target", property: "target", type: "choice", choices: TARGETS, fallback: "1", live: true,
    initial: (a) => a ?? "1",
    parse: (a) => (TARGETS.includes(a ?? "") ? a : "1"),
    // The top token is no attribute, so links and embeds that never chose one stay as they were.
    format: (v) => (v === "1" ? null : asString(v)),
    doc: "the prediction whose pushes \"What pushed\" shows: its rank in the top 5 (1-5), or next, the text's next token",
  },
];

/**
 * target {target}: pick the prediction whose pushes are shown.
 * @type {Object<string, import("../../core/actions.js").Reducer>}
 */
export const ATTRIBUTION_ACTIONS = {
  target: (state, action) => (TARGETS.includes(action.target) ? { ...state, target: action.target } : state),
};
