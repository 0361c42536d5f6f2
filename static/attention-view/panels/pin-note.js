// @ts-check
// One sentence for a screen reader when the reader pins another row (another token, head,
// layer or view): which token is pinned and where most of its attention goes. The whole row
// is in the screen-reader table (row-table.js) and on the chips; a live region that read it
// all would talk over every arrow key. A new text (typing, Continue) is not a new choice of
// row, and says nothing here; nor does the first paint.

import { h, setText } from "../core/dom.js";
import { viewRow, wholePercent, viewName, ranked } from "../readouts/readouts.js";

/**
 * "Layer 1, head 3: «said» pinned, token 8 of 8; most of its attention, 43%, goes to «Alice»."
 * @param {import("../core/view.js").View} view
 */
export function pinSentence(view) {
  const { state, names, pinned } = view;
  const who = `${viewName(state)}: \u00ab${names[pinned]}\u00bb pinned, token ${pinned + 1} of ${names.length}`;
  if (pinned === 0) return `${who}; all of its attention stays on itself.`;
  // a row is pinned only once the run has outputs
  const row = viewRow(/** @type {import("../model/runs.js").Outputs} */ (view.out), state, pinned);
  const top = ranked(row, pinned)[0];
  const where = top === pinned ? "itself" : `\u00ab${names[top]}\u00bb`;
  return `${who}; most of its attention, ${wholePercent(row[top])}, goes to ${where}.`;
}

/** @type {import("../core/feature.js").Feature} */
export const pinNote = {
  name: "pin-note",
  compact: true,
  mount(slots) {
    const line = h("p.sr-only.pin-note", { "aria-live": "polite" });
    slots.put("end", line);
    /** @type {{text: string, choice: string}|null} */
    let last = null;
    return {
      paint(view) {
        if (!view.out || view.pinned < 0) return;
        const { state } = view;
        const choice = `${view.pinned} ${state.view} ${state.layer} ${state.head}`;
        const said = last !== null && last.text === state.text && last.choice !== choice;
        last = { text: state.text, choice };
        if (said) setText(line, pinSentence(view));
      },
    };
  },
};
