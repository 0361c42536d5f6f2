// @ts-check
// Drawings: the small per-head rows (CSS gradients) and the T x T heatmap (a canvas of exactly
// one pixel per cell that CSS scales up with crisp edges, so a redraw is one putImageData of
// T² pixels — cheap enough for every keystroke at T = 128). Masked (later) cells stay
// transparent so the stylesheet's hatching shows through.

import { TABLE, index, hexColor, level } from "../readouts/palette.js";
import { viewMatrix } from "../readouts/readouts.js";

/**
 * @param {HTMLCanvasElement} canvas @param {number} width @param {number} height
 * @returns {CanvasRenderingContext2D}
 */
function sized(canvas, width, height) {
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  return /** @type {CanvasRenderingContext2D} */ (canvas.getContext("2d"));
}

// The palette as packed RGBA words in the platform's byte order, so a pixel is one write.
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const PACKED = Uint32Array.from(TABLE, ([r, g, b]) => (LITTLE_ENDIAN
  ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0
  : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0));

// One ImageData per canvas, reused while T stays the same: a new one per keystroke was a 64 KB
// allocation at T = 128 (and garbage to collect).
/** @type {WeakMap<HTMLCanvasElement, {img: ImageData, words: Uint32Array}>} */
const images = new WeakMap(); // canvas -> {img, words}

// Draws the T x T lower-triangular matrix m, one pixel per cell, coloured on `scale`; cells
// above the diagonal (later keys) are cleared, so the hatching behind the canvas shows.
/** @param {HTMLCanvasElement} canvas @param {ArrayLike<number>} m @param {number} T @param {string} scale */
export function paintMatrix(canvas, m, T, scale) {
  const ctx = sized(canvas, T, T);
  let cached = images.get(canvas);
  if (!cached || cached.img.width !== T) {
    const img = ctx.createImageData(T, T);
    images.set(canvas, (cached = { img, words: new Uint32Array(img.data.buffer) }));
  }
  const { img, words } = cached;
  for (let q = 0; q < T; q++) {
    const at = q * T;
    for (let k = 0; k <= q; k++) words[at + k] = PACKED[index(level(scale, m[at + k], q))];
    words.fill(0, at + q + 1, at + T);
  }
  ctx.putImageData(img, 0, 0);
}

// A row as a hard-stop CSS gradient over its visible keys: cheaper per keystroke than a
// dozen small canvases, each of which costs a buffer swap once it has been on screen. The
// strips are ~70 px wide, so long rows are pooled into at most MAX_STOPS buckets, each
// coloured by its largest weight (a peak never disappears into an average).
const MAX_STOPS = 32;

// Buckets span the whole row (all T keys), so the strip never changes width: later keys are
// transparent and the hatching behind them shows. A width change would cost layout.
// The string is kept short (hex colours, one decimal, positions cached per bucket count): the
// browser parses 16 of them on every keystroke, and parsing was most of their cost.
/** @type {Map<number, string[]>} */
const positions = new Map(); // buckets -> ["0.0% 12.5%", ...]

/** @param {number} buckets @returns {string[]} */
function stopPositions(buckets) {
  if (!positions.has(buckets)) {
    positions.set(buckets, Array.from({ length: buckets }, (_, b) =>
      `${((100 * b) / buckets).toFixed(1)}% ${((100 * (b + 1)) / buckets).toFixed(1)}%`));
  }
  return /** @type {string[]} */ (positions.get(buckets));
}

/**
 * Where key `k` sits along a strip of `T` keys drawn by rowGradient: its bucket's left edge and
 * width, as fractions of the strip (one key per bucket up to MAX_STOPS keys).
 * @param {number} k @param {number} T
 */
export function keySpan(k, T) {
  const buckets = Math.min(T, MAX_STOPS);
  let b = Math.min(buckets - 1, Math.floor((k * buckets) / T));
  while (b > 0 && Math.floor((b * T) / buckets) > k) b--;
  while (b < buckets - 1 && Math.floor(((b + 1) * T) / buckets) <= k) b++;
  return { left: b / buckets, width: 1 / buckets };
}

/** @param {ArrayLike<number>} row @param {number} upto @param {number} T @param {string} scale */
export function rowGradient(row, upto, T, scale) {
  const buckets = Math.min(T, MAX_STOPS);
  const at = stopPositions(buckets);
  let css = "linear-gradient(90deg";
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * T) / buckets);
    const to = Math.floor(((b + 1) * T) / buckets);
    let w = -1;
    for (let k = from; k < to && k <= upto; k++) w = Math.max(w, row[k]);
    // level() rises with w, so the bucket's peak is still its brightest colour.
    css += `,${w < 0 ? "transparent" : hexColor(level(scale, w, upto))} ${at[b]}`;
  }
  return css + ")";
}

/**
 * The selected view's full matrix; `marker` (an overlay element) outlines the shown row and
 * `row0` (another overlay) veils query row 0, which is always 100% on itself and would
 * otherwise be the brightest thing on screen. The canvas keeps the true colours of every cell.
 * @param {HTMLCanvasElement} canvas @param {HTMLElement} marker @param {import("../core/view.js").View} vm  a view with outputs
 * @param {HTMLElement|null} [row0]
 */
export function drawHeatmap(canvas, marker, vm, row0) {
  const { out, shown, state } = vm;
  const T = /** @type {import("../model/runs.js").Outputs} */ (out).T;
  paintMatrix(canvas, viewMatrix(/** @type {import("../model/runs.js").Outputs} */ (out), state), T, state.scale);
  // Height changes with T only; moving between rows is a transform (no layout): a
  // translateY percentage is of the marker's own height, i.e. one row per 100%.
  const height = `${(100 / T).toFixed(4)}%`;
  if (marker.style.height !== height) marker.style.height = height;
  marker.style.transform = `translateY(${100 * shown}%)`;
  if (row0 && row0.style.height !== height) row0.style.height = height;
}

