// @ts-check
// The view's keys: typing in the text box, and the keys of actions.js KEY_ACTIONS, inside the
// element and on the page around it. Each panel wires its own clicks and hovers when it
// mounts; nothing here changes the DOM or the state itself: the controller does, through `act`.

import { KEY_ACTIONS } from "./actions.js";

// --- keys anywhere on the page ------------------------------------------------------------
// ←/→, Home/End, H, L, V also work with focus outside every view (on the page's body, a link,
// a heading), except in text fields. They go to the view the reader last clicked or focused;
// with no such view, to the page's only view; with several and none chosen, nowhere.

/** @type {Map<HTMLElement, (action: object) => void>} */
const pageViews = new Map(); // host element -> act(action)
/** @type {HTMLElement|null} */
let lastActive = null;

/** @param {EventTarget} node */
function isTextField(node) {
  return node instanceof HTMLElement && (node.matches("input, textarea, select") || node.isContentEditable);
}

/** @param {KeyboardEvent} e */
function pageKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  const action = KEY_ACTIONS[e.key];
  if (!action) return;
  const path = e.composedPath();
  if (path.some((n) => pageViews.has(/** @type {HTMLElement} */ (n)))) return; // inside a view: its own listener answers
  if (path.some(isTextField)) return;
  const live = [...pageViews.keys()].filter((host) => host.isConnected && /** @type {any} */ (host).result);
  const host = live.includes(/** @type {HTMLElement} */ (lastActive)) ? lastActive : live.length === 1 ? live[0] : null;
  if (!host) return;
  e.preventDefault();
  /** @type {(action: object) => void} */ (pageViews.get(host))(action);
}

/**
 * Lets the page's keys reach `host` (see above); the document listener is added once.
 * @param {HTMLElement} host @param {(action: object) => void} act
 */
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
 * The view's keys (actions.js KEY_ACTIONS) inside the element, and on the page (above).
 * @param {HTMLElement} host
 * @param {{input: HTMLTextAreaElement, root: HTMLElement}} ui
 * @param {(action: object, opts?: {focusChip?: boolean}) => void} act
 */
export function wireKeys(host, ui, act) {
  wirePageKeys(host, act);
  ui.input.addEventListener("input", () => act({ type: "text", text: ui.input.value }));
  ui.root.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    // Keys belong to the text box while typing, and to the browser with a modifier.
    const target = /** @type {Element} */ (e.target);
    if (target.closest("textarea, input") || e.ctrlKey || e.metaKey || e.altKey) return;
    const action = KEY_ACTIONS[e.key];
    if (!action) return;
    e.preventDefault();
    // Moving the pin with the keyboard moves focus with it, so the focused chip is the pinned one.
    act(action, { focusChip: action.type === "move" || target.classList.contains("chip") });
  });
}
