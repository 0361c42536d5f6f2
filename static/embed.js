// The iframe embed page (embed.html): reads the view from the query string, e.g.
//   embed.html?text=The%20cat%20sat&layer=2&head=3&token=-1&view=average
// and keeps the "open in full page" link pointing at the same view on the live page.
// Parameters become attributes before the element is defined, so it starts on them (no flash
// of the default sentence), and setAttribute keeps any text a plain string, never markup.

import { define } from "./av-element.js";
import { toHash } from "./av-state.js";

const NAMES = ["text", "layer", "head", "token", "view"];
const view = document.querySelector("attention-view");
const params = new URLSearchParams(location.search);
for (const name of NAMES) {
  const value = params.get(name);
  if (value !== null) view.setAttribute(name, value);
}
define();

// The live page reads the same state from its URL fragment (static/app.js).
const full = document.querySelector(".embed-full");
const livePage = full.getAttribute("href");
function linkFullPage() {
  const state = {};
  for (const name of NAMES) state[name] = view.getAttribute(name);
  full.setAttribute("href", livePage + toHash(state));
}
linkFullPage();
view.addEventListener("change", linkFullPage);
