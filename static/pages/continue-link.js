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

/**
 * A `change` event's detail (core/dispatch.js writeState): every state key's value, the pinned
 * token as a word, the action's type, and `continued` (features/generation/generation.js).
 * @typedef {Object<string, unknown> & {text: string, token: string|number|null, word: string|null, action: string,
 *   continued?: {text: string, tokens: number, temperature: number, topk: number, seed: number}|null}} ChangeDetail
 */

/**
 * N from a fragment's `continue=N`, or null.
 * @param {string|null|undefined} hash
 */
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
 * @param {ChangeDetail} state
 */
export function continuationLink(state) {
  const c = state.continued;
  if (!c) return { state, suffix: "" };
  return {
    state: { ...state, text: c.text, temperature: String(c.temperature), topk: String(c.topk), seed: String(c.seed) },
    suffix: `&${KEY}=${c.tokens}`,
  };
}

/** @type {Promise<void>|null} */
let replaying = null;

/** True while a link's continuation is being written again (its changes are the link's own). */
export function isReplaying() {
  return replaying !== null;
}

/**
 * For a fragment with `continue=N` (its other settings already on `view`): once the view is
 * live on the text, lets the model write the N tokens again, then pins the link's token.
 * @param {import("../attention-view/widget.js").AttentionViewElement} view @param {string} hash
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
