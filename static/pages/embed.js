// @ts-check
// The iframe embed page (embed.html): reads the view from the query string, e.g.
//   embed.html?text=The%20cat%20sat&layer=2&head=3&token=-1&view=average
// and keeps the "open in full page" link pointing at the same view on the live page.
// Parameters become attributes before the element is defined, so it starts on them (no flash
// of the default sentence), and setAttribute keeps any text a plain string, never markup.

import { define, STATE_KEYS, toHash } from "../attention-view/widget.js";

const view = /** @type {import("../attention-view/widget.js").AttentionViewElement} */ (document.querySelector("attention-view"));
const params = new URLSearchParams(location.search);
for (const name of STATE_KEYS) {
  const value = params.get(name);
  if (value !== null) view.setAttribute(name, value);
}
define();

// The live page reads the same state from its URL fragment (static/pages/app.js).
const full = /** @type {HTMLAnchorElement} */ (document.querySelector(".embed-full"));
const livePage = full.getAttribute("href");
function linkFullPage() {
  /** @type {Object<string, string|null>} */
  const state = {};
  for (const name of STATE_KEYS) state[name] = view.getAttribute(name);
  full.setAttribute("href", livePage + toHash(state));
}
linkFullPage();
view.addEventListener("change", linkFullPage);

// Tell the parent page how tall the content is, so that it can size the iframe to fit (the
// README's five-line listener does); "*" because the message holds nothing private and the
// embedding page may be on any origin. Never the fallback's height: until the view has drawn
// (or failed), the frame keeps the height its page gave it, so a frame that loads off screen
// does not shrink to the fallback and then jump to the view. After that, on every change of
// size and after every update. Not only from a ResizeObserver: a browser skips rendering, and
// with it resize observations, for a cross-origin frame off screen, so the height is also
// measured (a forced layout) when the view goes live and after each change. embed.html's panels
// are all laid out even off screen (site.css), so this is the height the reader will see.
const drawn = () => ["preview", "live", "error"].includes(view.getAttribute("data-status") ?? "");
let posted = 0;
function postHeight() {
  if (parent === window || !drawn()) return;
  const box = document.body.getBoundingClientRect();
  const height = Math.ceil(box.bottom + window.scrollY + parseFloat(getComputedStyle(document.body).marginBottom));
  if (height === posted) return;
  posted = height;
  parent.postMessage({ type: "attention-view:height", height }, "*");
}
// After the task that drew: the view reveals its panels in a microtask of that task.
const postSoon = () => setTimeout(postHeight, 0);
new ResizeObserver(postHeight).observe(document.body);
new MutationObserver(postSoon).observe(view, { attributes: true, attributeFilter: ["data-status"] });
view.addEventListener("change", () => view.ready.then(postSoon, postSoon));
// The frame resized by its page: measured again, as the body may have changed size in between
// without the observer saying so (seen in Firefox: a height posted while the view was
// finishing its live paint, 40 px above what the frame then held, stayed).
addEventListener("resize", postSoon);
