// @ts-check
// What a user action does to the state: `reduce` (pure, no DOM), and the keys the view
// answers. The controller writes the next state back to the element's attributes.

import { VIEWS, SCALES, GENERATE_KEYS, pinnedIndex, clamp } from "./state.js";
import { parseAblate, toggleHead } from "../model/head-set.js";
import { wordsOf, wordSpec, parseWordSpec } from "../model/words.js";

/** @typedef {import("./state.js").State} State */
/** @typedef {State["view"]} View */

/** Keys the view answers (when focus is not in the text box) and the action each one means. */
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
 * Next state after a user action; `dims` = {count, nLayer, nHead, labels?} (labels resolve a
 * word-spec token).
 * Actions: pin {token}, preview {token|null}, move {delta} (or {to: "first"|"last"}),
 * select {layer, head}, cycleHead {delta}, cycleLayer {delta}, view {view}, cycleView,
 * scale {scale}, text {text}, jump {layer, head, token, text?} (one head's row, maybe on
 * another text: "Find the story" and "See it do this"), ablate {layer, head} or {ablate},
 * compare / compareText {compare} (turning compare mode on or off / typing the second text).
 * generate {text} (the model wrote on), undo {text, token}, settings {temperature, topk, seed}
 * ("Continue", features/generation/writer.js), step {step} (a training step, null for the shipped model: the
 * timeline, features/timeline/timeline.js).
 * @param {State} state
 * @param {any} action
 * @param {{count: number, nLayer: number, nHead: number, labels?: {text: string}[]|null}} dims
 * @returns {State}
 */
export function reduce(state, action, dims) {
  const { count, nLayer, nHead, labels = null } = dims;
  const pinned = pinnedIndex(state, count, labels);
  switch (action.type) {
    case "pin":
      return { ...state, token: clamp(action.token, 0, Math.max(0, count - 1)), preview: null };
    case "preview":
      return { ...state, preview: action.token };
    case "move": {
      if (count === 0) return state;
      let t = action.to === "first" ? 0 : action.to === "last" ? count - 1 : pinned + action.delta;
      t = clamp(t, 0, count - 1);
      return { ...state, token: t, preview: null };
    }
    case "select":
      return { ...state, layer: clamp(action.layer, 1, nLayer), head: clamp(action.head, 1, nHead), view: "head" };
    case "cycleHead": {
      // Walks all layer x head pairs in reading order, so one key reaches every head.
      const total = nLayer * nHead;
      const i = ((state.layer - 1) * nHead + (state.head - 1) + action.delta + total) % total;
      return { ...state, layer: Math.floor(i / nHead) + 1, head: (i % nHead) + 1, view: "head" };
    }
    case "cycleLayer": {
      const layer = ((state.layer - 1 + action.delta + nLayer) % nLayer) + 1;
      return { ...state, layer };
    }
    case "view": // {view, layer?}: a strip names its layer too
      if (!VIEWS.includes(action.view)) return state;
      return { ...state, view: action.view, layer: action.layer ? clamp(action.layer, 1, nLayer) : state.layer };
    case "jump":
      return {
        ...state,
        text: action.text ?? state.text,
        layer: clamp(action.layer, 1, nLayer),
        head: clamp(action.head, 1, nHead),
        view: "head",
        token: action.token,
        preview: null,
      };
    case "scale":
      return SCALES.includes(action.scale) ? { ...state, scale: action.scale } : state;
    case "ablate": { // {layer, head}: switch that head the other way; {ablate}: set all at once
      const config = { n_layer: nLayer, n_head: nHead };
      const ablate = "ablate" in action ? action.ablate : toggleHead(state.ablate, action.layer, action.head, config);
      return { ...state, ablate, off: parseAblate(ablate, config) };
    }
    case "generate": // the model wrote on: the pin follows the newest token
    case "undo": // {text, token}: the text and pin from before the model wrote
      return { ...state, text: action.text, token: action.token ?? null, preview: null };
    case "settings": // {temperature, topk, seed}: strings, null for the default
      return { ...state, ...Object.fromEntries(GENERATE_KEYS.map((k) => [k, action[k] ?? null])) };
    case "compare": // {compare}: a second text turns compare mode on, null turns it off
    case "compareText":
      return { ...state, compare: action.compare };
    case "step":
      return { ...state, step: action.step };
    case "cycleView":
      return { ...state, view: /** @type {View} */ (VIEWS[(VIEWS.indexOf(state.view) + 1) % VIEWS.length]) };
    case "text":
      // Typing at the end should keep showing the newest token, so a pin on the last token
      // turns into "follow the last token"; any other pin stays on its word (keptWord).
      return {
        ...state,
        text: action.text,
        token: count > 0 && pinned === count - 1 ? null : keptWord(labels, pinned, action.text) ?? state.token,
        preview: null,
      };
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

