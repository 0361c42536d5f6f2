// @ts-check
// The element's public `result` for a run and its state: plain data, except `attention` and
// `scores`, which are the run's tensors (attention.js) in nested form, built once per run on
// first request. The export code reads the run's tensors behind a result (outputsOf) instead
// of flattening the nested arrays again.

import { pieceLabel } from "./token-labels.js";
import { AttentionTensor } from "./attention.js";

/**
 * The element's public `result` (README: "Properties, events, export").
 * @typedef {Object} Result
 * @property {boolean} live
 * @property {string} text
 * @property {{id: number, text: string, piece: string}[]} tokens
 * @property {number[][][][]} attention  [layer][head][query][key]
 * @property {number[][][][]} scores  same shape; masked keys -Infinity
 * @property {{id: number, text: string|null, p: number}[]} top  at the pinned token
 * @property {number} token  0-based pinned token (-1 without tokens)
 * @property {number} layer  1-based
 * @property {number} head  1-based
 * @property {"head"|"average"|"rollout"} view
 * @property {"share"|"relative"|"push"} scale  the colour scale (state.js SCALES)
 * @property {(import("./runs.js").Truncation & {shown: number})|null} truncated
 * @property {number|null} step  the training step whose snapshot computed all of this (the
 *   timeline: features/timeline/timeline.js); null: the shipped model
 * @property {[number, number][]} ablated  heads switched off, [layer, head] 1-based ([] = none);
 *   `attention`, `scores` and `top` are then the ablated run's (features/ablation/ablation.js)
 * @property {{id: number, text: string|null, p: number}[]} topBaseline  the top 5 at the pinned
 *   token with every head on (equal to `top` when no head is off)
 * @property {{id: number, text: string|null, p: number, pBaseline: number}|null} nextToken  the
 *   token that comes next in the text, its probability in this run and with every head on;
 *   null at the last token
 * @property {import("../readouts/compare.js").CompareResult|null} compare  the second sentence in compare
 *   mode; null otherwise
 * @property {AttributionResult|null} [attribution]  what each part of the model pushed toward the top 5 at
 *   the pinned token (features/attribution/; docs/embedding.md); null without the graph's attribution
 * @property {string} [target]  the prediction "What pushed" shows (state key `target`: "1"-"5", "next")
 * @property {{id: number, text: string|null, p: number}[][]|null} [lens]  the logit lens at the pinned token:
 *   [layer] -> the top 5 after that layer; null without the graph's attribution
 * @property {import("../features/induction/induction.js").InductionResult} [induction]  the induction head's
 *   readout, only for a model whose meta.json records a circuit
 */


/**
 * `result.attribution`: direct logit attribution at `position` toward `tokens` (k of them),
 * every array 0-based, layer-major like `attention`; `keys` splits the viewed head's push by key.
 * @typedef {{position: number, tokens: {id: number, text: string|null}[], logits: number[],
 *   heads: number[][][], embed: number[], attnBias: number[][], mlp: number[][], lnBias: number[],
 *   keys: number[][]}} AttributionResult
 */

/** @type {WeakMap<object, import("./runs.js").Outputs>} result -> the outputs it was made from */
const outputs = new WeakMap();

/**
 * The outputs behind a result: the run's own for a result of this module, or read from
 * `attention` for a plain object (a result that went through JSON).
 * @returns {{T: number, L: number, H: number, attention: AttentionTensor}}
 * @param {Result} result
 */
export function outputsOf(result) {
  const own = outputs.get(result);
  if (own) return own;
  const attention = AttentionTensor.fromNested(result.attention);
  return { T: result.tokens.length, L: attention.L, H: attention.H, attention };
}

/**
 * The element's public `result` for a run and a pinned state.
 * @param {import("./runs.js").Run} run
 * @param {import("../core/state.js").State} state
 * @param {number} pinned
 * @returns {Result}
 */
export function toResult(run, state, pinned) {
  const top = run.out && pinned >= 0 ? run.out.topAt(pinned) : [];
  const result = /** @type {Result} */ ({
    live: run.live,
    text: run.text,
    tokens: run.labels.map((label, i) => ({ id: run.ids[i], text: label.text, piece: run.pieces[i] })),
    get attention() { return run.out ? run.out.attention.nested() : []; },
    get scores() { return run.out ? run.out.scores.nested() : []; },
    top: top.map(({ id, p }) => {
      const piece = run.pieceOf(id);
      return { id, text: piece === null ? null : pieceLabel(piece), p };
    }),
    token: pinned,
    layer: state.layer,
    head: state.head,
    view: state.view,
    scale: state.scale,
    truncated: run.truncated ? { ...run.truncated, shown: run.ids.length } : null,
    step: run.model?.step ?? null,
  });
  if (run.out) outputs.set(result, run.out);
  return result;
}
