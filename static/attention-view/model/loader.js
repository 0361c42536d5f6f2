// @ts-check
// Loading a model folder (meta.json, golden.json, tokenizer.json, model.onnx) and the runtime,
// once per folder: any number of <attention-view> elements on a page share one download of
// model.onnx and one onnxruntime session.
//
// Why the care: a reader on a flaky network must be able to recover with "Try again" alone.
// - Every downloaded file is checked against the sha256 meta.json records, so a truncated,
//   corrupted or mismatched (half-deployed) file is an error instead of wrong numbers.
// - A failed load is forgotten, and `forget(folder)` (what a retry calls) makes the next
//   requests bypass the HTTP cache, so a retry really asks the server again.
// - A download that receives no byte for `downloadTimeout()` ms is aborted instead of
//   leaving "loading…" on screen forever; bytes that do arrive are reported as progress
//   (download.js).
// - A failed onnxruntime start (its wasm missing, say) poisons that runtime, so the next
//   attempt starts a fresh one instead of reusing the memoised failure (runtime.js).
// onnxruntime itself lives in the page's worker (runtime.js): a Model's session is a handle
// whose runs answer with the graph's outputs by name.

import { AttentionTensor } from "./attention.js";
import { download, verify, parseJSON } from "./download.js";
import { loadRuntime, runtimeFailed, runtimeStarted, ORT_WASM } from "./runtime.js";
import { runtimeFailure } from "./failures.js";
import { checkMeta } from "./meta-check.js";
import { heldRuntime } from "./held-files.js";
import { optionalFeeds } from "./graph-inputs.js";
import { attributionRows } from "../readouts/attribution.js";
import { VENDOR } from "../paths.js";
import { yieldToPage } from "../core/slices.js";

/**
 * @typedef {import("@huggingface/tokenizers").Tokenizer} Tokenizer
 * @typedef {{cache: RequestCache, promises: Map<string, Promise<unknown>>, values: Map<string, unknown>,
 *   loaded: Object<string, number>}} Entry  a folder's loads by key (meta.json, its tokenizer, its model, ...)
 */

export { downloadTimeout, setDownloadTimeout } from "./download.js";

/** Progress of model downloads: `progress` events with detail {folder, loaded, total}. */
export const loaderEvents = new EventTarget();

/** @type {Map<string, Entry>} */
const folders = new Map(); // folder URL -> {cache, promises: Map(key -> Promise), loaded}
/** @type {Set<string>} */
const reloaded = new Set(); // folders a retry has forgotten: their fetches skip the HTTP cache

/**
 * The model folder as an absolute URL ending in "/".
 * @param {string} src @param {string} base
 */
export function folderURL(src, base) {
  const url = new URL(src, base);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url.href;
}

/** @param {string} folder @returns {Entry} */
function entry(folder) {
  let e = folders.get(folder);
  if (!e) {
    e = { cache: reloaded.has(folder) ? "reload" : "default", promises: new Map(), values: new Map(), loaded: {} };
    folders.set(folder, e);
  }
  return e;
}

/**
 * One promise per folder and key; a rejected one is dropped so that the next call retries.
 * `make(e)` gets the folder's entry (its cache mode, for download.js). Also for the
 * timeline's files (timeline.js), so that forget() drops them with the rest.
 * @template T
 * @param {string} folder
 * @param {string} key
 * @param {(e: Entry) => Promise<T>} make
 * @returns {Promise<T>}
 */
export function once(folder, key, make) {
  const e = entry(folder);
  if (!e.promises.has(key)) {
    const promise = make(e);
    e.promises.set(key, promise);
    promise.then((value) => e.promises.get(key) === promise && e.values.set(key, value),
      () => e.promises.get(key) === promise && e.promises.delete(key));
  }
  return /** @type {Promise<T>} */ (e.promises.get(key));
}

/**
 * What `once(folder, key)` resolved with, or null while it has not (nothing is started).
 * @template T @param {string} folder @param {string} key @returns {T|null}
 */
export function settled(folder, key) {
  return /** @type {T|null} */ (folders.get(folder)?.values.get(key) ?? null);
}

/**
 * Drops everything loaded from `folder` (meta.json included: it may be the stale one), and
 * makes every later request for it bypass the HTTP cache. Elements already holding a model
 * keep it; the next load starts over.
 * @param {string} folder
 */
export function forget(folder) {
  folders.delete(folder);
  reloaded.add(folder);
}

/** @param {string} folder @returns {Promise<import("../meta-type.js").Meta>} */
export function loadMeta(folder) {
  return once(folder, "meta.json", async (e) => checkMeta(parseJSON("meta.json", await download(folder, "meta.json", e))));
}

// A model file, downloaded and verified against meta.json (both fetched side by side).
/** @param {string} folder @param {string} name @param {Entry} e @param {(bytes: number) => void} [onBytes] */
function verified(folder, name, e, onBytes) {
  return Promise.all([download(folder, name, e, onBytes), loadMeta(folder)]).then(async ([bytes, meta]) => {
    await verify(name, bytes, meta);
    return bytes;
  });
}

/** @param {string} folder */
export function loadGolden(folder) {
  return once(folder, "golden.json", async (e) => parseJSON("golden.json", await verified(folder, "golden.json", e)));
}

/**
 * Bytes a first visit downloads for the model itself (model.onnx + tokenizer.json).
 * @param {Pick<import("../meta-type.js").Meta, "files">} meta
 */
export function modelBytes(meta) {
  const files = meta.files || {};
  return ["model.onnx", "tokenizer.json"].reduce((n, f) => n + (files[f]?.bytes || 0), 0);
}

// Reports the bytes received so far of model.onnx and tokenizer.json together.
/** @param {string} folder @param {Entry} e @param {string} name @returns {(bytes: number) => void} */
function counter(folder, e, name) {
  return (bytes) => {
    e.loaded[name] = bytes;
    const loaded = Object.values(e.loaded).reduce((a, b) => a + b, 0);
    loaderEvents.dispatchEvent(new CustomEvent("progress", { detail: { folder, loaded } }));
  };
}

const TOKENIZER_MODULE = `${VENDOR}tokenizers.min.mjs`;

/**
 * The folder's tokenizer (tokenizer.json through @huggingface/tokenizers), shared.
 * @param {string} folder @returns {Promise<Tokenizer>}
 */
export function loadTokenizer(folder) {
  return once(folder, "tokenizer", async (e) => {
    const [{ Tokenizer }, bytes] = await Promise.all([
      heldRuntime().tokenizers ?? import(TOKENIZER_MODULE),
      verified(folder, "tokenizer.json", e, counter(folder, e, "tokenizer.json")),
    ]);
    const json = parseJSON("tokenizer.json", bytes);
    // Building it is 15-20 ms of script (80 on a phone): a task of its own, apart from the
    // download's end before it and the paint it allows after it.
    await yieldToPage();
    const tokenizer = new Tokenizer(json, {}); // the second argument is required by 0.2.0
    await yieldToPage();
    return tokenizer;
  });
}

/** A loaded model: its session, tokenizer and meta.json. */
export class Model {
  /**
   * `step`: the training step whose snapshot this is (timeline.js); null: the shipped model.
   * @param {import("./runtime.js").Session} session
   * @param {number|null} [step]
   * @param {Tokenizer} tokenizer @param {import("../meta-type.js").Meta} meta
   */
  constructor(session, tokenizer, meta, step = null) {
    this.session = session;
    this.tokenizer = tokenizer;
    this.meta = meta;
    this.config = meta.config;
    /** @type {number|null} */
    this.step = step;
    /** @type {Promise<unknown>} */
    this.queue = Promise.resolve(); // ORT allows one run at a time per session
  }

  /**
   * Token ids and vocabulary pieces for a text (no special tokens).
   * @param {string} text @returns {{ids: number[], pieces: string[]}}
   */
  encode(text) {
    if (text === "") return { ids: [], pieces: [] };
    const enc = this.tokenizer.encode(text, { add_special_tokens: false });
    return { ids: enc.ids, pieces: enc.tokens };
  }

  /**
   * Runs the graph on 1 to n_ctx ids, with the heads whose `headMask` entry (layer-major,
   * L·H values) is 0 switched off (null = every head on), computing next-token logits only at
   * `positions` (0-based; null = every position). The output layer is about half the model's
   * work at 128 tokens, and a view reads one or two positions (runs.js ensureLogits adds more).
   * @returns {Promise<{T: number, L: number, H: number, V: number, mask: Float32Array|null,
   *   rows: Map<number, Float32Array>, attention: AttentionTensor, scores: AttentionTensor,
   *   attribution: Map<number, import("../readouts/attribution.js").AttributionRow>|null}>}
   *   ORT's flat outputs (shapes in docs/model-files.md) as tensors, not copied; `rows` maps a
   *   position to its V logits, `mask` is the `headMask` it ran with
   * @param {number[]} ids
   * @param {Float32Array|null} [headMask]
   * @param {number[]|null} [positions]
   */
  run(ids, headMask = null, positions = null) {
    const job = this.queue.then(() => this._run(ids, headMask, positions));
    this.queue = job.catch(() => {});
    return job;
  }

  /** @param {number[]} ids @param {Float32Array|null} headMask @param {number[]|null} positions */
  async _run(ids, headMask, positions) {
    const { n_layer: L, n_head: H, vocab_size: V, n_ctx } = this.config;
    const T = ids.length;
    if (T < 1 || T > n_ctx) throw new Error(`the model takes 1 to ${n_ctx} tokens, not ${T}`);
    if (headMask !== null && headMask.length !== L * H) throw new Error(`head_mask needs ${L * H} values, not ${headMask.length}`);
    // A copy: the run keeps it (runs.js ensureLogits runs again with the same heads off).
    const mask = headMask === null ? null : Float32Array.from(headMask);
    const int64 = (/** @type {number[]} */ values, /** @type {number[]} */ dims) => ({ type: "int64", data: BigInt64Array.from(values, (i) => BigInt(i)), dims });
    /** @type {Object<string, import("./ort-host.js").Plain>} */
    const feeds = { input_ids: int64(ids, [1, T]) };
    // head_mask and logit_positions are plain inputs (onnxruntime-web cannot feed an
    // initializer-backed default), which an older graph does without (graph-inputs.js).
    const { headMask: fedMask, logitPositions, at } = optionalFeeds(this.session.inputNames, T, L, H, mask, positions);
    if (fedMask) feeds.head_mask = { type: "float32", data: fedMask, dims: [L, H] };
    if (logitPositions) feeds.logit_positions = int64(logitPositions, [logitPositions.length]);
    const res = await this.session.run(feeds);
    const logits = /** @type {Float32Array} */ (res.logits.data); // [1, at.length, V]
    const rows = new Map(at.map((q, i) => [q, logits.subarray(i * V, (i + 1) * V)]));
    const tensor = (/** @type {string} */ name) => new AttentionTensor(/** @type {Float32Array} */ (res[name].data), L, H, T);
    // What each part wrote toward the predictions at those positions (null: an older graph).
    const attribution = attributionRows(res, at, { L, H, T, V });
    return { T, L, H, V, mask, rows, attribution, attention: tensor("attention"), scores: tensor("scores") };
  }
}

/**
 * An onnxruntime session on a graph's bytes (every session of the page shares one backend).
 * @param {import("./runtime.js").Runtime} runtime
 * @param {Uint8Array} bytes
 */
export function createSession(runtime, bytes) {
  return runtime.createSession(bytes).catch(async (err) => {
    runtimeFailed(); // this instance may keep its failure: the next attempt starts afresh
    // The wasm backend did not start (onnxruntime's words): say why, not what it printed.
    throw /no available backend/i.test(String(err?.message)) ? await runtimeFailure(err, ORT_WASM) : err;
  });
}

/**
 * The shared model for a folder (one fetch, one session), loading it on first call.
 * @param {string} folder
 * @param {Promise<unknown>} [after]  the downloads start once this settles (load-folder.js: a
 *   view's preview is on screen), unless the page has started its runtime already (preload.js)
 * @returns {Promise<Model>}
 */
export function loadModel(folder, after) {
  return once(folder, "model", async (e) => {
    if (after && !runtimeStarted()) await after;
    // The runtime starts its wasm at once (runtime.js), and the session is created the moment
    // it and the verified model bytes are in; the tokenizer loads beside them.
    const bytes = verified(folder, "model.onnx", e, counter(folder, e, "model.onnx"));
    const session = Promise.all([loadRuntime(), bytes]).then(([runtime, b]) => createSession(runtime, b));
    const [ready, tokenizer, meta] = await Promise.all([session, loadTokenizer(folder), loadMeta(folder)]);
    return new Model(ready, tokenizer, meta);
  });
}
