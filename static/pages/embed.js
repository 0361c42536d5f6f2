// @ts-check
// The iframe embed page (embed.html): reads the view from the query string, e.g.
//   embed.html?text=The%20cat%20sat&layer=2&head=3&token=-1&view=average
// and keeps the "open in full page" link pointing at the same view on the live page.
// Parameters become attributes before the element is defined, so it starts on them (no flash
// of the default sentence), and setAttribute keeps any text a plain string, never markup.

import { define, STATE_KEYS, toHash } from "../attention-view/widget.js";

const view = document.querySelector("attention-view");
const params = new URLSearchParams(location.search);
for (const name of STATE_KEYS) {
  const value = params.get(name);
  if (value !== null) view.setAttribute(name, value);
}
define();

// The live page reads the same state from its URL fragment (static/pages/app.js).
const full = document.querySelector(".embed-full");
const livePage = full.getAttribute("href");
function linkFullPage() {
  const state = {};
  for (const name of STATE_KEYS) state[name] = view.getAttribute(name);
  full.setAttribute("href", livePage + toHash(state));
}
linkFullPage();
view.addEventListener("change", linkFullPage);

// Tell the parent page how tall the content is, so that it can size the iframe to fit (the
// README's five-line listener does). On load and on every change of size; "*" because the
// message holds nothing private and the embedding page may be on any origin.
function postHeight() {
  if (parent === window) return;
  const box = document.body.getBoundingClientRect();
  const height = Math.ceil(box.bottom + window.scrollY + parseFloat(getComputedStyle(document.body).marginBottom));
  parent.postMessage({ type: "attention-view:height", height }, "*");
}
new ResizeObserver(postHeight).observe(document.body);
addEventListener("load", postHeight);
