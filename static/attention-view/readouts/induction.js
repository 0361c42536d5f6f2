// @ts-check
// The induction readout: in a text that repeats itself, a token seen before has a "target", the
// token that followed it the last time; an induction head (Olsson et al. 2022) puts its weight
// there, which is how the model can predict the repeat. This measures, from a run's attention,
// how much one head does that, row by row and over the whole repeat. Pure: no DOM, no model.

/**
 * For each query, the key an induction head would attend to: one past the latest earlier
 * position with the same token id, when that is still before the query (so that the key is
 * visible and is not the query itself). -1 where the token has not been seen before.
 * @param {number[]} ids
 * @returns {number[]}
 */
export function inductionTargets(ids) {
  const last = new Map(); // id -> its latest position so far
  return ids.map((id, q) => {
    const seen = last.get(id);
    last.set(id, q);
    return seen !== undefined && seen + 1 < q ? seen + 1 : -1;
  });
}

/**
 * @typedef {Object} InductionRow
 * @property {number} query  0-based
 * @property {number} key  its target: the token after the query's previous occurrence
 * @property {number} weight  the head's weight on that key
 */

/**
 * One head's rows with a target, and their mean weight on it (null without any target: the
 * text does not repeat a token far enough apart).
 * @param {(query: number) => ArrayLike<number>} rowOf  the head's attention row of a query
 *   (a run's tensor row, or a result's nested array)
 * @param {number[]} ids  the run's token ids
 * @returns {{rows: InductionRow[], mean: number}|null}
 */
export function inductionRows(rowOf, ids) {
  const targets = inductionTargets(ids);
  const rows = [];
  for (let q = 0; q < targets.length; q++) {
    if (targets[q] >= 0) rows.push({ query: q, key: targets[q], weight: rowOf(q)[targets[q]] });
  }
  if (!rows.length) return null;
  return { rows, mean: rows.reduce((s, r) => s + r.weight, 0) / rows.length };
}

/**
 * The row of a repeated text that tells the induction story best (export/circuit.py
 * example_row, the chapter's example, uses the same rule): among the rows whose target cell
 * holds at least `stripe` (all rows if none does), the one where the probability of the token
 * that comes next rose most since the query's earlier occurrence (key - 1): what the repeat
 * taught the model. Ties keep the earliest.
 * @param {InductionRow[]} rows  non-empty
 * @param {(query: number) => number} pNext  the model's probability at a position of the token after it
 * @param {number} stripe
 * @returns {InductionRow}
 */
export function exampleRow(rows, pNext, stripe) {
  const visible = rows.filter((r) => r.weight >= stripe);
  const pool = visible.length ? visible : rows;
  /** @param {InductionRow} r */
  const gain = (r) => pNext(r.query) - pNext(r.key - 1);
  return pool.reduce((best, r) => (gain(r) > gain(best) ? r : best));
}

/**
 * `text` followed by itself, shortened first so that both copies fit whole in the model's
 * window: the longest start of it (cut before a space, when it has one) whose repeat has at
 * most `nCtx` tokens, counted by `tokensOf` (the model's tokenizer). Null when not even one
 * word fits twice. Counted, not estimated from characters: a text's tokens per character vary
 * along it, and an estimate that ran over cut the first copy off at the window's start.
 * @param {string} text
 * @param {(text: string) => number} tokensOf
 * @param {number} nCtx
 * @returns {string|null}
 */
export function repeatedText(text, tokensOf, nCtx) {
  const base = text.trimEnd();
  /** @param {string} part */
  const twice = (part) => `${part} ${part.trimStart()}`;
  if (tokensOf(twice(base)) <= nCtx) return twice(base);
  // How far a copy can reach, found by doubling: a pasted book is never tokenized whole.
  let reach = nCtx * 4;
  while (reach < base.length && tokensOf(twice(base.slice(0, reach))) <= nCtx) reach *= 2;
  const ends = cutsOf(base, Math.min(reach, base.length));
  // The longest start that fits: a longer start never has fewer tokens, so search by halves.
  let lo = -1;
  let hi = ends.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (tokensOf(twice(base.slice(0, ends[mid]))) <= nCtx) lo = mid;
    else hi = mid;
  }
  return lo >= 0 ? twice(base.slice(0, ends[lo])) : null;
}

/**
 * Where `text` may be cut before `reach`: before each space after a non-space, else between code points.
 * @param {string} text
 * @param {number} reach
 */
function cutsOf(text, reach) {
  const ends = [];
  for (let i = 1; i < reach; i++) if (text[i] === " " && text[i - 1] !== " ") ends.push(i);
  if (ends.length) return ends;
  for (let i = 1; i < reach; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xdc00 || code > 0xdfff) ends.push(i);
  }
  return ends;
}

/**
 * Whether `text` is already `repeatedText` of something (the button then finds the best row).
 * @param {string} text
 */
export function isRepeated(text) {
  const t = text.trim();
  const half = (t.length - 1) / 2;
  return Number.isInteger(half) && half > 0 && t[half] === " " && t.slice(0, half) === t.slice(half + 1);
}
