// @ts-check
// The view's own state keys and rules, as plain data and pure functions (no DOM, no model), so
// that pinning, hovering and cycling heads can be tested on their own.
//
// The element's attributes are the single source of truth for the state. A state key is one
// entry of the form StateKey below: core's keys are CORE_KEYS; every feature declares its own
// (the `state` of its Feature), and ../state.js assembles them into the element's one schema
// (schema.js), from which its attributes and properties, the permalink, the iframe's query,
// "Copy embed code", the jinja2 macro, the model card's links and the offline worker's page
// parameters all derive (the Python side reads ../state-schema.json, which `make schema`
// writes from it).

import { wordsOf, findWord } from "../model/words.js";
import { parseAblate, ANY_MODEL } from "../model/head-set.js";

export const VIEWS = ["head", "average", "rollout"];

/**
 * How weights become colours (palette.js `level`): "share" = the weight itself, 0–100%;
 * "relative" = the weight ÷ the row's even share 1/(q+1), on a log scale. Typical rows peak
 * at 20–30%, which the share scale paints as a wall of dark purple; relative shows contrast.
 * "push" = not the weight but how much of the head's push toward the prediction (the `target`
 * key) came through each key, on a diverging scale (features/attribution/).
 */
export const SCALES = ["share", "relative", "push"];

/**
 * "1": the compact view, only the row and the grid of heads (a small figure in a chapter);
 * "0": everything. An attribute that is present and not "0" or "false" (a bare `compact`,
 * `compact="1"`, the iframe's `?compact=1`) means compact.
 */
export const COMPACT = ["0", "1"];

/**
 * The model folder's meta.json, generated from its schema (attention_live/meta.schema.json):
 * ../meta-type.js.
 * @typedef {import("../meta-type.js").Meta} Meta
 */

/**
 * The resolved state: every key of the assembled schema, plus what keys derive (`preview`, the
 * hovered token, never an attribute; `off`, `ablate` read once). Generated from the schema:
 * ../state-type.js.
 * @typedef {import("../state-type.js").State} State
 */

// Plain ASCII decimal integers only: Number() would read "" and " " as 0, "0x64" as 100 and
// "1e3" as 1000, so a blank or odd value would pick a token, head or step instead of being
// ignored like any other malformed value.
const DECIMAL = /^-?[0-9]+$/;

/** An attribute's integer, or null unless it is written as a plain decimal integer. @param {unknown} value */
export function toInt(value) {
  if (typeof value === "number") return Number.isSafeInteger(value) ? value : null;
  if (typeof value !== "string" || !DECIMAL.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/** @param {number} n  @param {number} lo  @param {number} hi */
export function clamp(n, lo, hi) {
  return Math.min(hi, Math.max(lo, n));
}

export const asString = (/** @type {unknown} */ v) => (v === null || v === undefined ? null : String(v));

/**
 * One state key. `parse(attribute, attrs, meta)` gives the resolved value from the attribute
 * string (null when absent); `format(value)` the attribute string (null: no attribute).
 * `property` is the element's property; `live` says whether it answers the resolved value once
 * meta.json is in (else the attribute as written); `initial` is what it answers before, and
 * `answer` (if any) turns the resolved value into what the property answers.
 * `fallback` is the value an absent key means when meta.json has no default (null: none).
 * `derived` (if any) is a field the resolved state gets besides the key's own value, read from
 * the same attribute (`ablate` gives `off`, the heads it names): its name, its type for
 * ../state-type.js, and how it is read.
 * @typedef {Object} StateKey
 * @property {string} key
 * @property {string} property
 * @property {"text"|"token"|"index"|"choice"|"heads"|"step"|"setting"} type
 * @property {string|number|null} fallback
 * @property {string[]} [choices]
 * @property {boolean} live
 * @property {(attr: string|null) => any} initial
 * @property {(value: any) => any} [answer]
 * @property {(attr: string|null, attrs: Object<string, string|null>, meta: Meta) => any} parse
 * @property {(value: any) => string|null} format
 * @property {string} doc
 * @property {{name: string, type: string, doc: string, read: (attr: string|null, meta: Meta) => any}} [derived]
 */

/** Core's state keys: what every view shows (its text, pin, head, view, colour scale, the heads
 * switched off, which every run of an update is computed with) and how (compact). */
/** @type {StateKey[]} */
export const CORE_KEYS = [
  {
    key: "text", property: "text", type: "text", fallback: "", live: true, initial: (a) => a,
    parse: (a, _, meta) => a ?? meta.default?.text ?? "",
    format: asString, doc: "the text the model reads (its last n_ctx tokens)",
  },
  {
    key: "token", property: "token", type: "token", fallback: null, live: true, initial: toInt,
    // Null follows the last token; meta.json's default token only goes with its default text.
    parse: (a, attrs, meta) => {
      const n = toInt(a);
      if (n !== null) return n;
      if (typeof a === "string" && a.trim() !== "") return a;
      const isDefaultText = attrs.text === null || attrs.text === undefined || attrs.text === meta.default?.text;
      return isDefaultText && Number.isInteger(meta.default?.token) ? meta.default?.token : null;
    },
    format: asString, doc: "the pinned token: a 0-based index (negative from the end) or a word (\"said#2\")",
  },
  {
    key: "layer", property: "layer", type: "index", fallback: 1, live: true, initial: toInt,
    parse: (a, _, meta) => clamp(toInt(a) ?? meta.default?.layer ?? 1, 1, meta.config.n_layer),
    format: asString, doc: "1-based layer",
  },
  {
    key: "head", property: "head", type: "index", fallback: 1, live: true, initial: toInt,
    parse: (a, _, meta) => clamp(toInt(a) ?? meta.default?.head ?? 1, 1, meta.config.n_head),
    format: asString, doc: "1-based head",
  },
  {
    key: "view", property: "view", type: "choice", choices: VIEWS, fallback: "head", live: true, initial: (a) => a,
    parse: (a, _, meta) => (VIEWS.includes(a ?? "") ? a : VIEWS.includes(meta.default?.view ?? "") ? meta.default?.view : "head"),
    format: asString, doc: "one head, the layer's average, or the rollout through the layer",
  },
  {
    key: "scale", property: "scale", type: "choice", choices: SCALES, fallback: "share", live: true,
    initial: (a) => a ?? "share",
    parse: (a) => (SCALES.includes(a ?? "") ? a : "share"),
    // The default scale is no attribute, so links and embeds that never chose one stay as they were.
    format: (v) => (v === "share" ? null : asString(v)), doc: "the colour scale: share of the row, × the even share, or the head's push toward the prediction through each key",
  },
  {
    // The property answers the canonical form, "" for every head on; before meta.json, of the
    // entries that can name a head of some model (the model's own size is not known yet).
    key: "ablate", property: "ablate", type: "heads", fallback: null, live: true,
    initial: (a) => parseAblate(a, ANY_MODEL).text ?? "", answer: (v) => v ?? "",
    parse: (a, _, meta) => parseAblate(a, meta.config).text,
    format: (v) => v || null, doc: "heads switched off, \"1.2 2.3\" (layer.head, 1-based)",
    derived: {
      name: "off", type: 'import("./model/head-set.js").Ablation', doc: "`ablate` read once: the heads switched off and what was malformed",
      read: (a, meta) => parseAblate(a, meta.config),
    },
  },
  {
    key: "compact", property: "compact", type: "choice", choices: COMPACT, fallback: "0", live: true,
    initial: (a) => readCompact(a),
    parse: (a) => readCompact(a),
    // Like the scale: the full view writes no attribute, so links that never chose stay as they were.
    format: (v) => (v === "1" ? "1" : null), doc: "\"1\": only the row and the grid of heads (a small figure); absent: the whole view",
  },
];

/** @param {string|null|undefined} a  @returns {"0"|"1"} */
function readCompact(a) {
  return a === null || a === undefined || a === "0" || a === "false" ? "0" : "1";
}

/**
 * 0-based index of the pinned token among `count` tokens (negative counts from the end); a
 * word spec needs the tokens' `labels` and, when the text has no such word, follows the last
 * token as if none were set.
 */
/**
 * @param {{token: number|string|null}} state
 * @param {number} count
 * @param {{text: string}[]|null} [labels]
 */
export function pinnedIndex(state, count, labels = null) {
  if (count === 0) return -1;
  if (state.token === null) return count - 1;
  if (typeof state.token === "string") {
    const at = labels ? findWord(wordsOf(labels), state.token) : -1;
    return at >= 0 && at < count ? at : count - 1;
  }
  const t = state.token < 0 ? count + state.token : state.token;
  return clamp(t, 0, count - 1);
}

/**
 * The token whose row is drawn: the hovered one while previewing, else the pinned one.
 * @param {{token: number|string|null, preview: number|null}} state
 * @param {number} count
 * @param {{text: string}[]|null} [labels]
 */
export function shownIndex(state, count, labels = null) {
  if (state.preview !== null && state.preview >= 0 && state.preview < count) return state.preview;
  return pinnedIndex(state, count, labels);
}
