// @ts-check
// "Find the story": jumps to the most decisive row of the sentence (over every head and
// token: readouts/story.js ranks them), and "Next" walks down the ranking from there. The
// place in the ranking is kept with the run it ranks, so the line beside the buttons can say
// which row of how many the view shows, while it still shows it.

import { h, setText } from "../../core/dom.js";
import { storyRanking } from "../../readouts/story.js";
import { wholePercent } from "../../readouts/readouts.js";

/** @type {import("../../core/feature.js").Feature} */
export const story = {
  name: "story",
  mount(slots, ctx) {
    const find = h("button.story-button", { type: "button", text: "Find the story" });
    const next = h("button.story-button", { type: "button", text: "Next \u203a", "aria-label": "Next most decisive row" });
    const line = h("span.story-text", { "aria-live": "polite" });
    slots.put("row-tools", h("p.story", {}, find, next, line));
    find.addEventListener("click", () => ctx.act({ type: "story", next: false }));
    next.addEventListener("click", () => ctx.act({ type: "story", next: true }));
    /** @type {{out: any, index: number, total: number, row: import("../../readouts/story.js").StoryRow}|null} */
    let at = null;

    return {
      translate(action) {
        if (action.type === "example") at = null; // another sentence: the walk starts over
        if (action.type !== "story") return undefined;
        const out = ctx.run()?.out;
        const ranking = out ? storyRanking(out) : [];
        if (!ranking.length) return null;
        const index = action.next && at?.out === out ? (/** @type {NonNullable<typeof at>} */ (at).index + 1) % ranking.length : 0;
        at = { out, index, total: ranking.length, row: ranking[index] };
        const { layer, head, query } = at.row;
        return { type: "jump", layer, head, token: query };
      },

      paint(view) {
        if (!view.out) return;
        const s = at?.out === view.out ? at : null;
        const { state } = view;
        const on = s && state.view === "head" && s.row.layer === state.layer && s.row.head === state.head && s.row.query === view.pinned;
        setText(line, on
          ? `Most decisive row ${s.index + 1} of ${s.total}: layer ${s.row.layer}, head ${s.row.head}, ` +
            `\u00ab${view.names[s.row.query]}\u00bb puts ${wholePercent(s.row.weight)} on \u00ab${view.names[s.row.key]}\u00bb.`
          : "The strongest single link in this sentence, over every head and token.");
      },
    };
  },
};
