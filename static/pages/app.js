// @ts-check
// The live page: keeps the URL fragment and the <attention-view> in step, so a view can be
// shared as a link and back/forward walk through what the reader pinned.

import { define, STATE_KEYS, fromHash, toHash } from "../attention-view/widget.js";
import { continuationLink, replay, isReplaying } from "./continue-link.js";

/** @typedef {import("./continue-link.js").ChangeDetail} ChangeDetail */

const view = /** @type {import("../attention-view/widget.js").AttentionViewElement} */ (document.querySelector("attention-view"));
const TYPING_PAUSE_MS = 400;
// Before the view has computed a long text (so what it shows is not known yet), a link keeps
// at most this many of its last characters; then exactly the shown part.
const MAX_LINK_CHARS = 4096;

/** @param {string} hash */
function apply(hash) {
  const attrs = fromHash(hash);
  for (const name of STATE_KEYS) {
    if (attrs[name] === null) view.removeAttribute(name);
    else view.setAttribute(name, attrs[name]);
  }
}

// Attributes go on before define() so the element starts on the permalink's view.
if (location.hash.length > 1) apply(location.hash);
define();
replay(view, location.hash);

// Says so under the view when the link holds only part of the text.
const note = document.createElement("p");
note.className = "small permalink-note";
note.hidden = true;
view.after(note);

/**
 * The state a link stores: a text longer than the model reads is cut to the part the view
 * shows (its last n_ctx tokens), since a pasted book would make a link no browser opens.
 * @param {ChangeDetail} detail
 */
async function linkState(detail) {
  const result = await view.ready.catch(() => null);
  const shown = result && result.text === detail.text && result.truncated
    ? result.tokens.map((/** @type {{text: string}} */ t) => t.text).join("") : null;
  let text = detail.text;
  if (shown !== null) text = shown;
  else if (text.length > MAX_LINK_CHARS) text = text.slice(-MAX_LINK_CHARS);
  const cut = text !== detail.text;
  note.hidden = !cut;
  note.textContent = cut
    ? `The link in the address bar keeps only the part of the text the view shows (the last ${result?.tokens.length ?? "few thousand characters"}${result ? " tokens" : ""}), not the whole text.`
    : "";
  // The pinned token as a word ("said#2") when the view found one that names it: a link that
  // still means the same token if an author edits the text around it.
  const token = !cut && detail.word ? detail.word : detail.token;
  return { ...detail, text, token };
}

// Typing writes the URL once per pause, not per key: keystrokes stay tokenize + run + draw,
// and one burst of typing is one history entry. Pins and head choices get their own entries.
/** @type {number|null} */
let pending = null;
/** @type {string|false} the burst ("typing", "generate") the history entry being replaced belongs to */
let typingEntry = false;
let writes = 0;

/** @param {ChangeDetail} detail @param {boolean} push */
async function write(detail, push) {
  const ticket = ++writes;
  const { state, suffix } = continuationLink(await linkState(detail));
  if (ticket !== writes) return; // a newer change is being written
  const hash = toHash(state) + suffix;
  if (hash === location.hash) return;
  if (push) history.pushState(null, "", hash);
  else history.replaceState(null, "", hash);
}

view.addEventListener("change", (event) => {
  const { detail } = /** @type {CustomEvent<ChangeDetail>} */ (event);
  if (detail.action === "generate" && isReplaying()) return; // the link being written again stays
  clearTimeout(/** @type {number} */ (pending)); // null: nothing to clear
  // Typing in either text box, or the model writing: one history entry per burst.
  const burst = detail.action === "generate" ? "generate" : detail.action === "text" || detail.action === "compareText" ? "typing" : null;
  if (burst) {
    pending = setTimeout(() => {
      write(detail, typingEntry !== burst);
      typingEntry = burst;
    }, TYPING_PAUSE_MS);
  } else {
    typingEntry = false;
    write(detail, true);
  }
});

window.addEventListener("popstate", () => {
  clearTimeout(/** @type {number} */ (pending)); // null: nothing to clear
  typingEntry = false;
  apply(location.hash);
  replay(view, location.hash);
});
