// @ts-check
// Every head's whole T x T pattern (bertviz's "model view"): one small canvas per head, in
// the heads panel under the strips, behind a disclosure that starts closed on a narrow view
// (under the two-column width) and open on a wide one, until the reader opens or closes it:
// from then on it starts as they left it (localStorage, on this browser). Clicking one selects the head; "See it
// do this" loads the head's example sentence from meta.json and brings the row into view. The
// canvases are repainted only when the run or the scale changes, never per pin, and trail a
// burst of typing by a moment: they are the overview, not what the keystroke is about (at
// T = 128 repainting them on every key cost a few ms of the frame); while closed, not at all.
// Each head has the slots "thumb-badge:L.H" and "thumb-tools:L.H".

import { h, setHidden, setAttr, bringIntoView } from "../core/dom.js";
import { heading } from "../core/heading.js";
import { WIDE_PX } from "../core/skeleton.js";
import { headMatrix, wholePercent } from "../readouts/readouts.js";
import { paintMatrix } from "./charts.js";
import { roleNodes, paintRoles } from "./roles.js";
import { trailing } from "../core/trailing.js";

const TRAIL_MS = 120;

/**
 * One head's thumbnail, and the run and scale it was last drawn for.
 * @typedef {import("./roles.js").RoleNodes & Record<"button"|"canvas"|"example", HTMLElement> &
 *   {layer: number, head: number, out: import("../model/runs.js").Outputs|null, scale: string}} Thumb
 */

/**
 * The head's example sentence from meta.json, when it has one.
 * @param {import("../core/state.js").Meta|null} meta @param {number} layer @param {number} head
 */
function exampleOf(meta, layer, head) {
  const ex = meta?.heads?.find?.((x) => x.layer === layer && x.head === head)?.example;
  return ex && typeof ex.text === "string" ? ex : null;
}

/**
 * "See it do this": the example, with focus on its pinned token (a keyboard reader lands where
 * it is), and the row brought to the top of the screen: the button sits far below it.
 * @param {import("../core/feature.js").Context} ctx @param {number} layer @param {number} head
 */
function showExample(ctx, layer, head) {
  ctx.act({ type: "example", layer, head }, { focusChip: true });
  const row = ctx.host.shadowRoot?.querySelector(".row-panel");
  if (row) bringIntoView(row, "start");
}

const KEY = "attention-view:thumbnails";

/** The disclosure as the reader last left it ("open", "closed"), or null. */
function remembered() {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null; // storage blocked (a sandboxed frame, privacy settings): the width decides
  }
}

/** @param {boolean} open */
function remember(open) {
  try {
    localStorage.setItem(KEY, open ? "open" : "closed");
  } catch {
    // not remembered: the next visit starts from the width again
  }
}

/** @type {import("../core/feature.js").Feature} */
export const thumbnails = {
  name: "thumbnails",
  mount(slots, ctx) {
    const { n_layer: nLayer, n_head: nHead } = /** @type {import("../core/state.js").Meta} */ (ctx.meta()).config;
    /** @type {Thumb[]} */
    const thumbs = [];
    const box = h("div.thumbs");
    for (let l = 1; l <= nLayer; l++) {
      const line = h("div.thumb-line", { role: "group", "aria-label": `Layer ${l}: every head's pattern` });
      for (let hd = 1; hd <= nHead; hd++) {
        const canvas = h("canvas.thumb-map", { width: 1, height: 1, "aria-hidden": "true" });
        const { role, def } = roleNodes(`role-def-thumb-${l}-${hd}`, "span.thumb-role");
        const button = h("button.thumb", {
          type: "button", "data-layer": l, "data-head": hd, "aria-pressed": "false", "aria-describedby": def.id,
          "aria-label": `L${l} H${hd}: layer ${l}, head ${hd}, its whole pattern`,
        }, canvas, h("span.thumb-name", { text: `L${l} H${hd}` }), " ", role, def);
        const example = h("button.thumb-example", {
          type: "button", hidden: true, text: "See it do this",
          "aria-label": `Layer ${l}, head ${hd}: see it do this (load its example sentence)`,
        });
        const cell = h("div.thumb-cell", {}, button, example);
        slots.declare(`thumb-badge:${l}.${hd}`, button).declare(`thumb-tools:${l}.${hd}`, cell);
        thumbs.push({ button, canvas, role, def, example, layer: l, head: hd, out: null, scale: "", roleLabel: "" });
        line.append(cell);
        button.addEventListener("click", () => ctx.act({ type: "select", layer: l, head: hd }));
        example.addEventListener("click", () => showExample(ctx, l, hd));
      }
      box.append(line);
    }
    const left = remembered();
    const open = left ? left === "open" : ctx.host.getBoundingClientRect().width >= WIDE_PX;
    const toggle = h("button.disclosure.thumbs-toggle", {
      type: "button", "aria-expanded": String(open), "aria-controls": "thumbs-body", text: "Every head\u2019s whole pattern",
    });
    const body = h("div.thumbs-body", { id: "thumbs-body", hidden: !open },
      h("p.help", { text: "Each square is one head\u2019s whole pattern on your text: a row per token, its earlier tokens " +
        "from left to right. Click one to select that head; \u201cSee it do this\u201d loads a sentence where the head puts " +
        "much of one row on one earlier token." }), box);
    const title = heading(ctx.host, "div.thumbs-title", {}, 1);
    title.append(toggle);
    slots.put("heads-panel", title, body);
    toggle.addEventListener("click", () => {
      body.hidden = !body.hidden;
      toggle.setAttribute("aria-expanded", String(!body.hidden));
      remember(!body.hidden);
      const view = ctx.view();
      if (!body.hidden && view?.out) trail.now(view);
    });

    const roles = {};
    /** @param {import("../core/view.js").View} view  a view with outputs */
    const draw = (view) => {
      const { out, state } = view;
      for (const t of thumbs) {
        if (t.out === out && t.scale === state.scale) continue;
        t.out = out;
        t.scale = state.scale;
        paintMatrix(/** @type {HTMLCanvasElement} */ (t.canvas), headMatrix(/** @type {import("../model/runs.js").Outputs} */ (out), t.layer - 1, t.head - 1),
          /** @type {import("../model/runs.js").Outputs} */ (out).T, state.scale);
      }
    };
    const trail = trailing(draw, TRAIL_MS);

    return {
      paint(view) {
        if (!view.out) return;
        const { state, meta } = view;
        if (paintRoles(thumbs, meta, roles)) {
          for (const t of thumbs) {
            const ex = exampleOf(meta, t.layer, t.head);
            setHidden(t.example, !ex);
            if (ex) {
              t.example.title = `Loads \u201c${ex.text}\u201d and pins the token where this head puts ` +
                `${wholePercent(ex.weight ?? 0)} on one earlier token.`;
            }
            // The name starts with what the button shows ("L1 H3 diffuse"), so that speech input
            // can say it; the spaces between its blocks make those words.
            setAttr(t.button, "aria-label", `L${t.layer} H${t.head}${t.roleLabel ? ` ${t.roleLabel}` : ""}: ` +
              `layer ${t.layer}, head ${t.head}, its whole pattern`);
          }
        }
        for (const t of thumbs) {
          const selected = state.view === "head" && state.layer === t.layer && state.head === t.head;
          setAttr(t.button, "aria-pressed", selected ? "true" : "false");
        }
        if (body.hidden) return; // drawn when opened
        // Same run (only the pressed state changed) or the very first paint: at once.
        const first = thumbs[0];
        if (!first.out || (first.out === view.out && first.scale === state.scale)) trail.now(view);
        else trail.later(view);
      },

      // "See it do this": the head's example sentence, with the token where it does it pinned.
      translate(action) {
        if (action.type !== "example") return undefined;
        const ex = exampleOf(ctx.meta(), action.layer, action.head);
        return ex && Number.isInteger(ex.token) ? { type: "jump", text: ex.text, token: ex.token, layer: action.layer, head: action.head } : null;
      },
    };
  },
};
