// @ts-check
// The update's run: what the state needs on the live model, computed only when what is on
// screen no longer matches it, and dropped when the state changed while it ran.

import { viewPositions, ensureLogits } from "../model/runs.js";
import { maskedRun, runMatches } from "../model/masked-run.js";
import { pinnedIndex, shownIndex } from "./state.js";

/**
 * The run the state needs on `model`: `previous` when it still matches (with logits added for
 * a token pinned or hovered since it was made), else a new one. Resolves null when the state
 * changed meanwhile (typing): a stale run is never painted. `state()` reads the current state.
 * @param {import("../model/loader.js").Model} model
 * @param {() => import("./state.js").State} state
 * @param {import("../model/runs.js").Run|null} previous
 */
export async function currentRun(model, state, previous) {
  /** @param {import("../model/runs.js").Run|null} r */
  const stale = (r) => !runMatches(r, model, state().text, state().ablate);
  /** @param {import("../model/runs.js").Run} r */
  const positions = (r) => {
    const n = r.labels.length;
    return viewPositions(n, pinnedIndex(state(), n, r.labels), shownIndex(state(), n, r.labels));
  };
  let run = previous;
  const { text, off } = state();
  if (!runMatches(run, model, text, off.text)) {
    run = await maskedRun(model, text, off, run, { positions });
    if (stale(run)) return null;
  }
  // a run that matched, or the one just made
  if ((await ensureLogits(model, /** @type {import("../model/runs.js").Run} */ (run), positions(/** @type {import("../model/runs.js").Run} */ (run)))) && stale(run)) return null;
  return run;
}
