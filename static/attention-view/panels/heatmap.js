// @ts-check
// The heatmap panel: the selected view's whole T x T matrix, with token labels on both axes,
// the shown row outlined, and a crosshair with a readout for the cell under the pointer or
// the keyboard's focused cell (heatmap-axes.js). Clicking a row, or Enter on a focused cell,
// pins that token. A skip link at the very top of the view (slot "top") takes the keyboard
// straight to the map, past every control before it.

import { h, setText } from "../core/dom.js";
import { heading } from "../core/heading.js";
import { viewName, ordinal } from "../readouts/readouts.js";
import { drawHeatmap } from "./charts.js";
import { buildAxes, paintAxes, labelStep, HeatmapCursor, cellAt } from "./heatmap-axes.js";
import { isHeadOff } from "../model/head-set.js";

/** @type {Object<string, [number, number]|undefined>} */
const CELL_KEYS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

/** @type {import("../core/feature.js").Feature} */
export const heatmap = {
  name: "heatmap",
  mount(slots, ctx) {
    const title = heading(ctx.host, "div.panel-title");
    // Focusable: the arrow keys then walk its cells (heatmap-axes.js), Enter pins the row.
    const canvas = /** @type {HTMLCanvasElement} */ (h("canvas.heatmap", { width: 1, height: 1, role: "img", tabindex: "0" }));
    const marker = h("span.heatmap-row", { "aria-hidden": "true" });
    const row0 = h("span.heatmap-row0", {
      title: "Row 0 is faded: the first token has nothing earlier to look at, so it always puts 100% on itself.",
    });
    const caption = h("p.caption");
    // A head switched off is drawn greyed with an "off" badge, as its strip and thumbnail are.
    const offBadge = h("span.off-badge", { "aria-hidden": "true", text: "off" });
    const offNote = h("p.map-off-note", { hidden: true });
    const frame = h("div.heatmap-frame", {}, canvas, row0, marker, offBadge);
    const axes = buildAxes(frame);
    const panel = slots.put("map", h("section.panel.map-panel", {}, title, offNote, axes.grid, axes.readout, caption));
    const skip = slots.put("top", h("a.skip-link", { href: "#heatmap", text: "Skip to the heatmap" }));
    skip.addEventListener("click", (/** @type {MouseEvent} */ e) => {
      e.preventDefault(); // the fragment cannot reach into the shadow root
      canvas.focus({ preventScroll: true });
      canvas.scrollIntoView({ block: "center" });
    });
    const cursor = new HeatmapCursor(axes, canvas);
    const size = () => ctx.run()?.out?.T ?? 0;

    // Pointer events on the frame, not the canvas: the row-0 veil (with its title) and the
    // overlays sit on top of the canvas, and the cell under them counts all the same.
    frame.addEventListener("click", (/** @type {MouseEvent} */ e) => {
      const T = size();
      if (T) ctx.act({ type: "pin", token: cellAt(canvas, e.clientX, e.clientY, T).q });
    });
    // The crosshair follows any pointer over the map (a tap shows it too, then pins the row).
    frame.addEventListener("pointermove", (/** @type {PointerEvent} */ e) => {
      const T = size();
      if (T) cursor.setHover(cellAt(canvas, e.clientX, e.clientY, T));
    });
    frame.addEventListener("pointerleave", () => cursor.setHover(null));
    canvas.addEventListener("focus", () => cursor.focusIn());
    canvas.addEventListener("blur", () => cursor.focusOut());
    canvas.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const step = CELL_KEYS[e.key];
      if (step) cursor.move(step[0], step[1]);
      else if ((e.key === "Enter" || e.key === " ") && cursor.focus) ctx.act({ type: "pin", token: cursor.focus.q });
      else return; // H, L, V and the rest go on to the view's own keys
      e.preventDefault();
      e.stopPropagation(); // on the map, arrows walk cells instead of moving the pin
    });

    return {
      paint(view) {
        if (!view.out) return;
        const { T } = view.out;
        const who = `\u00ab${view.names[view.shown]}\u00bb`;
        const { state } = view;
        const off = state.view === "head" && isHeadOff(view.run.off?.heads, state.layer, state.head);
        panel.classList.toggle("head-off", off);
        offNote.hidden = !off;
        setText(offNote, off ? `Switched off: layer ${state.layer} head ${state.head} still computes these weights, ` +
          "but its output is zeroed, so nothing after it reads them (greyed)." : "");
        setText(title, `${viewName(state)}${off ? " (switched off)" : ""}: all ${T} \u00d7 ${T} weights`);
        const step = labelStep(T);
        setText(caption, `Rows are queries, columns are keys; the outlined row is ${who}. ` +
          `Hatched cells are later tokens (masked); labels show every ${step === 1 ? "" : `${ordinal(step)} `}token. ` +
          "Row 0 is faded: the first token can only attend to itself, so it is always 100% there. Click a row to pin " +
          "that token, or Tab to the map and walk its cells with the arrow keys (Enter pins the row).");
        drawHeatmap(canvas, marker, view, row0);
        paintAxes(axes, view);
        cursor.update(view);
      },
    };
  },
};
