// @ts-check
// Compare mode's state: its key (the second text; absent: compare mode off) and its actions.

import { asString } from "../../core/state.js";

/** @type {import("../../core/state.js").StateKey[]} */
export const COMPARE_KEYS = [
  {
    key: "compare", property: "compare", type: "text", fallback: null, live: true, initial: (a) => a,
    parse: (a) => (typeof a === "string" ? a : null),
    format: asString, doc: "compare mode's second text (\"\": on, nothing typed yet); absent: off",
  },
];

/**
 * compare {compare}: a second text turns compare mode on, null turns it off; compareText
 * {compare}: typing the second text.
 * @type {Object<string, import("../../core/actions.js").Reducer>}
 */
export const COMPARE_ACTIONS = {
  compare: (state, action) => ({ ...state, compare: action.compare }),
  compareText: (state, action) => ({ ...state, compare: action.compare }),
};
