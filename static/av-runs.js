// A "run": everything the view needs about one text — its tokens and labels plus the model's
// outputs — made either live (tokenizer + ORT) or from golden.json (the precomputed default
// sentence, painted while the runtime compiles). Also the public `result` shape.

import { labelTokens, tokenName, pieceLabel } from "./av-tokens.js";
import { topFromLogits } from "./av-views.js";

function withLabels(run) {
  run.labels = labelTokens(run.pieces);
  run.names = run.labels.map((_, i) => tokenName(run.labels, i));
  return run;
}

/**
 * Tokenizes and runs `text`. Longer than the context, it keeps the LAST n_ctx tokens (the
 * ones a language model would condition on to continue the text) and records what it cut.
 */
export async function liveRun(model, text) {
  const { n_ctx, vocab_size } = model.config;
  const { ids, pieces } = model.encode(text);
  const start = Math.max(0, ids.length - n_ctx);
  const kept = ids.slice(start);
  const run = {
    text,
    live: true,
    ids: kept,
    pieces: pieces.slice(start),
    truncated: start > 0 ? { total: ids.length, start } : null,
    out: null,
    pieceOf: (id) => model.tokenizer.id_to_token(id) ?? "",
  };
  if (kept.length) {
    const out = await model.run(kept);
    // Memoised: the renderer and `result` both ask for the pinned position on every update,
    // and each call is a softmax over the whole vocabulary.
    const tops = new Map();
    out.topAt = (q) => {
      if (!tops.has(q)) tops.set(q, topFromLogits(out.logits, vocab_size, q));
      return tops.get(q);
    };
    run.out = out;
  }
  return withLabels(run);
}

/**
 * The same shape from golden.json. The tokenizer only names the predicted tokens; without it
 * (it may arrive a moment later) their labels are empty until `run.tokenizer` is set.
 */
export function goldenRun(golden, meta, tokenizer = null) {
  const { n_layer: L, n_head: H } = meta.config;
  const T = golden.ids.length;
  const flat = (nested, masked) => {
    const a = new Float64Array(L * H * T * T);
    let i = 0;
    for (const layer of nested) for (const head of layer) for (const row of head) {
      for (const v of row) a[i++] = v === null ? masked : v;
    }
    return a;
  };
  const out = {
    T, L, H, V: meta.config.vocab_size,
    attention: flat(golden.attention, 0),
    scores: flat(golden.scores, -Infinity), // JSON has no -Infinity: masked keys are null
    topAt: (q) => golden.top[q],
  };
  const run = withLabels({
    text: golden.text,
    live: false,
    ids: golden.ids.slice(),
    pieces: golden.pieces.slice(),
    truncated: null,
    out: T ? out : null,
    tokenizer,
    pieceOf: (id) => (run.tokenizer ? run.tokenizer.id_to_token(id) ?? "" : null),
  });
  return run;
}

export function emptyRun(live) {
  return { text: "", live, ids: [], pieces: [], labels: [], names: [], truncated: null, out: null, pieceOf: () => "" };
}

const nestedCache = new WeakMap();

// [layer][head][query][key] plain arrays, built once per run on first request.
function nested(run, key) {
  let store = nestedCache.get(run);
  if (!store) nestedCache.set(run, (store = {}));
  if (!store[key]) {
    const { out } = run;
    if (!out) return [];
    const { T, L, H } = out;
    const flat = out[key];
    store[key] = Array.from({ length: L }, (_, l) => Array.from({ length: H }, (_, h) =>
      Array.from({ length: T }, (_, q) => Array.from(flat.subarray(((l * H + h) * T + q) * T, ((l * H + h) * T + q + 1) * T)))));
  }
  return store[key];
}

/** The element's public `result` for a run and a pinned state (see the README). */
export function toResult(run, state, pinned) {
  const top = run.out && pinned >= 0 ? run.out.topAt(pinned) : [];
  return {
    live: run.live,
    text: run.text,
    tokens: run.labels.map((label, i) => ({ id: run.ids[i], text: label.text, piece: run.pieces[i] })),
    get attention() { return nested(run, "attention"); },
    get scores() { return nested(run, "scores"); },
    top: top.map(({ id, p }) => {
      const piece = run.pieceOf(id);
      return { id, text: piece === null ? null : pieceLabel(piece), p };
    }),
    token: pinned,
    layer: state.layer,
    head: state.head,
    view: state.view,
    truncated: run.truncated ? { ...run.truncated, shown: run.ids.length } : null,
  };
}
