// The live page: keeps the URL fragment and the <attention-view> in step, so a view can be
// shared as a link and back/forward walk through what the reader pinned.

import { define } from "./av-element.js";
import { fromHash, toHash } from "./av-state.js";

const view = document.querySelector("attention-view");
const STATE = ["text", "token", "layer", "head", "view"];
const TYPING_PAUSE_MS = 400;

function apply(hash) {
  const attrs = fromHash(hash);
  for (const name of STATE) {
    if (attrs[name] === null) view.removeAttribute(name);
    else view.setAttribute(name, attrs[name]);
  }
}

// Attributes go on before define() so the element starts on the permalink's view.
if (location.hash.length > 1) apply(location.hash);
define();

// Typing writes the URL once per pause, not per key: keystrokes stay tokenize + run + draw,
// and one burst of typing is one history entry. Pins and head choices get their own entries.
let pending = null;
let typingEntry = false;

function write(detail, push) {
  const hash = toHash(detail);
  if (hash === location.hash) return;
  if (push) history.pushState(null, "", hash);
  else history.replaceState(null, "", hash);
}

view.addEventListener("change", (event) => {
  const { detail } = event;
  clearTimeout(pending);
  if (detail.action === "text") {
    pending = setTimeout(() => {
      write(detail, !typingEntry);
      typingEntry = true;
    }, TYPING_PAUSE_MS);
  } else {
    typingEntry = false;
    write(detail, true);
  }
});

window.addEventListener("popstate", () => {
  clearTimeout(pending);
  typingEntry = false;
  apply(location.hash);
});
