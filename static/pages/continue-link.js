// @ts-check
// The live page's links to a continuation (the view's "Continue",
// features/generation/writer.js): the text as it was before the model wrote, the settings
// that picked the tokens, and `continue=N`, the number of tokens the model wrote. Opening
// such a link lets the model write those N tokens again, which gives the very same token
// ids (the same seed, text and settings pick the same tokens: sampler.js), where the
// written-out text would be tokenized afresh, and byte-level BPE does not always give back
// the ids it came from.

import { fromHash } from "../attention-view/widget.js";

const KEY = "continue";

/** N from a fragment's `continue=N`, or null. */
export function continueCount(hash) {
  const value = new URLSearchParams(String(hash || "").replace(/^#/, "")).get(KEY);
  // Digits only, as the view's own numbers (state.js): Number() would read "0x10" or "1e1".
  if (value === null || !/^[0-9]+$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 1 ? n : null;
}

/**
 * A link's state and the `continue` suffix for a change detail: while the view shows a
 * continuation, the text before it and the settings that wrote it; otherwise as it is.
 */
export function continuationLink(state) {
  const c = state.continued;
  if (!c) return { state, suffix: "" };
  return {
    state: { ...state, text: c.text, temperature: String(c.temperature), topk: String(c.topk), seed: String(c.seed) },
    suffix: `&${KEY}=${c.tokens}`,
  };
}

let replaying = null;

/** True while a link's continuation is being written again (its changes are the link's own). */
export function isReplaying() {
  return replaying !== null;
}

/**
 * For a fragment with `continue=N` (its other settings already on `view`): once the view is
 * live on the text, lets the model write the N tokens again, then pins the link's token.
 */
export function replay(view, hash) {
  const n = continueCount(hash);
  if (n === null) return;
  const { token } = fromHash(hash);
  const job = (replaying = view.ready
    .then(() => view.generate({ maxTokens: n }))
    .then((result) => {
      if (token !== null && result.reason !== "edit" && result.reason !== "stop") view.setAttribute("token", token);
    })
    .catch(() => {}) // a bad setting or a failed load: the view says so itself
    .finally(() => {
      if (replaying === job) replaying = null;
    }));
}
