// @ts-check
// "Show the math": the shown row of one head as the model computed it. Every number is read
// from the graph's `scores` and `attention` outputs; only the split of a score into its parts
// is derived, from meta.json:
// - learned positions (positions are in the embeddings): score = q·k / √d_head, so the raw
//   q·k is score × √d_head;
// - ALiBi (meta.json `positions.scheme` "alibi"): score = q·k / √d_head + bias, with the
//   per-head linear distance bias −slope·(q − k) added before softmax, so q·k / √d_head is
//   score − bias.
// Rendered only while the <details> is open: it is a T-row table.

import { h, scrollBox } from "../core/dom.js";
import { headRow, scoreRow, ranked, percent } from "../readouts/readouts.js";
import { positionScheme } from "../readouts/positions.js";

/** @type {WeakMap<HTMLElement, {tr: HTMLElement, cells: HTMLElement[]}[]>} */
/**
 * @typedef {import("../core/view.js").View} View
 * @typedef {import("../model/runs.js").Outputs} Outputs
 * @typedef {ReturnType<typeof positionScheme>} Scheme
 * @typedef {{mathIntro: HTMLElement, mathBody: HTMLElement, mathHead: HTMLElement}} Refs
 */

const pools = new WeakMap(); // tbody -> pooled rows

/** @param {number|null} x @param {number} [digits] */
function fmt(x, digits = 4) {
  if (x === -Infinity || x === null) return "\u2212\u221e";
  return /** @type {number} */ (x).toFixed(digits).replace("-", "\u2212");
}

const COLUMNS = {
  learned: ["key", "raw score q\u00b7k", "scaled \u00f7 \u221ad", "softmax weight"],
  alibi: ["key", "q\u00b7k \u00f7 \u221ad", "distance bias", "score", "softmax weight"],
};

/** @param {Refs} refs @param {Scheme["scheme"]} scheme */
function header(refs, scheme) {
  if (refs.mathHead.dataset.scheme === scheme) return;
  refs.mathHead.dataset.scheme = scheme;
  refs.mathHead.replaceChildren(h("tr", {}, ...COLUMNS[scheme].map((text) => h("th", { scope: "col", text }))));
}

/**
 * @param {View} vm  a view with outputs @param {Scheme} pos
 * @param {{layer: number, head: number, q: number, dHead: number, root: number, best: number,
 *   scores: ArrayLike<number>, weights: ArrayLike<number>}} numbers
 */
function intro(vm, pos, { layer, head, q, dHead, root, best, scores, weights }) {
  const { out, names } = vm;
  const later = /** @type {Outputs} */ (out).T - q - 1;
  const other = vm.state.view === "head" ? "" :
    ` (The math belongs to one head, so this is layer ${layer}, head ${head}, not the ${vm.state.view} view.)`;
  const how = pos.scheme === "alibi"
    ? `Each score is q\u00b7k divided by \u221ad_head = \u221a${dHead} \u2248 ${root.toFixed(3)}, plus a distance ` +
      `bias: this head subtracts ${fmt(pos.slope(layer, head))} for every token between query and key ` +
      "(ALiBi, linear biases instead of position embeddings), so nearer keys start ahead. "
    : `The model's scores are q\u00b7k divided by \u221ad_head = \u221a${dHead} \u2248 ${root.toFixed(3)}, ` +
      `so each raw score below is the scaled one times ${root.toFixed(3)}. `;
  return `Layer ${layer}, head ${head}, query \u00ab${names[q]}\u00bb (token ${q + 1} of ${/** @type {Outputs} */ (out).T}).${other} ` + how +
    `Softmax turns the ${q + 1} scores into weights, e^s / \u03a3 e^s: the largest, ` +
    `${fmt(scores[best])} on \u00ab${names[best]}\u00bb, gets the largest share, ${percent(weights[best])}. ` +
    (later ? `The ${later} later key${later === 1 ? " is" : "s are"} masked: \u2212\u221e, and e^\u2212\u221e = 0.`
      : "No key is masked: this is the last token.");
}

/**
 * Fills the math panel for a view (core/view.js).
 * @param {Refs} refs @param {View} vm  a view with outputs
 */
function renderMath(refs, vm) {
  const { out, shown: q, names, meta } = /** @type {View & {out: Outputs}} */ (vm);
  const layer = vm.state.layer;
  const head = vm.state.head;
  const pos = positionScheme(meta);
  const dHead = meta.config.d_head ?? meta.config.d_model / meta.config.n_head;
  const root = Math.sqrt(dHead);
  const weights = headRow(out, layer - 1, head - 1, q);
  const scores = scoreRow(out, layer - 1, head - 1, q);
  const [best] = ranked(weights, q);
  header(refs, pos.scheme);
  refs.mathIntro.textContent = intro(vm, pos, { layer, head, q, dHead, root, best, scores, weights });

  const width = COLUMNS[pos.scheme].length;
  const body = refs.mathBody;
  /** @type {{tr: HTMLElement, cells: HTMLElement[]}[]|undefined} */
  let rows = pools.get(body);
  if (!rows || (rows.length && rows[0].cells.length !== width)) {
    body.replaceChildren();
    pools.set(body, (rows = []));
  }
  while (rows.length < out.T) {
    const cells = [h("th", { scope: "row" }), ...Array.from({ length: width - 1 }, () => h("td"))];
    const tr = h("tr", {}, ...cells);
    body.append(tr);
    rows.push({ tr, cells });
  }
  const slope = pos.scheme === "alibi" ? pos.slope(layer, head) : 0;
  rows.forEach((row, k) => {
    row.tr.hidden = k >= out.T;
    if (k >= out.T) return;
    const masked = k > q;
    row.tr.className = masked ? "masked" : k === best ? "best" : "";
    const [name, ...cells] = row.cells;
    name.textContent = names[k];
    const weight = masked ? "0" : `${weights[k].toFixed(6)} (${percent(weights[k])})`;
    if (pos.scheme === "alibi") {
      const bias = -slope * (q - k);
      const [raw, biasCell, score, w] = cells;
      raw.textContent = masked ? "\u2212\u221e" : fmt(scores[k] - bias);
      biasCell.textContent = masked ? "" : fmt(bias);
      score.textContent = fmt(masked ? -Infinity : scores[k]);
      w.textContent = weight;
    } else {
      const [raw, scaled, w] = cells;
      raw.textContent = masked ? "\u2212\u221e" : fmt(scores[k] * root);
      scaled.textContent = fmt(masked ? -Infinity : scores[k]);
      w.textContent = weight;
    }
  });
}

/** @type {import("../core/feature.js").Feature} */
export const math = {
  name: "math",
  mount(slots) {
    const refs = { mathIntro: h("p.math-intro"), mathBody: h("tbody"), mathHead: h("thead") };
    const details = /** @type {HTMLDetailsElement} */ (h("details.panel.math", {},
      h("summary", { text: "Show the math" }),
      refs.mathIntro,
      // The columns depend on the model's position scheme: header() writes them.
      scrollBox("The math, one row per key", h("table.math-table", {}, refs.mathHead, refs.mathBody))));
    slots.put("math", details);
    /** @type {View|null} */
    let last = null;
    details.addEventListener("toggle", () => {
      if (details.open && last?.out) renderMath(refs, last);
    });
    return {
      // A T-row table: filled only while open.
      paint(view) {
        last = view;
        if (details.open && view.out) renderMath(refs, view);
      },
    };
  },
};
