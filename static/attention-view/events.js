// Event wiring: turns the reader's clicks, hovers and keys on the element's UI into state
// actions (state.js `reduce` knows what each one means). Nothing here changes the DOM or the
// state itself; the controller does, through `act`.

import { KEY_ACTIONS } from "./state.js";
import { heatmapRowAt } from "./charts.js";

/**
 * @param {object} r  the UI's element references (skeleton.js buildUI)
 * @param {{act: (action: object, opts?: {focusChip?: boolean}) => void,
 *   heatmapSize: () => number, mathOpened: () => void}} to
 */
export function wireEvents(r, to) {
  r.input.addEventListener("input", () => to.act({ type: "text", text: r.input.value }));
  const chipAt = (e) => e.target.closest(".chip");
  r.chips.addEventListener("click", (e) => {
    const chip = chipAt(e);
    if (chip) to.act({ type: "pin", token: Number(chip.dataset.index) });
  });
  // Hover previews a row with a mouse only: on touch, a tap is a pin and must not flicker.
  r.chips.addEventListener("pointerover", (e) => {
    const chip = chipAt(e);
    if (chip && e.pointerType === "mouse") to.act({ type: "preview", token: Number(chip.dataset.index) });
  });
  r.chips.addEventListener("pointerleave", () => to.act({ type: "preview", token: null }));
  for (const mini of r.minis) {
    mini.button.addEventListener("click", () => {
      const { layer, head, view } = mini;
      to.act(view === "head" ? { type: "select", layer, head } : { type: "view", view, layer });
    });
  }
  for (const button of r.scaleButtons) {
    button.addEventListener("click", () => to.act({ type: "scale", scale: button.dataset.scale }));
  }
  r.heatmap.addEventListener("click", (e) => {
    const T = to.heatmapSize();
    if (T) to.act({ type: "pin", token: heatmapRowAt(r.heatmap, e.clientY, T) });
  });
  r.math.addEventListener("toggle", () => {
    if (r.math.open) to.mathOpened();
  });
  r.ui.addEventListener("keydown", (e) => {
    // Keys belong to the text box while typing, and to the browser with a modifier.
    if (e.target.closest("textarea, input") || e.ctrlKey || e.metaKey || e.altKey) return;
    const action = KEY_ACTIONS[e.key];
    if (!action) return;
    e.preventDefault();
    // Moving the pin with the keyboard moves focus with it, so the focused chip is the pinned one.
    to.act(action, { focusChip: action.type === "move" || e.target.classList.contains("chip") });
  });
}
