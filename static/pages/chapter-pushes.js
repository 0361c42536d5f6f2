// @ts-check
// Chapter 1's live sentences about what the heads write (its section "What the heads write"),
// each from a view's `result.attribution` (the graph's direct logit attribution at the pinned
// token: docs/embedding.md). Nothing is claimed that the numbers on screen do not show: which
// head pushes a token hardest is found, not assumed, and a token the model does not rank among
// its top 5 gets no push (the graph computes pushes toward those only), which is then said.

import { ranked, wholePercent, viewName } from "../attention-view/widget.js";

/**
 * @typedef {import("../attention-view/model/result.js").Result} Result
 * @typedef {import("../attention-view/model/result.js").AttributionResult} Attribution
 * @typedef {(r: Result, d: ReturnType<typeof import("../attention-view/share/export-scene.js").viewData>,
 *   meta: import("../attention-view/meta-type.js").Meta) => string|null} Claim  a live sentence from a view's result
 */

/** @param {string} text */
const quote = (text) => `\u00ab${text.trim() || text}\u00bb`;
/** @param {number} x */
const signed = (x) => `${x < 0 ? "\u2212" : "+"}${Math.abs(x).toFixed(2)}`;
/** @param {number} l @param {number} h */
const headName = (l, h) => `layer ${l} head ${h}`;

/**
 * The head with the largest push toward column j: {layer, head, value}, 1-based.
 * @param {Attribution} a @param {number} j
 */
function strongest(a, j) {
  let best = { layer: 1, head: 1, value: -Infinity };
  a.heads.forEach((heads, l) => heads.forEach((push, h) => {
    if (push[j] > best.value) best = { layer: l + 1, head: h + 1, value: push[j] };
  }));
  return best;
}

/**
 * The model's probability of token `id` at the pinned token (it is in the top 5 or next).
 * @param {Result} r @param {number} id
 */
function chance(r, id) {
  return r.top.find((p) => p.id === id)?.p ?? (r.nextToken?.id === id ? r.nextToken.p : null);
}

// The induction head's push toward the copied token with every head on, per text and token:
// "writes-off" says what switching the earlier head off changed.
/** @type {Map<string, number>} */
const allOn = new Map();

/**
 * The copied token's column: the token that follows the pinned one in the text, or -1.
 * @param {Result} r  a result with its attribution
 */
function copied(r) {
  const next = r.tokens[r.token + 1];
  return next ? /** @type {Attribution} */ (r.attribution).tokens.findIndex((t) => t.id === next.id) : -1;
}

/** @type {Object<string, Claim>} */
export const PUSH_CLAIMS = {
  writes(r, d) {
    const a = r.attribution;
    const ind = r.induction;
    if (!a || !ind) return null;
    const t = r.token;
    if (t + 1 >= r.tokens.length) return `pin a token of the second copy that has a token after it.`;
    const name = quote(d.names[t + 1]);
    const j = copied(r);
    if (j < 0) {
      return `after ${quote(d.names[t])}, ${name}, the token that comes next, is not among the model's top 5, so no ` +
        "head's push toward it is computed there: pin another token of the second copy.";
    }
    const best = strongest(a, j);
    const own = a.heads[ind.layer - 1][ind.head - 1][j];
    const p = chance(r, a.tokens[j].id);
    let text = `after ${quote(d.names[t])} the model gives ${name}, the token that came next the first time, ` +
      `${p === null ? "a place in its top 5" : wholePercent(p)}. The head that pushes it hardest is ` +
      (best.layer === ind.layer && best.head === ind.head ? `the induction head itself, ${headName(ind.layer, ind.head)} (${signed(own)})`
        : `${headName(best.layer, best.head)} (${signed(best.value)}); the induction head, ${headName(ind.layer, ind.head)}, adds ${signed(own)}`);
    if (r.view === "head" && r.layer === ind.layer && r.head === ind.head && ind.pinned) {
      const through = a.keys[ind.pinned.key][j];
      const where = `through ${quote(d.names[ind.pinned.key])}, the key its stripe points at`;
      text += own > 0 && through > own ? `, and ${signed(through)} ${where}: more than its whole push, which other keys pull back`
        : `, ${signed(through)} of it ${where}` + (Math.abs(own) > 1e-6 ? ` (${wholePercent(through / own)} of its push)` : "");
    } else {
      text += ` (show ${headName(ind.layer, ind.head)} to split its push by key)`;
    }
    return `${text}.`;
  },

  "writes-off"(r, d) {
    const a = r.attribution;
    const ind = r.induction;
    if (!a || !ind) return null;
    const [l, h] = ind.reads;
    const j = copied(r);
    const key = `${r.text}\u0000${r.token}`;
    const own = j >= 0 ? a.heads[ind.layer - 1][ind.head - 1][j] : null;
    const off = r.ablated.some(([x, y]) => x === l && y === h);
    if (!off) {
      if (!r.ablated.length && own !== null) allOn.set(key, own);
      return `(${headName(l, h)} is on now: switch it off and this sentence gives the push without it.)`;
    }
    const name = quote(d.names[r.token + 1] ?? "");
    if (own === null) {
      return `with ${headName(l, h)} off, ${name} is no longer among the model's top 5 after ${quote(d.names[r.token])}, ` +
        "so no head's push toward it is computed.";
    }
    const before = allOn.get(key);
    const p = chance(r, a.tokens[j].id);
    let verdict = "";
    if (before !== undefined) {
      verdict = Math.abs(own) <= 0.5 * Math.abs(before) ? " Most of that push is gone."
        : own > before ? " The push does not go: it grows, so this head writes the token through other keys without the earlier head's help."
        : ` The push shrinks by ${wholePercent(1 - own / before)}.`;
    }
    return `with ${headName(l, h)} off, ${headName(ind.layer, ind.head)} pushes ${name} by ${signed(own)}` +
      (before !== undefined ? ` (${signed(before)} with every head on)` : "") +
      (p === null ? "" : `, and the model gives it ${wholePercent(p)}`) + `.${verdict}`;
  },

  "writes-name"(r, d) {
    const a = r.attribution;
    if (!a) return null;
    const t = r.token;
    const who = quote(d.names[t]);
    const view = `${viewName(r)[0].toLowerCase()}${viewName(r).slice(1)}`;
    const [k] = ranked(d.row, t);
    const j = a.tokens.findIndex((tok) => tok.id === r.tokens[k].id);
    if (j >= 0) {
      const best = strongest(a, j);
      return `in ${view}, ${who} looks at ${quote(d.names[k])} most, and the model ranks that token among its next ` +
        `5: the head that pushes it hardest is ${headName(best.layer, best.head)} (${signed(best.value)}).`;
    }
    const best = strongest(a, 0);
    const own = r.view === "head" ? a.heads[r.layer - 1][r.head - 1][0] : null;
    return `in ${view}, ${who} looks at ${quote(d.names[k])} most, but that token is not among the model's top 5 ` +
      `after ${who}: looking at a name is not writing it. The top prediction, ${quote(a.tokens[0].text ?? "")}, is pushed ` +
      `hardest by ${headName(best.layer, best.head)} (${signed(best.value)})` +
      (own === null ? "." : `; the head on view adds ${signed(own)}.`);
  },
};
