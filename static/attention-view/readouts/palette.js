// @ts-check
// A colour-blind-safe sequential palette: viridis (perceptually uniform, readable in grey),
// from a published 6th-order polynomial fit, sampled once into a 256-entry table.
// Weights map linearly so equal steps of attention look like equal steps of colour.

const C = [
  [0.2777273272234177, 0.005407344544966578, 0.3340998053353061],
  [0.1050930431085774, 1.404613529898575, 1.384590162594685],
  [-0.3308618287255563, 0.214847559468213, 0.09509516302823659],
  [-4.634230498983486, -5.799100973351585, -19.33244095627987],
  [6.228269936347081, 14.17993336680509, 56.69055260068105],
  [4.776384997670288, -13.74514537774601, -65.35303263337234],
  [-5.435455855934631, 4.645852612178535, 26.3124352495832],
];

/** 256 x [r, g, b] bytes. */
export const TABLE = Array.from({ length: 256 }, (_, i) => {
  const t = i / 255;
  return [0, 1, 2].map((c) => {
    let v = 0;
    for (let k = C.length - 1; k >= 0; k--) v = v * t + C[k][c];
    return Math.round(255 * Math.min(1, Math.max(0, v)));
  });
});

const CSS = TABLE.map(([r, g, b]) => `rgb(${r}, ${g}, ${b})`);
// The same colours as #rrggbb, for styles written on every keystroke (chip backgrounds, the
// head strips' gradients): Chromium parsed hex stops 2-3x faster than rgb() ones (measured).
const HEX = TABLE.map((rgb) => "#" + rgb.map((v) => v.toString(16).padStart(2, "0")).join(""));
// Text on a swatch: dark on the light end, light on the dark end, whichever has the higher WCAG
// contrast. Viridis' middle (teal) is as far from white as from black: only pure black or white
// text (attention-view.css) keeps 4.5:1 there, and only with this crossing point, at a
// relative luminance of sqrt(1.05 * 0.05) - 0.05 = 0.179.
const INK = TABLE.map((rgb) => {
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > Math.sqrt(1.05 * 0.05) - 0.05 ? "#111" : "#fff";
});

/**
 * @param {number} w  a weight, 0..1
 */
export function index(w) {
  return Math.max(0, Math.min(255, Math.round(w * 255)));
}

/**
 * @param {number} w
 */
export function color(w) {
  return CSS[index(w)];
}

/**
 * @param {number} w
 */
export function hexColor(w) {
  return HEX[index(w)];
}

/**
 * The colour of the nearest of `steps` evenly spaced levels. The chips use 32: the eye cannot
 * tell 256 levels apart on a small chip, and a colour that stays the same between keystrokes
 * costs no style work.
 * @param {number} w
 * @param {number} [steps]
 */
export function steppedColor(w, steps = 32) {
  const level = Math.max(0, Math.min(steps - 1, Math.round(w * (steps - 1))));
  return HEX[Math.round((level * 255) / (steps - 1))]; // hex: parsed on every keystroke
}

/**
 * @param {number} w
 */
export function ink(w) {
  return INK[index(w)];
}

// The relative scale: weight x (q + 1), i.e. the weight over the row's even share, drawn on a
// log scale from 1/16x to 16x even (1x, "no preference", in the middle of the palette). A log
// scale because "4x more than even" should look as far from even as "4x less".
export const RELATIVE_SPAN = 16;
const LOG_SPAN = Math.log(RELATIVE_SPAN);

/**
 * Palette position (0..1) of weight w in a row whose query is q, under `scale`.
 * @param {string} scale  state key `scale`
 * @param {number} w
 * @param {number} q
 */
export function level(scale, w, q) {
  if (scale !== "relative") return w;
  if (!(w > 0)) return 0;
  const t = (Math.log(w * (q + 1)) + LOG_SPAN) / (2 * LOG_SPAN);
  return t < 0 ? 0 : t > 1 ? 1 : t;
}

/**
 * True when w is more than the even share 1/(q+1) of its row (the chips' ▲ mark).
 * @param {number} w
 * @param {number} q
 */
export function aboveEven(w, q) {
  return q > 0 && w * (q + 1) > 1 + 1e-6;
}

/** A CSS gradient for the legend, light and dark modes alike. */
export function gradient() {
  const stops = [0, 64, 128, 192, 255].map((i) => `${CSS[i]} ${Math.round((i / 255) * 100)}%`);
  return `linear-gradient(to right, ${stops.join(", ")})`;
}
