// @ts-check
// Role labels ("previous token 0.83") on a head's strip or thumbnail, from meta.json's `heads`
// (readouts/head-roles.js): the label in the card, the definition in a title (hover) and in
// visually hidden text (focus, screen readers). Without `heads` in meta.json, no labels at all.

import { h, setText, setHidden } from "../core/dom.js";
import { headRoles } from "../readouts/head-roles.js";

/**
 * The nodes of one head's card that carry its role.
 * @typedef {Object} RoleNodes
 * @property {number} layer
 * @property {number} head
 * @property {HTMLElement} button
 * @property {HTMLElement} role  the visible label
 * @property {HTMLElement} def  the hidden definition (the button's aria-describedby)
 * @property {string} [roleLabel]  the label painted last ("" without one)
 */

/**
 * The role label and hidden definition for a card whose id prefix is `id`.
 * @param {string} id @param {string} spec  the label's h() spec
 */
export function roleNodes(id, spec) {
  const role = h(spec);
  const def = h("span.sr-only.role-def", { id });
  return { role, def };
}

/**
 * Paints the role of every card in `items`, once per meta.json; returns whether it painted.
 * @param {RoleNodes[]} items
 * @param {import("../core/state.js").Meta} meta
 * @param {{meta?: any}} memo  remembers the meta.json painted last
 */
export function paintRoles(items, meta, memo) {
  if (memo.meta === meta) return false;
  memo.meta = meta;
  const roles = headRoles(meta);
  for (const item of items) {
    const role = roles.get(`${item.layer}:${item.head}`);
    setText(item.role, role ? role.label : "");
    setText(item.def, role ? role.definition : "");
    setHidden(item.role, !role);
    item.roleLabel = role ? role.label : "";
    if (role) item.button.title = role.definition;
    else item.button.removeAttribute("title");
  }
  return true;
}
