// @ts-check
// "Copy embed code": the three ways to put exactly the view on screen into another page (the
// README's "Embed it in a course chapter"): a script tag + element, an iframe of embed.html,
// and this site's jinja2 macro call. The asset base is where this very module was served from
// (two folders up is the built site's root), so a snippet copied from the live page points
// at the live site, wherever that is hosted. Snippets are shown as focusable <pre> blocks (not
// text boxes: the view's one text box is the sentence) and copied on request.

import { h } from "../core/dom.js";
import { wordsOf, wordSpec } from "../model/words.js";
import { formatAblate } from "../model/head-set.js";
import { SITE_ROOT } from "../paths.js";

/** @typedef {import("../model/result.js").Result} Result */


// What a reader sees where the view cannot start. Without CORS headers on the server of the
// files a page of another origin never runs the script, so only this text can say why
// (docs/embedding.md and the jinja2 macro give the same words).
const FALLBACK = "A live attention view: it needs JavaScript and WebAssembly, and CORS headers where its files come from another origin.";

/** @param {unknown} value  a state value of any key */
function attr(value) {
  return String(value).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// Half a UTF-16 surrogate pair (a script can set any string) survives neither a URL
// (encodeURIComponent throws on it) nor the clipboard: every snippet carries U+FFFD instead.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** @param {unknown} value */
const wellFormed = (value) => (typeof value === "string" ? value.replace(LONE_SURROGATE, "\uFFFD") : value);

/**
 * The state a snippet reproduces, in the order of `keys` (the element's state keys), with every key that has a value
 * (ablate, compare, the training step, the picked prediction and the settings of Continue only when set, so that
 * snippets of views without them stay as they were): the pinned token as a word when a word names it;
 * `settings` are the state keys the result does not hold: the generation attributes
 * (temperature, topk, seed) and `compact` (null = not set).
 * @param {Result} result @param {string[]} keys @param {Object<string, string|null>} [settings]
 * @returns {Object<string, unknown>}
 */
export function embedState(result, keys, settings = {}) {
  const word = result.token >= 0 ? wordSpec(wordsOf(result.tokens), result.token) : null;
  /** @type {Object<string, unknown>} */
  const values = {
    ...settings,
    text: result.text, layer: result.layer, head: result.head, token: word ?? result.token, view: result.view,
    scale: result.scale ?? "share", ablate: formatAblate(result.ablated ?? []), compare: result.compare?.text ?? null,
    step: result.step ?? null,
    // The prediction "What pushed" shows, only when another than the top one (features/attribution/).
    target: result.target && result.target !== "1" ? result.target : null,
  };
  return Object.fromEntries(keys.filter((k) => values[k] != null).map((k) => [k, wellFormed(values[k])]));
}

/**
 * {script, iframe, jinja} snippets for `result`, with assets under `root` (ends with "/").
 * @param {Result} result
 * @param {string[]} stateKeys  the element's state keys, in its schema's order
 * @param {string} [root] @param {Object<string, string|null>} [settings]
 */
export function snippets(result, stateKeys, root = SITE_ROOT, settings = {}) {
  const s = embedState(result, stateKeys, settings);
  const keys = Object.keys(s); // embedState's order; optional keys only when set
  const attrs = keys.map((k) => `${k}="${attr(s[k])}"`).join(" ");
  const script = `<script type="module" src="${attr(root)}static/attention-view.js"></script>\n` +
    `<attention-view ${attrs}>\n  <p>${FALLBACK}</p>\n</attention-view>`;
  const query = keys.map((k) => `${k}=${encodeURIComponent(String(s[k]))}`).join("&");
  const iframe = `<iframe src="${attr(`${root}embed.html?${query}`)}"\n` +
    `        width="100%" height="720" loading="lazy" title="Live attention view"\n` +
    `        style="border: 1px solid #ccc; border-radius: 8px"></iframe>`;
  // JSON string literals are valid jinja2 string literals (same escapes).
  /** @param {string} k */
  const arg = (k) => (typeof s[k] === "number" ? String(s[k]) : JSON.stringify(s[k]));
  const jinja = `{{ attention_view(${keys.map((k) => `${k}=${arg(k)}`).join(", ")}) }}`;
  return { script, iframe, jinja };
}

/** @type {["script"|"iframe"|"jinja", string][]} */
const KINDS = [
  ["script", "Script tag (any page)"],
  ["iframe", "Iframe (no scripts allowed)"],
  ["jinja", "Jinja2 macro (this site's chapters)"],
];

/**
 * The menu, under the export bar; it fills its snippets only while open.
 * @type {import("../core/feature.js").Feature}
 */
export const embedMenu = { name: "embed-menu", mount: (slots, ctx) => addEmbedMenu(slots, /** @type {HTMLElement & {result: Result|null}} */ (ctx.host), ctx.schema) };

/**
 * @param {import("../core/skeleton.js").Slots} slots
 * @param {HTMLElement & {result: Result|null}} view  the element
 * @param {import("../core/schema.js").StateSchema} schema
 * @returns {import("../core/feature.js").Part}
 */
function addEmbedMenu(slots, view, schema) {
  // The settings of Continue: state keys the result does not hold, read from the attributes.
  const settingKeys = schema.keys.filter((k) => k.type === "setting").map((k) => k.key);
  /** @type {Object<string, HTMLElement>} */
  const boxes = {};
  const note = h("span.embed-note", { role: "status" });
  const items = KINDS.map(([kind, label]) => {
    const box = (boxes[kind] = h("pre.embed-code", { tabindex: "0", "data-kind": kind, "aria-label": label }));
    const copy = h("button.export-button", { type: "button", "data-copy": kind, text: "Copy" });
    copy.addEventListener("click", () => copyText(box, note, label));
    return h("div.embed-item", {}, h("div.embed-head", {}, h("span", { text: label }), copy), box);
  });
  // The compact view (state.js COMPACT) is a choice of the author's, not of the view on screen.
  const compact = /** @type {HTMLInputElement} */ (h("input.embed-compact", { type: "checkbox" }));
  const compactField = h("label.embed-option", {}, compact, " Compact: only the row and the grid of heads (a small figure)");
  compact.addEventListener("change", () => fill());
  // A disclosure button, not <details>: the view's one <details> is "Show the math".
  const toggle = h("button.embed-toggle", { type: "button", "aria-expanded": "false", text: "Copy embed code" });
  const panel = h("div.embed-panel", { hidden: true },
    h("p.embed-intro", { text: "Exactly this view (text, layer, head, token, view, colour scale, heads off, second sentence, the prediction \u201cWhat pushed\u201d shows, the settings of Continue), with the files served from this site." }),
    compactField, ...items, note);
  const menu = h("div.embed-menu", {}, toggle, panel);
  panel.id = "embed-panel";
  toggle.setAttribute("aria-controls", panel.id);
  slots.put("row-tools", menu);
  const isOpen = () => !panel.hidden;
  const fill = () => {
    const result = view.result;
    if (!isOpen() || !result) return;
    const settings = Object.fromEntries(settingKeys.map((k) => [k, view.getAttribute(k)]));
    const code = snippets(result, schema.names, SITE_ROOT, { ...settings, compact: compact.checked ? "1" : null });
    for (const [kind] of KINDS) if (boxes[kind].textContent !== code[kind]) boxes[kind].textContent = code[kind];
  };
  toggle.addEventListener("click", () => {
    panel.hidden = isOpen();
    toggle.setAttribute("aria-expanded", String(isOpen()));
    fill();
  });
  // After every paint, whatever changed the view (a click, a script, the Back button), once
  // every feature has painted (the result holds their fields); only while open: a closed menu
  // costs the keystroke nothing.
  return { paint: () => isOpen() && queueMicrotask(fill) };
}

/** @param {HTMLElement} box @param {HTMLElement} note @param {string} label */
async function copyText(box, note, label) {
  getSelection()?.selectAllChildren(box);
  try {
    await navigator.clipboard.writeText(box.textContent);
    note.textContent = `Copied: ${label}.`;
  } catch {
    // No clipboard permission (an insecure context, an iframe): the text is selected instead.
    note.textContent = "Selected: press Ctrl+C (\u2318C) to copy.";
  }
}
