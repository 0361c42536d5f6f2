// @ts-check
// The view's headings take their level from the page around it: one below the last heading
// before the element (after an h1, the panels' titles are level 2 and their parts level 3), so
// the page's outline stays in order in any host page, where a fixed h3 would skip a level.
// They are headings by role and aria-level, since an h2…h6 tag would fix the level.

import { h } from "./dom.js";

/** @type {WeakMap<Element, number>} */
const levels = new WeakMap();

/**
 * The host page's last heading level before `host` (1 without one: the view is the page's topic).
 * @param {Element} host
 */
function levelBefore(host) {
  const root = /** @type {Document|ShadowRoot} */ (host.getRootNode());
  let level = 1;
  for (const el of root.querySelectorAll?.("h1, h2, h3, h4, h5, h6, [role=heading]") ?? []) {
    if (!(el.compareDocumentPosition(host) & Node.DOCUMENT_POSITION_FOLLOWING) || host.contains(el)) break;
    level = Number(el.getAttribute("aria-level")) || Number(el.tagName.slice(1)) || level;
  }
  return level;
}

/**
 * One of the view's headings: `spec` and `attrs` as dom.js h() takes them, `below` levels under
 * a panel's title (0: a panel's title itself). The level is the host page's, read once per element.
 * @param {Element} host  the <attention-view>
 * @param {string} spec
 * @param {Object<string, unknown>} [attrs]
 * @param {number} [below]
 */
export function heading(host, spec, attrs = {}, below = 0) {
  if (!levels.has(host)) levels.set(host, levelBefore(host) + 1);
  return h(spec, { ...attrs, role: "heading", "aria-level": String(Math.min(6, /** @type {number} */ (levels.get(host)) + below)) });
}
