// @ts-check
// Continue's state: its settings (temperature, top-k, seed, kept as written: sampler.js checks
// them) and its actions.

import { asString } from "../../core/state.js";

/** @type {import("../../core/state.js").StateKey[]} */
export const GENERATION_KEYS = [["temperature", "temperature"], ["topk", "topK"], ["seed", "seed"]].map(([key, property]) => ({
  key, property, type: /** @type {const} */ ("setting"), fallback: null, live: false, initial: (a) => a,
  parse: (a) => a ?? null, format: asString, doc: `Continue's ${property} (sampler.js checks it), as written`,
}));

/** The element attributes behind generate()'s settings, by property. */
export const SETTING_ATTRIBUTES = Object.fromEntries(GENERATION_KEYS.map((k) => [k.property, k.key]));

/**
 * generate {text, token?} (the model wrote on: the pin follows the newest token), undo {text,
 * token} (the text and pin from before the model wrote), settings {temperature, topk, seed}
 * (strings, null for the default).
 * @type {Object<string, import("../../core/actions.js").Reducer>}
 */
export const GENERATION_ACTIONS = {
  generate: (state, action) => ({ ...state, text: action.text, token: action.token ?? null, preview: null }),
  undo: (state, action) => ({ ...state, text: action.text, token: action.token ?? null, preview: null }),
  settings: (state, action) => ({ ...state, ...Object.fromEntries(GENERATION_KEYS.map((k) => [k.key, action[k.key] ?? null])) }),
};
