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
  const gain = (r) => pNext(r.query) - pNext(r.key - 1);
  return pool.reduce((best, r) => (gain(r) > gain(best) ? r : best));
}

/**
 * `text` followed by itself, shortened first (at a space, when there is one) so that both
 * copies fit in the model's window: `count` is the tokens `text` has now, `nCtx` the window.
 * @param {string} text
 * @param {number} count
 * @param {number} nCtx
 */
export function repeatedText(text, count, nCtx) {
  const base = text.trimEnd();
  const room = Math.floor((nCtx - 1) / 2); // tokens per copy, with one to spare at the seam
  let part = base;
  if (count > room) {
    const cut = Math.floor((base.length * room) / count);
    const space = base.lastIndexOf(" ", cut);
    part = base.slice(0, space > 0 ? space : cut);
  }
  return `${part} ${part.trimStart()}`;
}

/** Whether `text` is already `repeatedText` of something (the button then finds the best row). */
export function isRepeated(text) {
  const t = text.trim();
  const half = (t.length - 1) / 2;
  return Number.isInteger(half) && half > 0 && t[half] === " " && t.slice(0, half) === t.slice(half + 1);
}
