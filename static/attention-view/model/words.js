// @ts-check
// Words over byte-level BPE tokens, so an author can write token="said" instead of counting
// sub-word pieces, and so the chips of one word can be drawn joined.
//
// A word is a maximal run of tokens in which every token after the first (a) starts with a
// letter, digit or combining mark and (b) follows text that ends with one; a token whose text
// is empty (the tail bytes of a character split over several tokens) or starts with a mark (an
// emoji's variation selector, an accent: it modifies the character before) always continues
// the word before it. So whitespace and punctuation always start a new word, and a
// punctuation token is a word of its own: «Dor»«mouse» is one word, «"»«Off» two, «don»«'t»
// two. A word's text is its tokens' text joined, without leading whitespace.
//
// Word specs: "said" is the first word whose text is exactly "said", "said#2" the second.
// A word pins its LAST token: the one at which the model has read the whole word. Numbers
// ("3", "-1") are always token indices (state.js); a word made of digits needs "#n".

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const MARK = /^\p{M}/u;
/** @type {WeakMap<object, Words>} */
const cache = new WeakMap(); // labels array -> Words

/**
 * @typedef {Object} Words
 * @property {Int32Array} wordOf  token index -> word index
 * @property {{first: number, last: number, text: string}[]} list
 */

/**
 * @param {{text: string}[]} labels  token labels (token-labels.js), in order
 * @returns {Words}
 */
export function wordsOf(labels) {
  let words = cache.get(labels);
  if (words) return words;
  const wordOf = new Int32Array(labels.length);
  const list = [];
  let prev = ""; // the text before this token (its last non-empty token's)
  for (let i = 0; i < labels.length; i++) {
    const text = labels[i].text;
    const joins = i > 0 && (text === "" || MARK.test(text) || (WORD_CHAR.test(text[0] ?? "") && WORD_CHAR.test(lastChar(prev))));
    if (text !== "") prev = text;
    if (!joins) list.push({ first: i, last: i, text: "" });
    const w = list[list.length - 1];
    w.last = i;
    w.text += text;
    wordOf[i] = list.length - 1;
  }
  for (const w of list) w.text = w.text.replace(/^\s+/u, "");
  words = { wordOf, list };
  cache.set(labels, words);
  return words;
}

/** @param {string} s */
function lastChar(s) {
  const chars = Array.from(s);
  return chars.length ? chars[chars.length - 1] : "";
}

/**
 * "said#2" -> {word: "said", n: 2}; "said" -> n 1; null for an empty spec.
 * @param {unknown} spec  a state's `token`: a word spec when a non-empty string
 */
export function parseWordSpec(spec) {
  if (typeof spec !== "string" || spec === "") return null;
  const m = /^(.*)#(\d+)$/su.exec(spec);
  if (m && m[1] !== "" && Number(m[2]) >= 1) return { word: m[1], n: Number(m[2]) };
  return { word: spec, n: 1 };
}

/**
 * Token index a word spec pins (its word's last token), or -1 when the text has no such word.
 * @param {Words} words @param {unknown} spec
 */
export function findWord(words, spec) {
  const parsed = parseWordSpec(spec);
  if (!parsed) return -1;
  let seen = 0;
  for (const w of words.list) {
    if (w.text === parsed.word && ++seen === parsed.n) return w.last;
  }
  return -1;
}

/**
 * The word spec for a pinned token, when one names it unambiguously: the token is its word's
 * last, and the spec finds that same token again (so "#" in a word, or a word that reads as a
 * number, keeps the index). Null otherwise.
 * @param {Words} words @param {number} index
 */
export function wordSpec(words, index) {
  const w = words.list[words.wordOf[index]];
  if (!w || w.last !== index || w.text === "" || /^\s|\s$/u.test(w.text)) return null;
  if (/^-?\d+$/u.test(w.text.trim()) || w.text.includes("#")) return null;
  let n = 0;
  for (const other of words.list) {
    if (other.text === w.text) n++;
    if (other === w) break;
  }
  const spec = n === 1 ? w.text : `${w.text}#${n}`;
  return findWord(words, spec) === index ? spec : null;
}
