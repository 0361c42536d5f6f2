// @ts-check
// A small seeded generator for the browser's "draw again" buttons. It does not
// reproduce numpy's stream (nothing needs it to): the page shows Python's
// numbers until the reader asks for a new draw.

// mulberry32: 32-bit state, good enough for sampling demos, and one line to
// reseed so every draw on the page is reproducible from its seed.
/** @param {number} seed @returns {() => number} */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function uniform() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Box-Muller, keeping the second value of each pair for the next call.
/** @param {() => number} uniform  draws in [0, 1) @returns {() => number} */
export function normalSampler(uniform) {
  /** @type {number|null} */
  let spare = null;
  return function normal() {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = uniform(); // log(0) would be -Infinity
    const r = Math.sqrt(-2 * Math.log(u));
    const theta = 2 * Math.PI * uniform();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
}

/** @param {number} seed */
export function seededNormal(seed) {
  return normalSampler(mulberry32(seed));
}
