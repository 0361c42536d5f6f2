// @ts-check
// The top 5 next tokens after the shown token, from the graph's logits at that position (the
// golden run's precomputed ones while the runtime loads). The slot "predictions-notes" under
// the list says what else the view changed (the heads switched off).

import { h, setText, setHidden } from "../core/dom.js";
import { heading } from "../core/heading.js";
import { pieceLabel } from "../model/token-labels.js";
import { percent } from "../readouts/readouts.js";

/** @type {import("../core/feature.js").Feature} */
export const predictions = {
  name: "predictions",
  mount(slots, ctx) {
    const title = heading(ctx.host, "div.panel-title");
    const list = h("ol.preds");
    const rows = Array.from({ length: 5 }, () => {
      const tok = h("span.pred-token");
      const fill = h("span.pred-fill");
      const p = h("span.pred-p");
      // Cells wrap the texts so that the contained boxes are not grid items (which could not
      // be laid out on their own).
      const li = h("li.pred", {}, h("span.pred-cell", {}, tok), h("span.pred-bar", {}, fill), h("span.pred-cell", {}, p));
      list.append(li);
      return { li, tok, fill, p, scale: "" };
    });
    const panel = slots.put("predictions", h("section.panel.pred-panel", {}, title, list));
    slots.declare("predictions-notes", panel);

    return {
      paint(view) {
        if (!view.out) return;
        setText(title, `Next token after \u00ab${view.names[view.shown]}\u00bb: the model's top 5`);
        const top = view.out.topAt(view.shown);
        rows.forEach((row, i) => {
          const item = top[i];
          setHidden(row.li, !item);
          if (!item) return;
          const piece = view.pieceOf(item.id);
          setText(row.tok, piece === null ? "\u2026" : pieceLabel(piece)); // null: tokenizer not here yet
          const scale = `scaleX(${item.p.toFixed(3)})`;
          if (row.scale !== scale) row.fill.style.transform = row.scale = scale;
          setText(row.p, percent(item.p));
        });
      },
    };
  },
};
