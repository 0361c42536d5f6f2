// @ts-check
// Chapter 1's live sentences. The model is small and fuzzy, so the page never states what a
// head does: each <span class="live" data-claim=NAME data-for=VIEW-ID> is written here from
// that view's `result`, and rewritten whenever the reader changes the view (or types).
// Sentences are built from numbers and token names and set with textContent only.

import "../attention-view.js";
import { viewData, ranked, spread, wholePercent, viewName, positionScheme, loadMeta, grouped } from "../attention-view/widget.js";
import { PUSH_CLAIMS } from "./chapter-pushes.js";

const dHead = Number(/** @type {HTMLElement|null} */ (document.querySelector("[data-d-head]"))?.dataset.dHead);

/** @param {string} name */
const quote = (name) => `\u00ab${name}\u00bb`;
/** @param {number} n @param {string} word */
const plural = (n, word) => `${grouped(n)} ${word}${n === 1 ? "" : "s"}`;
/** @param {number} x */
const fixed = (x) => x.toFixed(2).replace("-", "\u2212");
// A slope as small as 1/256 would read "0.00" at two decimals: two significant digits instead.
/** @param {number} x */
const slopeText = (x) => (Math.abs(x) >= 0.01 ? fixed(x) : String(Number(x.toPrecision(2))));
// "Layer 2, head 3" or "The average of layer 2's heads", to follow "in" mid-sentence.
/** @param {Parameters<typeof viewName>[0]} r */
const inView = (r) => {
  const name = viewName(r);
  return name[0].toLowerCase() + name.slice(1);
};

// Each claim: (result, data) -> sentence; `data` is viewData(result) (the view's matrix and
// row, token names). `q` is the pinned token.
/** @type {Object<string, import("./chapter-pushes.js").Claim>} */
const CLAIMS = {
  top(r, d) {
    const q = r.token;
    const who = quote(d.names[q]);
    if (q === 0) return `${who} is the first token: with nothing before it, all 100% stays on itself.`;
    const [a, b] = ranked(d.row, q);
    /** @param {number} k */
    const self = (k) => (k === q ? " (itself)" : "");
    const rest = 1 - d.row[a] - d.row[b];
    const others = q + 1 - 2;
    return `in ${inView(r)}, ${who} spends ${wholePercent(d.row[a])} of its budget on ${quote(d.names[a])}${self(a)} ` +
      `and ${wholePercent(d.row[b])} on ${quote(d.names[b])}${self(b)}` +
      (others > 0 ? `, leaving ${wholePercent(Math.max(0, rest))} for the other ${plural(others, "token")}.` : ".");
  },

  heads(r, d) {
    const q = r.token;
    const l = r.layer - 1;
    const who = quote(d.names[q]);
    if (q === 0) return `${who} is the first token, so every head puts 100% on it.`;
    const best = r.attention[l].map((head, h) => {
      const [k] = ranked(head[q], q);
      return { h: h + 1, k, w: head[q][k] };
    });
    const sorted = [...best].sort((x, y) => x.w - y.w);
    const lo = sorted[0];
    const hi = sorted[sorted.length - 1];
    return `across layer ${r.layer}'s ${best.length} heads, the largest share ${who} gives any single token ranges from ` +
      `${wholePercent(lo.w)} (head ${lo.h}, on ${quote(d.names[lo.k])}) to ${wholePercent(hi.w)} ` +
      `(head ${hi.h}, on ${quote(d.names[hi.k])}).`;
  },

  distance(r, d) {
    const q = r.token;
    const who = quote(d.names[q]);
    if (q < 2) return `pin a token further along the sentence (${who} has fewer than two tokens before it).`;
    const [a] = ranked(d.row, q);
    const back = q - a;
    const where = back === 0 ? "itself" : back === 1 ? "its neighbour" : `${plural(back, "token")} back`;
    return `in ${inView(r)}, ${who} gives ${wholePercent(d.row[q - 1])} to its neighbour ${quote(d.names[q - 1])} ` +
      `and ${wholePercent(d.row[0])} to ${quote(d.names[0])}, ${plural(q, "token")} back. ` +
      `Its largest share, ${wholePercent(d.row[a])}, goes to ${quote(d.names[a])} (${where}).`;
  },

  spread(r, d) {
    const q = r.token;
    const who = quote(d.names[q]);
    if (q === 0) return `${who} is the first token; pin a later one to compare the heads.`;
    const l = r.layer - 1;
    const s = r.attention[l].map((head, h) => ({ h: h + 1, s: spread(head[q], q) }));
    const sorted = [...s].sort((x, y) => x.s - y.s);
    const lo = sorted[0];
    const hi = sorted[sorted.length - 1];
    return `for ${who} in layer ${r.layer}, head ${lo.h} is the most focused (the entropy of its row is ` +
      `${wholePercent(lo.s)} of an even split over ${plural(q + 1, "token")}) and head ${hi.h} the most spread out ` +
      `(${wholePercent(hi.s)}).`;
  },

  cost(r, d) {
    const T = d.T;
    const heads = r.attention.length * (r.attention[0]?.length ?? 0);
    return `The sentence in the first view has ${plural(T, "token")}, so each head fills ${T} \u00d7 ${T} = ` +
      `${plural(T * T, "weight")}, and the model's ${heads} heads fill ${grouped(heads * T * T)}.`;
  },

  scale(r, d, meta) {
    const q = r.token;
    const who = quote(d.names[q]);
    // With ALiBi the graph's scores include the distance bias −slope·(q − k): take it off to
    // get q·k / √d (panels/math.js shows the same split per key).
    const pos = positionScheme(meta);
    const slope = pos.scheme === "alibi" ? pos.slope(r.layer, r.head) : 0;
    const scaledAll = r.scores[r.layer - 1][r.head - 1][q].slice(0, q + 1).map((s, k) => s + slope * (q - k));
    const weights = r.attention[r.layer - 1][r.head - 1][q].slice(0, q + 1);
    const root = Math.sqrt(dHead);
    const lo = Math.min(...scaledAll);
    const hi = Math.max(...scaledAll);
    const where = `In the first view (layer ${r.layer}, head ${r.head}), ${who}`;
    if (q === 0) return `${where} has only itself to score: q\u00b7k = ${fixed(lo * root)}, scaled ${fixed(lo)}, weight 100%.`;
    const bias = slope ? `; the distance bias then takes ${slopeText(slope)} off per token of distance` : "";
    return `${where} gets raw scores q\u00b7k from ${fixed(lo * root)} to ${fixed(hi * root)}; divided by ` +
      `\u221a${dHead} they run from ${fixed(lo)} to ${fixed(hi)}${bias}, and softmax turns them into weights from ` +
      `${wholePercent(Math.min(...weights))} to ${wholePercent(Math.max(...weights))}.`;
  },

  induction(r, d) {
    const ind = r.induction;
    if (!ind) return null;
    const head = `layer ${ind.layer} head ${ind.head}`;
    const mean = `Over the ${plural(ind.rows, "token")} of this text seen before, it puts ${wholePercent(ind.mean ?? 0)} ` +
      "on average on the token that followed them.";
    if (!ind.pinned) return `The pinned token ${quote(d.names[r.token])} was not seen before; pin one in the second copy. ${mean}`;
    const { query, key, weight } = ind.pinned;
    return `${quote(d.names[query])} was seen before, and ${head} puts ${wholePercent(weight)} of its budget on ` +
      `${quote(d.names[key])}, the token after it then. ${mean}`;
  },

  "induction-off"(r, d) {
    const ind = r.induction;
    if (!ind) return null;
    const [l, h] = ind.reads;
    const off = r.ablated.some(([a, b]) => a === l && b === h);
    if (!off) return `(layer ${l} head ${h} is on now: switch it off and this sentence gives the numbers without it.)`;
    const next = r.nextToken;
    const guess = next
      ? ` The model's chance of ${quote(/** @type {string} */ (next.text).trim() || /** @type {string} */ (next.text))} coming next is ${wholePercent(next.p)} ` +
        `(${wholePercent(next.pBaseline)} with every head on).`
      : "";
    const row = ind.pinned ? `${quote(d.names[ind.pinned.query])} now puts ${wholePercent(ind.pinned.weight)} on ` +
      `${quote(d.names[ind.pinned.key])}; ` : "";
    return `with layer ${l} head ${h} off, ${row}over the ${plural(ind.rows, "token")} seen before, ` +
      `${wholePercent(ind.mean ?? 0)} on average goes to the token that followed them ` +
      `(${wholePercent(ind.meanAllOn ?? 0)} with every head on).${guess}`;
  },

  masked(r, d) {
    // Counted from the numbers (weights that are exactly 0 above the diagonal), not from the
    // formula, so the sentence would show it if the model ever leaked the future.
    const T = d.T;
    const m = r.attention[r.layer - 1][r.head - 1];
    let zero = 0;
    for (let q = 0; q < T; q++) for (let k = q + 1; k < T; k++) if (m[q][k] === 0) zero++;
    return `In the first view's head, ${grouped(zero)} of the ${grouped(T * T)} weights ` +
      `are exactly 0: all the cells above the diagonal, ${T} \u00d7 ${T - 1} / 2 of them.`;
  },
};

/** @param {import("../attention-view/widget.js").AttentionViewElement} view */
function watch(view) {
  const spans = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(`.live[data-for="${view.id}"]`));
  if (!spans.length) return;
  const fill = async () => {
    const r = view.result;
    if (!r || !r.live) return;
    if (r.tokens.length === 0) {
      // An emptied text box: say so rather than keep describing the previous sentence.
      for (const span of spans) {
        span.textContent = "(type a sentence into the view to get this number back)";
        span.dataset.state = "empty";
      }
      return;
    }
    const meta = await loadMeta(view.src); // already loaded by the view: no second request
    if (view.result?.text !== r.text) return; // changed meanwhile; the next change refills
    const d = viewData(r);
    // Which view the sentence describes, for readers of the DOM (and the tests' waits).
    const state = `${r.token}/${r.layer}/${r.head}/${r.view}`;
    for (const span of spans) {
      // every .live span names a claim
      const claim = CLAIMS[/** @type {string} */ (span.dataset.claim)] ?? PUSH_CLAIMS[/** @type {string} */ (span.dataset.claim)];
      const text = claim?.(r, d, meta);
      if (text && span.textContent !== text) span.textContent = text;
      span.dataset.state = state;
    }
  };
  const refresh = () => view.ready.then(fill, () => {});
  view.addEventListener("load", refresh);
  view.addEventListener("change", refresh);
  refresh();
}

await customElements.whenDefined("attention-view");
for (const view of document.querySelectorAll("attention-view[id]")) watch(/** @type {import("../attention-view/widget.js").AttentionViewElement} */ (view));
