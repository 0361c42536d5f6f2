// The renderer: builds the view model of a run (plus the prose around it: notice, titles,
// sentences) and writes it into the skeleton's elements. It keeps pools of chips
// and table rows and only touches what changed, because it runs on every keystroke (the whole
// update, tokenize + run + render, has to fit in a frame at 128 tokens). User text only ever
// reaches the page through textContent.

import { h, setText, setHidden } from "./dom.js";
import { steppedColor, ink, gradient, level, aboveEven, RELATIVE_SPAN } from "./palette.js";
import { chipText, pieceLabel } from "./token-labels.js";
import { viewRow, rowSum, percent, wholePercent, viewName, ranked, spread } from "./readouts.js";
import { drawMinis, drawHeatmap, drawThumbs } from "./charts.js";
import { headRoles } from "./head-roles.js";
import { renderMath } from "./math-panel.js";
import { paintAxes, labelStep, HeatmapCursor } from "./heatmap-axes.js";
import { pinnedIndex, shownIndex } from "./state.js";
import { wordsOf } from "./words.js";

function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/**
 * What one paint needs: the run, the resolved state, and the pinned and shown tokens.
 * @typedef {Object} ViewModel
 * @property {import("./runs.js").Run} run
 * @property {import("./runs.js").Outputs|null} out
 * @property {import("./token-labels.js").TokenLabel[]} labels
 * @property {string[]} names
 * @property {object} state  resolved state (state.js) with `preview`
 * @property {number} pinned  0-based, -1 without tokens
 * @property {number} shown  the hovered token while previewing, else the pinned one
 * @property {object} meta  meta.json
 * @property {(id: number) => string|null} pieceOf
 */

/** @returns {ViewModel} */
export function viewModel(run, state, meta) {
  const count = run.labels.length;
  return {
    run,
    out: run.out,
    labels: run.labels,
    names: run.names,
    state,
    pinned: pinnedIndex(state, count, run.labels),
    shown: shownIndex(state, count, run.labels),
    meta,
    pieceOf: run.pieceOf,
  };
}

/** The line under the text box: a prompt for an empty text, or what a long text lost. */
export function noticeText(run) {
  if (run.text === "") return "Type a sentence above to see which earlier tokens each token attends to.";
  if (!run.truncated) return "";
  const n = run.ids.length;
  const first = `starting at \u00ab${run.names[0]}\u00bb`;
  const { total, start } = run.truncated;
  if (total === null) {
    // Only the text's tail was tokenized (a very long text): the total was not counted.
    return `This text is longer than the model reads (at most ${n} tokens), so only the last ${n} ` +
      `are shown, ${first}.`;
  }
  return `This text is ${total} tokens long and the model reads at most ${n}, so only the last ${n} ` +
    `are shown: tokens ${start + 1}\u2013${total}, ${first}.`;
}

/**
 * One or two sentences about a row, written from its numbers only, e.g.
 * "Layer 2, head 3: «said» puts 43% on «Alice», then 25% on «Queen». Fairly focused: …".
 */
export function describeRow(row, query, names, state) {
  const who = `\u00ab${names[query]}\u00bb`;
  const lead = viewName(state);
  if (query === 0) return `${lead}: ${who} is the first token, so all of its attention stays on itself.`;
  // The top three keys by name (fewer when the row has fewer), then the even share they beat.
  const top = ranked(row, query).slice(0, 3);
  const named = top.map((k) => `${wholePercent(row[k])} on \u00ab${names[k]}\u00bb${k === query ? " (itself)" : ""}`);
  const list = named.length < 3 ? named.join(", then ") : `${named[0]}, then ${named[1]} and ${named[2]}`;
  let text = `${lead}: ${who} puts ${list}`;
  text += ` (an even split would give each of the ${query + 1} tokens ${wholePercent(1 / (query + 1))})`;
  const s = spread(row, query);
  const kind = s < 0.35 ? "sharply focused" : s < 0.7 ? "fairly focused" : "spread out";
  text += `. ${kind[0].toUpperCase() + kind.slice(1)}: its entropy is ${wholePercent(s)} of a uniform row over ${query + 1} tokens.`;
  return text;
}

/** The status line (it exists before the rest of the UI): text, kind, retry button. */
export function paintStatus(refs, kind, text, retry) {
  refs.status.dataset.kind = kind;
  setText(refs.statusText, text);
  setHidden(refs.retry, !retry);
}

export class Renderer {
  constructor(refs) {
    this.r = refs;
    this.chips = []; // [{el, tok, pct, label}]
    this.srRows = [];
    this.r.legend.querySelector(".legend-bar").style.backgroundImage = gradient();
    this.cursor = new HeatmapCursor(refs.axes, refs.heatmap);
  }

  /**
   * Role labels ("previous token 0.83") on every head's strip and thumbnail, the definition in
   * a title (hover) and in visually hidden text (focus, screen readers). Once per meta.json:
   * roles do not change with the text. Without `heads` in meta.json, no labels at all.
   */
  paintRoles(meta) {
    if (this.rolesMeta === meta) return;
    this.rolesMeta = meta;
    this.roles = headRoles(meta);
    for (const item of [...this.r.minis.filter((m) => m.view === "head"), ...this.r.thumbs]) {
      const role = this.roles.get(`${item.layer}:${item.head}`);
      setText(item.role, role ? role.label : "");
      if (item.example) {
        const head = meta?.heads?.find?.((x) => x.layer === item.layer && x.head === item.head);
        const ex = head?.example;
        setHidden(item.example, !(ex && typeof ex.text === "string"));
        if (ex && typeof ex.text === "string") {
          item.example.title = `Loads \u201c${ex.text}\u201d and pins the token where this head puts ` +
            `${wholePercent(ex.weight ?? 0)} on one earlier token.`;
        }
      }
      setText(item.def, role ? role.definition : "");
      setHidden(item.role, !role);
      item.roleLabel = role ? role.label : "";
      if (role) item.button.title = role.definition;
      else item.button.removeAttribute("title");
      if (item.canvas) {
        setAttr(item.button, "aria-label",
          `Layer ${item.layer}, head ${item.head}${role ? ` (${role.label})` : ""}: its whole pattern`);
      }
    }
  }

  /** The role label of the selected head, for captions; "" without one. */
  roleOf(state) {
    const role = state.view === "head" && this.roles?.get(`${state.layer}:${state.head}`);
    return role ? ` (${role.label})` : "";
  }

  /** The scale control and the legend's ends: 0–100% of the row, or ×1/16 to ×16 the even share. */
  paintScale(scale) {
    for (const b of this.r.scaleButtons) setAttr(b, "aria-pressed", String(b.dataset.scale === scale));
    const relative = scale === "relative";
    setText(this.r.legendLow, relative ? `\u2264 1/${RELATIVE_SPAN} \u00d7 even` : "0%");
    setText(this.r.legendHigh, relative ? `\u2265 ${RELATIVE_SPAN} \u00d7 even` : "100%");
    setAttr(this.r.legend, "title", relative
      ? "Colour = weight \u00f7 the even share 1/(q+1) of the row, on a log scale; the middle is exactly even."
      : "Colour = the weight itself, from 0% to 100% of the row.");
  }

  /** Hides everything computed (a new model is loading); the next render shows it again. */
  clear() {
    setHidden(this.r.body, true);
    this.notice("");
  }

  focusChip(index) {
    this.chips[index]?.el.focus();
  }

  renderMath(vm) {
    renderMath(this.r, vm);
  }

  /** Show the UI (hiding the fallback) once its stylesheet has arrived. */
  async reveal() {
    await this.r.cssReady;
    this.r.ui.hidden = false;
    this.r.slot.hidden = true;
  }

  setInput(text) {
    // Only when the text came from outside: rewriting the value while typing moves the caret.
    if (this.r.input.value !== text) this.r.input.value = text;
  }

  notice(text) {
    setHidden(this.r.notice, !text);
    setText(this.r.notice, text || "");
  }

  /** Full render of a view model. */
  render(vm) {
    this.setInput(vm.state.text);
    this.notice(noticeText(vm.run));
    const empty = vm.out === null;
    setHidden(this.r.body, empty);
    this.syncChips(vm);
    this.deferSrRows(vm);
    if (empty) return;
    const row = viewRow(vm.out, vm.state, vm.shown);
    this.paintScale(vm.state.scale);
    this.paintRow(vm, row);
    this.paintTexts(vm, row);
    this.paintPredictions(vm);
    this.paintRoles(vm.meta);
    drawMinis(this.r.minis, vm);
    this.deferThumbs(vm);
    drawHeatmap(this.r.heatmap, this.r.heatmapMarker, vm, this.r.heatmapRow0);
    paintAxes(this.r.axes, vm);
    this.cursor.update(vm);
    if (this.r.math.open) renderMath(this.r, vm);
  }

  syncChips(vm) {
    const { chips } = this;
    const count = vm.labels.length;
    while (chips.length < count) {
      const tok = h("span.chip-text");
      const pct = h("span.chip-pct");
      const el = h("button.chip", { type: "button", tabindex: "-1", "data-index": chips.length }, tok, pct);
      chips.push({ el, tok, pct, label: null, cls: "", bg: "" });
    }
    const words = wordsOf(vm.labels);
    this.groupWords(words, count);
    for (let i = 0; i < count; i++) {
      const chip = chips[i];
      const label = vm.labels[i];
      const shown = chipText(label);
      if (chip.label !== shown) {
        chip.label = shown;
        setText(chip.tok, shown);
      }
      const [a, b] = label.span;
      let part = a === b ? "" : i === a ? " split-first" : i === b ? " split-last" : " split-mid";
      // Pieces of one word (words.js) touch, with a thin separator: they read as one word.
      const word = words.list[words.wordOf[i]];
      if (word.first !== word.last) part += i === word.first ? " word-first" : i === word.last ? " word-last" : " word-mid";
      // Tokens the model wrote (Continue) are underlined, so a reader tells them from their own.
      if (vm.run.continued && i >= vm.run.continued.count) part += " generated";
      chip.part = part;
    }
  }

  // Each word's chips sit in one span.word, a flex item that does not wrap inside, so a long
  // word's pieces stay on one line at 375 px. A node moves only where the grouping changed
  // (typing at the end regroups the last word, not the row): every move costs layout.
  groupWords(words, count) {
    const { chips } = this;
    const wraps = (this.wordWraps ??= []);
    const box = this.r.chips;
    words.list.forEach(({ first, last }, w) => {
      const wrap = (wraps[w] ??= h("span.word"));
      if (box.children[w] !== wrap) box.insertBefore(wrap, box.children[w] ?? null);
      for (let k = first; k <= last; k++) {
        const el = chips[k].el;
        if (wrap.children[k - first] !== el) wrap.insertBefore(el, wrap.children[k - first] ?? null);
      }
    });
    // What is left over is past the end: chips of a shorter text, and their words.
    for (let i = count; i < chips.length; i++) if (chips[i].el.isConnected) chips[i].el.remove();
    for (let w = words.list.length; w < wraps.length; w++) if (wraps[w].isConnected) wraps[w].remove();
  }

  paintRow(vm, row) {
    const q = vm.shown;
    const layerHead = vm.state.view === "head";
    const scale = vm.state.scale;
    for (let k = 0; k < vm.labels.length; k++) {
      const chip = this.chips[k];
      const masked = k > q;
      const t = masked ? 0 : level(scale, row[k], q);
      // Above the even share: a ▲ (CSS) as well as the colour, so it does not rest on colour alone.
      const above = !masked && aboveEven(row[k], q);
      let cls = "chip" + chip.part;
      if (masked) cls += " masked";
      else if (ink(t) !== "#fff") cls += " on-light";
      if (above) cls += " above";
      if (k === vm.pinned) cls += " pinned";
      if (k === q) cls += " query";
      if (chip.cls !== cls) {
        chip.el.className = cls;
        chip.cls = cls;
      }
      // Only the background is inline, and only written when it changes: it is not inherited,
      // so the chip's children keep their computed style (the text colour is a class).
      const bg = masked ? "" : steppedColor(t);
      if (chip.bg !== bg) {
        chip.bg = bg;
        chip.el.style.backgroundColor = bg;
      }
      // Whole percents on the chips: at T = 128 most of them then stay the same from one
      // keystroke to the next, and an unchanged text costs no layout. The exact weights are
      // in the screen-reader table and under "Show the math".
      setText(chip.pct, masked ? "\u00b7" : wholePercent(row[k]));
      setAttr(chip.el, "tabindex", k === vm.pinned ? "0" : "-1");
      setAttr(chip.el, "aria-pressed", k === vm.pinned ? "true" : "false");
      const name = vm.names[k];
      const written = chip.part.includes(" generated") ? ", written by the model" : "";
      setAttr(chip.el, "aria-label", masked
        ? `${name}${written}: later token, masked`
        : `${name}${written}: ${percent(row[k])}${above ? ", above the even share" : ""}${layerHead ? "" : ` (${vm.state.view})`}`);
    }
  }

  paintTexts(vm, row) {
    const { state, shown, pinned, names } = vm;
    const who = `\u00ab${names[shown]}\u00bb`;
    const mode = state.preview !== null && shown !== pinned ? " (hover preview)" : "";
    setText(this.r.rowTitle, `${viewName(state)}: attention from ${who}${mode}`);
    setText(this.r.sum, `Row sum ${percent(rowSum(row, shown + 1))} over ${shown + 1} token${shown ? "s" : ""}; ` +
      `${vm.labels.length - shown - 1} later token${vm.labels.length - shown - 1 === 1 ? "" : "s"} masked.`);
    setText(this.r.explain, describeRow(row, shown, names, state));
    this.paintStory(vm);
    setText(this.r.gridTitle, `Every head's row for ${who}`);
    setText(this.r.mapTitle, `${viewName(state)}: all ${vm.out.T} \u00d7 ${vm.out.T} weights`);
    setText(this.r.mapCaption, `Rows are queries, columns are keys; the outlined row is ${who}. ` +
      "Hatched cells are later tokens (masked); labels show every " +
      `${labelStep(vm.out.T) === 1 ? "" : `${labelStep(vm.out.T)}th `}token. Row 0 is faded: the first token can only attend to itself, ` +
      "so it is always 100% there. Click a row to pin that token.");
    setText(this.r.predTitle, `Next token after ${who}: the model's top 5`);
  }

  /** Which row "Find the story" shows, while the view is still on it. */
  paintStory(vm) {
    const s = vm.story;
    const on = s && vm.state.view === "head" && s.row.layer === vm.state.layer && s.row.head === vm.state.head &&
      s.row.query === vm.pinned;
    setText(this.r.storyText, on
      ? `Most decisive row ${s.index + 1} of ${s.total}: layer ${s.row.layer}, head ${s.row.head}, ` +
        `\u00ab${vm.names[s.row.query]}\u00bb puts ${wholePercent(s.row.weight)} on \u00ab${vm.names[s.row.key]}\u00bb.`
      : "The strongest single link in this sentence, over every head and token.");
  }

  paintPredictions(vm) {
    const top = vm.out.topAt(vm.shown);
    this.r.predRows.forEach((row, i) => {
      const item = top[i];
      setHidden(row.li, !item);
      if (!item) return;
      const piece = vm.pieceOf(item.id);
      setText(row.tok, piece === null ? "\u2026" : pieceLabel(piece)); // null: tokenizer not here yet
      const scale = `scaleX(${item.p.toFixed(3)})`;
      if (row.scale !== scale) row.fill.style.transform = row.scale = scale;
      setText(row.p, percent(item.p));
    });
  }

  // The thumbnails (8 × T² pixels) trail a burst of typing by a moment, like the table below:
  // they are the overview, not what the keystroke is about, and at T = 128 repainting them on
  // every key cost a few ms of the frame. A pin or head change (same run) repaints at once.
  deferThumbs(vm) {
    const t0 = this.r.thumbs[0];
    if (!t0 || (t0.out === vm.out && t0.scale === vm.state.scale) || !t0.out) {
      clearTimeout(this.thumbTimer);
      this.thumbTimer = null;
      drawThumbs(this.r.thumbs, vm); // same run (only the pressed state) or the very first paint
      return;
    }
    this.thumbPending = vm;
    if (this.thumbTimer) return;
    this.thumbTimer = setTimeout(() => {
      this.thumbTimer = null;
      drawThumbs(this.r.thumbs, this.thumbPending);
    }, 120);
  }

  // The screen-reader table trails the screen by a moment: laying out its T rows took longer
  // than drawing everything else at T = 128, and a screen reader does not read per keystroke.
  deferSrRows(vm) {
    this.srPending = vm;
    if (this.srTimer) return;
    this.srTimer = setTimeout(() => {
      this.srTimer = null;
      const latest = this.srPending;
      this.syncSrRows(latest, latest.out ? viewRow(latest.out, latest.state, latest.shown) : null);
    }, 150);
  }

  syncSrRows(vm, row) {
    const count = row ? vm.shown + 1 : 0;
    while (this.srRows.length < count) {
      const name = h("th", { scope: "row" });
      const value = h("td");
      const tr = h("tr", {}, name, value);
      this.r.srBody.append(tr);
      this.srRows.push({ tr, name, value });
    }
    this.srRows.forEach((r, k) => {
      setHidden(r.tr, k >= count);
      if (k >= count) return;
      setText(r.name, vm.names[k]);
      setText(r.value, percent(row[k]));
    });
    setText(this.r.srCaption, row
      ? `${viewName(vm.state)}${this.roleOf(vm.state)}: attention from \u00ab${vm.names[vm.shown]}\u00bb to each earlier token`
      : "No tokens");
  }
}
