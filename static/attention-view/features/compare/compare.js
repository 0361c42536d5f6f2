// @ts-check
// Compare mode on screen: a toggle under the row, a second text box, the two rows one
// above the other (same layer, head, view and heads off; the pinned token found by word in
// both), and the difference word by word, with its sign in words as well as in colour.

import { h, setText, setHidden, setAttr, scrollBox } from "../../core/dom.js";
import { heading } from "../../core/heading.js";
import { steppedColor, ink, level } from "../../readouts/palette.js";
import { chipText } from "../../model/token-labels.js";
import { viewName, wholePercent, percent } from "../../readouts/readouts.js";
import { comparison, pinnedSpec, compareResult } from "../../readouts/compare.js";
import { compareRun, runMatches } from "../../model/masked-run.js";
import { COMPARE_KEYS, COMPARE_ACTIONS } from "./state.js";

/** @param {number} d */
function signed(d) {
  const v = 100 * d;
  if (Math.abs(v) < 0.05) return "\u00b10.0 pts";
  return `${v > 0 ? "+" : "\u2212"}${Math.abs(v).toFixed(1)} pts`;
}

/** A row of small chips (spans: the rows are read, not clicked), pooled per row. */
class ChipRow {
  /** @param {HTMLElement} el */
  constructor(el) {
    this.el = el;
    /** @type {{el: HTMLElement, tok: HTMLElement, pct: HTMLElement}[]} */
    this.chips = [];
  }

  /**
   * @param {import("../../model/token-labels.js").TokenLabel[]} labels @param {ArrayLike<number>} row
   * @param {number} q @param {string} scale
   */
  paint(labels, row, q, scale) {
    while (this.chips.length < labels.length) {
      const tok = h("span.cchip-text");
      const pct = h("span.cchip-pct");
      const el = h("span.cchip", {}, tok, pct);
      this.el.append(el);
      this.chips.push({ el, tok, pct });
    }
    this.chips.forEach((c, k) => {
      setHidden(c.el, k >= labels.length);
      if (k >= labels.length) return;
      const masked = k > q;
      const t = masked ? 0 : level(scale, row[k], q);
      c.el.className = `cchip${masked ? " masked" : ""}${k === q ? " pinned" : ""}${!masked && ink(t) !== "#fff" ? " on-light" : ""}`;
      c.el.style.backgroundColor = masked ? "" : steppedColor(t);
      setText(c.tok, chipText(labels[k]));
      setText(c.pct, masked ? "\u00b7" : wholePercent(row[k]));
    });
  }
}

/** @type {import("../../core/feature.js").Feature} */
export const compare = {
  name: "compare",
  state: COMPARE_KEYS,
  actions: COMPARE_ACTIONS,
  mount(slots, ctx) {
    return mountCompare(slots, ctx);
  },
};

/**
 * @param {import("../../core/skeleton.js").Slots} slots @param {import("../../core/feature.js").Context} ctx
 * @returns {import("../../core/feature.js").Part}
 */
function mountCompare(slots, ctx) {
  const act = ctx.act;
  const toggle = h("button.compare-toggle", { type: "button", "aria-pressed": "false", text: "Compare with a second sentence" });
  // In the row's panel, after its own controls: the chips stay next after the text box in the
  // tab order, and the panel it opens comes right below.
  slots.put("row-tools", h("p.compare-bar", {}, toggle));
  // A one-line box, not a second <textarea>: the view's one textarea stays the sentence's.
  const input = /** @type {HTMLInputElement} */ (h("input.input.compare-input", {
    type: "text", spellcheck: "false", autocomplete: "off", autocapitalize: "off", "aria-label": "Second text to compare",
  }));
  const title = heading(ctx.host, "div.panel-title");
  const note = h("p.compare-note", { role: "status" });
  const rowA = h("div.cchips", { "aria-hidden": "true" });
  const rowB = h("div.cchips", { "aria-hidden": "true" });
  const rows = h("div.compare-rows", {},
    h("div.compare-row", {}, h("span.compare-tag", { text: "1" }), rowA),
    h("div.compare-row", {}, h("span.compare-tag", { text: "2" }), rowB));
  const diffTitle = heading(ctx.host, "div.compare-diff-title", {
    text: "Word by word: sentence 2 minus sentence 1 (bars to the largest difference)",
  }, 1);
  const diffBody = h("tbody");
  const diffCaption = h("caption.sr-only");
  const table = h("table.compare-diff", {}, diffCaption,
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Word" }), h("th", { scope: "col", text: "Sentence 1" }),
      h("th", { scope: "col", text: "Sentence 2" }), h("th", { scope: "col", text: "Difference" }))),
    diffBody);
  const body = h("div.compare-body", {}, rows, diffTitle, scrollBox("Each word\u2019s attention in both sentences", table));
  const panel = h("section.panel.compare-panel", { hidden: true }, title,
    h("label.field", {}, h("span.field-label", { text: "Second sentence" }), input), note, body);
  slots.put("compare", panel);

  toggle.addEventListener("click", () => {
    const on = toggle.getAttribute("aria-pressed") === "true";
    const second = input.value || /** @type {HTMLTextAreaElement} */ (ctx.textBox()).value; // built before the features
    act({ type: "compare", compare: on ? null : second });
    if (on) return;
    // Shown at once (the next paint agrees), so that the second box can take the focus.
    input.value = second;
    setHidden(panel, false);
    input.focus();
  });
  input.addEventListener("input", () => act({ type: "compareText", compare: input.value }));

  const chipsA = new ChipRow(rowA);
  const chipsB = new ChipRow(rowB);
  /** @type {Record<"tr"|"word"|"a"|"b"|"fill"|"value", HTMLElement>[]} */
  const diffRows = [];
  /** @type {import("../../model/runs.js").Run|null} */
  let second = null; // the second text's run; null while the live model is not ready

  return {
    // The second text's run, with the same heads switched off as the first.
    async runs(state, model) {
      second = await compareRun(model, state, second);
      const now = /** @type {import("../../core/state.js").State} */ (ctx.state()); // runs() comes after meta.json
      return !second || runMatches(second, ctx.model(), now.compare, now.ablate);
    },

    result(result, view) {
      result.compare = compareResult(second, view.state, view.run, view.pinned);
    },

    paint(vm) {
      const { state } = vm;
      const on = state.compare !== null && state.compare !== undefined;
      setAttr(toggle, "aria-pressed", String(on));
      setHidden(panel, !on);
      if (!on) return;
      if (input.value !== state.compare) input.value = /** @type {string} */ (state.compare); // on: a string
      const who = `\u00ab${vm.names[vm.shown]}\u00bb`;
      const what = viewName(state);
      setText(title, `Two sentences, ${what[0].toLowerCase()}${what.slice(1)}: attention from ${who} and its match`);
      if (!second || !second.out || !vm.out) {
        setHidden(body, true);
        setText(note, !second ? "The second sentence is computed once the live model is ready."
          : "Type a second sentence to compare its row with the first one's.");
        return;
      }
      setHidden(body, false);
      const c = comparison(state, vm.run, vm.shown, second, pinnedSpec(state, vm.shown, vm.pinned));
      const whoB = `\u00ab${second.names[c.index]}\u00bb`;
      setText(note, c.found
        ? `Sentence 2's row is its ${whoB}${c.word && /#\d+$/.test(c.word) ? ` (${c.word})` : ""}, the same word as sentence 1's ${who}.`
        : `Sentence 2 has no \u00ab${c.word ?? ""}\u00bb, so its row is its last token's, ${whoB}.`);
      chipsA.paint(vm.labels, c.rowA, vm.shown, state.scale);
      chipsB.paint(second.labels, c.rowB, c.index, state.scale);
      setText(diffCaption, `Attention from ${who} (sentence 1) and ${whoB} (sentence 2) to each word, and the difference`);
      while (diffRows.length < c.words.length) {
        const word = h("th", { scope: "row" });
        const a = h("td.diff-p");
        const b = h("td.diff-p");
        const fill = h("span.diff-fill");
        const value = h("span.diff-value");
        const tr = h("tr", {}, word, a, b, h("td.diff-cell", {}, h("span.diff-bar", { "aria-hidden": "true" }, fill), value));
        diffBody.append(tr);
        diffRows.push({ tr, word, a, b, fill, value });
      }
      // The largest difference fills half the bar (a floor of 5 points keeps noise small).
      const span = Math.max(0.05, ...c.words.map((w) => Math.abs((w.second ?? 0) - (w.first ?? 0))));
      diffRows.forEach((d, i) => {
        const w = c.words[i];
        setHidden(d.tr, !w);
        if (!w) return;
        setText(d.word, w.text);
        setText(d.a, w.first === null ? "\u2014" : percent(w.first));
        setText(d.b, w.second === null ? "\u2014" : percent(w.second));
        const delta = (w.second ?? 0) - (w.first ?? 0);
        setText(d.value, signed(delta));
        d.tr.className = delta > 5e-4 ? "diff-more" : delta < -5e-4 ? "diff-less" : "diff-same";
        d.fill.style.transform = `scaleX(${(Math.abs(delta) / span).toFixed(4)})`;
      });
    },
  };
}
