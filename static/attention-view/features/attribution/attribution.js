// @ts-check
// "What pushed «Queen»": beside the top 5, one signed bar per part of the model (the embedding,
// each head, each layer's attention bias and MLP, the final LayerNorm's bias) for the top token
// or the prediction the reader picks (state key `target`), summing to its logit; under the top
// 5, the logit lens (what the model would predict after each layer). Every number is the
// graph's (readouts/attribution.js reads its attribution outputs); `result` gets `attribution`
// and `lens`. A graph exported before those outputs existed shows neither.

import { h, setText, setHidden, setAttr, scrollBox } from "../../core/dom.js";
import { heading } from "../../core/heading.js";
import { attributionResult, lensResult, componentBars, targetColumn, columnsOf, components, expectedIds, hasAttribution } from "../../readouts/attribution.js";
import { pieceLabel } from "../../model/token-labels.js";
import { percent } from "../../readouts/readouts.js";
import { ATTRIBUTION_KEYS, ATTRIBUTION_ACTIONS } from "./state.js";

/**
 * @typedef {import("../../core/feature.js").Context} Context
 * @typedef {import("../../core/view.js").View} View
 * @typedef {import("../../model/runs.js").Outputs} Outputs  a row means the view has them
 * @typedef {Partial<import("../../meta-type.js").Meta["config"]>} Config
 * @typedef {Record<"tr"|"name"|"label"|"fill"|"value", HTMLElement> & {style: string}} PushRow
 * @typedef {Record<"lens"|"title"|"intro"|"picks"|"caption"|"body"|"sumName"|"sumValue"|"table"|"note"|"panel", HTMLElement> &
 *   {lensBox: {box: HTMLElement, sizers: HTMLElement[]}, pickButtons: HTMLButtonElement[], rows: PushRow[]}} Panel  mountPanel's nodes
 */

/**
 * A logit's signed value: "+1.23", "−0.40" (a real minus sign).
 * @param {number} x
 */
export const signed = (x) => (Math.abs(x) < 0.005 ? "0.00" : `${x < 0 ? "\u2212" : "+"}${Math.abs(x).toFixed(2)}`);
/** @param {string} text */
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
        /** @param {number} id */
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

/**
 * A text that holds the room of its longest wording: `sizers` (hidden copies, set to each
 * wording it can have) lie under `text` in one grid cell (attention-view.css `.reserve`), so its
 * height does not change with the numbers, nor when the preview's placeholders are replaced.
 * @param {HTMLElement} text
 * @param {number} count
 * @param {string} spec
 */
function reserved(spec, text, count) {
  const sizers = Array.from({ length: count }, () => h("span", { "aria-hidden": "true" }));
  return { box: h(spec, {}, text, ...sizers), sizers };
}

/**
 * Builds the panel and the lens line; returns their paint.
 * @param {import("../../core/skeleton.js").Slots} slots @param {Context} ctx @returns {(view: View) => void}
 */
function mountPanel(slots, ctx) {
  /** @type {Config} */
  const config = ctx.meta()?.config ?? {};
  const v = /** @type {Panel} */ ({});
  v.lens = h("p.lens-line");
  v.lensBox = reserved("div.lens-box.reserve", v.lens, 1);
  setHidden(slots.put("predictions-notes", v.lensBox.box), true);
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
  // The note names the biggest push: it has room for whichever part that is, with a wide value.
  const longs = [...new Set(components(config.n_layer ?? 0, config.n_head ?? 0, config).map((b) => b.long))];
  const noteBox = reserved("div.push-note-box.reserve", v.note, longs.length);
  noteBox.sizers.forEach((sizer, i) => setText(sizer, noteText(longs[i], -88.88)));
  v.panel = h("section.panel.push-panel", { hidden: true }, v.title, v.intro, v.picks,
    scrollBox("Every part's push toward the prediction", v.table), noteBox.box);
  slots.put("predictions", v.panel);
  return (view) => paint(v, view, ctx, config);
}

/** @param {string} long @param {number} value */
const noteText = (long, value) => `The biggest push comes from ${long} (${signed(value)}); ` +
  `"push toward" under the row shows, for the head on view, how much of its push came through each earlier token.`;

// One pooled row per component; a head's name is a button that shows that head in the row.
/** @param {Panel} v @param {number} i @param {Context} ctx @returns {PushRow} */
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

/**
 * The panel from the graph's attribution or, while the preview shows a model whose graph has it
 * (meta.json), its frame: the same title, picks and rows (every part, in the graph's order, with
 * empty bars and "…" for the numbers) and the room of the note and the lens line, so that the
 * view does not grow when the model goes live.
 * @param {Panel} v @param {View} view @param {Context} ctx @param {Config} config
 */
function paint(v, view, ctx, config) {
  const q = view.shown; // the hovered token while previewing, as the top 5 above
  const out = view.out;
  const graphRow = q >= 0 ? out?.attribution?.get(q) : null;
  const frame = !graphRow && !view.run.live && q >= 0 && out?.topAt && hasAttribution(view.meta);
  const row = graphRow ?? (frame ? { ids: expectedIds(out, view.run.ids, q) } : null);
  setHidden(v.panel, !row);
  setHidden(v.lensBox.box, !row);
  if (!row) return;
  /** @param {number} id */
  const name = (id) => {
    const piece = view.pieceOf(id); // null: the preview's tokenizer is not here yet
    return quoted(piece === null ? "\u2026" : pieceLabel(piece));
  };
  const column = targetColumn(row, view.state.target, q, /** @type {Outputs} */ (out).T);
  const target = row.ids[column];
  const who = `\u00ab${view.names[q]}\u00bb`;
  setText(v.title, `What pushed ${name(target)}`);
  const shown = columnsOf(row, q, /** @type {Outputs} */ (out).T);
  v.pickButtons.forEach((b, i) => {
    const c = shown[i];
    setHidden(b, c === undefined);
    if (c === undefined) return;
    const next = c === row.ids.length - 1;
    b.dataset.target = next ? "next" : String(c + 1);
    setText(b, `${next ? "next: " : `${c + 1}. `}${name(row.ids[c])}`);
    setAttr(b, "aria-pressed", String(c === column));
  });
  setText(v.intro, `After ${who}, every part of the model adds to the logit of ${name(target)} (its score before ` +
    "softmax) through the final LayerNorm: a bar to the right pushes it up, to the left down. Together they are the logit.");
  setText(v.caption, `Each part's direct push toward ${name(target)} after ${who}, largest first; they sum to its logit`);
  setText(v.sumName, `Sum = the logit of ${name(target)}`);
  const top5 = /** @type {Outputs} */ (out).topAt(q).slice(0, 3).map((t) => ({ text: name(t.id), p: t.p }));
  // The lens line's room: every layer with the output's top 3, widest first, at a wide share.
  const widest = [...top5].sort((a, b) => b.text.length - a.text.length).map((t) => ({ ...t, p: 0.888 }));
  setText(v.lensBox.sizers[0], lensText(Array.from({ length: /** @type {Outputs} */ (out).L }, (_, l) => (l === /** @type {Outputs} */ (out).L - 1 ? top5 : widest))));
  if (!graphRow) {
    const bars = components(/** @type {Outputs} */ (out).L, /** @type {Outputs} */ (out).H, config);
    paintBars(v, view, ctx, bars, 1);
    bars.forEach((_, i) => setText(v.rows[i].value, "\u2026"));
    setText(v.sumValue, "\u2026");
    setText(v.note, "");
    setText(v.lens, "");
    return;
  }
  const found = componentBars(out, q, column, config);
  if (!found) return;
  const { bars, sum } = found;
  const logit = /** @type {Outputs} */ (out).logitsAt?.(q)?.[target] ?? sum;
  paintBars(v, view, ctx, bars, Math.max(...bars.map((b) => Math.abs(b.value)), 1e-9));
  bars.forEach((bar, i) => setText(v.rows[i].value, signed(bar.value)));
  setText(v.sumValue, signed(logit));
  setText(v.note, noteText(bars[0].long, bars[0].value));
  const lens = lensResult(out, q, (id) => pieceLabel(view.pieceOf(id) ?? ""));
  setText(v.lens, lens ? lensText(lens.map((layer) => layer.slice(0, 3).map((t) => ({ text: quoted(t.text ?? ""), p: t.p })))) : "");
}

/**
 * "Logit lens — after layer 1: «x» 12.3%, … …; after layer 2 (the output): …" from each layer's top 3.
 * @param {{text: string, p: number}[][]} layers
 */
const lensText = (layers) => "Logit lens \u2014 " + layers.map((top, l) => `after layer ${l + 1}${l === layers.length - 1 ? " (the output)" : ""}: ` +
  top.map((t) => `${t.text} ${percent(t.p)}`).join(", ") + " \u2026").join("; ");

/**
 * The rows: a bar per part (its name, a button for a head; its bar against `max`).
 * @param {Panel} v @param {View} view @param {Context} ctx
 * @param {{name: string, long: string, value: number, layer?: number, head?: number}[]} bars @param {number} max
 */
function paintBars(v, view, ctx, bars, max) {
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
  });
  for (let i = bars.length; i < v.rows.length; i++) setHidden(v.rows[i].tr, true);
  for (let i = 0; i < bars.length; i++) setHidden(v.rows[i].tr, false);
}
