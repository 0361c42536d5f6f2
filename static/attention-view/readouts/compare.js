// @ts-check
// Compare mode: the view's layer, head, view and switched-off heads on a second sentence, the
// pinned token found by word in both texts, and the two rows side by side, word by word.
// Pure: no DOM, no model (the second text's numbers come from its own run of the graph).

import { wordsOf, findWord } from "../model/words.js";
import { viewRow } from "./readouts.js";
import { toResult } from "../model/result.js";

/** @typedef {import("../model/token-labels.js").TokenLabel} TokenLabel */
/** @typedef {import("../model/runs.js").Run} Run */
/** @typedef {import("../state-type.js").State} State */

/**
 * Compare mode in `result` (README, "Properties, events, export").
 * @typedef {Object} CompareResult
 * @property {string} text  the second text
 * @property {{id: number, text: string, piece: string}[]} tokens  its tokens
 * @property {number} token  0-based token of the second text whose row is shown (-1 without tokens)
 * @property {string|null} word  the word looked for ("said", "said#2"), from the first text's pinned token
 * @property {boolean} found  false when the second text lacks that word: `token` is then its last token
 * @property {number[]} row  the second text's row at `token` for the view's layer/head/view (length = its tokens)
 * @property {number[]} firstRow  the first text's row at the pinned token, the same view
 * @property {number[][][][]} attention  the second text's [layer][head][query][key], same heads off
 * @property {{text: string, first: number|null, second: number|null}[]} words  the two rows by
 *   word (weights of a word's pieces summed, up to each text's query): the first text's words in
 *   order, then words only the second text has; null where a text has no such word
 */

/**
 * The token of the second text that matches token `indexA` of the first: the same word (its
 * n-th occurrence when the first text's is its n-th), at the same piece counted from the word's
 * end (so the whole word's last piece matches the last piece). `spec` (a word spec such as
 * "said#2", or null) is looked for directly instead, when the first text's token was pinned by
 * one. Without that word, the second text's last token, with `found` false.
 * @returns {{index: number, word: string|null, found: boolean}}
 * @param {string|number|null} spec  the state's `token`, a word spec when a string
 * @param {TokenLabel[]} labelsA
 * @param {number} indexA
 * @param {TokenLabel[]} labelsB
 */
export function matchToken(spec, labelsA, indexA, labelsB) {
  const last = labelsB.length - 1;
  const wordsB = wordsOf(labelsB);
  if (typeof spec === "string" && spec !== "") {
    const at = findWord(wordsB, spec);
    return { index: at >= 0 ? at : last, word: spec, found: at >= 0 };
  }
  if (indexA < 0 || indexA >= labelsA.length) return { index: last, word: null, found: false };
  const wordsA = wordsOf(labelsA);
  const wi = wordsA.wordOf[indexA];
  const w = wordsA.list[wi];
  let n = 0;
  for (let i = 0; i <= wi; i++) if (wordsA.list[i].text === w.text) n++;
  const word = n > 1 ? `${w.text}#${n}` : w.text;
  let seen = 0;
  for (const other of wordsB.list) {
    if (other.text === w.text && ++seen === n) {
      return { index: Math.max(other.first, other.last - (w.last - indexA)), word, found: true };
    }
  }
  return { index: last, word, found: false };
}

/**
 * The row's weight per word up to `q` (a word's pieces summed), with its occurrence number.
 * @param {ArrayLike<number>} row
 * @param {number} q
 * @param {TokenLabel[]} labels
 */
export function wordWeights(row, q, labels) {
  const out = [];
  const count = new Map();
  for (const w of wordsOf(labels).list) {
    if (w.first > q) break;
    let weight = 0;
    for (let k = w.first; k <= Math.min(w.last, q); k++) weight += row[k];
    const key = w.text.toLowerCase();
    const n = (count.get(key) ?? 0) + 1;
    count.set(key, n);
    out.push({ text: w.text, key: `${key}#${n}`, weight });
  }
  return out;
}

/**
 * Two rows by word: the first text's words in order, then the words only the second text
 * has. Words are matched ignoring case ("The" and "the"), n-th occurrence with n-th.
 * @param {{text: string, key: string, weight: number}[]} first  wordWeights'
 * @param {{text: string, key: string, weight: number}[]} second
 */
export function alignWords(first, second) {
  const byKey = new Map(second.map((w) => [w.key, w]));
  /** @type {{text: string, first: number|null, second: number|null}[]} */
  const rows = first.map((w) => ({ text: w.text, first: w.weight, second: byKey.get(w.key)?.weight ?? null }));
  const inFirst = new Set(first.map((w) => w.key));
  for (const w of second) if (!inFirst.has(w.key)) rows.push({ text: w.text, first: null, second: w.weight });
  return rows;
}

/**
 * Everything the compare panel shows for the first run's token `indexA` (the shown one) and the
 * second run: both rows in the state's view, the matched token, and the rows by word.
 * @param {State} state
 * @param {Run} runA
 * @param {number} indexA
 * @param {Run} runB
 * @param {string|null} [spec]
 */
export function comparison(state, runA, indexA, runB, spec = null) {
  const m = matchToken(spec, runA.labels, indexA, runB.labels);
  const rowA = runA.out && indexA >= 0 ? viewRow(runA.out, state, indexA) : new Float64Array(0);
  const rowB = runB.out && m.index >= 0 ? viewRow(runB.out, state, m.index) : new Float64Array(0);
  const words = runA.out && runB.out
    ? alignWords(wordWeights(rowA, indexA, runA.labels), wordWeights(rowB, m.index, runB.labels))
    : [];
  return { ...m, rowA, rowB, words };
}

/**
 * The word spec a state pins the first text by, when `index` is that pinned token; else null.
 * @param {Pick<State, "token">} state
 * @param {number} index
 * @param {number} pinned
 */
export function pinnedSpec(state, index, pinned) {
  return typeof state.token === "string" && index === pinned ? state.token : null;
}

/**
 * `result.compare` for the pinned token `pinnedA` of `runA` and the second run (null before
 * the live model has computed it); null when compare mode is off.
 * @returns {CompareResult|null}
 * @param {Run|null} runB
 * @param {State} state
 * @param {Run} runA
 * @param {number} pinnedA
 */
export function compareResult(runB, state, runA, pinnedA) {
  if (state.compare === null || state.compare === undefined) return null;
  if (!runB) {
    return { text: state.compare, tokens: [], token: -1, word: null, found: false, row: [], firstRow: [], attention: [], words: [] };
  }
  const c = comparison(state, runA, pinnedA, runB, pinnedSpec(state, pinnedA, pinnedA));
  const r = toResult(runB, state, c.index);
  return {
    text: runB.text,
    tokens: r.tokens,
    token: c.index,
    word: c.word,
    found: c.found,
    row: Array.from(c.rowB),
    firstRow: Array.from(c.rowA),
    get attention() { return r.attention; },
    words: c.words,
  };
}
