// "Show the math": the pinned row of one head as the model computed it — raw score q·k,
// the scaled score the graph outputs (q·k / √d_head), and the softmax weight. Every number
// is read from the `scores` and `attention` outputs; the raw score is the only derived one
// (scaled × √d_head). Rendered only while the <details> is open: it is a T-row table.

import { h } from "./av-skeleton.js";
import { headRow, scoreRow, ranked, percent } from "./av-views.js";

const pools = new WeakMap(); // tbody -> pooled rows

function fmt(x, digits = 4) {
  if (x === -Infinity || x === null) return "\u2212\u221e";
  return x.toFixed(digits).replace("-", "\u2212");
}

export function renderMath(refs, vm) {
  const { out, shown: q, names, meta } = vm;
  const layer = vm.state.layer;
  const head = vm.state.head;
  const dHead = meta.config.d_head ?? meta.config.d_model / meta.config.n_head;
  const root = Math.sqrt(dHead);
  const weights = headRow(out, layer - 1, head - 1, q);
  const scores = scoreRow(out, layer - 1, head - 1, q);
  const [best] = ranked(weights, q);
  const later = out.T - q - 1;
  const other = vm.state.view === "head" ? "" :
    ` (The math belongs to one head, so this is layer ${layer}, head ${head}, not the ${vm.state.view} view.)`;
  refs.mathIntro.textContent =
    `Layer ${layer}, head ${head}, query \u00ab${names[q]}\u00bb (token ${q + 1} of ${out.T}).${other} ` +
    `The model's scores are q\u00b7k divided by \u221ad_head = \u221a${dHead} \u2248 ${root.toFixed(3)}, ` +
    `so each raw score below is the scaled one times ${root.toFixed(3)}. ` +
    `Softmax turns the ${q + 1} scaled scores into weights, e^s / \u03a3 e^s: the largest, ` +
    `${fmt(scores[best])} on \u00ab${names[best]}\u00bb, gets the largest share, ${percent(weights[best])}. ` +
    (later ? `The ${later} later key${later === 1 ? " is" : "s are"} masked: \u2212\u221e, and e^\u2212\u221e = 0.`
      : "No key is masked: this is the last token.");

  const body = refs.mathBody;
  let rows = pools.get(body);
  if (!rows) pools.set(body, (rows = []));
  while (rows.length < out.T) {
    const cells = [h("th", { scope: "row" }), h("td"), h("td"), h("td")];
    const tr = h("tr", {}, ...cells);
    body.append(tr);
    rows.push({ tr, cells });
  }
  rows.forEach((row, k) => {
    row.tr.hidden = k >= out.T;
    if (k >= out.T) return;
    const masked = k > q;
    row.tr.className = masked ? "masked" : k === best ? "best" : "";
    const [name, raw, scaled, weight] = row.cells;
    name.textContent = names[k];
    raw.textContent = masked ? "\u2212\u221e" : fmt(scores[k] * root);
    scaled.textContent = fmt(masked ? -Infinity : scores[k]);
    weight.textContent = masked ? "0" : `${weights[k].toFixed(6)} (${percent(weights[k])})`;
  });
}
