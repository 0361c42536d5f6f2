// The element's fixed DOM, built once with createElement and never from HTML strings, so no string
// ever becomes markup (the CSP forbids inline styles and scripts; this forbids injection).

import { h } from "./dom.js";
import { buildAxes } from "./heatmap-axes.js";

/** The part that exists before meta.json arrives: stylesheet, status line, fallback slot. */
export function buildShell(root, cssURL) {
  const r = {};
  const css = h("link", { rel: "stylesheet", href: cssURL });
  r.cssReady = new Promise((resolve) => {
    css.addEventListener("load", resolve, { once: true });
    css.addEventListener("error", resolve, { once: true }); // unstyled beats invisible
  });
  r.statusText = h("span.status-text");
  r.retry = h("button.retry", { type: "button", hidden: true, text: "Try again" });
  r.status = h("p.status", { role: "status" }, r.statusText, " ", r.retry);
  // The fallback (the element's own children) shows through this slot until the UI is ready.
  r.slot = h("slot");
  r.ui = h("div.ui", { hidden: true });
  root.append(css, r.status, r.slot, r.ui);
  return r;
}

/** Fills the shell's UI for a model with `nLayer` x `nHead` heads; returns `r` extended. */
export function buildUI(r, { nLayer, nHead }) {
  r.input = h("textarea.input", {
    rows: 2, spellcheck: "false", autocomplete: "off", autocapitalize: "off",
    "aria-label": "Text to analyse", "aria-describedby": "notice",
  });
  r.notice = h("p.notice", { id: "notice", hidden: true });
  const field = h("label.field", {}, h("span.field-label", { text: "Your text" }), r.input);

  r.rowTitle = h("h3.panel-title");
  r.chips = h("div.chips", {
    role: "group",
    "aria-label": "Tokens. Left and right arrows move the pinned token; H cycles heads; L layers; V views.",
  });
  r.sum = h("span.sum");
  r.legendLow = h("span.legend-end");
  r.legendHigh = h("span.legend-end");
  r.legend = h("span.legend", {}, r.legendLow, h("span.legend-bar"), r.legendHigh);
  // The colour scale (state.js SCALES): two toggle buttons, the pressed one is the scale shown.
  r.scaleButtons = [["share", "share of row"], ["relative", "\u00d7 even share"]].map(([scale, text]) =>
    h("button.scale-button", { type: "button", "data-scale": scale, "aria-pressed": "false", text }));
  const scales = h("span.scales", { role: "group", "aria-label": "Colour by" },
    h("span.scales-label", { text: "Colour by" }), ...r.scaleButtons);
  r.explain = h("p.explain");
  // "Find the story" (story.js): the most decisive row of the sentence, then the next one.
  r.storyFind = h("button.story-button", { type: "button", text: "Find the story" });
  r.storyNext = h("button.story-button", { type: "button", text: "Next \u203a", "aria-label": "Next most decisive row" });
  r.storyText = h("span.story-text", { "aria-live": "polite" });
  const story = (r.story = h("p.story", {}, r.storyFind, r.storyNext, r.storyText));
  const rowPanel = h("section.panel.row-panel", {}, r.rowTitle, r.chips,
    h("p.row-meta", {}, r.sum, h("span.legend-box", {}, scales, r.legend)), r.explain, story);

  // One line per layer: its heads, then its average and its rollout.
  r.minis = [];
  const grid = h("div.grid");
  for (let l = 1; l <= nLayer; l++) {
    const line = h("div.grid-line", { role: "group", "aria-label": `Layer ${l}` },
      h("span.grid-layer", { text: `Layer ${l}` }));
    const kinds = [...Array.from({ length: nHead }, (_, i) => ["head", i + 1]), ["average", 0], ["rollout", 0]];
    for (const [view, head] of kinds) {
      const name = view === "head" ? `head ${head}` : view === "average" ? "average" : "rollout";
      const fill = h("span.mini-fill");
      const top = h("span.mini-top");
      // The head's role from meta.json (renderer.js paintRoles); empty for models without one.
      const role = h("span.mini-role");
      const def = h("span.sr-only.role-def", { id: `role-def-${view}-${l}-${head}` });
      const button = h(`button.mini.mini-${view}`, {
        type: "button", "data-layer": l, "data-head": head, "data-view": view, "aria-pressed": "false",
        "aria-describedby": def.id,
      }, h("span.mini-name", { text: name }), role, h("span.mini-row", { "aria-hidden": "true" }, fill), top, def);
      r.minis.push({ button, fill, top, role, def, layer: l, head, view });
      line.append(button);
    }
    grid.append(line);
  }
  r.gridTitle = h("h3.panel-title");

  // Every head's whole T x T pattern (bertviz's "model view"): one small canvas per head,
  // repainted only when the run or the scale changes (charts.js drawThumbs), never per pin.
  r.thumbs = [];
  const thumbs = h("div.thumbs");
  for (let l = 1; l <= nLayer; l++) {
    const line = h("div.thumb-line", { role: "group", "aria-label": `Layer ${l}: every head's pattern` });
    for (let hd = 1; hd <= nHead; hd++) {
      const canvas = h("canvas.thumb-map", { width: 1, height: 1, "aria-hidden": "true" });
      const role = h("span.thumb-role");
      const def = h("span.sr-only.role-def", { id: `role-def-thumb-${l}-${hd}` });
      const button = h("button.thumb", {
        type: "button", "data-layer": l, "data-head": hd, "aria-pressed": "false", "aria-describedby": def.id,
        "aria-label": `Layer ${l}, head ${hd}: its whole pattern`,
      }, canvas, h("span.thumb-name", { text: `L${l} H${hd}` }), role, def);
      // "See it do this": the head's example from meta.json (hidden without one).
      const example = h("button.thumb-example", {
        type: "button", hidden: true, text: "See it do this",
        "aria-label": `Layer ${l}, head ${hd}: see it do this (load its example sentence)`,
      });
      r.thumbs.push({ button, canvas, role, def, example, layer: l, head: hd });
      line.append(h("div.thumb-cell", {}, button, example));
    }
    thumbs.append(line);
  }
  r.thumbsTitle = h("h4.thumbs-title", { text: "Every head's whole pattern (click one to select it)" });
  const headsPanel = h("section.panel.heads-panel", {}, r.gridTitle, grid, r.thumbsTitle, thumbs);

  r.mapTitle = h("h3.panel-title");
  // Focusable: the arrow keys then walk its cells (heatmap-axes.js), Enter pins the row.
  r.heatmap = h("canvas.heatmap", { width: 1, height: 1, role: "img", tabindex: "0" });
  r.heatmapMarker = h("span.heatmap-row", { "aria-hidden": "true" });
  r.heatmapRow0 = h("span.heatmap-row0", {
    title: "Row 0 is faded: the first token has nothing earlier to look at, so it always puts 100% on itself.",
  });
  r.mapCaption = h("p.caption");
  r.axes = buildAxes(h("div.heatmap-frame", {}, r.heatmap, r.heatmapRow0, r.heatmapMarker));
  const mapPanel = h("section.panel.map-panel", {}, r.mapTitle, r.axes.grid, r.axes.readout, r.mapCaption);

  r.predTitle = h("h3.panel-title");
  r.preds = h("ol.preds");
  r.predRows = Array.from({ length: 5 }, () => {
    const tok = h("span.pred-token");
    const fill = h("span.pred-fill");
    const p = h("span.pred-p");
    // Cells wrap the texts so that the contained boxes are not grid items (which could not
    // be laid out on their own).
    const li = h("li.pred", {}, h("span.pred-cell", {}, tok), h("span.pred-bar", {}, fill),
      h("span.pred-cell", {}, p));
    r.preds.append(li);
    return { li, tok, fill, p };
  });
  const predPanel = h("section.panel.pred-panel", {}, r.predTitle, r.preds);

  r.mathIntro = h("p.math-intro");
  r.mathBody = h("tbody");
  r.math = h("details.panel.math", {},
    h("summary", { text: "Show the math" }),
    r.mathIntro,
    // The columns depend on the model's position scheme: math-panel.js writes the header.
    h("div.table-scroll", {}, h("table.math-table", {}, (r.mathHead = h("thead")), r.mathBody)));

  // The row as a table, for screen readers; the chips carry the same numbers visually.
  r.srCaption = h("caption");
  r.srBody = h("tbody");
  // Wrapped: a table grows to fit its cells, so only a box around it can be clipped to 1px.
  const srTable = h("div.sr-only", {}, h("table", {}, r.srCaption,
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Token" }), h("th", { scope: "col", text: "Attention" }))),
    r.srBody));

  r.body = h("div.body", {}, rowPanel, headsPanel, mapPanel, predPanel, r.math);
  r.ui.append(field, r.notice, r.body, srTable);
  return r;
}
