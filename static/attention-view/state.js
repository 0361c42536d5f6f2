// @ts-check
// The widget's state: core's keys and actions with those of every feature of features.js, as
// one schema (core/schema.js). The element (widget.js), the site's pages, `make schema`
// (site_builder/state_schema.mjs: state-schema.json for the Python side, and state-type.js) and the
// tests read it from here.

import { FEATURES } from "./features.js";
import { assembleState } from "./core/schema.js";

/** @typedef {import("./core/schema.js").StateSchema} StateSchema */

// The keys links already carry, in the order they write them, so that every permalink, iframe
// query and embed code written before stays as it was; a new key follows them by itself.
const LINK_ORDER = ["text", "token", "layer", "head", "view", "scale", "ablate", "compare", "step", "temperature", "topk", "seed", "compact"];

export const SCHEMA = assembleState(FEATURES, LINK_ORDER);

/** The state keys in the schema's order. */
export const STATE_KEYS = SCHEMA.names;

/** @type {StateSchema["resolve"]} */
export const resolve = (attrs, meta) => SCHEMA.resolve(attrs, meta);
/** @type {StateSchema["reduce"]} */
export const reduce = (state, action, dims) => SCHEMA.reduce(state, action, dims);
/** @type {StateSchema["toAttributes"]} */
export const toAttributes = (state) => SCHEMA.toAttributes(state);
/** @type {StateSchema["toHash"]} */
export const toHash = (state) => SCHEMA.toHash(state);
/** @type {StateSchema["fromHash"]} */
export const fromHash = (hash) => SCHEMA.fromHash(hash);
export const schemaJSON = () => SCHEMA.json();
export { pinnedIndex, shownIndex } from "./core/state.js";
