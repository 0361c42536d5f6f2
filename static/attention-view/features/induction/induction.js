// @ts-check
// The induction story, for a model whose meta.json records a circuit (export/circuit.py: a
// later-layer induction head and the earlier head it composes with; absent otherwise, and then
// so is this feature). "Repeat it" appends the text to itself and shows the induction head on
// the row of the repeat where the model learned most from the first copy (exampleRow); the
// line says how much it does that, and offers to switch off the head it reads, whose loss
// makes the stripe fade (the ablation panel shows the prediction falling with it). Every
// number comes from the run on screen; `result.induction` carries them for pages and tests.

import { h, setText, setHidden } from "../../core/dom.js";
import { ensureLogits } from "../../model/runs.js";
import { inductionRows, repeatedText, isRepeated, exampleRow } from "../../readouts/induction.js";
import { wholePercent, softmaxOf } from "../../readouts/readouts.js";

/**
 * @typedef {Object} InductionResult
 * @property {number} layer  the induction head, 1-based
 * @property {number} head
 * @property {[number, number]} reads  the earlier head it composes with, [layer, head] 1-based
 * @property {number} rows  tokens seen before (each has a target)
 * @property {number|null} mean  the head's mean weight on those targets in this run
 * @property {number|null} meanAllOn  the same with every head on
 * @property {{query: number, key: number, weight: number}|null} pinned  the pinned token's row,
 *   when it has a target
 */

/** @typedef {[number, number]} Head  [layer, head], 1-based */
/** @typedef {import("../../core/state.js").Meta} Meta */
/** @typedef {import("../../model/runs.js").Run} Run */

/**
 * The circuit meta.json records; null when it has none. `stripe`: its threshold for a visible
 * stripe cell (an older meta.json has none: every row counts).
 * @returns {{head: Head, reads: Head, stripe: number}|null}
 * @param {Meta|null} meta
 */
export function circuitOf(meta) {
  const c = meta?.circuit;
  if (!c?.head || !c.composes_with) return null;
  return { head: [c.head.layer, c.head.head], reads: [c.composes_with.layer, c.composes_with.head], stripe: c.stripe ?? 0 };
}

/** @type {(state: import("../../core/state.js").State, head: Head) => boolean} */
const isOff = (state, [l, hd]) => !!state.off?.heads?.some(([a, b]) => a === l && b === hd);
/** @type {(head: Head) => string} */
const headName = ([l, hd]) => `layer ${l} head ${hd}`;

/**
 * The circuit head's induction rows in `out` (a run's outputs), or null.
 * @type {(out: import("../../model/runs.js").Outputs|null|undefined, ids: number[], head: Head) => ReturnType<typeof inductionRows>}
 */
const rowsIn = (out, ids, [l, hd]) => {
  return out ? inductionRows((q) => out.attention.row(l - 1, hd - 1, q), ids) : null;
};

/** @type {import("../../core/feature.js").Feature} */
export const induction = {
  name: "induction",
  mount(slots, ctx) {
    const found = circuitOf(ctx.meta());
    if (!found) return {};
    const circuit = found; // a const the closures below see as set
    const repeat = h("button.story-button", { type: "button", text: "Repeat it" });
    const line = h("span.story-text", { "aria-live": "polite" });
    const toggle = h("button.story-button", { type: "button" });
    slots.put("row-tools", h("p.story.induction", {}, repeat, line, toggle));
    repeat.addEventListener("click", () => ctx.act({ type: "induction" }));
    toggle.addEventListener("click", () => ctx.act({ type: "ablate", layer: circuit.reads[0], head: circuit.reads[1] }));
    /** @type {string|null} */
    let pending = null; // the repeated text whose best row is still to be pinned once it has run

    /**
     * Pins `run`'s row that tells the story best (readouts/induction.js exampleRow), among
     * the rows that are not the last token when there are any (the last has no next token for
     * the ablation panel to compare); first computes the logits it compares, with every head on.
     * @param {Run} run
     */
    async function pinBest(run) {
      const out = run.baseline ?? run.out;
      const found = rowsIn(out, run.ids, circuit.head);
      const model = ctx.model();
      if (!found || !model) return;
      const inner = found.rows.filter((r) => r.query < run.ids.length - 1);
      const rows = inner.length ? inner : found.rows;
      await ensureLogits(model, run, rows.flatMap((r) => [r.query, r.key - 1]));
      if (ctx.run() !== run) return; // the reader moved on meanwhile
      /** @param {number} q */
      const pNext = (q) => {
        const logits = q + 1 < run.ids.length ? /** @type {(q: number) => Float32Array|null} */ (/** @type {import("../../model/runs.js").Outputs} */ (out).logitsAt)(q) : null;
        if (!logits) return 0;
        const { max, sum } = softmaxOf(logits);
        return Math.exp(logits[run.ids[q + 1]] - max) / sum;
      };
      ctx.act({ type: "pin", token: exampleRow(rows, pNext, circuit.stripe).query });
    }

    return {
      translate(action) {
        if (action.type !== "induction") return undefined;
        const state = ctx.state();
        const run = ctx.run();
        if (!state || !run) return null;
        const [layer, head] = circuit.head;
        if (!state.text.trim()) return null;
        if (!isRepeated(state.text)) {
          const model = ctx.model();
          if (!model) return null;
          const text = repeatedText(state.text, (t) => model.encode(t).ids.length, /** @type {import("../../core/state.js").Meta} */ (ctx.meta()).config.n_ctx);
          if (text === null) return null;
          pending = text;
          return { type: "jump", text: pending, layer, head, token: null };
        }
        pending = state.text; // pinned once the head is on screen (paint)
        return { type: "jump", layer, head, token: state.token };
      },

      paint(view) {
        const { state, out, run } = view;
        if (pending !== null && out && run.live && state.text === pending) {
          pending = null;
          pinBest(run).catch(() => {}); // a failed run shows its own error; the pin stays where it is
        }
        const repeated = isRepeated(state.text);
        setText(repeat, repeated ? "Show the repeat" : "Repeat it");
        const on = state.view === "head" && state.layer === circuit.head[0] && state.head === circuit.head[1];
        const found = on && out ? rowsIn(out, run.ids, circuit.head) : null;
        const off = isOff(state, circuit.reads);
        setHidden(toggle, !found);
        setText(toggle, `${off ? "switch on" : "switch off"} ${headName(circuit.reads)}`);
        if (!found) {
          setText(line, `${repeated ? "Show the repeat" : "Repeat the text"} to watch ${headName(circuit.head)}, an ` +
            "induction head, look for what came next the last time.");
          return;
        }
        const all = off ? rowsIn(run.baseline, run.ids, circuit.head) : null;
        const row = found.rows.find((r) => r.query === view.pinned);
        const before = all?.rows.find((r) => r.query === view.pinned);
        const n = found.rows.length;
        const who = headName(circuit.head);
        const reads = headName(circuit.reads);
        /** @param {number} i */
        const q = (i) => `\u00ab${view.names[i]}\u00bb`;
        if (!off) {
          setText(line, row
            ? `${q(row.query)} came before. ${who[0].toUpperCase()}${who.slice(1)} puts ${wholePercent(row.weight)} on ` +
              `${q(row.key)}, the token after it then, and ${wholePercent(found.mean)} on average over the ${n} tokens ` +
              `seen before. It reads ${reads}:`
            : `${who[0].toUpperCase()}${who.slice(1)} puts ${wholePercent(found.mean)} on average on the token after ` +
              `each of the ${n} tokens seen before. It reads ${reads}:`);
          return;
        }
        /** @param {number|undefined} w */
        const was = (w) => (w === undefined ? "" : ` (${wholePercent(w)} with it on)`);
        setText(line, row
          ? `With ${reads} off, ${who} puts ${wholePercent(row.weight)} on ${q(row.key)}${was(before?.weight)}, and ` +
            `${wholePercent(found.mean)} on average over the ${n} tokens seen before${was(all?.mean)}.`
          : `With ${reads} off, ${who} puts ${wholePercent(found.mean)} on average on the token after each of the ${n} ` +
            `tokens seen before${was(all?.mean)}.`);
      },

      result(result, view) {
        const { out, run } = view;
        const found = rowsIn(out, run.ids, circuit.head);
        const all = rowsIn(run.baseline, run.ids, circuit.head);
        const row = found?.rows.find((r) => r.query === view.pinned) ?? null;
        result.induction = {
          layer: circuit.head[0], head: circuit.head[1], reads: circuit.reads,
          rows: found?.rows.length ?? 0, mean: found?.mean ?? null, meanAllOn: all?.mean ?? null,
          pinned: row && { query: row.query, key: row.key, weight: row.weight },
        };
      },
    };
  },
};
