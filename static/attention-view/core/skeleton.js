// @ts-check
// The element's fixed DOM and its named slots. The skeleton builds what every view has (the
// stylesheet, the status line, the fallback slot, the text box and the notice) and declares
// where each feature's nodes go; features (../features.js) fill the slots when they mount.
// The order on screen is the order of the slots declared here, whatever order the features
// mount in. Built with createElement, never from HTML strings, so no string ever becomes
// markup (the CSP forbids inline styles and scripts; this forbids injection).

import { h, setText, setHidden } from "./dom.js";
import { modelBytes } from "../model/loader.js";

/**
 * Named places in the DOM. A slot is an empty comment node: what a feature puts into it goes
 * just before it, after what other features put there earlier, and takes no part in layout,
 * styles or selectors. Features declare slots of their own inside the nodes they build
 * (a head's strip, the row's panel), so that other features can place things there.
 */
export class Slots {
  constructor() {
    /** @type {Map<string, Comment>} */
    this.anchors = new Map();
  }

  /**
   * Declares slot `name` at the end of `parent` (or before `before`).
   * @param {string} name @param {Node} parent @param {Node|null} [before]
   */
  declare(name, parent, before = null) {
    if (this.anchors.has(name)) throw new Error(`slot ${name} is declared twice`);
    const anchor = document.createComment(name);
    parent.insertBefore(anchor, before);
    this.anchors.set(name, anchor);
    return this;
  }

  /** @param {string} name */
  has(name) {
    return this.anchors.has(name);
  }

  /**
   * Puts `nodes` into slot `name`; returns the first.
   * @template {Node} N
   * @param {string} name
   * @param {N} node
   * @param {...Node} more
   * @returns {N}
   */
  put(name, node, ...more) {
    const anchor = this.anchors.get(name);
    if (!anchor) throw new Error(`no slot named ${name} (declared: ${[...this.anchors.keys()].join(", ")})`);
    anchor.before(node, ...more);
    return node;
  }
}

/**
 * The slots of the element's UI, in screen order: "top" (a skip link), "controls" under the text box (Continue),
 * then the notice, then the panels in the order of BODY_SLOTS (two columns from 820 px on:
 * attention-view.css), then "end" (the row as a table, for screen readers).
 */
export const BODY_SLOTS = ["row", "compare", "heads", "map", "predictions", "ablation", "math"];

export const WIDE_PX = 820; // from here on the panels sit in two columns

/**
 * The part that exists before meta.json arrives, in the host's new shadow root: stylesheet,
 * status line (its retry button calls `onRetry`), fallback slot, and the UI's container.
 * @param {HTMLElement} host
 * @param {string} cssURL
 * @param {() => void} onRetry
 */
export function buildShell(host, cssURL, onRetry) {
  const root = host.attachShadow({ mode: "open" });
  const css = h("link", { rel: "stylesheet", href: cssURL });
  /** @type {Promise<void>} */
  const cssReady = new Promise((resolve) => {
    css.addEventListener("load", () => resolve(), { once: true });
    css.addEventListener("error", () => resolve(), { once: true }); // unstyled beats invisible
  });
  const statusText = h("span.status-text");
  const retry = h("button.retry", { type: "button", hidden: true, text: "Try again" });
  const status = h("p.status", { role: "status" }, statusText, " ", retry);
  // The fallback (the element's own children) shows through this slot until the UI is ready.
  const slot = h("slot");
  const ui = h("div.ui", { hidden: true });
  root.append(css, status, slot, ui);
  retry.addEventListener("click", onRetry);
  // The class changes only when the width crosses the line, and in the next frame: a layout
  // change inside the callback resizes the observed element again, which browsers report as a
  // window error ("ResizeObserver loop completed with undelivered notifications"; WebKit does
  // at a 1024 px window).
  new ResizeObserver(([entry]) => {
    const wide = entry.contentRect.width >= WIDE_PX;
    if (ui.classList.contains("wide") !== wide) requestAnimationFrame(() => ui.classList.toggle("wide", wide));
  }).observe(host);
  // The columns from the host's width now, not only from the observer: a browser runs neither
  // observers nor animation frames for a frame off screen, and embed.html posts the height the
  // reader will see before the reader scrolls there.
  const layColumns = () => ui.classList.toggle("wide", host.getBoundingClientRect().width >= WIDE_PX);
  return { cssReady, statusText, retry, status, slot, ui, layColumns };
}

/** @typedef {ReturnType<typeof buildShell>} Shell */

/**
 * Fills the shell's UI with the text box, the notice and the slots; returns the slots and
 * the nodes the controller itself writes (the text box, the notice, the body).
 * @param {Shell} shell
 */
export function buildUI(shell) {
  const input = /** @type {HTMLTextAreaElement} */ (h("textarea.input", {
    rows: 2, spellcheck: "false", autocomplete: "off", autocapitalize: "off",
    "aria-label": "Text to analyse", "aria-describedby": "notice",
  }));
  const notice = h("p.notice", { id: "notice", hidden: true });
  const field = h("label.field", {}, h("span.field-label", { text: "Your text" }), input);
  const body = h("div.body");
  const slots = new Slots();
  shell.layColumns();
  slots.declare("top", shell.ui); // before the text box: the skip link
  shell.ui.append(field);
  slots.declare("controls", shell.ui);
  shell.ui.append(notice, body);
  for (const name of BODY_SLOTS) slots.declare(name, body);
  slots.declare("end", shell.ui);
  return { slots, input, notice, body, root: shell.ui };
}

/** @typedef {ReturnType<typeof buildUI>} UI */

/**
 * The line under the text box: a prompt for an empty text, or what a long text lost.
 * @param {import("../model/runs.js").Run} run
 */
export function noticeText(run) {
  if (run.text === "") return "Type a sentence above to see which earlier tokens each token attends to.";
  if (!run.truncated) return "";
  const n = run.ids.length;
  const first = `starting at \u00ab${run.names[0]}\u00bb`;
  const { total, start } = run.truncated;
  if (total === null) {
    // Only the text's tail was tokenized (a very long text): the total was not counted.
    return `This text is longer than the model reads (at most ${n} tokens), so only the last ${n} ` +
      `are shown, ${first}.`;
  }
  return `This text is ${total} tokens long and the model reads at most ${n}, so only the last ${n} ` +
    `are shown: tokens ${/** @type {number} */ (start) + 1}\u2013${total}, ${first}.`;
}

/**
 * The skeleton's own nodes for a view: the text box (only when the text came from outside:
 * rewriting the value while typing moves the caret), the notice, and the panels, hidden
 * while there is no token to show. `view` null: a new model is loading, nothing computed stays.
 * @param {ReturnType<typeof buildUI>} ui
 * @param {import("./view.js").View|null} view
 */
export function paintFrame(ui, view) {
  if (view && ui.input.value !== view.state.text) ui.input.value = view.state.text;
  const notice = view ? noticeText(view.run) : "";
  setHidden(ui.notice, !notice);
  setText(ui.notice, notice);
  setHidden(ui.body, !view || view.out === null);
}

/**
 * Shows the UI (hiding the fallback) once its stylesheet has arrived.
 * @param {Shell} shell
 */
export async function reveal(shell) {
  await shell.cssReady;
  shell.ui.hidden = false;
  shell.slot.hidden = true;
}

/**
 * The status line: text, kind (for CSS) and the retry button.
 * @param {Shell} shell @param {string} kind @param {string} text @param {boolean} retry
 */
export function paintStatus(shell, kind, text, retry) {
  shell.status.dataset.kind = kind;
  setText(shell.statusText, text);
  setHidden(shell.retry, !retry);
}

/**
 * The status line while loading: the download's size and, while bytes arrive, the share of them
 * in. Once all are in the runtime is still compiling, and "100%" would claim the wait is over.
 * @param {import("./state.js").Meta|null} meta  null before meta.json
 * @param {number|null} loaded  bytes received of the model files, if known
 */
export function loadingText(meta, loaded = null) {
  if (!meta) return "loading the model\u2026";
  const total = modelBytes(meta);
  const percent = total && loaded !== null && loaded < total ? ` ${Math.floor((100 * loaded) / total)}%` : "";
  return `loading the model (\u2248${(total / 1e6).toFixed(1)} MB)\u2026${percent}`;
}
