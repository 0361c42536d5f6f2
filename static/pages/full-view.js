// @ts-check
// A chapter's compact views (only the row and the grid of heads, where the text discusses one
// row) each have a button that shows the whole view in place, and back. It is hidden until this
// runs: without JavaScript there is no view to widen.

for (const button of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("button.full-view"))) {
  const view = document.getElementById(button.dataset.for ?? "");
  if (!view) continue;
  const isCompact = () => (view.getAttribute("compact") ?? "0") !== "0";
  const paint = () => {
    button.textContent = isCompact() ? "Show the full view" : "Back to the compact view";
  };
  button.addEventListener("click", () => {
    view.setAttribute("compact", isCompact() ? "0" : "1");
    paint();
    // The reader asked for this view: keep its top in sight as it grows or shrinks.
    if (view.getBoundingClientRect().top < 0) view.scrollIntoView({ block: "start" });
  });
  paint();
  button.hidden = false;
}
