// @ts-check
// The row as a table, for screen readers (the chips carry the same numbers visually). It
// trails the screen by a moment: laying out its T rows took longer than drawing everything
// else at T = 128, and a screen reader does not read per keystroke. Its footer is the slot
// "row-table-foot" (what the view changed: the heads switched off).

import { h, setText, setHidden } from "../core/dom.js";
import { viewRow, percent, viewName } from "../readouts/readouts.js";
import { headRoles } from "../readouts/head-roles.js";
import { trailing } from "../core/trailing.js";
import { wordAndPiece } from "../model/token-labels.js";
import { pushedRow } from "../readouts/attribution.js";

const TRAIL_MS = 150;

/**
 * Puts `cell` at the end of `tr` or takes it out, touching the DOM only on a change.
 * @param {HTMLElement} tr @param {HTMLElement} cell @param {boolean} on
 */
function cellIn(tr, cell, on) {
  if (on === (cell.parentNode === tr)) return;
  if (on) tr.append(cell);
  else cell.remove();
}

/** @type {import("../core/feature.js").Feature} */
export const rowTable = {
  name: "row-table",
  compact: true,
  mount(slots) {
    const caption = h("caption");
    const body = h("tbody");
    // The "push toward" colouring's numbers, while the row shows it (readouts/attribution.js).
    // Its cells are in the rows only then, not kept hidden: a row of the table is then exactly
    // what it reads, a token and its attention, whatever reads the cells.
    const pushHead = h("th", { scope: "col" });
    const headRow = h("tr", {}, h("th", { scope: "col", text: "Token" }), h("th", { scope: "col", text: "Attention" }));
    const table = h("table", {}, caption, h("thead", {}, headRow), body);
    // Wrapped: a table grows to fit its cells, so only a box around it can be clipped to 1px.
    slots.put("end", h("div.sr-only", {}, table));
    slots.declare("row-table-foot", table);
    /** @type {{tr: HTMLElement, name: HTMLElement, value: HTMLElement, push: HTMLElement}[]} */
    const rows = [];

    /** @param {import("../core/view.js").View} view */
    const fill = (view) => {
      const values = view.out ? viewRow(view.out, view.state, view.shown) : null;
      const count = values ? view.shown + 1 : 0;
      while (rows.length < count) {
        const name = h("th", { scope: "row" });
        const value = h("td");
        const push = h("td");
        const tr = h("tr", {}, name, value);
        body.append(tr);
        rows.push({ tr, name, value, push });
      }
      const pushed = values && view.state.scale === "push" ? pushedRow(view) : null;
      cellIn(headRow, pushHead, pushed !== null);
      if (pushed) setText(pushHead, `Push toward ${pushed.name} (${pushed.head}, logit units)`);
      rows.forEach((r, k) => {
        setHidden(r.tr, k >= count);
        if (k >= count) return;
        setText(r.name, view.names[k]);
        setText(r.value, percent(/** @type {Float64Array} */ (values)[k]));
        cellIn(r.tr, r.push, pushed !== null);
        if (pushed) setText(r.push, pushed.values[k].toFixed(3));
      });
      const { state } = view;
      const role = state.view === "head" && headRoles(view.meta).get(`${state.layer}:${state.head}`);
      setText(caption, values
        ? `${viewName(state)}${role ? ` (${role.label})` : ""}: attention from ${wordAndPiece(view.labels, view.names, view.shown)} to each earlier token`
        : "No tokens");
    };

    const trail = trailing(fill, TRAIL_MS);
    return { paint: (view) => trail.later(view) };
  },
};
