// @ts-check
// A first-visit hint under the chips: when the text has a word the tokenizer split into
// several tokens («H»«atter»), say what a token piece is, with that word. Dismissed once
// ("Got it"), it stays away on this browser (localStorage; without storage, for this page).

import { h, setText, setHidden } from "../core/dom.js";
import { wordsOf } from "../model/words.js";
import { chipText } from "../model/token-labels.js";
import { grouped } from "../core/numbers.js";

const KEY = "attention-view:token-pieces-hint";

function stored() {
  try {
    return localStorage.getItem(KEY) === "dismissed";
  } catch {
    return false; // storage blocked (a sandboxed frame, privacy settings): the hint shows until dismissed
  }
}

let dismissed = stored(); // one answer for every view of the page

/**
 * The first word of `labels` made of several tokens, as {text, pieces}, or null.
 * @param {import("../model/token-labels.js").TokenLabel[]} labels
 */
export function splitWord(labels) {
  const word = wordsOf(labels).list.find((w) => w.last > w.first && w.text.trim() !== "");
  if (!word) return null;
  const pieces = [];
  for (let k = word.first; k <= word.last; k++) pieces.push(chipText(labels[k]).trim() || chipText(labels[k]));
  return { text: word.text, pieces };
}

/** @type {import("../core/feature.js").Feature} */
export const tokenPieces = {
  name: "token-pieces",
  mount(slots) {
    const text = h("span.hint-text");
    const close = h("button.hint-close", { type: "button", text: "Got it" });
    const hint = slots.put("row-notes", h("p.hint.pieces-hint", { role: "note", hidden: true }, text, " ", close));
    close.addEventListener("click", () => {
      dismissed = true;
      try {
        localStorage.setItem(KEY, "dismissed");
      } catch {
        // not remembered beyond this page
      }
      setHidden(hint, true);
    });
    return {
      paint(view) {
        const word = dismissed ? null : splitWord(view.labels);
        setHidden(hint, !word);
        if (!word) return;
        const quoted = word.pieces.map((p) => `\u00ab${p}\u00bb`).join(" + ");
        const vocabulary = grouped(view.meta.config.vocab_size);
        setText(text, `\u00ab${word.text}\u00bb is ${word.pieces.length} tokens here, ${quoted}: the model reads ` +
          `tokens, pieces of text from its vocabulary of ${vocabulary}, and a word that is not one of them is made of ` +
          "several. The pieces of one word touch, joined by a thin line.");
      },
    };
  },
};
