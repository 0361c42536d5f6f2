// @ts-check
// The row: one chip per token, coloured by the attention the shown token pays it, with the
// row's title, sum, colour legend and scale buttons, and one or two sentences written from the
// numbers. Chips are pooled and only what changed is written: this runs on every keystroke
// (the whole update, tokenize + run + render, has to fit in a frame at 128 tokens). User text
// only ever reaches the page through textContent. Under the chips is the slot "row-notes"
// (the first-visit hint about token pieces), and the panel's end is the slot "row-tools".

import { h, setText, setHidden, setAttr } from "../core/dom.js";
import { heading } from "../core/heading.js";
import { steppedColor, ink, gradient, level, aboveEven, RELATIVE_SPAN } from "../readouts/palette.js";
import { chipText, wordAndPiece } from "../model/token-labels.js";
import { viewRow, rowSum, percent, wholePercent, viewName, ranked, spread } from "../readouts/readouts.js";
import { wordsOf } from "../model/words.js";
import { isHeadOff } from "../model/head-set.js";
import { pushedRow, describePush, targetName, hasAttribution } from "../readouts/attribution.js";
import { pushColor, pushOnLight, pushGradient } from "../readouts/push-palette.js";

/**
 * One or two sentences about a row, written from its numbers only, e.g.
 * "Layer 2, head 3: «said» puts 43% on «Alice», then 25% on «Queen». Fairly focused: …".
 * @param {ArrayLike<number>} row @param {number} query @param {string[]} names
 * @param {Pick<import("../core/state.js").State, "layer" | "head" | "view">} state
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

/** @type {import("../core/feature.js").Feature} */
export const row = {
  name: "row",
  compact: true,
  mount(slots, ctx) {
    const title = heading(ctx.host, "div.panel-title");
    const box = h("div.chips", {
      role: "group",
      "aria-label": "Tokens. Left and right arrows move the pinned token; H cycles heads; L layers; V views.",
    });
    const sum = h("span.sum");
    const low = h("span.legend-end");
    const high = h("span.legend-end");
    const bar = h("span.legend-bar");
    bar.style.backgroundImage = gradient();
    const legend = h("span.legend", {}, low, bar, high);
    // The colour scale (state.js SCALES): two toggle buttons, the pressed one is the scale shown.
    const scaleButtons = [
      ["share", "share of row", "The weight itself: 0% (none of the row) to 100% (all of it)"],
      ["relative", "\u00d7 even share", "The weight \u00f7 an even split of the row, 1/(q+1) for the (q+1)-th token, on a log scale"],
      ["push", "push toward the prediction", "How much of the head's push toward the prediction came through each token (What pushed)"],
    ].map(([scale, text, title]) =>
      h("button.scale-button", { type: "button", "data-scale": scale, "aria-pressed": "false", text, title }));
    const scales = h("span.scales", { role: "group", "aria-label": "Colour by" },
      h("span.scales-label", { text: "Colour by" }), ...scaleButtons);
    const explain = h("p.explain");
    // What the chips are, next to them; the token it names follows the shown token.
    const help = h("p.help.row-help");
    const meta = h("p.row-meta", {}, sum, h("span.legend-box", {}, scales, legend));
    const panel = slots.put("row", h("section.panel.row-panel", {}, title, box, help, meta, explain));
    slots.declare("row-notes", panel, meta).declare("row-tools", panel);

    /** @param {Event} e */
    const chipAt = (e) => /** @type {HTMLElement|null} */ (/** @type {Element} */ (e.target).closest(".chip"));
    box.addEventListener("click", (/** @type {Event} */ e) => {
      const chip = chipAt(e);
      if (chip) ctx.act({ type: "pin", token: Number(chip.dataset.index) });
    });
    // Hover previews a row with a mouse only: on touch, a tap is a pin and must not flicker.
    box.addEventListener("pointerover", (/** @type {PointerEvent} */ e) => {
      const chip = chipAt(e);
      if (chip && e.pointerType === "mouse") ctx.act({ type: "preview", token: Number(chip.dataset.index) });
    });
    box.addEventListener("pointerleave", () => ctx.act({ type: "preview", token: null }));
    for (const button of scaleButtons) {
      button.addEventListener("click", () => ctx.act({ type: "scale", scale: button.dataset.scale }));
    }
    const chips = new Chips(box);
    let legendPush = false; // the legend shows the push scale

    return {
      paint(view) {
        chips.sync(view);
        if (!view.out) return;
        const values = viewRow(view.out, view.state, view.shown);
        const scale = view.state.scale;
        for (const b of scaleButtons) setAttr(b, "aria-pressed", String(b.dataset.scale === scale));
        const relative = scale === "relative";
        // "push": the head's write toward the prediction, split by key (readouts/attribution.js).
        const push = pushedRow(view);
        const pushButton = scaleButtons[2];
        // Named and shown in the preview too (the graph's outputs are known from meta.json), so
        // that the row's height does not change when the model goes live.
        const target = targetName(view);
        setText(pushButton, target ? `push toward ${target}` : "push toward the prediction");
        setHidden(pushButton, !view.out.attribution && (view.run.live || !hasAttribution(view.meta)));
        const pushing = scale === "push" && push !== null;
        if (legendPush !== pushing) {
          legendPush = pushing;
          bar.style.backgroundImage = pushing ? pushGradient() : gradient();
        }
        setText(low, pushing ? `\u2212${push.max.toFixed(2)} (down)` : relative ? `\u2264 1/${RELATIVE_SPAN} \u00d7 even` : "0%");
        setText(high, pushing ? `+${push.max.toFixed(2)} (up)` : relative ? `\u2265 ${RELATIVE_SPAN} \u00d7 even` : "100%");
        setAttr(legend, "title", pushing
          ? `Colour = how much of ${push.head}'s push toward ${push.name} came through each token, in logit units; white: none.`
          : relative ? "Colour = weight \u00f7 the even share 1/(q+1) of the row, on a log scale; the middle is exactly even."
          : "Colour = the weight itself, from 0% to 100% of the row.");
        chips.paint(view, values, pushing ? push : null);
        const { state, shown, pinned, names } = view;
        const who = `\u00ab${names[shown]}\u00bb`;
        const mode = state.preview !== null && shown !== pinned ? " (hover preview)" : "";
        const later = view.labels.length - shown - 1;
        const off = state.view === "head" && isHeadOff(view.run.off?.heads, state.layer, state.head) ? " (switched off)" : "";
        setText(title, `${viewName(state)}${off}: attention from ${wordAndPiece(view.labels, names, shown)}${mode}`);
        setText(sum, `Row sum ${percent(rowSum(values, shown + 1))} over ${shown + 1} token${shown ? "s" : ""}; ` +
          `${later} later token${later === 1 ? "" : "s"} masked.`);
        setText(explain, describeRow(values, shown, names, state) + (pushing ? " " + describePush(push, names, state.view === "head" ? values : undefined) : ""));
        setText(help, pushing
          ? `Each chip is a token, coloured by how much of ${push.head}\u2019s push toward ${push.name} came through it ` +
            "(orange: up, blue: down, in logit units; \u25b2: above an even split of the attention); hatched ones come later. " +
            "Click or tap a chip to pin it."
          : `Each chip is a token, coloured by the share of ${who}\u2019s attention it gets (\u25b2: above an ` +
            "even split); hatched ones come later, out of its sight. Click or tap a chip to pin it.");
        if (view.focusChip && pinned >= 0) chips.focus(pinned);
      },
    };
  },
};

/**
 * A push in logit units, signed: "+0.42", "\u22120.10".
 * @param {number} x
 */
const signedPush = (x) => (Math.abs(x) < 0.005 ? "0.00" : `${x < 0 ? "\u2212" : "+"}${Math.abs(x).toFixed(2)}`);

/** The pooled chips of the row. */
class Chips {
  /** @param {HTMLElement} box */
  constructor(box) {
    this.box = box;
    /** @type {{el: HTMLElement, tok: HTMLElement, pct: HTMLElement, label: string|null, cls: string, bg: string, part: string}[]} */
    this.chips = [];
    /** @type {HTMLElement[]} */
    this.wraps = [];
  }

  /** @param {number} index */
  focus(index) {
    this.chips[index]?.el.focus();
  }

  /**
   * As many chips as tokens, with their texts and how they join into words.
   * @param {import("../core/view.js").View} view
   */
  sync(view) {
    const { chips } = this;
    const count = view.labels.length;
    while (chips.length < count) {
      const tok = h("span.chip-text");
      const pct = h("span.chip-pct");
      // The space joins the two blocks' texts as words ("Alice 43%"), the text the chip's name
      // has to contain for speech input ("click Alice 43%"); between blocks it takes no room.
      const el = h("button.chip", { type: "button", tabindex: "-1", "data-index": chips.length }, tok, " ", pct);
      chips.push({ el, tok, pct, label: null, cls: "", bg: "", part: "" });
    }
    const words = wordsOf(view.labels);
    this.group(words, count);
    for (let i = 0; i < count; i++) {
      const chip = chips[i];
      const label = view.labels[i];
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
      if (view.run.continued && i >= view.run.continued.count) part += " generated";
      chip.part = part;
    }
  }

  // Each word's chips sit in one span.word, a flex item that does not wrap inside, so a long
  // word's pieces stay on one line at 375 px. A node moves only where the grouping changed
  // (typing at the end regroups the last word, not the row): every move costs layout.
  /** @param {import("../model/words.js").Words} words @param {number} count */
  group(words, count) {
    const { chips, wraps, box } = this;
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

  /**
   * `push`: the "push toward" colouring (readouts/attribution.js pushedRow), or null.
   * @param {any} view  @param {ArrayLike<number>} values
   * @param {ReturnType<typeof pushedRow>} [push]
   */
  paint(view, values, push = null) {
    const q = view.shown;
    const layerHead = view.state.view === "head";
    const scale = view.state.scale;
    for (let k = 0; k < view.labels.length; k++) {
      const chip = this.chips[k];
      const masked = k > q;
      const t = masked || push ? 0 : level(scale, values[k], q);
      // Above the even share: a ▲ (CSS) as well as the colour, so it does not rest on colour alone.
      const above = !masked && aboveEven(values[k], q);
      let cls = "chip" + chip.part;
      if (masked) cls += " masked";
      else if (push ? pushOnLight(push.values[k], push.max) : ink(t) !== "#fff") cls += " on-light";
      if (above) cls += " above";
      if (k === view.pinned) cls += " pinned";
      if (k === q) cls += " query";
      if (chip.cls !== cls) {
        chip.el.className = cls;
        chip.cls = cls;
      }
      // Only the background is inline, and only written when it changes: it is not inherited,
      // so the chip's children keep their computed style (the text colour is a class).
      const bg = masked ? "" : push ? pushColor(push.values[k], push.max) : steppedColor(t);
      if (chip.bg !== bg) {
        chip.bg = bg;
        chip.el.style.backgroundColor = bg;
      }
      // Whole percents on the chips: at T = 128 most of them then stay the same from one
      // keystroke to the next, and an unchanged text costs no layout. The exact weights are
      // in the screen-reader table and under "Show the math".
      const pushed = push && !masked ? signedPush(push.values[k]) : "";
      setText(chip.pct, masked ? "\u00b7" : push ? pushed : wholePercent(values[k]));
      setAttr(chip.el, "tabindex", k === view.pinned ? "0" : "-1");
      setAttr(chip.el, "aria-pressed", k === view.pinned ? "true" : "false");
      const name = view.names[k];
      const written = chip.part.includes(" generated") ? ", written by the model" : "";
      setAttr(chip.el, "aria-label", masked
        ? `${name}${written}: later token, masked`
        : `${name}${written}: ${wholePercent(values[k])}${above ? ", above the even share" : ""}${layerHead ? "" : ` (${view.state.view})`}` +
          (push ? `, push ${pushed}` : ""));
    }
  }
}
