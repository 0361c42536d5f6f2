// What the view shows, as plain data and pure functions (no DOM, no model), so the rules for
// pinning, hovering, cycling heads and permalinks can be tested on their own.
//
// The element's attributes are the single source of truth for the pinned state; `resolve`
// turns them (plus meta.json's defaults) into numbers, and `reduce` turns a user action into
// the next pinned state, which the element writes back to its attributes.

/**
 * The pinned state's keys: the element's state attributes, the permalink's and the iframe's
 * parameters, and `change` events' detail all use exactly these (the one copy of the list).
 */
import { wordsOf, findWord } from "./words.js";
import { parseAblate, toggleHead } from "./ablation.js";

export const STATE_KEYS = ["text", "token", "layer", "head", "view", "scale", "ablate", "compare", "temperature", "topk", "seed"];

/** The generation settings among them (generation.js): kept as written; sampler.js checks them. */
export const GENERATE_KEYS = ["temperature", "topk", "seed"];

export const VIEWS = ["head", "average", "rollout"];

/**
 * How weights become colours (palette.js `level`): "share" = the weight itself, 0–100%;
 * "relative" = the weight ÷ the row's even share 1/(q+1), on a log scale. Typical rows peak
 * at 20–30%, which the share scale paints as a wall of dark purple; relative shows contrast.
 */
export const SCALES = ["share", "relative"];

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

function toInt(value) {
  if (value === null || value === undefined || value === "") return null;
  const n = Number(value);
  return Number.isInteger(n) ? n : null;
}

function clamp(n, lo, hi) {
  return Math.min(hi, Math.max(lo, n));
}

/**
 * The pinned state from attribute strings (null when absent) and meta.json.
 * `token` stays null when it should follow the last token; a number is a token index, any
 * other string a word spec ("said", "said#2": words.js); `pinnedIndex` resolves it.
 */
export function resolve(attrs, meta) {
  const def = meta.default || {};
  const cfg = meta.config;
  const text = attrs.text ?? def.text ?? "";
  const isDefaultText = attrs.text === null || attrs.text === undefined || attrs.text === def.text;
  let token = toInt(attrs.token);
  if (token === null && typeof attrs.token === "string" && attrs.token.trim() !== "") token = attrs.token;
  if (token === null && isDefaultText && Number.isInteger(def.token)) token = def.token;
  const view = VIEWS.includes(attrs.view) ? attrs.view : VIEWS.includes(def.view) ? def.view : "head";
  return {
    text,
    token,
    layer: clamp(toInt(attrs.layer) ?? def.layer ?? 1, 1, cfg.n_layer),
    head: clamp(toInt(attrs.head) ?? def.head ?? 1, 1, cfg.n_head),
    view,
    scale: SCALES.includes(attrs.scale) ? attrs.scale : "share",
    // Heads switched off (ablation.js): canonical "1.2 2.3", null when every head is on.
    ablate: parseAblate(attrs.ablate, cfg).text,
    // Compare mode's second text; null = compare mode off ("" = on, nothing typed yet).
    compare: typeof attrs.compare === "string" ? attrs.compare : null,
    ...Object.fromEntries(GENERATE_KEYS.map((k) => [k, attrs[k] ?? null])),
    preview: null,
  };
}

/**
 * 0-based index of the pinned token among `count` tokens (negative counts from the end); a
 * word spec needs the tokens' `labels` and, when the text has no such word, follows the last
 * token as if none were set.
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

/** The token whose row is drawn: the hovered one while previewing, else the pinned one. */
export function shownIndex(state, count, labels = null) {
  if (state.preview !== null && state.preview >= 0 && state.preview < count) return state.preview;
  return pinnedIndex(state, count, labels);
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
 * ("Continue", generation.js).
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
    case "view":
      return VIEWS.includes(action.view) ? { ...state, view: action.view } : state;
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
    case "ablate": // {layer, head}: switch that head the other way; {ablate}: set all at once
      return {
        ...state,
        ablate: "ablate" in action ? action.ablate
          : toggleHead(state.ablate, action.layer, action.head, { n_layer: nLayer, n_head: nHead }),
      };
    case "generate": // the model wrote on: the pin follows the newest token
    case "undo": // {text, token}: the text and pin from before the model wrote
      return { ...state, text: action.text, token: action.token ?? null, preview: null };
    case "settings": // {temperature, topk, seed}: strings, null for the default
      return { ...state, ...Object.fromEntries(GENERATE_KEYS.map((k) => [k, action[k] ?? null])) };
    case "compare": // {compare}: a second text turns compare mode on, null turns it off
    case "compareText":
      return { ...state, compare: action.compare };
    case "cycleView":
      return { ...state, view: VIEWS[(VIEWS.indexOf(state.view) + 1) % VIEWS.length] };
    case "text":
      // Typing at the end should keep showing the newest token, so a pin on the last token
      // turns into "follow the last token".
      return {
        ...state,
        text: action.text,
        token: count > 0 && pinned === count - 1 ? null : state.token,
        preview: null,
      };
    default:
      throw new Error(`unknown action ${action.type}`);
  }
}

/** Attribute values for a state (null = remove the attribute). */
export function toAttributes(state) {
  return {
    text: state.text,
    token: state.token === null ? null : String(state.token),
    layer: String(state.layer),
    head: String(state.head),
    view: state.view,
    // The default scale is no attribute, so links and embeds that never chose one stay as they were.
    scale: state.scale === "relative" ? "relative" : null,
    ablate: state.ablate || null,
    compare: state.compare ?? null,
    ...Object.fromEntries(GENERATE_KEYS.map((k) => [k, state[k] ?? null])),
  };
}

/** Permalink fragment for a state, e.g. "#text=The%20Queen&token=6&layer=2&head=3&view=head". */
export function toHash(state) {
  const params = new URLSearchParams();
  for (const key of STATE_KEYS) {
    const value = state[key];
    if (key === "scale" && value === "share") continue; // the default: keep old links unchanged
    if (value !== null && value !== undefined) params.set(key, String(value));
  }
  // URLSearchParams writes spaces as "+"; %20 survives being pasted into more places.
  return "#" + params.toString().replace(/\+/g, "%20");
}

/** Attribute strings from a permalink fragment; keys that are absent come back null. */
export function fromHash(hash) {
  const params = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  const out = {};
  for (const key of STATE_KEYS) out[key] = params.has(key) ? params.get(key) : null;
  return out;
}
