// @ts-check
// Work that trails a burst of updates by a moment: the last view of the burst is drawn once,
// `ms` after the first, instead of on every keystroke (the screen-reader table, the
// thumbnails: what nobody reads per keystroke, and what costs a frame's worth at T = 128).

/**
 * @template V
 * @param {(view: V) => void} draw
 * @param {number} ms
 */
export function trailing(draw, ms) {
  let pending = /** @type {V|null} */ (null);
  let timer = 0;
  return {
    /**
     * Draws `view` soon (the latest one given by then).
     * @param {V} view
     */
    later(view) {
      pending = view;
      if (timer) return;
      timer = window.setTimeout(() => {
        timer = 0;
        draw(/** @type {V} */ (pending));
      }, ms);
    },
    /**
     * Draws `view` now, dropping what was waiting.
     * @param {V} view
     */
    now(view) {
      clearTimeout(timer);
      timer = 0;
      draw(view);
    },
  };
}
