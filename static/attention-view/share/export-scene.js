// @ts-check
// Exporting what a view shows: the numbers as JSON, and a picture (the pinned row as chips
// plus the T x T heatmap) as a list of drawing items that becomes an SVG file here or a PNG
// in export-png.js. Both pictures come from the same list, so they always agree.
// No DOM in this module: it takes the element's public `result` and returns strings, so it
// runs under Node as well (the tests use that).

import { labelTokens, tokenName, chipText, displayText, wordAndPiece } from "../model/token-labels.js";
import { isHeadOff } from "../model/head-set.js";
import { viewMatrix, viewName, wholePercent } from "../readouts/readouts.js";
import { color, ink } from "../readouts/palette.js";
import { outputsOf } from "../model/result.js";

// The picture has its own fixed, light look: exports end up on slides and in papers, where
// the reader's dark mode means nothing.
const WIDTH = 760;
const PAD = 20;
const FG = "#1d1d1f";
const MUTED = "#5c5c66";
const MASKED_FILL = "#e4e4e8";
const MASKED_INK = "#8a8a96";
const PIN = "#ff8a3d";
const MAP_PX = 480; // the heatmap's target edge; cells are whole pixels between 2 and 40
export const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', sans-serif";

/**
 * @typedef {import("../model/result.js").Result} Result
 * @typedef {{kind: "rect", x: number, y: number, w: number, h: number, fill: string, stroke?: string,
 *   strokeWidth?: number, radius?: number}} RectItem
 * @typedef {{kind: "cell", x: number, y: number, w: number, h: number, fill: string, q: number, k: number,
 *   weight: number}} CellItem  one heatmap cell
 * @typedef {{kind: "text", x: number, y: number, text: string, size: number, fill: string,
 *   anchor: "start"|"middle"|"end", bold?: boolean, maxWidth?: number, token?: number}} TextItem
 * @typedef {RectItem|CellItem|TextItem} Item  in CSS pixels; a text's y is its baseline
 * @typedef {{width: number, height: number, title: string, items: Item[]}} Scene
 */

/**
 * The current view recomputed from `result`: its T x T matrix (a head, the layer's head
 * average, or the rollout, through the same readouts.js code the screen uses), the pinned
 * token's row of it, and token names.
 * @param {Result} result
 */
export function viewData(result) {
  const T = result.tokens.length;
  const out = outputsOf(result);
  // without tokens `m` is never read (no rows)
  const m = /** @type {Float32Array|Float64Array} */ (T ? viewMatrix(out, result) : []);
  const matrix = Array.from({ length: T }, (_, q) => Array.from(m.subarray(q * T, (q + 1) * T)));
  /** @type {import("../model/token-labels.js").TokenLabel[]} */
  const labels = labelTokens(result.tokens.map((t) => t.piece));
  return {
    T,
    matrix,
    row: T ? matrix[result.token] : [],
    labels,
    names: labels.map((_, k) => tokenName(labels, k)),
    title: viewName(result),
  };
}

/**
 * A file name that says what is in the file, e.g. "attention-L2H3-token6.png".
 * @param {Pick<Result, "view" | "layer" | "head" | "token">} result @param {string} ext
 */
export function fileName(result, ext) {
  const what = result.view === "head" ? `L${result.layer}H${result.head}` : `L${result.layer}-${result.view}`;
  return `attention-${what}-token${result.token}.${ext}`;
}

/**
 * The numbers as a JSON document: everything in `result` (attention and scores for every
 * layer and head, the top predictions, the tokens, the pinned state) plus the view's matrix
 * and row. Masked scores (-Infinity) become null: JSON has no infinities.
 * @param {Result} result
 */
export function toJSON(result) {
  const data = viewData(result);
  const doc = {
    generator: "attention-view",
    format_version: 1,
    live: result.live,
    text: result.text,
    tokens: result.tokens,
    token: result.token,
    layer: result.layer,
    head: result.head,
    view: result.view,
    view_name: data.title,
    truncated: result.truncated,
    row: data.row,
    matrix: data.matrix,
    top: result.top,
    attention: result.attention,
    scores: result.scores,
  };
  return JSON.stringify(doc, (key, v) => (v === -Infinity ? null : v)) + "\n";
}

// --- the picture -------------------------------------------------------------------------

// A rough text width in ems by character class, enough to size chips without a DOM to measure
// in. The canvas painter squeezes any text that turns out wider (fillText's maxWidth).
/** @param {string} text */
function ems(text) {
  let w = 0;
  for (const ch of text) {
    const c = /** @type {number} */ (ch.codePointAt(0));
    if ((c >= 0x300 && c < 0x370) || c === 0x200d || (c >= 0xfe00 && c <= 0xfe0f)) continue;
    if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
        (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xff60) || c >= 0x1f000) w += 1.05;
    else if (" .,:;'!|ijlt()[]".includes(ch)) w += 0.34;
    else if (/[A-Z]/.test(ch) || ch === "m" || ch === "w") w += 0.74;
    else w += 0.58;
  }
  return w;
}

/** @param {string} text @param {number} max */
function clip(text, max) {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join("") + "\u2026";
}

/** @type {(x: number, y: number, w: number, h: number, fill: string, extra?: {stroke?: string, strokeWidth?: number, radius?: number}) => RectItem} */
const rect = (x, y, w, h, fill, extra = {}) => ({ kind: "rect", x, y, w, h, fill, ...extra });
/** @type {(x: number, y: number, text: string, size: number, fill: string, extra?: {anchor?: TextItem["anchor"], bold?: boolean, maxWidth?: number, token?: number}) => TextItem} */
const label = (x, y, text, size, fill, extra = {}) => ({ kind: "text", x, y, text, size, fill, anchor: "start", ...extra });

/**
 * The drawing for a result: {width, height, title, items}. Items are
 *   {kind: "rect", x, y, w, h, fill, stroke?, strokeWidth?, radius?}
 *   {kind: "cell", x, y, w, h, fill, q, k, weight}      (one heatmap cell)
 *   {kind: "text", x, y, text, size, fill, anchor, bold?, maxWidth?}
 * in CSS pixels, y of a text being its baseline.
 * @param {Result} result @returns {Scene}
 */
export function scene(result) {
  const d = viewData(result);
  const { T, row, names } = d;
  const q = result.token;
  /** @type {Item[]} */
  const items = [];
  const inner = WIDTH - 2 * PAD;
  let y = PAD;

  const off = result.view === "head" && isHeadOff(result.ablated, result.layer, result.head) ? " (switched off)" : "";
  const title = `${d.title}${off}: attention from ${wordAndPiece(d.labels, names, q)}`;
  items.push(label(PAD, y + 18, title, 18, FG, { bold: true, maxWidth: inner }));
  y += 30;
  // A text longer than the model's context is cut to its last tokens: quote what is shown.
  const cut = result.truncated;
  const shown = cut ? "\u2026" + result.tokens.map((t) => t.text).join("") : result.text;
  items.push(label(PAD, y + 13, `\u201c${clip(displayText(shown), 110)}\u201d`, 13, MUTED, { maxWidth: inner }));
  y += 20;
  const later = T - q - 1;
  const count = cut ? `The last ${T} of ${cut.total ?? "more"} tokens` : `${T} token${T === 1 ? "" : "s"}`;
  items.push(label(PAD, y + 13, `${count}; the row is token ${q + 1}'s attention over ` +
    `${q + 1} token${q ? "s" : ""}${later ? `, ${later} later one${later === 1 ? "" : "s"} masked` : ""}.`,
  13, MUTED, { maxWidth: inner }));
  y += 30;

  // The row: one chip per token, wrapped like text, as on screen.
  const chipH = 44;
  let x = PAD;
  for (let k = 0; k < T; k++) {
    const text = chipText(d.labels[k]);
    const w = Math.max(38, Math.ceil(ems(text) * 15 + 14));
    if (x + w > WIDTH - PAD && x > PAD) {
      x = PAD;
      y += chipH + 5;
    }
    const masked = k > q;
    const fill = masked ? MASKED_FILL : color(row[k]);
    const inkColour = masked ? MASKED_INK : ink(row[k]);
    const mark = k === q ? { stroke: PIN, strokeWidth: 3 } : {};
    items.push(rect(x, y, w, chipH, fill, { radius: 5, ...mark }));
    items.push(label(x + w / 2, y + 20, text, 15, inkColour, { anchor: "middle", maxWidth: w - 6, token: k }));
    items.push(label(x + w / 2, y + 37, masked ? "\u00b7" : wholePercent(row[k]), 11, inkColour, { anchor: "middle" }));
    x += w + 5;
  }
  y += chipH + 16;

  // The legend: 32 steps of the palette, as drawn by the chips and cells.
  items.push(label(PAD, y + 10, "0%", 11, MUTED));
  const steps = 32;
  for (let s = 0; s < steps; s++) {
    items.push(rect(PAD + 26 + s * 5, y, 5, 12, color(s / (steps - 1))));
  }
  items.push(label(PAD + 26 + steps * 5 + 6, y + 10, "100%  (masked: grey)", 11, MUTED));
  y += 30;

  // The heatmap: rows are queries, columns keys; the pinned row is outlined.
  items.push(label(PAD, y + 14, `All ${T} \u00d7 ${T} weights of this view (rows: queries, columns: keys)`, 14, FG, { bold: true }));
  y += 26;
  const cell = Math.max(2, Math.min(40, Math.floor(MAP_PX / Math.max(T, 1))));
  const named = cell >= 12;
  const x0 = PAD + (named ? 120 : 0);
  const y0 = y;
  items.push(rect(x0, y0, cell * T, cell * T, MASKED_FILL));
  for (let r = 0; r < T; r++) {
    if (named) {
      items.push(label(x0 - 8, y0 + r * cell + cell / 2 + 4, clip(names[r], 14), Math.min(12, cell - 2),
        r === q ? FG : MUTED, { anchor: "end", bold: r === q, maxWidth: 112 }));
    }
    for (let k = 0; k <= r; k++) {
      const weight = d.matrix[r][k];
      items.push({ kind: "cell", x: x0 + k * cell, y: y0 + r * cell, w: cell, h: cell, fill: color(weight), q: r, k, weight });
    }
  }
  items.push(rect(x0 - 1.5, y0 + q * cell - 1.5, cell * T + 3, cell + 3, "none", { stroke: PIN, strokeWidth: 3 }));
  y = y0 + cell * T + 20;
  const source = result.live ? "computed in the browser by the model's ONNX graph"
    : "the model's precomputed outputs for this sentence (golden.json)";
  items.push(label(PAD, y + 12, `attention-view: every number is ${source}.`, 11, MUTED));
  y += 12 + PAD;
  return { width: WIDTH, height: Math.ceil(y), title, items };
}

// --- SVG -----------------------------------------------------------------------------------

// Characters XML 1.0 forbids (most C0 controls, U+FFFE/U+FFFF, unpaired surrogates) become
// U+FFFD, and markup characters become entities: a token is always text, never markup.
/** @param {string} text */
function xml(text) {
  return String(text)
    .replace(/[\0-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDFFF]/gu, "\uFFFD")
    .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

/** @param {number} v */
const num = (v) => String(Math.round(v * 100) / 100);

/** @param {Item} it */
function svgItem(it) {
  if (it.kind === "cell") {
    return `<rect x="${num(it.x)}" y="${num(it.y)}" width="${it.w}" height="${it.h}" fill="${it.fill}" ` +
      `data-q="${it.q}" data-k="${it.k}" data-w="${it.weight}"/>`;
  }
  if (it.kind === "rect") {
    const stroke = it.stroke ? ` stroke="${it.stroke}" stroke-width="${it.strokeWidth}"` : "";
    const radius = it.radius ? ` rx="${it.radius}"` : "";
    return `<rect x="${num(it.x)}" y="${num(it.y)}" width="${num(it.w)}" height="${num(it.h)}"${radius} ` +
      `fill="${it.fill}"${stroke}/>`;
  }
  const anchor = it.anchor === "start" ? "" : ` text-anchor="${it.anchor}"`;
  const weight = it.bold ? ` font-weight="700"` : "";
  const cls = it.token !== undefined ? ` class="token" data-index="${it.token}"` : "";
  return `<text x="${num(it.x)}" y="${num(it.y)}" font-size="${it.size}" fill="${it.fill}"${anchor}${weight}${cls}>` +
    `${xml(it.text)}</text>`;
}

/**
 * A standalone SVG document for a scene.
 * @param {Scene} sc
 */
export function toSVG(sc) {
  // The cells go in one crisp-edged group (no seams between neighbours), after everything
  // filled and before the outlines, which must stay on top of them.
  const cells = sc.items.filter((it) => it.kind === "cell").map(svgItem);
  /** @param {Item} it */
  const outline = (it) => it.kind === "rect" && it.fill === "none";
  const before = sc.items.filter((it) => it.kind !== "cell" && !outline(it));
  const after = sc.items.filter(outline);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${sc.width}" height="${sc.height}" ` +
      `viewBox="0 0 ${sc.width} ${sc.height}" font-family="${FONT}" xml:space="preserve">`,
    `<title>${xml(sc.title)}</title>`,
    `<rect width="${sc.width}" height="${sc.height}" fill="#ffffff"/>`,
    ...before.map(svgItem),
    `<g shape-rendering="crispEdges">${cells.join("")}</g>`,
    ...after.map(svgItem),
    "</svg>",
    "",
  ].join("\n");
}
