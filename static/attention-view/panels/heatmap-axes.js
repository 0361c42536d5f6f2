// @ts-check
// The heatmap's reading aids: token labels along both axes, and a crosshair with a one-line
// readout («to» → «Queen» 95%) for the cell under the pointer or the keyboard's focused cell.
// Pinning (click, Enter) goes through the controller like every other action; the hovered or
// focused cell is local to this module, since it changes nothing but these overlays.

import { h, setText, setHidden } from "../core/dom.js";
import { viewMatrix, viewName, wholePercent } from "../readouts/readouts.js";

// At most this many labels per axis: at the heatmap's usual 18–26rem that is one label every
// ~1.2rem or more, so ticks stay legible at T = 128 (every 8th token).
const MAX_LABELS = 16;

/**
 * @typedef {import("../core/view.js").View} View
 * @typedef {import("../model/runs.js").Outputs} Outputs
 * @typedef {ReturnType<typeof buildAxes>} Axes
 * @typedef {{q: number, k: number}} Cell  a query's row and a key's column, 0-based
 */

/**
 * Label every `step`-th token: the smallest of 1, 2, 4, 8, ... that keeps ≤ MAX_LABELS.
 * @param {number} T
 */
export function labelStep(T) {
  let step = 1;
  while (Math.ceil(T / step) > MAX_LABELS) step *= 2;
  return step;
}

/**
 * The DOM of the labelled heatmap around an existing canvas frame; returns its refs.
 * @param {HTMLElement} frame
 */
export function buildAxes(frame) {
  const top = h("div.axis.axis-top", { "aria-hidden": "true" });
  const left = h("div.axis.axis-left", { "aria-hidden": "true" });
  const crossRow = h("span.cross.cross-row", { hidden: true, "aria-hidden": "true" });
  const crossCol = h("span.cross.cross-col", { hidden: true, "aria-hidden": "true" });
  frame.append(crossRow, crossCol);
  const readout = h("p.readout", { "aria-live": "polite" });
  const grid = h("div.heatmap-grid", {},
    h("span.axis-corner", { "aria-hidden": "true", text: "query \u2193 key \u2192" }), top, left, frame);
  return { grid, top, left, crossRow, crossCol, readout, labelsKey: "" };
}

// Positions a pool of label spans along an axis (percentages of the axis, no layout reads).
// Spans are reused and only changed texts are written: a keystroke that changes one token
// then touches one label, not all of them.
/**
 * @param {HTMLElement & {pool?: HTMLElement[]}} axis @param {string[]} names @param {number} step @param {number} T
 * @param {"left"|"top"} prop
 */
function placeLabels(axis, names, step, T, prop) {
  const pool = (axis.pool ??= []);
  let n = 0;
  for (let i = 0; i < T; i += step, n++) {
    let span = pool[n];
    if (!span) {
      span = pool[n] = h("span.axis-label");
      axis.append(span);
    }
    if (span.hidden) span.hidden = false;
    setText(span, names[i]);
    const title = `${i}: ${names[i]}`;
    if (span.title !== title) span.title = title;
    const at = `${((100 * (i + 0.5)) / T).toFixed(3)}%`;
    if (span.style[prop] !== at) span.style[prop] = at;
  }
  for (; n < pool.length; n++) if (!pool[n].hidden) pool[n].hidden = true;
}

/**
 * Rewrites the axis labels, only when the tokens changed (a keystroke that adds none is free).
 * @param {Axes} ax @param {View} vm  a view with outputs
 */
export function paintAxes(ax, vm) {
  const T = /** @type {Outputs} */ (vm.out).T;
  const key = `${T}\u0000${vm.names.join("\u0000")}`;
  if (ax.labelsKey === key) return;
  ax.labelsKey = key;
  const step = labelStep(T);
  placeLabels(ax.top, vm.names, step, T, "left");
  placeLabels(ax.left, vm.names, step, T, "top");
}

/**
 * The readout for one cell of the view's matrix.
 * @param {View} vm  a view with outputs @param {number} q @param {number} k
 */
export function cellText(vm, q, k) {
  const { names } = vm;
  if (k > q) return `\u00ab${names[q]}\u00bb \u2192 \u00ab${names[k]}\u00bb: a later token, masked`;
  const w = viewMatrix(/** @type {Outputs} */ (vm.out), vm.state)[q * /** @type {Outputs} */ (vm.out).T + k];
  return `\u00ab${names[q]}\u00bb \u2192 \u00ab${names[k]}\u00bb ${wholePercent(w)}`;
}

/**
 * Crosshair and readout for the hovered cell, else the keyboard's focused cell; with neither,
 * a hint. `cell` values are {q, k} or null.
 */
export class HeatmapCursor {
  /** @param {Axes} ax @param {HTMLCanvasElement} canvas */
  constructor(ax, canvas) {
    this.ax = ax;
    this.canvas = canvas;
    /** @type {Cell|null} */
    this.hover = null;
    /** @type {Cell|null} */
    this.focus = null; // the keyboard's cell while the heatmap has focus
    /** @type {View|null} */
    this.vm = null;
  }

  /** @param {View} vm */
  update(vm) {
    this.vm = vm;
    const T = vm.out ? vm.out.T : 0;
    for (const c of /** @type {("hover"|"focus")[]} */ (["hover", "focus"])) {
      if (this[c] && (this[c].q >= T || this[c].k >= T)) this[c] = null;
    }
    this.paint();
  }

  /** @param {Cell|null} cell */
  setHover(cell) {
    this.hover = cell;
    this.paint();
  }

  /** Focus arrives: start on the shown row's strongest key. */
  focusIn() {
    if (!this.vm?.out) return;
    if (!this.focus) {
      const q = this.vm.shown;
      const m = viewMatrix(this.vm.out, this.vm.state);
      let k = 0;
      for (let j = 1; j <= q; j++) if (m[q * this.vm.out.T + j] > m[q * this.vm.out.T + k]) k = j;
      this.focus = { q, k };
    }
    this.paint();
  }

  focusOut() {
    this.focus = null;
    this.paint();
  }

  /**
   * Arrow keys: up/down change the query, left/right the key (keys stay ≤ the query).
   * @param {number} dq @param {number} dk
   */
  move(dq, dk) {
    if (!this.focus || !this.vm?.out) return;
    const T = this.vm.out.T;
    const q = Math.max(0, Math.min(T - 1, this.focus.q + dq));
    const k = Math.max(0, Math.min(q, this.focus.k + dk));
    this.focus = { q, k };
    this.paint();
  }

  paint() {
    const { ax, vm } = this;
    const cell = /** @type {Cell} */ (this.hover ?? this.focus); // read only when `on`
    const on = Boolean(cell && vm?.out);
    setHidden(ax.crossRow, !on);
    setHidden(ax.crossCol, !on);
    if (!vm?.out) return;
    const T = vm.out.T;
    if (on) {
      // Percent transforms of the lines' own size: one cell per 100%, no layout.
      const size = `${(100 / T).toFixed(4)}%`;
      if (ax.crossRow.style.height !== size) ax.crossRow.style.height = size;
      if (ax.crossCol.style.width !== size) ax.crossCol.style.width = size;
      ax.crossRow.style.transform = `translateY(${100 * cell.q}%)`;
      ax.crossCol.style.transform = `translateX(${100 * cell.k}%)`;
      setText(ax.readout, cellText(vm, cell.q, cell.k));
    } else {
      setText(ax.readout, `${viewName(vm.state)}: point at a cell (or focus the map and use the arrow keys) to read its weight.`);
    }
    const label = `Heatmap of ${viewName(vm.state)} for ${T} tokens` + (on ? `; ${cellText(vm, cell.q, cell.k)}` : "");
    if (this.canvas.getAttribute("aria-label") !== label) this.canvas.setAttribute("aria-label", label);
  }
}

/**
 * Which cell a pointer at (clientX, clientY) is over.
 * @param {Element} canvas @param {number} clientX @param {number} clientY @param {number} T
 * @returns {Cell}
 */
export function cellAt(canvas, clientX, clientY, T) {
  const rect = canvas.getBoundingClientRect();
  /** @param {number} v */
  const at = (v) => Math.max(0, Math.min(T - 1, Math.floor(v * T)));
  return { q: at((clientY - rect.top) / rect.height), k: at((clientX - rect.left) / rect.width) };
}
