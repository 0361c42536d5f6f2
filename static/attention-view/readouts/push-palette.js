// @ts-check
// The diverging palette of the row's "push toward" colouring: blue for a key whose share of the
// head's write pushes the prediction down, orange for up, near-white for none (blue and orange
// stay apart for every common colour-vision deficiency). Chips take the nearest of a few levels,
// like the viridis chips (palette.js steppedColor), and text of the higher WCAG contrast.

const DOWN = [33, 102, 172];
const NONE = [247, 247, 247];
const UP = [191, 84, 0];
const STEPS = 16; // levels per side

/** @param {number[]} a @param {number[]} b @param {number} t */
const mix = (a, b, t) => a.map((x, i) => Math.round(x + (b[i] - x) * t));
/** @param {number[]} rgb */
const hex = (rgb) => "#" + rgb.map((x) => x.toString(16).padStart(2, "0")).join("");
/** @param {number[]} rgb */
const luminance = (rgb) => {
  const [r, g, b] = rgb.map((x) => {
    const c = x / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

// Levels -STEPS..STEPS, stored at index level + STEPS.
const LEVELS = Array.from({ length: 2 * STEPS + 1 }, (_, i) => {
  const t = (i - STEPS) / STEPS;
  const rgb = t < 0 ? mix(NONE, DOWN, -t) : mix(NONE, UP, t);
  return { color: hex(rgb), dark: luminance(rgb) > Math.sqrt(1.05 * 0.05) - 0.05 };
});

/**
 * The level of a push `x` on a scale of ±`max`: an index into LEVELS.
 * @param {number} x @param {number} max
 */
function levelOf(x, max) {
  const t = max > 0 ? Math.max(-1, Math.min(1, x / max)) : 0;
  return Math.round(t * STEPS) + STEPS;
}

/**
 * The chip colour of push `x` on a scale of ±`max`.
 * @param {number} x @param {number} max
 */
export function pushColor(x, max) {
  return LEVELS[levelOf(x, max)].color;
}

/**
 * True when text on that colour should be dark (the viridis chips' `on-light`).
 * @param {number} x @param {number} max
 */
export function pushOnLight(x, max) {
  return LEVELS[levelOf(x, max)].dark;
}

/** A CSS gradient for the legend, down on the left, up on the right. */
export function pushGradient() {
  return `linear-gradient(to right, ${hex(DOWN)} 0%, ${hex(NONE)} 50%, ${hex(UP)} 100%)`;
}

