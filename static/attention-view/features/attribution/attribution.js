// @ts-check
// "What pushed «Queen»": beside the top 5, one signed bar per part of the model (the embedding,
// each head, each layer's attention bias and MLP, the final LayerNorm's bias) for the top token
// or the prediction the reader picks (state key `target`), summing to its logit; under the top
// 5, the logit lens (what the model would predict after each layer). Every number is the
// graph's (readouts/attribution.js reads its attribution outputs); `result` gets `attribution`
// and `lens`. A graph exported before those outputs existed shows neither.

import { h, setText, setHidden, setAttr, scrollBox } from "../../core/dom.js";
import { heading } from "../../core/heading.js";
import { attributionResult, lensResult, componentBars, targetColumn, columnsOf } from "../../readouts/attribution.js";
import { pieceLabel } from "../../model/token-labels.js";
import { percent } from "../../readouts/readouts.js";
import { ATTRIBUTION_KEYS, ATTRIBUTION_ACTIONS } from "./state.js";

/** A logit's signed value: "+1.23", "−0.40" (a real minus sign). */
export const signed = (x) => (Math.abs(x) < 0.005 ? "0.00" : `${x < 0 ? "\u2212" : "+"}${Math.abs(x).toFixed(2)}`);
const quoted = (text) => `\u00ab${text.trim() || text}\u00bb`;

/** @type {import("../../core/feature.js").Feature} */
export const attribution = {
  name: "attribution",
  compact: true, // `result` has the numbers in the compact view too; only the panel needs the full one
  state: ATTRIBUTION_KEYS,
  actions: ATTRIBUTION_ACTIONS,
  mount(slots, ctx) {
    const part = {
      /** @param {import("../../model/result.js").Result} result  @param {import("../../core/view.js").View} view */
      result(result, view) {
        const label = (id) => {
          const piece = view.run.pieceOf(id);
          return piece === null ? null : pieceLabel(piece);
        };
        const { layer, head } = view.state;
        result.target = view.state.target;
        result.attribution = view.pinned >= 0 ? attributionResult(view.out, view.pinned, layer, head, label) : null;
        result.lens = view.pinned >= 0 ? lensResult(view.out, view.pinned, label) : null;
      },
    };
    if (ctx.state()?.compact === "1") return part;
    return { ...part, paint: mountPanel(slots, ctx) };
  },
};

/** Builds the panel and the lens line; returns their paint. */
function mountPanel(slots, ctx) {
  const config = ctx.meta()?.config ?? {};
  const v = {};
  v.lens = slots.put("predictions-notes", h("p.lens-line", { hidden: true }));
  v.title = heading(ctx.host, "div.panel-title");
  v.intro = h("p.push-intro");
  v.picks = h("div.push-picks", { role: "group", "aria-label": "Show the pushes toward" });
  /** @type {HTMLButtonElement[]} */
  v.pickButtons = Array.from({ length: 6 }, () => {
    const b = /** @type {HTMLButtonElement} */ (h("button.push-pick", { type: "button", "aria-pressed": "false" }));
    b.addEventListener("click", () => ctx.act({ type: "target", target: b.dataset.target }));
    v.picks.append(b);
    return b;
  });
  v.caption = h("caption.sr-only");
  v.body = h("tbody");
  v.sumName = h("th", { scope: "row" });
  v.sumValue = h("td.push-value");
  v.table = h("table.push-table", {}, v.caption,
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Part of the model" }), h("td"),
      h("th", { scope: "col", text: "Push" }))),
    v.body, h("tfoot", {}, h("tr", {}, v.sumName, h("td"), v.sumValue)));
  v.rows = [];
  v.note = h("p.push-note");
  v.panel = h("section.panel.push-panel", { hidden: true }, v.title, v.intro, v.picks,
    scrollBox("Every part's push toward the prediction", v.table), v.note);
  slots.put("predictions", v.panel);
  return (view) => paint(v, view, ctx, config);
}

// One pooled row per component; a head's name is a button that shows that head in the row.
function rowAt(v, i, ctx) {
  while (v.rows.length <= i) {
    const name = h("button.push-name", { type: "button" });
    const label = h("span.push-label");
    const fill = h("span.push-fill");
    const value = h("td.push-value");
    const tr = h("tr.push-row", {}, h("th", { scope: "row" }, name, label),
      h("td.push-bars", { "aria-hidden": "true" }, h("span.push-bar", {}, fill)), value);
    name.addEventListener("click", () => ctx.act({ type: "select", layer: Number(name.dataset.layer), head: Number(name.dataset.head) }));
    v.body.append(tr);
    v.rows.push({ tr, name, label, fill, value, style: "" });
  }
  return v.rows[i];
}

function paint(v, view, ctx, config) {
  const q = view.shown; // the hovered token while previewing, as the top 5 above
  const out = view.out;
  const row = q >= 0 ? out?.attribution?.get(q) : null;
  setHidden(v.panel, !row);
  setHidden(v.lens, !row);
  if (!row) return;
  const name = (id) => quoted(pieceLabel(view.pieceOf(id) ?? ""));
  const column = targetColumn(row, view.state.target, q, out.T);
  const target = row.ids[column];
  const who = `\u00ab${view.names[q]}\u00bb`;
  setText(v.title, `What pushed ${name(target)}`);
  const shown = columnsOf(row, q, out.T);
  v.pickButtons.forEach((b, i) => {
    const c = shown[i];
    setHidden(b, c === undefined);
    if (c === undefined) return;
    const next = c === row.ids.length - 1;
    b.dataset.target = next ? "next" : String(c + 1);
    setText(b, `${next ? "next: " : `${c + 1}. `}${name(row.ids[c])}`);
    setAttr(b, "aria-pressed", String(c === column));
  });
  const found = componentBars(out, q, column, config);
  if (!found) return;
  const { bars, sum } = found;
  const logit = out.logitsAt?.(q)?.[target] ?? sum;
  const max = Math.max(...bars.map((b) => Math.abs(b.value)), 1e-9);
  setText(v.intro, `After ${who}, every part of the model adds to the logit of ${name(target)} (its score before ` +
    "softmax) through the final LayerNorm: a bar to the right pushes it up, to the left down. Together they are the logit.");
  setText(v.caption, `Each part's direct push toward ${name(target)} after ${who}, largest first; they sum to its logit`);
  bars.forEach((bar, i) => {
    const r = rowAt(v, i, ctx);
    const isHead = bar.layer !== undefined;
    setHidden(r.name, !isHead);
    setHidden(r.label, isHead);
    if (isHead) {
      r.name.dataset.layer = String(bar.layer);
      r.name.dataset.head = String(bar.head);
      setText(r.name, bar.name);
      setAttr(r.name, "aria-label", `${bar.name}, ${bar.long}: show it in the row`);
      const viewed = view.state.view === "head" && view.state.layer === bar.layer && view.state.head === bar.head;
      r.tr.classList.toggle("is-viewed", viewed);
    } else {
      setText(r.name, ""); // a hidden button names no head
      setText(r.label, bar.name);
      setAttr(r.label, "title", bar.long);
      r.tr.classList.remove("is-viewed");
    }
    const width = (50 * Math.abs(bar.value)) / max;
    const style = bar.value >= 0 ? `left: 50%; width: ${width.toFixed(2)}%` : `left: ${(50 - width).toFixed(2)}%; width: ${width.toFixed(2)}%`;
    if (r.style !== style) {
      r.style = style;
      r.fill.style.left = bar.value >= 0 ? "50%" : `${(50 - width).toFixed(2)}%`;
      r.fill.style.width = `${width.toFixed(2)}%`;
    }
    r.fill.classList.toggle("push-down", bar.value < 0);
    setText(r.value, signed(bar.value));
  });
  for (let i = bars.length; i < v.rows.length; i++) setHidden(v.rows[i].tr, true);
  for (let i = 0; i < bars.length; i++) setHidden(v.rows[i].tr, false);
  setText(v.sumName, `Sum = the logit of ${name(target)}`);
  setText(v.sumValue, signed(logit));
  const top = bars[0];
  setText(v.note, `The biggest push comes from ${top.long} (${signed(top.value)}); ` +
    `"push toward" under the row shows, for the head on view, how much of its push came through each earlier token.`);
  const lens = lensResult(out, q, (id) => pieceLabel(view.pieceOf(id) ?? ""));
  setText(v.lens, lens ? "Logit lens \u2014 " + lens.map((top5, l) => `after layer ${l + 1}${l === lens.length - 1 ? " (the output)" : ""}: ` +
    top5.slice(0, 3).map((t) => `${quoted(t.text ?? "")} ${percent(t.p)}`).join(", ") + " \u2026").join("; ") : "");
}
