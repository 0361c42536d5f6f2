// @ts-check
// What each part of the model wrote toward a prediction, read off the graph's attribution
// outputs (docs/model-files.md "Attribution outputs" defines them): direct logit attribution per
// component and per key, and the logit lens. Pure: no DOM, no model. Nothing of the model is
// computed here; the only arithmetic is picking columns, and softmax and top 5 of the lens.

import { topFromLogits } from "./readouts.js";
import { pieceLabel } from "../model/token-labels.js";

// The graph's attribution outputs, by name (attention_live/feeds.py ATTRIBUTION_OUTPUTS).
const OUTPUTS = ["attribution_ids", "attribution_embed", "attribution_heads", "attribution_attn_bias",
  "attribution_mlp", "attribution_ln_bias", "attribution_keys", "lens_logits"];

/**
 * One logit position's attribution, as views into the run's flat outputs. J targets: the top
 * K = J - 1 tokens, then the text's next token (the last position repeats its own token there).
 * @typedef {Object} AttributionRow
 * @property {number[]} ids  [J]
 * @property {Float32Array} embed  [J]
 * @property {Float32Array} heads  [layer][head][J]
 * @property {Float32Array} attnBias  [layer][J]
 * @property {Float32Array} mlp  [layer][J]
 * @property {Float32Array} lnBias  [J]
 * @property {Float32Array} keys  [layer][head][key T][J]
 * @property {Float32Array} lens  [layer][V]
 */

/**
 * A run's attribution by position, from the graph's outputs by name (`at`: the logit positions
 * in the order fed), or null for a graph exported before it had them.
 * @param {Object<string, {data: any, dims: readonly number[]}>} res
 * @param {number[]} at
 * @param {{L: number, H: number, T: number, V: number}} dims
 * @returns {Map<number, AttributionRow>|null}
 */
export function attributionRows(res, at, { L, H, T, V }) {
  if (!OUTPUTS.every((name) => res[name])) return null;
  const J = res.attribution_ids.dims[1];
  /** @param {string} name @param {number} size @param {number} i */
  const slice = (name, size, i) => /** @type {Float32Array} */ (res[name].data).subarray(i * size, (i + 1) * size);
  const ids = res.attribution_ids.data;
  return new Map(at.map((q, i) => [q, {
    ids: Array.from({ length: J }, (_, j) => Number(ids[i * J + j])),
    embed: slice("attribution_embed", J, i),
    heads: slice("attribution_heads", L * H * J, i),
    attnBias: slice("attribution_attn_bias", L * J, i),
    mlp: slice("attribution_mlp", L * J, i),
    lnBias: slice("attribution_ln_bias", J, i),
    keys: slice("attribution_keys", L * H * T * J, i),
    lens: slice("lens_logits", L * V, i),
  }]));
}

/**
 * The graph's columns a result shows at position `q` of a T-token text: the top K, then the
 * text's next token when there is one and it is not among them (result.js `attribution.tokens`).
 * @param {Pick<AttributionRow, "ids">} row  (the preview's has only its ids)
 * @param {number} q
 * @param {number} T
 */
export function columnsOf(row, q, T) {
  const K = row.ids.length - 1;
  const columns = Array.from({ length: K }, (_, j) => j);
  if (q < T - 1 && !row.ids.slice(0, K).includes(row.ids[K])) columns.push(K);
  return columns;
}

/**
 * The state key `target` ("1"–"5": the top 5 by rank; "next": the text's next token) as a column
 * of `row`: the next token's own column, or its rank when it is among the top K. A rank the
 * vocabulary does not have, or "next" at the last token, falls back to the top token.
 * @param {Pick<AttributionRow, "ids">} row  (the preview's has only its ids)
 * @param {string} target
 * @param {number} q
 * @param {number} T
 */
export function targetColumn(row, target, q, T) {
  const K = row.ids.length - 1;
  if (target === "next") {
    if (q >= T - 1) return 0;
    const rank = row.ids.slice(0, K).indexOf(row.ids[K]);
    return rank >= 0 ? rank : K;
  }
  const rank = Number(target) - 1;
  return rank >= 0 && rank < K ? rank : 0;
}

/**
 * `el.result.attribution` at position `q` (docs/embedding.md): the run's outputs `out` (with
 * `attribution` and `logitsAt`), the viewed head (1-based) whose pushes `keys` splits by key,
 * `label(id)` names a token as `result.top` does. Null where the graph has no attribution there.
 * @param {any} out
 * @param {number} q
 * @param {number} layer
 * @param {number} head
 * @param {(id: number) => string|null} label
 */
export function attributionResult(out, q, layer, head, label) {
  const row = out?.attribution?.get(q);
  const logits = out?.logitsAt?.(q);
  if (!row || !logits) return null;
  const { L, H, T } = out;
  const J = row.ids.length;
  const cols = columnsOf(row, q, T);
  /** @param {ArrayLike<number>} arr @param {number} base */
  const pick = (arr, base) => cols.map((c) => arr[base + c]);
  /** @param {ArrayLike<number>} arr @param {number} n */
  const grid = (arr, n) => Array.from({ length: n }, (_, i) => pick(arr, i * J));
  const keyBase = ((layer - 1) * H + (head - 1)) * T * J;
  return {
    position: q,
    tokens: cols.map((c) => ({ id: row.ids[c], text: label(row.ids[c]) })),
    logits: cols.map((c) => logits[row.ids[c]]),
    heads: Array.from({ length: L }, (_, l) => grid(row.heads.subarray(l * H * J, (l + 1) * H * J), H)),
    embed: pick(row.embed, 0),
    attnBias: grid(row.attnBias, L),
    mlp: grid(row.mlp, L),
    lnBias: pick(row.lnBias, 0),
    keys: Array.from({ length: q + 1 }, (_, s) => pick(row.keys, keyBase + s * J)),
  };
}

/**
 * `el.result.lens` at position `q`: [layer] -> the top `k` next tokens after that layer, as
 * `result.top` gives them (softmax of the lens logits); null where the graph has none.
 * @param {any} out
 * @param {number} q
 * @param {(id: number) => string|null} label
 */
export function lensResult(out, q, label, k = 5) {
  const row = out?.attribution?.get(q);
  if (!row) return null;
  const V = row.lens.length / out.L;
  return Array.from({ length: out.L }, (_, l) => topFromLogits(row.lens.subarray(l * V, (l + 1) * V), k)
    .map(({ id, p }) => ({ id, text: label(id), p })));
}

/**
 * The viewed head's push toward column `c` through each key 0..q, or null without attribution
 * there (the row's "push" colouring).
 * @param {any} out
 * @param {number} q
 * @param {number} layer  1-based
 * @param {number} head  1-based
 * @param {number} c
 */
export function keyPushes(out, q, layer, head, c) {
  const row = out?.attribution?.get(q);
  if (!row) return null;
  const J = row.ids.length;
  const base = ((layer - 1) * out.H + (head - 1)) * out.T * J;
  return Float32Array.from({ length: q + 1 }, (_, s) => row.keys[base + s * J + c]);
}

/**
 * Whether a model's graph returns the attribution outputs (meta.json's `onnx.axes` names them):
 * known before the runtime is, so the view can hold "What pushed"'s room from the first paint.
 * @param {any} meta
 */
export const hasAttribution = (meta) => Boolean(meta?.onnx?.axes?.attribution_ids);

/**
 * The graph's target ids at `q` (AttributionRow `ids`) as they will be, from what the preview
 * has: the top K of `out.topAt`, then the text's next token (at the last position, its own).
 * @param {any} out
 * @param {number[]} ids  the text's token ids
 * @param {number} q
 */
export function expectedIds(out, ids, q) {
  return [...out.topAt(q).map((/** @type {{id: number}} */ t) => t.id), ids[Math.min(q + 1, ids.length - 1)]];
}

/**
 * The parts of the model "What pushed" has a bar for, in the graph's order: the embedding, each
 * head, each layer's attention bias and MLP (an attention-only layer has none), the final
 * LayerNorm's bias. `at(kind, l, h)` gives each one's value (0-based layer and head).
 * @param {number} L
 * @param {number} H
 * @param {{attn_only_layers?: number}} config
 * @param {(kind: "embed"|"head"|"attnBias"|"mlp"|"lnBias", l: number, h: number) => number} at
 * @returns {{name: string, long: string, value: number, layer?: number, head?: number}[]}
 */
export function components(L, H, config, at = () => 0) {
  /** @type {{name: string, long: string, value: number, layer?: number, head?: number}[]} */
  const bars = [{ name: "embedding", long: "the token's embedding", value: at("embed", 0, 0) }];
  for (let l = 0; l < L; l++) {
    for (let h = 0; h < H; h++) {
      bars.push({ name: `L${l + 1}H${h + 1}`, long: `layer ${l + 1} head ${h + 1}`, value: at("head", l, h), layer: l + 1, head: h + 1 });
    }
    bars.push({ name: `L${l + 1} attn bias`, long: `layer ${l + 1}'s attention output bias`, value: at("attnBias", l, 0) });
    if (l >= (config.attn_only_layers ?? 0)) bars.push({ name: `L${l + 1} MLP`, long: `layer ${l + 1}'s MLP`, value: at("mlp", l, 0) });
  }
  bars.push({ name: "LN bias", long: "the final LayerNorm's bias", value: at("lnBias", 0, 0) });
  return bars;
}

/**
 * One bar per component (`components`) toward column `c` at position `q`, largest push first,
 * with their sum, which is the logit (the graph's sum rule).
 * @param {any} out
 * @param {number} q
 * @param {number} c
 * @param {{attn_only_layers?: number}} config
 * @returns {{bars: {name: string, long: string, value: number, layer?: number, head?: number}[], sum: number}|null}
 */
export function componentBars(out, q, c, config) {
  const row = out?.attribution?.get(q);
  if (!row) return null;
  const { L, H } = out;
  const J = row.ids.length;
  const bars = components(L, H, config, (kind, l, h) => (kind === "embed" ? row.embed[c]
    : kind === "head" ? row.heads[(l * H + h) * J + c]
    : kind === "attnBias" ? row.attnBias[l * J + c]
    : kind === "mlp" ? row.mlp[l * J + c]
    : row.lnBias[c]));
  const sum = bars.reduce((s, b) => s + b.value, 0);
  bars.sort((a, b) => b.value - a.value);
  return { bars, sum };
}

/**
 * The row's "push toward" colouring for a view: the viewed head's (state's layer and head) push
 * toward the state's `target` through each key up to the shown token, the scale's end (the
 * largest push), and names for the legend; null where the graph has no attribution there.
 * @param {any} view  core/view.js View
 */
export function pushedRow(view) {
  const q = view.shown;
  const row = q >= 0 ? view.out?.attribution?.get(q) : null;
  if (!row) return null;
  const { layer, head, target } = view.state;
  const column = targetColumn(row, target, q, view.out.T);
  const values = keyPushes(view.out, q, layer, head, column);
  if (!values) return null;
  let max = 1e-6;
  for (const x of values) max = Math.max(max, Math.abs(x));
  return { values, max, name: quotedPiece(view, row.ids[column]), head: `layer ${layer} head ${head}` };
}

/**
 * A token as the view names a prediction: «Queen»; «…» until the tokenizer is there.
 * @param {{pieceOf: (id: number) => string|null}} view @param {number} id
 */
function quotedPiece(view, id) {
  const piece = view.pieceOf(id);
  const text = piece === null ? "\u2026" : pieceLabel(piece);
  return `\u00ab${text.trim() || text}\u00bb`;
}

/**
 * The state's `target` token at the shown position, quoted, as "What pushed" names it: the
 * graph's, or in the preview the one it will be (`expectedIds`); null without a shown token.
 * @param {any} view  core/view.js View
 */
export function targetName(view) {
  const q = view.shown;
  if (q < 0 || !view.out?.topAt) return null;
  const row = view.out.attribution?.get(q) ?? { ids: expectedIds(view.out, view.run.ids, q) };
  return quotedPiece(view, row.ids[targetColumn(row, view.state.target, q, view.out.T)]);
}

/**
 * One sentence on a "push toward" row (pushedRow): the key the head's push came through most,
 * and, when the key it looks at most is another one, what that key gave. `names`: the tokens'.
 * @param {NonNullable<ReturnType<typeof pushedRow>>} push
 * @param {string[]} names
 * @param {ArrayLike<number>} [weights]  the row's attention, for the key looked at most
 */
export function describePush(push, names, weights = undefined) {
  const { values } = push;
  let most = 0;
  for (let k = 1; k < values.length; k++) if (values[k] > values[most]) most = k;
  /** @param {number} x */
  const signed = (x) => `${x < 0 ? "\u2212" : "+"}${Math.abs(x).toFixed(2)}`;
  const total = Array.from(values).reduce((a, b) => a + b, 0);
  let text = `Its push toward ${push.name} is ${signed(total)} in all, the most through \u00ab${names[most]}\u00bb (${signed(values[most])})`;
  if (weights) {
    let look = 0;
    for (let k = 1; k < values.length; k++) if (weights[k] > weights[look]) look = k;
    if (look !== most) text += `; the token it looks at most, \u00ab${names[look]}\u00bb, gives ${signed(values[look])}`;
  }
  return text + ".";
}
