// @ts-check
// Work in slices that leave the page free in between. Mounting every panel, or painting them
// all on the first preview, is a few dozen milliseconds of script on a laptop and four times
// that on a phone: in one task it blocks the page (a tap, a scroll) for all of it. Cut into
// slices of at most SLICE_MS, the page's own input is answered between two of them. Only while
// the view is hidden: once on screen, it paints at once (controller.js).

// Under Lighthouse's 4x slower CPU a 5 ms slice is a 20 ms task, and one panel's step past it
// (some take 5-8 ms) stays under the 50 ms at which a task starts to count as blocking.
export const SLICE_MS = 5;

/**
 * Resolves in a new task, behind every task already waiting. @returns {Promise<void>}
 */
export const newTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Gives the page a turn: scheduler.yield() where the browser has it (the rest of the work keeps
 * its place ahead of other tasks), else a new task. Yielding behind the waiting tasks instead
 * (scheduler.postTask) started the runtime's worker sooner but painted the preview 100 ms later,
 * and brought the live model no sooner (docs/bench.md).
 * @returns {Promise<void>}
 */
export function yieldToPage() {
  const scheduler = /** @type {any} */ (globalThis).scheduler;
  if (typeof scheduler?.yield === "function") return scheduler.yield();
  return newTask();
}

/**
 * Calls `step` on each item in order, yielding to the page whenever a slice has run SLICE_MS.
 * Resolves false, with the rest left undone, as soon as `stillWanted()` says the work went stale.
 * @template T
 * @param {Iterable<T>} items
 * @param {(item: T) => void} step
 * @param {() => boolean} [stillWanted]
 * @returns {Promise<boolean>}
 */
export async function inSlices(items, step, stillWanted = () => true) {
  let sliceStart = performance.now();
  for (const item of items) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToPage();
      if (!stillWanted()) return false;
      sliceStart = performance.now();
    }
    step(item);
  }
  return true;
}
