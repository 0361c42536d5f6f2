// @ts-check
// A "run": everything the view needs about one text — its tokens and labels plus the model's
// outputs — made either live (tokenizer + ORT) or from golden.json (the precomputed default
// sentence, painted while the runtime compiles). Also the element's public `result`.
//
// The shapes, once for the whole widget:
//
/**
 * The model's outputs for one run: attention and scores as tensors over the flat buffers of
 * shape [layer][head][query][key] (0-based), straight from ORT or read once from golden.json.
 * @typedef {Object} Outputs
 * @property {number} T  tokens
 * @property {number} L  layers
 * @property {number} H  heads per layer
 * @property {number} V  vocabulary size
 * @property {AttentionTensor} attention  softmax weights; masked keys are 0
 * @property {AttentionTensor} scores  what softmax saw; masked keys are -Infinity
 * @property {(query: number) => {id: number, p: number}[]} topAt  top-5 next tokens (memoised);
 *   [] at a position whose logits were not computed (see ensureLogits)
 * @property {(query: number) => Float32Array|null} [logitsAt]  a live run's V logits at a
 *   position, null where not computed: the graph computes logits only at the positions asked
 *   for (loader.js Model.run)
 * @property {Map<number, Float32Array>} [rows]  those logits, by position
 * @property {Map<number, import("../readouts/attribution.js").AttributionRow>|null} [attribution]  what
 *   each part of the model wrote toward those positions' predictions (null: a graph without it)
 * @property {Float32Array|null} [mask]  the head mask the run had (null: every head on)
 */
/**
 * What was cut from a text longer than the model's context.
 * @typedef {Object} Truncation
 * @property {number|null} total  tokens in the whole text; null when only its tail was
 *   tokenized (very long texts: counting every token would cost a full tokenization)
 * @property {number|null} start  0-based index of the first shown token in the whole text
 */
/**
 * @typedef {Object} Run
 * @property {string} text  the whole input text
 * @property {boolean} live  computed now by the model (false: from golden.json)
 * @property {number[]} ids  the shown tokens' ids (at most n_ctx)
 * @property {string[]} pieces  their vocabulary strings
 * @property {import("./token-labels.js").TokenLabel[]} labels
 * @property {string[]} names  short names for prose, e.g. «Alice»
 * @property {Truncation|null} truncated
 * @property {Outputs|null} out  null for an empty text
 * @property {import("./loader.js").Model|null} model  the loaded model that computed it (null: golden.json, empty)
 * @property {(id: number) => string|null} pieceOf  vocabulary string of an id; null while the
 *   tokenizer has not arrived (golden runs)
 * @property {import("@huggingface/tokenizers").Tokenizer|null} [tokenizer]  a golden run's tokenizer, once it has arrived (it names the predictions)
 * @property {string|null} [ablate]  the heads switched off in `out` (head-set.js canonical
 *   form; null or absent: every head on)
 * @property {import("./head-set.js").Ablation|null} [off]  the same, read (the list of heads)
 * @property {{text: string, count: number, settings: object}} [continued]  a continuation
 *   (features/generation/writer.js): the text before the model wrote, its number of tokens, and the settings
 *   that picked the rest; its ids are the model's, not a tokenization of `text`
 * @property {Outputs|null} [baseline]  the same text with every head on (masked-run.js); `out`
 *   itself when no head is off
 */
import { labelTokens, tokenName } from "./token-labels.js";
import { AttentionTensor } from "./attention.js";
import { loadGolden, loadTokenizer } from "./loader.js";
import { topFromLogits } from "../readouts/readouts.js";

/**
 * @typedef {import("./token-labels.js").TokenLabel} TokenLabel
 * @typedef {import("@huggingface/tokenizers").Tokenizer} Tokenizer
 * @typedef {{text: string, ids: number[], pieces: string[], attention: (number|null)[][][][], scores: (number|null)[][][][],
 *   top: {id: number, p: number}[][]}} Golden  golden.json
 */

// Texts up to this many characters are tokenized whole (the notice can then give the exact
// token count); longer ones only by a tail that holds more than n_ctx tokens, so that a pasted
// book costs a window's worth of tokenizing per keystroke, not the whole book.
export const WHOLE_TEXT_CHARS = 4096;

/**
 * @template {{pieces: string[]}} R
 * @param {R & {labels?: TokenLabel[], names?: string[]}} run @returns {R & {labels: TokenLabel[], names: string[]}}
 */
export function withLabels(run) {
  run.labels = labelTokens(run.pieces);
  run.names = run.labels.map((_, i) => tokenName(/** @type {TokenLabel[]} */ (run.labels), i));
  return /** @type {R & {labels: TokenLabel[], names: string[]}} */ (run);
}

/** @param {string|undefined} ch */
const isSpace = (ch) => ch === undefined || /\s/.test(ch);

/**
 * Where to cut `text` at or after `from` so that the tokens after the cut are the ones the
 * whole text would give: before a single space between two non-spaces, which always starts a
 * new pre-token (" word") of the byte-level BPE's split pattern. Without such a place (a text
 * with no spaces), any code point boundary; the one token at the cut may then differ, and is
 * dropped because the tail must give more than n_ctx tokens.
 * @param {string} text @param {number} from
 */
export function safeCut(text, from) {
  const limit = Math.min(text.length - 1, from + 1024);
  for (let i = Math.max(1, from); i < limit; i++) {
    if (text[i] === " " && !isSpace(text[i - 1]) && !isSpace(text[i + 1])) return i;
  }
  const code = text.charCodeAt(from);
  return code >= 0xdc00 && code <= 0xdfff ? from + 1 : from; // never split a surrogate pair
}

/**
 * The last n_ctx tokens of `text` and what was cut, tokenizing only as much as needed.
 * @param {import("./loader.js").Model} model @param {string} text
 */
export function lastTokens(model, text) {
  const { n_ctx } = model.config;
  let size = n_ctx * 16;
  while (text.length > WHOLE_TEXT_CHARS && size < text.length) {
    const { ids, pieces } = model.encode(text.slice(safeCut(text, text.length - size)));
    if (ids.length > n_ctx) {
      return { ids: ids.slice(-n_ctx), pieces: pieces.slice(-n_ctx), truncated: { total: null, start: null } };
    }
    size *= 4;
  }
  const { ids, pieces } = model.encode(text);
  const start = Math.max(0, ids.length - n_ctx);
  return {
    ids: ids.slice(start),
    pieces: pieces.slice(start),
    truncated: start > 0 ? { total: ids.length, start } : null,
  };
}

/**
 * Gives a live run's outputs their `topAt` and `logitsAt` (see Outputs); returns `out`.
 * @param {Awaited<ReturnType<import("./loader.js").Model["run"]>> & Partial<Outputs>} out  a live run's (Model.run)
 * @returns {Outputs}
 */
export function withPredictions(out) {
  // Memoised: the renderer and `result` both ask for the pinned position on every update,
  // and each call is a softmax over the whole vocabulary.
  /** @type {Map<number, {id: number, p: number}[]>} */
  const tops = new Map();
  out.logitsAt = (q) => out.rows.get(q) ?? null;
  out.topAt = (q) => {
    if (!tops.has(q)) {
      const row = /** @type {(query: number) => Float32Array|null} */ (out.logitsAt)(q);
      if (!row) return [];
      tops.set(q, topFromLogits(row));
    }
    return /** @type {{id: number, p: number}[]} */ (tops.get(q));
  };
  return /** @type {Outputs} */ (out);
}

/**
 * The positions of `run` whose predictions the view reads for `pinned` and `shown` (the
 * hovered token, or the pinned one): those two and the last token (what "Continue" picks
 * from), 0-based and within the run.
 * @param {number} count @param {...number} indices
 */
export function viewPositions(count, ...indices) {
  return [...new Set([...indices, count - 1])].filter((q) => q >= 0 && q < count);
}

/**
 * Makes sure `run`'s live outputs (and its every-head-on baseline) have logits at `positions`,
 * running the model again for any that are missing, with the same heads off; the attention of
 * that run is the same and is not kept. Resolves true when it ran the model.
 * @param {import("./loader.js").Model} model @param {Run} run @param {number[]} positions
 */
export async function ensureLogits(model, run, positions) {
  let ran = false;
  for (const out of new Set([run.out, run.baseline])) {
    if (!out?.rows || run.model !== model) continue;
    const missing = positions.filter((q) => q >= 0 && q < out.T && !/** @type {Map<number, Float32Array>} */ (out.rows).has(q));
    if (!missing.length) continue;
    const more = await model.run(run.ids, out.mask, missing);
    for (const [q, row] of more.rows) out.rows.set(q, row);
    for (const [q, row] of more.attribution ?? []) out.attribution?.set(q, row);
    ran = true;
  }
  return ran;
}

/**
 * Tokenizes and runs `text`. Longer than the context, it keeps the LAST n_ctx tokens (the
 * ones a language model would condition on to continue the text) and records what it cut.
 * `headMask`: head-set.js maskFor (null = every head on). `previous`: the run on screen.
 * `positions(run)`: the positions to compute logits at, given the tokenized run (null: all).
 * @param {import("./loader.js").Model} model
 * @param {string} text
 * @param {Float32Array|null} [headMask]
 * @param {Run|null} [previous]
 * @param {((run: Run) => number[])|null} [positions]
 * @returns {Promise<Run>}
 */
export async function liveRun(model, text, headMask = null, previous = null, positions = null) {
  // The same text as `previous` keeps its ids: a continuation's are the ids the model chose
  // (features/generation/writer.js), which tokenizing its text again need not give back.
  const same = previous?.model === model && previous.text === text && previous.ids.length > 0;
  const { ids, pieces, truncated } = same ? /** @type {Run} */ (previous) : lastTokens(model, text);
  const run = /** @type {Run} */ ({
    text,
    live: true,
    ids,
    pieces,
    truncated,
    out: null,
    model,
    pieceOf: (id) => model.tokenizer.id_to_token(id) ?? "",
  });
  if (same && previous?.continued) run.continued = previous.continued;
  withLabels(run);
  if (ids.length) run.out = withPredictions(await model.run(ids, headMask, positions ? positions(run) : null));
  return run;
}

/**
 * The same shape from golden.json. The tokenizer only names the predicted tokens; without it
 * (it may arrive a moment later) their labels are empty until `run.tokenizer` is set.
 * @returns {Run}
 * @param {Golden} golden @param {import("../meta-type.js").Meta} meta @param {Tokenizer|null} [tokenizer]
 */
export function goldenRun(golden, meta, tokenizer = null) {
  const { n_layer: L, n_head: H } = meta.config;
  const T = golden.ids.length;
  // golden.json nests [layer][head][query][key] (JSON has no typed arrays): read once.
  const out = T ? {
    T, L, H, V: meta.config.vocab_size,
    attention: AttentionTensor.fromNested(golden.attention, 0),
    scores: AttentionTensor.fromNested(golden.scores, -Infinity), // JSON has no -Infinity: masked keys are null
    topAt: (/** @type {number} */ q) => golden.top[q],
  } : null;
  const run = withLabels({
    text: golden.text,
    live: false,
    ids: golden.ids.slice(),
    pieces: golden.pieces.slice(),
    truncated: null,
    out,
    model: null,
    tokenizer,
    pieceOf: (/** @type {number} */ id) => (run.tokenizer ? run.tokenizer.id_to_token(id) ?? "" : null),
  });
  return run;
}

/**
 * The golden.json run of `folder` for the first paint, or null without a usable one. It is only
 * a head start: a folder without one (or with a bad one) still gets the live model's paint,
 * and the live model is what reports a real failure. The tokenizer, which names the
 * predictions ("…" until then), arrives later: `named(run)` is called then.
 * @returns {Promise<Run|null>}
 * @param {string} folder @param {import("../meta-type.js").Meta} meta @param {(run: Run) => void} named
 */
export async function goldenHeadStart(folder, meta, named) {
  const golden = await loadGolden(folder).catch(() => null);
  if (!golden) return null;
  const run = goldenRun(golden, meta);
  loadTokenizer(folder).then((tokenizer) => {
    run.tokenizer = tokenizer;
    named(run);
  }, () => {});
  return run;
}

/**
 * @param {boolean} live
 * @returns {Run}
 */
export function emptyRun(live) {
  return { text: "", live, ids: [], pieces: [], labels: [], names: [], truncated: null, out: null, model: null, pieceOf: () => "" };
}
