// @ts-check
// Token labels from byte-level BPE pieces.
//
// The tokenizer's vocabulary strings ("Ġsaid") spell raw UTF-8 bytes with GPT-2's printable
// stand-in characters. Decoding one token on its own breaks any character whose bytes are
// split over several tokens (it comes out as U+FFFD), so labels are built from bytes: each
// character goes to the token holding its first byte, and the tokens that only hold the rest
// of it get an empty text plus a pointer to that token. Joining every token's `text` gives
// back exactly the decoded input.

import { wordsOf } from "./words.js";

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes
// are shifted up to U+0100 and beyond, in byte order.
const BYTE_OF_CHAR = (() => {
  const map = new Map();
  let shifted = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    map.set(printable ? String.fromCharCode(b) : String.fromCharCode(256 + shifted++), b);
  }
  return map;
})();

/**
 * The raw bytes a byte-level piece stands for; unknown characters count as their UTF-8.
 * @param {string} piece
 */
export function pieceBytes(piece) {
  const out = [];
  for (const ch of piece) {
    const b = BYTE_OF_CHAR.get(ch);
    if (b !== undefined) out.push(b);
    else out.push(...new TextEncoder().encode(ch));
  }
  return out;
}

// Length of the UTF-8 sequence that starts with `lead`, or 0 if it cannot start one.
/** @param {number} lead */
function sequenceLength(lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

// One character at bytes[i], validated as strictly as TextDecoder (no overlong forms, no
// surrogates, nothing past U+10FFFF); anything invalid is one U+FFFD per byte. Decoded by
// hand because TextDecoder would silently drop a leading byte-order mark.
/** @param {number[]} bytes @param {number} i */
function readChar(bytes, i) {
  const bad = { text: "\uFFFD", length: 1 };
  const n = sequenceLength(bytes[i]);
  if (n === 0 || i + n > bytes.length) return bad;
  if (n === 1) return { text: String.fromCharCode(bytes[i]), length: 1 };
  let cp = bytes[i] & (0xff >> (n + 1));
  for (let k = 1; k < n; k++) {
    const b = bytes[i + k];
    if ((b & 0xc0) !== 0x80) return bad;
    cp = (cp << 6) | (b & 0x3f);
  }
  const min = [0, 0, 0x80, 0x800, 0x10000][n];
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return bad;
  return { text: String.fromCodePoint(cp), length: n };
}

/**
 * @typedef {Object} TokenLabel
 * @property {string} text  the characters whose first byte is in this token
 * @property {number} owner  index of the token that shows the character this one helps spell
 * @property {[number, number]} span  first and last token sharing one split character
 */

/**
 * Labels for a token sequence: [{text, owner, span}] per token.
 * - text: the characters whose first byte is in this token ("" if it holds only the tail of
 *   a character started earlier); concatenated, the texts equal the decoded bytes.
 * - owner: index of the token that shows the character this token helps spell (itself when
 *   it starts its own characters).
 * - span: [first, last] token indices of the run of tokens sharing one split character.
 * @param {string[]} pieces @returns {TokenLabel[]}
 */
export function labelTokens(pieces) {
  /** @type {number[]} */
  const bytes = [];
  /** @type {number[]} */
  const tokenOf = [];
  pieces.forEach((piece, t) => {
    for (const b of pieceBytes(piece)) {
      bytes.push(b);
      tokenOf.push(t);
    }
  });
  /** @type {TokenLabel[]} */
  const labels = pieces.map((_, t) => ({ text: "", owner: t, span: [t, t] }));
  let i = 0;
  while (i < bytes.length) {
    const { text, length } = readChar(bytes, i);
    const first = tokenOf[i];
    const last = tokenOf[i + length - 1];
    labels[first].text += text;
    for (let t = first + 1; t <= last; t++) labels[t].owner = first;
    if (last > first) {
      const start = Math.min(labels[first].span[0], first);
      for (let t = start; t <= last; t++) labels[t].span = [start, last];
    }
    i += length;
  }
  return labels;
}

/** @type {Object<string, string|undefined>} */
const CONTROL_PICTURES = { "\n": "\u21b5", "\r": "\u240d", "\t": "\u21e5" };

/**
 * What a chip shows: spaces stay (CSS keeps them visible), line breaks and controls get symbols.
 * @param {string} text
 */
export function displayText(text) {
  let out = "";
  for (const ch of text) {
    const code = /** @type {number} */ (ch.codePointAt(0));
    if (CONTROL_PICTURES[ch]) out += CONTROL_PICTURES[ch];
    else if (code < 0x20) out += String.fromCodePoint(0x2400 + code);
    else if (code === 0x7f) out += "\u2421";
    else out += ch;
  }
  return out;
}

// Shows at least one glyph: not only spaces, marks (combining accents, variation selectors)
// or format characters (joiners). Applied to displayText's output, so controls count as shown.
const GLYPH = /[^\s\p{M}\p{Cf}]/u;

/**
 * What a token's chip shows: "⋯" for the tail of a character split over several tokens,
 * a token of only spaces as "␣" per space (an invisible chip is unclickable), marks alone
 * (an emoji's variation selector, a combining accent) on a dotted circle "◌", as type
 * specimens show them, else its text with control characters as symbols. Shared by the chips
 * on screen and the exported pictures.
 * @param {TokenLabel} label
 */
export function chipText(label) {
  if (label.text === "") return "\u22ef";
  if (/^ +$/.test(label.text)) return label.text.replace(/ /g, "\u2423");
  const shown = displayText(label.text);
  return GLYPH.test(shown) || /\s/u.test(shown) ? shown : `\u25cc${shown}`;
}

/**
 * A short name for a token in sentences and tables, e.g. «Alice» or «🙂 (part 2 of 3)». A token
 * whose characters show no glyph on their own (an emoji's variation selector, a combining
 * accent) is named with the characters before it that it modifies: «❤️ (part 6 of 6)», not an
 * invisible « (part 3 of 3)».
 * @param {TokenLabel[]} labels @param {number} t
 */
export function tokenName(labels, t) {
  const label = labels[t];
  let [a, b] = label.span;
  let text = labels[label.owner].text;
  if (displayText(text).trim() !== "") {
    for (let k = label.owner - 1; k >= 0 && !GLYPH.test(displayText(text)); k--) {
      text = labels[k].text + text;
      a = Math.min(a, labels[k].span[0], k);
    }
  }
  const shown = displayText(text);
  const base = shown.trim() || shown.replace(/ /g, "\u2423");
  if (a === b) return base;
  return `${base} (part ${t - a + 1} of ${b - a + 1})`;
}

/**
 * What a row's header calls token t: its word and, when the word has several tokens, the piece,
 * as «dragon», piece «on». A piece that shows no character of its own (the tail bytes of a
 * character split over several tokens, a variation selector) is named by its place instead:
 * «❤️», piece 6 of 6. `names` are the tokens' tokenName.
 * @param {TokenLabel[]} labels
 * @param {string[]} names
 * @param {number} t
 * @param {TokenLabel[]} labels @param {string[]} names @param {number} t
 */
export function wordAndPiece(labels, names, t) {
  const words = wordsOf(labels);
  const w = words.list[words.wordOf[t]];
  const word = w ? displayText(w.text).trim() : "";
  if (!w || w.first === w.last || !GLYPH.test(word)) return `\u00ab${names[t]}\u00bb`;
  const own = displayText(labels[t].text).trim();
  const piece = GLYPH.test(own) && own !== word ? `\u00ab${own}\u00bb` : `${t - w.first + 1} of ${w.last - w.first + 1}`;
  return `\u00ab${word}\u00bb, piece ${piece}`;
}

/**
 * A label for one vocabulary entry on its own (predictions): its text, or its bytes in hex.
 * @param {string} piece
 */
export function pieceLabel(piece) {
  const labels = labelTokens([piece]);
  const text = labels[0].text;
  if (!text.includes("\uFFFD")) return displayText(text);
  return "\u2039" + pieceBytes(piece).map((b) => b.toString(16).padStart(2, "0")).join(" ") + "\u203a";
}
