// @ts-check
// What core's user actions do to the state (pure, no DOM), and the keys the view answers. Each
// feature declares its own beside (the `actions` of its Feature object); schema.js puts them together
// into the element's `reduce`, and the controller writes the next state back to the element's
// attributes.

import { VIEWS, SCALES, pinnedIndex, clamp } from "./state.js";
import { parseAblate, toggleHead } from "../model/head-set.js";
import { wordsOf, wordSpec, parseWordSpec } from "../model/words.js";

/** @typedef {import("./state.js").State} State */
/** @typedef {State["view"]} View */
/**
 * What an action needs to know of the run on screen: its number of tokens, the model's layers
 * and heads, and the tokens' labels (they resolve a word-spec token).
 * @typedef {{count: number, nLayer: number, nHead: number, labels?: {text: string}[]|null}} Dims
 */
/**
 * What one action does: the next state (a new object; the state itself stays as it was).
 * @typedef {(state: State, action: any, dims: Dims) => State} Reducer
 */

/** Keys the view answers (when focus is not in the text box) and the action each one means. */
/** @type {Object<string, {type: string, delta?: number, to?: string}|undefined>} */
export const KEY_ACTIONS = {
  ArrowLeft: { type: "move", delta: -1 },
  ArrowRight: { type: "move", delta: 1 },
  Home: { type: "move", to: "first" },
  End: { type: "move", to: "last" },
  h: { type: "cycleHead", delta: 1 },
  H: { type: "cycleHead", delta: -1 },
  l: { type: "cycleLayer", delta: 1 },
  L: { type: "cycleLayer", delta: -1 },
  v: { type: "cycleView" },
  V: { type: "cycleView" },
};

/**
 * The pin on the word it was on, across an edit of the text: the word's spec ("said#2",
 * words.js), which the new text's tokens resolve wherever the edit moved it, when a word names
 * the pinned token and the new text still holds it that many times; else null (the index stays).
 * @param {{text: string}[]|null} labels  the tokens before the edit
 * @param {number} pinned
 * @param {string} text
 */
function keptWord(labels, pinned, text) {
  const spec = labels && pinned >= 0 ? wordSpec(wordsOf(labels), pinned) : null;
  const parsed = parseWordSpec(spec);
  if (!parsed) return null;
  let seen = 0;
  for (let at = text.indexOf(parsed.word); at >= 0; at = text.indexOf(parsed.word, at + parsed.word.length)) seen++;
  return seen >= parsed.n ? spec : null;
}

/**
 * Core's actions, by type: pin {token}, preview {token|null}, move {delta} (or {to:
 * "first"|"last"}), select {layer, head}, cycleHead {delta}, cycleLayer {delta}, view {view},
 * cycleView, scale {scale}, text {text}, jump {layer, head, token, text?} (one head's row, maybe
 * on another text: "Find the story" and "See it do this"), ablate {layer, head} or {ablate}.
 * @type {Object<string, Reducer>}
 */
export const CORE_ACTIONS = {
  pin: (state, action, { count }) => ({ ...state, token: clamp(action.token, 0, Math.max(0, count - 1)), preview: null }),
  preview: (state, action) => ({ ...state, preview: action.token }),
  move: (state, action, { count, labels = null }) => {
    if (count === 0) return state;
    const pinned = pinnedIndex(state, count, labels);
    const t = action.to === "first" ? 0 : action.to === "last" ? count - 1 : pinned + action.delta;
    return { ...state, token: clamp(t, 0, count - 1), preview: null };
  },
  select: (state, action, { nLayer, nHead }) =>
    ({ ...state, layer: clamp(action.layer, 1, nLayer), head: clamp(action.head, 1, nHead), view: "head" }),
  cycleHead: (state, action, { nLayer, nHead }) => {
    // Walks all layer x head pairs in reading order, so one key reaches every head.
    const total = nLayer * nHead;
    const i = ((state.layer - 1) * nHead + (state.head - 1) + action.delta + total) % total;
    return { ...state, layer: Math.floor(i / nHead) + 1, head: (i % nHead) + 1, view: "head" };
  },
  cycleLayer: (state, action, { nLayer }) => ({ ...state, layer: ((state.layer - 1 + action.delta + nLayer) % nLayer) + 1 }),
  view: (state, action, { nLayer }) => { // {view, layer?}: a strip names its layer too
    if (!VIEWS.includes(action.view)) return state;
    return { ...state, view: action.view, layer: action.layer ? clamp(action.layer, 1, nLayer) : state.layer };
  },
  jump: (state, action, { nLayer, nHead }) => ({
    ...state,
    text: action.text ?? state.text,
    layer: clamp(action.layer, 1, nLayer),
    head: clamp(action.head, 1, nHead),
    view: "head",
    token: action.token,
    preview: null,
  }),
  scale: (state, action) => (SCALES.includes(action.scale) ? { ...state, scale: action.scale } : state),
  ablate: (state, action, { nLayer, nHead }) => { // {layer, head}: switch that head the other way; {ablate}: set all at once
    const config = { n_layer: nLayer, n_head: nHead };
    const ablate = "ablate" in action ? action.ablate : toggleHead(state.ablate, action.layer, action.head, config);
    return { ...state, ablate, off: parseAblate(ablate, config) };
  },
  cycleView: (state) => ({ ...state, view: /** @type {View} */ (VIEWS[(VIEWS.indexOf(state.view) + 1) % VIEWS.length]) }),
  text: (state, action, { count, labels = null }) => {
    // Typing at the end should keep showing the newest token, so a pin on the last token
    // turns into "follow the last token"; any other pin stays on its word (keptWord).
    const pinned = pinnedIndex(state, count, labels);
    return {
      ...state,
      text: action.text,
      token: count > 0 && pinned === count - 1 ? null : keptWord(labels, pinned, action.text) ?? state.token,
      preview: null,
    };
  },
};
