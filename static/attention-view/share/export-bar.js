// @ts-check
// The element's export toolbar: download the current view as PNG, SVG or JSON. Everything
// is made in the tab (no server) from the element's public `result`, so a file holds exactly
// what `result` says. The code that makes the files loads on the first click: the first
// paint does not need it.

import { h } from "../core/dom.js";

/** @typedef {HTMLElement & {result: import("../model/result.js").Result|null}} Host  the element */

const KINDS = [
  { kind: "png", title: "Download the row and the heatmap as a PNG image" },
  { kind: "svg", title: "Download the row and the heatmap as an SVG drawing" },
  { kind: "json", title: "Download the numbers (every layer and head, and this view) as JSON" },
];

/** @type {Record<string, string>} */
const TYPES = { svg: "image/svg+xml", json: "application/json" };

/**
 * The toolbar, under the row's explanation and "Find the story"; it paints nothing.
 * @type {import("../core/feature.js").Feature}
 */
export const exportBar = { name: "export-bar", mount: (slots, ctx) => addExportBar(slots, /** @type {Host} */ (ctx.host)) };

/**
 * @param {import("../core/skeleton.js").Slots} slots @param {Host} view
 * @returns {import("../core/feature.js").Part}
 */
function addExportBar(slots, view) {
  const note = h("span.export-note", { role: "status" });
  const buttons = KINDS.map(({ kind, title }) =>
    h("button.export-button", { type: "button", "data-export": kind, title, text: kind.toUpperCase() }));
  const bar = h("div.export", { role: "group", "aria-label": "Download this view" },
    h("span.export-label", { text: "Download" }), ...buttons, note);
  slots.put("row-tools", bar); // under the row's sentence and "Find the story"
  bar.addEventListener("click", (/** @type {MouseEvent} */ event) => {
    const button = /** @type {HTMLElement|null} */ (/** @type {Element} */ (event.target).closest("button[data-export]"));
    if (button) exportView(view, /** @type {string} */ (button.dataset.export), note);
  });
  return {};
}

/**
 * @param {Host} view
 * @param {string} kind  "png", "svg" or "json"
 * @param {HTMLElement} note
 */
async function exportView(view, kind, note) {
  const result = view.result;
  if (!result || result.tokens.length === 0) {
    note.textContent = "Nothing to download yet: type a sentence first.";
    return;
  }
  note.textContent = "";
  try {
    const ex = await import("./export-scene.js");
    let blob;
    if (kind === "png") {
      const { scenePNG } = await import("./export-png.js");
      blob = await scenePNG(ex.scene(result));
    } else {
      const text = kind === "svg" ? ex.toSVG(ex.scene(result)) : ex.toJSON(result);
      blob = new Blob([text], { type: TYPES[kind] });
    }
    download(blob, ex.fileName(result, kind));
  } catch (err) {
    note.textContent = `Could not make the ${kind.toUpperCase()} file: ${/** @type {Error} */ (err).message}`;
  }
}

// A blob: URL on an <a download>: a download, not a navigation, so the page's CSP (which
// allows no blob: images or frames) is not involved. The URL is revoked once the browser has
// had time to read it; revoking at once can cancel the download in some browsers.
/** @param {Blob} blob @param {string} name */
function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
