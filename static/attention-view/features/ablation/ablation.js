// @ts-check
// Switching heads off: an off switch under every head's strip and thumbnail (their slots), and
// the panel that says what switching heads off did: the next-token prediction with every head
// on against the heads off (paired bars), the token that really comes next, and why layer 2's
// rows moved. The runs come from the graph with its head_mask (the controller computes the
// view's run for the state's `ablate`); `result` gets `ablated`, `topBaseline` and `nextToken`.

import { h, setText, setHidden, setAttr, bringIntoView, scrollBox } from "../../core/dom.js";
import { heading } from "../../core/heading.js";
import { everyHeadOff, shortNames, longNames, pairedBars, nextTokenChange, ablationResult } from "../../readouts/ablation.js";
import { pieceLabel } from "../../model/token-labels.js";
import { percent } from "../../readouts/readouts.js";
import { isHeadOff } from "../../model/head-set.js";

const MAX_BARS = 10; // the union of two top-5 lists

/**
 * The panel's nodes (mountAblation builds them).
 * @typedef {Record<"title"|"error"|"intro"|"composition"|"all"|"baseKey"|"offKey"|"legend"|"caption"|"bodyRows"|
 *   "colOff"|"table"|"bars"|"next"|"reset"|"panel"|"srState"|"predNote", HTMLElement> & {rows: BarRow[]}} Nodes
 * @typedef {Record<"tr"|"tok"|"baseFill"|"offFill"|"base"|"off"|"change", HTMLElement>} BarRow
 */

/** @param {number} d */
function points(d) {
  const v = 100 * d;
  const sign = v > 0.05 ? "+" : v < -0.05 ? "\u2212" : "\u00b1";
  return `${sign}${Math.abs(v).toFixed(1)} pts`;
}

// A switch says what pressing it does: "switch off" while the head is on, "switch on" once it
// is off (its name changes with it, so it is a plain button, not a toggle with aria-pressed).
/** @param {number} layer @param {number} head */
function switchButton(layer, head) {
  return h("button.head-switch", {
    type: "button", "data-layer": layer, "data-head": head,
    "aria-label": `switch off layer ${layer} head ${head}`, text: "switch off",
  });
}

/** @param {HTMLElement} sw @param {boolean} off */
function paintSwitch(sw, off) {
  const verb = off ? "switch on" : "switch off";
  setText(sw, verb);
  setAttr(sw, "aria-label", `${verb} layer ${sw.dataset.layer} head ${sw.dataset.head}`);
  sw.classList.toggle("is-off", off);
}

/**
 * In the compact view (only the row and the grid of heads) the grid still marks the heads
 * the attributes switch off, but has no switches and no panel.
 * @type {import("../../core/feature.js").Feature}
 */
export const ablation = {
  name: "ablation",
  compact: true,
  mount(slots, ctx) {
    return mountAblation(slots, ctx);
  },
};

/**
 * @param {import("../../core/skeleton.js").Slots} slots @param {import("../../core/feature.js").Context} ctx
 * @returns {import("../../core/feature.js").Part}
 */
function mountAblation(slots, ctx) {
  const { n_layer: nLayer, n_head: nHead } = /** @type {import("../../core/state.js").Meta} */ (ctx.meta()).config; // mounted once it is in
  const compact = ctx.state()?.compact === "1";
  /** @type {HTMLElement[]} */
  const switches = [];
  /** @type {{el: HTMLElement, layer: number, head: number}[]} */
  const marked = []; // the strips and thumbnails of the heads, greyed while off
  for (const where of ["strip", "thumb"]) {
    if (!slots.has(`${where}-badge:1.1`)) continue; // not in this view (the compact one has no thumbnails)
    for (let l = 1; l <= nLayer; l++) {
      for (let hd = 1; hd <= nHead; hd++) {
        const badge = slots.put(`${where}-badge:${l}.${hd}`, h("span.off-badge", { "aria-hidden": "true", text: "off" }));
        marked.push({ el: /** @type {HTMLElement} */ (/** @type {HTMLElement} */ (badge.parentElement).parentElement), layer: l, head: hd });
        if (compact) continue;
        const sw = slots.put(`${where}-tools:${l}.${hd}`, switchButton(l, hd));
        switches.push(sw);
        sw.addEventListener("click", () => ctx.act({ type: "ablate", layer: l, head: hd }));
      }
    }
  }

  const v = /** @type {Nodes} */ ({});
  v.title = heading(ctx.host, "div.panel-title");
  v.error = h("p.ablate-error", { role: "status" });
  v.intro = h("p.ablate-intro");
  v.composition = h("p.ablate-note.ablate-composition");
  v.all = h("p.ablate-note.ablate-all");
  v.baseKey = h("span.pair-key.pair-key-base");
  v.offKey = h("span.pair-key.pair-key-off");
  v.legend = h("p.pair-legend", { "aria-hidden": "true" }, v.baseKey, v.offKey);
  v.caption = h("caption.sr-only");
  v.bodyRows = h("tbody");
  v.colOff = h("th", { scope: "col" });
  v.table = h("table.pair-table", {}, v.caption,
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Next token" }), h("td"),
      h("th", { scope: "col", text: "Every head on" }), v.colOff, h("th", { scope: "col", text: "Change" }))),
    v.bodyRows);
  v.rows = Array.from({ length: MAX_BARS }, () => {
    const tok = h("span.pair-token");
    const baseFill = h("span.pair-fill.pair-fill-base");
    const offFill = h("span.pair-fill.pair-fill-off");
    const base = h("span.pair-base-p");
    const off = h("span.pair-off-p");
    const change = h("td.pair-change");
    // The pair of bars in one cell, one above the other on one scale: lengths compare directly.
    const tr = h("tr.pair-row", {},
      h("th", { scope: "row" }, tok),
      h("td.pair-bars", { "aria-hidden": "true" }, h("span.pair-bar", {}, baseFill), h("span.pair-bar", {}, offFill)),
      h("td.pair-p", {}, base), h("td.pair-p", {}, off), change);
    v.bodyRows.append(tr);
    return { tr, tok, baseFill, offFill, base, off, change };
  });
  v.bars = scrollBox("The row with and without the heads switched off", v.table);
  v.next = h("p.ablate-next");
  v.reset = h("button.story-button.ablate-reset", { type: "button", text: "Switch every head back on" });
  v.reset.addEventListener("click", () => ctx.act({ type: "ablate", ablate: null }));
  v.panel = h("section.panel.ablation-panel", { hidden: true }, v.title, v.error, v.intro, v.composition, v.all,
    v.legend, v.bars, v.next, v.reset);
  // The screen-reader table of the row says which heads are off, as the greyed strips do.
  v.srState = h("td", { colspan: "2" });
  slots.put("row-table-foot", h("tfoot", {}, h("tr", {}, v.srState)));
  if (!compact) {
    slots.put("ablation", v.panel);
    // Under the top 5: with heads off, those are the ablated run's predictions.
    v.predNote = slots.put("predictions-notes", h("p.pred-ablated", { hidden: true }));
    slots.put("heads-help", h("p.help.switch-help", { text: "\u201cswitch off\u201d zeroes that head\u2019s output " +
      "and runs the model again: " + (nLayer > 1 ? "the rows of later layers, which read what it wrote, change with " +
      "it, and " : "") + "the top 5 next tokens are compared with every head on." }));
  }

  // A head the reader just switched off: its paired bars, far below the grid, are brought into
  // view once the run with it off is painted.
  /** @type {[number, number]|null} */
  let reveal = null;

  return {
    translate(action) {
      if (action.type === "preview") return undefined;
      const switchesOff = action.type === "ablate" && "layer" in action && !compact &&
        !isHeadOff(ctx.state()?.off?.heads, action.layer, action.head);
      reveal = switchesOff ? [action.layer, action.head] : null;
      return undefined;
    },

    result(result, view) {
      Object.assign(result, ablationResult(view.run, view.pinned, (id) => {
        const piece = view.run.pieceOf(id);
        return piece === null ? null : pieceLabel(piece);
      }));
    },

    // The heads the run on screen has off; the errors of the attribute as written.
    paint(vm) {
      const config = vm.meta.config;
      const { errors } = vm.state.off;
      const heads = vm.run.off?.heads ?? [];
      const off = new Set(heads.map(([l, hd]) => `${l}.${hd}`));
      for (const sw of switches) paintSwitch(sw, off.has(`${sw.dataset.layer}.${sw.dataset.head}`));
      for (const m of marked) m.el.classList.toggle("head-off", off.has(`${m.layer}.${m.head}`));
      setText(v.srState, heads.length
        ? `Switched off: ${longNames(heads)}${everyHeadOff(heads, config) ? " (every head)" : ""}. The weights are the model's with ${heads.length === 1 ? "it" : "them"} off.`
        : "Every head is on.");
      if (!compact) paintPanel(v, vm, heads, errors, config);
      if (reveal && isHeadOff(heads, reveal[0], reveal[1])) {
        reveal = null;
        bringIntoView(v.bars);
      }
    },
  };
}

/**
 * @param {Nodes} v @param {import("../../core/view.js").View} vm @param {[number, number][]} heads
 * @param {string[]} errors @param {{n_layer: number, n_head: number}} config
 */
function paintPanel(v, vm, heads, errors, config) {
  const any = heads.length > 0;
  setHidden(v.panel, !any && !errors.length);
  setHidden(v.predNote, !any);
  setHidden(v.error, !errors.length);
  setText(v.error, errors.length
    ? `The ablate setting names heads this model does not have, so they are ignored: ${errors.join("; ")}. ` +
      (any ? `Switched off: ${longNames(heads)}.` : "Every head stays on.")
    : "");
  for (const el of [v.intro, v.legend, v.table, v.next, v.reset]) setHidden(el, !any);
  const lowest = any ? Math.min(...heads.map(([l]) => l)) : config.n_layer;
  setHidden(v.composition, !any || lowest >= config.n_layer);
  const all = everyHeadOff(heads, config);
  setHidden(v.all, !all);
  setText(v.title, any ? `Heads switched off: ${shortNames(heads)}` : "Switching heads off");
  if (!any) return;
  const who = `\u00ab${vm.names[vm.shown]}\u00bb`;
  const offName = heads.length === 1 ? `${shortNames(heads)} off` : "these heads off";
  setText(v.predNote, `With ${longNames(heads)} switched off; the paired bars below compare every head on.`);
  setText(v.intro, `${heads.length === 1 ? "This head's" : "These heads'"} output is zeroed before the ` +
    `layer's output projection, and the model runs again. What it predicts after ${who}:`);
  const above = lowest + 1 === config.n_layer ? `layer ${config.n_layer}` : `layers ${lowest + 1}\u2013${config.n_layer}`;
  setText(v.composition, `A layer-${lowest} head is off, so the attention rows of ${above} change too: their heads ` +
    `read what layer ${lowest} wrote (composition, the point of having more than one layer). Every strip, ` +
    "thumbnail and the heatmap show the rows with the heads off.");
  setText(v.all, `Every head is off (all ${heads.length}). The attention rows are still computed and drawn, but ` +
    "no head's output reaches the rest of the model, so each prediction depends on its own token alone.");
  setText(v.baseKey, "every head on");
  setText(v.offKey, `with ${shortNames(heads)} off`);
  setText(v.colOff, `${shortNames(heads)} off`);
  setText(v.caption, `Next-token probabilities after ${who}: every head on, and with ${longNames(heads)} off`);
  const baseline = vm.run.baseline;
  // heads are off only in a run with outputs
  const bars = baseline?.logitsAt?.(vm.shown) && /** @type {import("../../model/runs.js").Outputs} */ (vm.out).logitsAt?.(vm.shown)
    ? pairedBars(baseline, /** @type {import("../../model/runs.js").Outputs} */ (vm.out), vm.shown) : [];
  v.rows.forEach((row, i) => {
    const bar = bars[i];
    setHidden(row.tr, !bar);
    if (!bar) return;
    setAttr(row.tr, "data-id", String(bar.id));
    setText(row.tok, pieceLabel(vm.pieceOf(bar.id) ?? ""));
    row.baseFill.style.transform = `scaleX(${bar.baseline.toFixed(4)})`;
    row.offFill.style.transform = `scaleX(${bar.ablated.toFixed(4)})`;
    setText(row.base, percent(bar.baseline));
    setText(row.off, percent(bar.ablated));
    setText(row.change, points(bar.ablated - bar.baseline));
  });
  const next = nextTokenChange(vm.run, vm.shown);
  if (!next) {
    setText(v.next, `${who} is the last token, so the text has no next token to compare.`);
  } else {
    const label = pieceLabel(vm.pieceOf(next.id) ?? "");
    const name = `\u00ab${label.trim() || label}\u00bb`;
    setText(v.next, `The text's next token, ${name}: ${percent(next.baseline)} with every head on, ` +
      `${percent(next.ablated)} with ${offName} (${points(next.ablated - next.baseline)}).`);
  }
}
