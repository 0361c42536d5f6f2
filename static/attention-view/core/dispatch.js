// @ts-check
// A user action's way through the element: a feature may turn it into a state action (the
// story's jump); `reduce` gives the next state; a hover stays inside the element, anything
// else is written to the element's attributes (the single source of truth), followed by a
// `change` event whose detail names every state key, the pinned token as a word (the
// permalink prefers it) and what each feature adds.

import { pinnedIndex } from "./state.js";
import { wordsOf, wordSpec } from "../model/words.js";

/**
 * @param {import("./controller.js").Controller} c
 * @param {any} action
 * @param {{focusChip?: boolean}} opts  focusChip: the pin moved by keyboard, focus follows it
 */
export function dispatch(c, action, { focusChip = false } = {}) {
  if (!c.meta) return;
  for (const part of c.parts) {
    const translated = part.translate?.(action, c.vm);
    if (translated === null) return;
    if (translated !== undefined) action = translated;
  }
  const { n_layer: nLayer, n_head: nHead } = c.meta.config;
  const labels = c.run ? c.run.labels : null;
  const next = c.schema.reduce(c.now(), action, { count: labels ? labels.length : 0, nLayer, nHead, labels });
  if (action.type === "preview") return c.hover(next.preview);
  c.acted(focusChip);
  writeState(c.host, c.schema, next, action.type, c.run, c.parts);
  c.schedule();
}

/**
 * @param {HTMLElement} host
 * @param {import("./schema.js").StateSchema} schema
 * @param {import("./state.js").State} next
 * @param {string} type  the action's type
 * @param {import("../model/runs.js").Run|null} run  the run on screen
 * @param {import("./feature.js").Part[]} parts
 */
function writeState(host, schema, next, type, run, parts) {
  const attrs = schema.toAttributes(next);
  for (const name of schema.names) {
    if (attrs[name] === null) host.removeAttribute(name);
    else if (host.getAttribute(name) !== attrs[name]) host.setAttribute(name, attrs[name]);
  }
  // `word`: the pinned token as a word spec ("said#2") when one names it unambiguously and
  // the text is the run's (not a new text still to be tokenized).
  const labels = run && next.text === run.text ? run.labels : null;
  const pinned = labels && next.token !== null ? pinnedIndex(next, labels.length, labels) : -1;
  const detail = {
    ...Object.fromEntries(schema.names.map((name) => [name, /** @type {Object<string, unknown>} */ (next)[name]])),
    word: labels && pinned >= 0 ? wordSpec(wordsOf(labels), pinned) : null,
    action: type,
  };
  for (const part of parts) part.change?.(detail, next);
  host.dispatchEvent(new CustomEvent("change", { bubbles: true, detail }));
}
