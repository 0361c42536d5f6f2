// Event wiring: turns the reader's clicks, hovers and keys on the element's UI into state
// actions (state.js `reduce` knows what each one means). Nothing here changes the DOM or the
// state itself; the controller does, through `act`.

import { KEY_ACTIONS } from "./state.js";
import { cellAt } from "./heatmap-axes.js";

// --- keys anywhere on the page ------------------------------------------------------------
// ←/→, Home/End, H, L, V also work with focus outside every view (on the page's body, a link,
// a heading), except in text fields. They go to the view the reader last clicked or focused;
// with no such view, to the page's only view; with several and none chosen, nowhere.

const pageViews = new Map(); // host element -> act(action)
let lastActive = null;

function isTextField(node) {
  return node instanceof Element && (node.matches("input, textarea, select") || node.isContentEditable);
}

function pageKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  const action = KEY_ACTIONS[e.key];
  if (!action) return;
  const path = e.composedPath();
  if (path.some((n) => pageViews.has(n))) return; // inside a view: its own listener answers
  if (path.some(isTextField)) return;
  const live = [...pageViews.keys()].filter((host) => host.isConnected && host.result);
  const host = live.includes(lastActive) ? lastActive : live.length === 1 ? live[0] : null;
  if (!host) return;
  e.preventDefault();
  pageViews.get(host)(action);
}

/** Lets the page's keys reach `host` (see above); the document listener is added once. */
export function wirePageKeys(host, act) {
  if (pageViews.size === 0) document.addEventListener("keydown", pageKey);
  if (!pageViews.has(host)) {
    const mark = () => { lastActive = host; };
    host.addEventListener("pointerdown", mark);
    host.addEventListener("focusin", mark);
  }
  pageViews.set(host, act);
}

/**
 * @param {object} r  the UI's element references (skeleton.js buildUI)
 * @param {{act: (action: object, opts?: {focusChip?: boolean}) => void,
 *   heatmapSize: () => number, mathOpened: () => void,
 *   cursor: () => import("./heatmap-axes.js").HeatmapCursor}} to
 */
export function wireEvents(r, to) {
  r.input.addEventListener("input", () => to.act({ type: "text", text: r.input.value }));
  const chipAt = (e) => e.target.closest(".chip");
  r.chips.addEventListener("click", (e) => {
    const chip = chipAt(e);
    if (chip) to.act({ type: "pin", token: Number(chip.dataset.index) });
  });
  // Hover previews a row with a mouse only: on touch, a tap is a pin and must not flicker.
  r.chips.addEventListener("pointerover", (e) => {
    const chip = chipAt(e);
    if (chip && e.pointerType === "mouse") to.act({ type: "preview", token: Number(chip.dataset.index) });
  });
  r.chips.addEventListener("pointerleave", () => to.act({ type: "preview", token: null }));
  for (const mini of r.minis) {
    mini.button.addEventListener("click", () => {
      const { layer, head, view } = mini;
      to.act(view === "head" ? { type: "select", layer, head } : { type: "view", view, layer });
    });
  }
  for (const button of r.scaleButtons) {
    button.addEventListener("click", () => to.act({ type: "scale", scale: button.dataset.scale }));
  }
  for (const thumb of r.thumbs) {
    thumb.button.addEventListener("click", () => to.act({ type: "select", layer: thumb.layer, head: thumb.head }));
    thumb.example.addEventListener("click", () => to.act({ type: "example", layer: thumb.layer, head: thumb.head }));
  }
  r.storyFind.addEventListener("click", () => to.act({ type: "story", next: false }));
  r.storyNext.addEventListener("click", () => to.act({ type: "story", next: true }));
  // Pointer events on the map's frame, not the canvas: the row-0 veil (with its title) and
  // the overlays sit on top of the canvas, and the cell under them counts all the same.
  const frame = r.heatmap.parentElement;
  frame.addEventListener("click", (e) => {
    const T = to.heatmapSize();
    if (T) to.act({ type: "pin", token: cellAt(r.heatmap, e.clientX, e.clientY, T).q });
  });
  // The crosshair follows any pointer over the map (a tap shows it too, then pins the row).
  const cursor = to.cursor();
  frame.addEventListener("pointermove", (e) => {
    const T = to.heatmapSize();
    if (T) cursor.setHover(cellAt(r.heatmap, e.clientX, e.clientY, T));
  });
  frame.addEventListener("pointerleave", () => cursor.setHover(null));
  r.heatmap.addEventListener("focus", () => cursor.focusIn());
  r.heatmap.addEventListener("blur", () => cursor.focusOut());
  const CELL_KEYS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  r.heatmap.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const step = CELL_KEYS[e.key];
    if (step) cursor.move(...step);
    else if ((e.key === "Enter" || e.key === " ") && cursor.focus) to.act({ type: "pin", token: cursor.focus.q });
    else return; // H, L, V and the rest go on to the view's own keys
    e.preventDefault();
    e.stopPropagation(); // on the map, arrows walk cells instead of moving the pin
  });
  r.math.addEventListener("toggle", () => {
    if (r.math.open) to.mathOpened();
  });
  r.ui.addEventListener("keydown", (e) => {
    // Keys belong to the text box while typing, and to the browser with a modifier.
    if (e.target.closest("textarea, input") || e.ctrlKey || e.metaKey || e.altKey) return;
    const action = KEY_ACTIONS[e.key];
    if (!action) return;
    e.preventDefault();
    // Moving the pin with the keyboard moves focus with it, so the focused chip is the pinned one.
    to.act(action, { focusChip: action.type === "move" || e.target.classList.contains("chip") });
  });
}
