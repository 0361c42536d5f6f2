// The controller's one doorway to the two interventions on a view, switching heads off
// (ablation*.js) and comparing two sentences (compare*.js): their views on the UI, and their
// fields in the element's `result`. The runs they need come from masked-run.js.

import { addAblationView } from "./ablation-view.js";
import { addCompareView } from "./compare-view.js";
import { ablationResult } from "./ablation.js";
import { compareResult } from "./compare.js";
import { pieceLabel } from "./token-labels.js";

/** Adds both views to the UI `r`; `act` takes state actions. */
export function addInterventions(r, act) {
  const ablation = addAblationView(r, act);
  const compare = addCompareView(r, act);
  return {
    /** After the renderer: `host` gives the `ablate` attribute as written, `second` compare mode's run. */
    paint(vm, host, second) {
      ablation.paint(vm, host.getAttribute("ablate"));
      compare.paint(vm, second);
    },
  };
}

/** `result` (runs.js toResult) with `ablated`, `topBaseline`, `nextToken` and `compare` added. */
export function withInterventions(result, run, state, pinned, meta, second) {
  const label = (id) => {
    const piece = run.pieceOf(id);
    return piece === null ? null : pieceLabel(piece);
  };
  Object.assign(result, ablationResult(run, pinned, meta.config, label));
  result.compare = compareResult(second, state, run, pinned);
  return result;
}
