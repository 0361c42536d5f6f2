// @ts-check
// DOM helpers for the element: build elements without HTML strings (so no text ever becomes
// markup, and the CSP's ban on inline styles and scripts holds), and write text and `hidden`
// only when they change (the renderer runs on every keystroke).

/**
 * h("p.status", {role: "status"}, child, "text") -> element; classes after dots.
 * @param {string} spec @param {Object<string, string|number|boolean|null|undefined>} [attrs]
 * @param {...(Node|string|null|undefined)} children @returns {HTMLElement}
 */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag);
  if (classes.length) el.className = classes.join(" ");
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key === "text") el.textContent = /** @type {string} */ (value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child !== null && child !== undefined) el.append(child);
  }
  return el;
}

/**
 * Sets an element's text, reusing its text node: writing `data` is a change of characters,
 * while assigning textContent replaces the node, which costs a style recalc and a layout-tree
 * rebuild for it on every keystroke (measured: ~37 nodes per update). Still text, never HTML.
 * @param {Node} el @param {string} text
 */
export function setText(el, text) {
  const node = el.firstChild;
  if (node !== null && node.nodeType === Node.TEXT_NODE && node.nextSibling === null && text !== "") {
    if (/** @type {Text} */ (node).data !== text) /** @type {Text} */ (node).data = text;
  } else if (el.textContent !== text) {
    el.textContent = text;
  }
}

/** Shows or hides an element, touching the attribute only on a change: re-assigning `hidden`
 * its current value still counts as an attribute mutation, and invalidates style.
 * @param {HTMLElement} el @param {boolean} hidden
 */
export function setHidden(el, hidden) {
  if (el.hidden !== hidden) el.hidden = hidden;
}

/**
 * Sets an attribute only when its value changes (a write of the same value still invalidates style).
 * @param {Element} el @param {string} name @param {string} value
 */
export function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/**
 * Scrolls `el` into view (by default the least needed to show it whole), smoothly unless the
 * reader asked for reduced motion. Panels off screen keep a placeholder height until they are
 * first scrolled to (content-visibility), and a new text re-lays the view out, so the first
 * scroll can land short: once it has ended and they have their real height, a second one corrects it.
 * @param {Element} el
 * @param {ScrollLogicalPosition} [block]
 */
export function bringIntoView(el, block = "nearest") {
  const behavior = matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth";
  const again = () => el.scrollIntoView({ block, behavior });
  el.scrollIntoView({ block, behavior });
  if (behavior === "auto" || !("onscrollend" in window)) {
    requestAnimationFrame(() => requestAnimationFrame(again));
    return;
  }
  // A scroll that had nowhere to go ends no scrolling: the listener must not wait for a later one.
  const done = () => {
    document.removeEventListener("scrollend", onEnd, true);
    clearTimeout(timer);
  };
  const onEnd = () => {
    done();
    again();
  };
  const timer = setTimeout(done, 3000);
  document.addEventListener("scrollend", onEnd, true);
}

/**
 * A box that scrolls a wide or long table: a named keyboard stop, since a reader without a
 * mouse scrolls it with the arrow keys once it has focus (its edge shadows: attention-view.css).
 * A named group, not a region: a region is a landmark, and a chapter with three views would
 * list three landmarks of one name.
 * @param {string} label  what the table is, for the group's name
 * @param {...Node} children
 */
export function scrollBox(label, ...children) {
  return h("div.table-scroll", { role: "group", tabindex: "0", "aria-label": label }, ...children);
}
