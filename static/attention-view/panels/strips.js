// @ts-check
// The heads panel's strips: for the shown token, one small row per head, per layer average
// and per layer rollout (each line is a layer). Under each strip, two labels sit under their
// cells: the key it attends to most, and the shown token itself (its cell is outlined too).
// Clicking one selects it. The panel has the slots "heads-intro" (under its title), "heads-help"
// (under the grid) and, at its end, "heads-panel" (the thumbnails); each head's strip has
// "strip-badge:L.H" (inside its button) and "strip-tools:L.H" (under it).

import { h, setText, setAttr } from "../core/dom.js";
import { heading } from "../core/heading.js";
import { viewRow, strongest } from "../readouts/readouts.js";
import { rowGradient, keySpan } from "./charts.js";
import { roleNodes, paintRoles } from "./roles.js";
import { wordAndPiece } from "../model/token-labels.js";

/**
 * @typedef {import("../core/state.js").State["view"]} View
 * @typedef {import("./roles.js").RoleNodes & Record<"button"|"fill"|"mark"|"top"|"pin", HTMLElement> &
 *   {layer: number, head: number, view: View, gradient: string}} Mini  one strip (head 0: a layer's average or rollout)
 */

// What the two strips that are no single head show (a head's title is its role: roles.js).
/** @type {Object<string, ((l: number) => string)|undefined>} */
const VIEW_TITLES = {
  average: (l) => `The average of layer ${l}\u2019s heads`,
  rollout: (l) => `Attention rollout: how attention compounds through the layers up to layer ${l}`,
};

/**
 * A label under a strip, under key `k`'s cell (the label's own anchor slides with it, so it stays inside).
 * @param {HTMLElement} label @param {number} k @param {number} T
 */
function placeLabel(label, k, T) {
  const { left, width } = keySpan(k, T);
  const at = `${(100 * (left + width / 2)).toFixed(1)}%`;
  if (label.style.left !== at) {
    label.style.left = at;
    label.style.transform = `translateX(-${at})`;
  }
}

/**
 * Outlines key `k`'s cell on a strip.
 * @param {HTMLElement} mark @param {number} k @param {number} T
 */
function placeMark(mark, k, T) {
  const { left, width } = keySpan(k, T);
  const [l, w] = [`${(100 * left).toFixed(2)}%`, `${(100 * width).toFixed(2)}%`];
  if (mark.style.left !== l) mark.style.left = l;
  if (mark.style.width !== w) mark.style.width = w;
}

/** @type {import("../core/feature.js").Feature} */
export const strips = {
  name: "strips",
  compact: true,
  mount(slots, ctx) {
    const { n_layer: nLayer, n_head: nHead } = /** @type {import("../core/state.js").Meta} */ (ctx.meta()).config;
    const title = heading(ctx.host, "div.panel-title");
    const grid = h("div.grid");
    /** @type {Mini[]} */
    const minis = [];
    for (let l = 1; l <= nLayer; l++) {
      const line = h("div.grid-line", { role: "group", "aria-label": `Layer ${l}` }, h("span.grid-layer", { text: `Layer ${l}` }));
      const kinds = /** @type {[View, number][]} */ ([...Array.from({ length: nHead }, (_, i) => ["head", i + 1]), ["average", 0], ["rollout", 0]]);
      for (const [view, head] of kinds) {
        const name = view === "head" ? `head ${head}` : view;
        const fill = h("span.mini-fill");
        const mark = h("span.mini-mark");
        const top = h("span.mini-key.mini-top");
        const pin = h("span.mini-key.mini-pin");
        // The head's role from meta.json (roles.js); empty for models without one.
        const { role, def } = roleNodes(`role-def-${view}-${l}-${head}`, "span.mini-role");
        const button = h(`button.mini.mini-${view}`, {
          type: "button", "data-layer": l, "data-head": head, "data-view": view, "aria-pressed": "false",
          "aria-describedby": def.id, title: VIEW_TITLES[view]?.(l),
        }, h("span.mini-name", { text: name }), role, h("span.mini-row", { "aria-hidden": "true" }, fill, mark),
        h("span.mini-keys", { "aria-hidden": "true" }, top), h("span.mini-keys", { "aria-hidden": "true" }, pin), def);
        minis.push({ button, fill, mark, top, pin, role, def, layer: l, head, view, gradient: "", roleLabel: "" });
        if (view === "head") {
          const cell = h("div.mini-cell", {}, button);
          line.append(cell);
          slots.declare(`strip-badge:${l}.${head}`, button).declare(`strip-tools:${l}.${head}`, cell);
        } else {
          line.append(button);
        }
        button.addEventListener("click", () => {
          ctx.act(view === "head" ? { type: "select", layer: l, head } : { type: "view", view, layer: l });
        });
      }
      grid.append(line);
    }
    const panel = slots.put("heads", h("section.panel.heads-panel", {}, title, grid));
    slots.declare("heads-intro", panel, grid).declare("heads-help", panel).declare("heads-panel", panel);
    const roles = {};

    return {
      paint(view) {
        if (!view.out) return;
        const { out, shown, state, names } = view;
        setText(title, `Every head's row for ${wordAndPiece(view.labels, names, shown)}`);
        paintRoles(minis.filter((m) => m.view === "head"), view.meta, roles);
        for (const mini of minis) {
          const values = viewRow(out, { layer: mini.layer, head: mini.head || 1, view: mini.view }, shown);
          // Styles set through the CSSOM are allowed by the CSP (only style attributes in markup are not).
          const gradient = rowGradient(values, shown, out.T, state.scale);
          if (mini.gradient !== gradient) mini.fill.style.backgroundImage = mini.gradient = gradient;
          const best = strongest(values, shown, names);
          setText(mini.top, best.text);
          placeLabel(mini.top, best.index, out.T);
          setText(mini.pin, `\u00ab${names[shown]}\u00bb`);
          placeLabel(mini.pin, shown, out.T);
          placeMark(mini.mark, shown, out.T);
          const selected = state.view === mini.view && state.layer === mini.layer && (mini.view !== "head" || state.head === mini.head);
          setAttr(mini.button, "aria-pressed", selected ? "true" : "false");
          const what = mini.view === "head" ? `Layer ${mini.layer}, head ${mini.head}` : `Layer ${mini.layer} ${mini.view}`;
          setAttr(mini.button, "aria-label", `${what}${mini.roleLabel ? ` (${mini.roleLabel})` : ""}: strongest ${best.text}`);
        }
      },
    };
  },
};
