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
//   leaving "loading…" on screen forever; bytes that do arrive are reported as progress.
// - A failed onnxruntime start (its wasm missing, say) poisons that module instance, so the
//   next attempt imports a fresh instance instead of reusing the memoised failure.

import { heldFile, heldRuntime } from "./held-files.js";

const DEFAULT_TIMEOUT_MS = 30_000; // no byte for 30 s: the connection is as good as dead
let timeoutMs = DEFAULT_TIMEOUT_MS;

/** How long a download may go without receiving a byte before it fails (ms). */
export function downloadTimeout() {
  return timeoutMs;
}

/** Sets that limit for every element on the page; a non-positive value restores 30 s. */
export function setDownloadTimeout(ms) {
  timeoutMs = Number(ms) > 0 ? Number(ms) : DEFAULT_TIMEOUT_MS;
}

/** Progress of model downloads: `progress` events with detail {folder, loaded, total}. */
export const loaderEvents = new EventTarget();

const folders = new Map(); // folder URL -> {cache, promises: Map(key -> Promise), loaded}
const reloaded = new Set(); // folders a retry has forgotten: their fetches skip the HTTP cache

/** The model folder as an absolute URL ending in "/". */
export function folderURL(src, base) {
  const url = new URL(src, base);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url.href;
}

function entry(folder) {
  let e = folders.get(folder);
  if (!e) {
    e = { cache: reloaded.has(folder) ? "reload" : "default", promises: new Map(), loaded: {} };
    folders.set(folder, e);
  }
  return e;
}

// One promise per folder and key; a rejected one is dropped so that the next call retries.
function once(folder, key, make) {
  const e = entry(folder);
  if (!e.promises.has(key)) {
    const promise = make(e);
    e.promises.set(key, promise);
    promise.catch(() => e.promises.get(key) === promise && e.promises.delete(key));
  }
  return e.promises.get(key);
}

/**
 * Drops everything loaded from `folder` (meta.json included: it may be the stale one), and
 * makes every later request for it bypass the HTTP cache. Elements already holding a model
 * keep it; the next load starts over.
 */
export function forget(folder) {
  folders.delete(folder);
  reloaded.add(folder);
}

/** The bytes of `folder + name`, aborted after downloadTimeout() ms without a byte. */
async function download(folder, name, e, onBytes = () => {}) {
  const held = heldFile(folder, name);
  if (held) return held;
  const url = folder + name;
  const controller = new AbortController();
  let timer = 0;
  let timedOut = false;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
  };
  const why = (err) => timedOut
    ? new Error(`${name} stopped arriving (no data for ${Math.round(timeoutMs / 1000)} s)`)
    : new Error(`could not fetch ${url} (${err.message})`);
  arm();
  try {
    let response;
    try {
      response = await fetch(url, { credentials: "same-origin", cache: e.cache, signal: controller.signal });
    } catch (err) {
      throw why(err);
    }
    if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
    if (!response.body) return new Uint8Array(await response.arrayBuffer());
    const reader = response.body.getReader();
    const chunks = [];
    let size = 0;
    for (;;) {
      arm();
      let part;
      try {
        part = await reader.read();
      } catch (err) {
        throw why(err);
      }
      if (part.done) break;
      chunks.push(part.value);
      size += part.value.byteLength;
      onBytes(size);
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.byteLength;
    }
    return bytes;
  } finally {
    clearTimeout(timer);
  }
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Checks `bytes` against the sha256 meta.json records for `name`. Skipped (not failed) where
 * the page is no secure context (crypto.subtle is missing: plain http on a non-local host) or
 * meta.json records no hash for the file.
 */
async function verify(name, bytes, meta) {
  const want = meta.files?.[name]?.sha256;
  if (!want || !globalThis.crypto?.subtle) return;
  const got = hex(await crypto.subtle.digest("SHA-256", bytes));
  if (got !== want) throw new Error(`${name} is corrupt or from another version (its sha256 is not the one meta.json records)`);
}

function parseJSON(name, bytes) {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw new Error(`${name} is not valid JSON (${err.message})`);
  }
}

export function loadMeta(folder) {
  return once(folder, "meta.json", async (e) => parseJSON("meta.json", await download(folder, "meta.json", e)));
}

// A model file, downloaded and verified against meta.json (both fetched side by side).
function verified(folder, name, e, onBytes) {
  return Promise.all([download(folder, name, e, onBytes), loadMeta(folder)]).then(async ([bytes, meta]) => {
    await verify(name, bytes, meta);
    return bytes;
  });
}

export function loadGolden(folder) {
  return once(folder, "golden.json", async (e) => parseJSON("golden.json", await verified(folder, "golden.json", e)));
}

/** Bytes a first visit downloads for the model itself (model.onnx + tokenizer.json). */
export function modelBytes(meta) {
  const files = meta.files || {};
  return ["model.onnx", "tokenizer.json"].reduce((n, f) => n + (files[f]?.bytes || 0), 0);
}

// Reports the bytes received so far of model.onnx and tokenizer.json together.
function counter(folder, e, name) {
  return (bytes) => {
    e.loaded[name] = bytes;
    const loaded = Object.values(e.loaded).reduce((a, b) => a + b, 0);
    loaderEvents.dispatchEvent(new CustomEvent("progress", { detail: { folder, loaded } }));
  };
}

let ortPromise = null;
let ortAttempt = 0;
function loadOrt() {
  // Only the wasm build: the package's default entry pulls a 28 MB wasm with WebGPU support.
  // After a failed start the module instance remembers its failure, so a retry imports the
  // module under a new URL, i.e. a new instance that starts from scratch.
  const url = "../vendor/ort.wasm.min.mjs" + (ortAttempt ? `?attempt=${ortAttempt}` : "");
  const attempt = ortAttempt;
  const { ort: given, wasm } = heldRuntime();
  ortPromise ??= (given ? Promise.resolve(given) : import(url)).then((ort) => {
    if (wasm) ort.env.wasm.wasmBinary = wasm;
    // One thread: faster on small machines at this size, and needs no COOP/COEP headers.
    ort.env.wasm.numThreads = 1;
    // Warnings reach the console as errors, and a reader's console is not where a model
    // loader's notices belong: failures still throw and show in the status line.
    ort.env.logLevel = "error";
    if (attempt) {
      // The failed wasm answer may sit in the HTTP cache (a 404 sent with cache headers, a
      // truncated file): ask for it under a URL no cache has seen. The name is the one wasm
      // this build of the runtime loads (site/build.py copies it beside the module).
      const wasm = new URL(`../vendor/ort-wasm-simd-threaded.wasm?attempt=${attempt}`, import.meta.url);
      ort.env.wasm.wasmPaths = { wasm: wasm.href };
    }
    return ort;
  });
  ortPromise.catch(() => {
    ortPromise = null;
    ortAttempt++;
  });
  return ortPromise;
}

/** The folder's tokenizer (tokenizer.json through @huggingface/tokenizers), shared. */
export function loadTokenizer(folder) {
  return once(folder, "tokenizer", async (e) => {
    const [{ Tokenizer }, bytes] = await Promise.all([
      heldRuntime().tokenizers ?? import("../vendor/tokenizers.min.mjs"),
      verified(folder, "tokenizer.json", e, counter(folder, e, "tokenizer.json")),
    ]);
    return new Tokenizer(parseJSON("tokenizer.json", bytes), {}); // the second argument is required by 0.2.0
  });
}

/** A loaded model: its session, tokenizer and meta.json. */
export class Model {
  constructor(ort, session, tokenizer, meta) {
    this.ort = ort;
    this.session = session;
    this.tokenizer = tokenizer;
    this.meta = meta;
    this.config = meta.config;
    this.queue = Promise.resolve(); // ORT allows one run at a time per session
  }

  /** Token ids and vocabulary pieces for a text (no special tokens). */
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
   *   rows: Map<number, Float32Array>, attention: Float32Array, scores: Float32Array}>}
   *   flat arrays straight from ORT (shapes in docs/model-files.md); `rows` maps a position to
   *   its V logits, `mask` is the `headMask` it ran with
   */
  run(ids, headMask = null, positions = null) {
    const job = this.queue.then(() => this._run(ids, headMask, positions));
    this.queue = job.catch(() => {});
    return job;
  }

  async _run(ids, headMask, positions) {
    const { n_layer: L, n_head: H, vocab_size: V, n_ctx } = this.config;
    const T = ids.length;
    if (T < 1 || T > n_ctx) throw new Error(`the model takes 1 to ${n_ctx} tokens, not ${T}`);
    if (headMask !== null && headMask.length !== L * H) throw new Error(`head_mask needs ${L * H} values, not ${headMask.length}`);
    // A copy: the run keeps it (runs.js ensureLogits runs again with the same heads off).
    const mask = headMask === null ? null : Float32Array.from(headMask);
    const input = new this.ort.Tensor("int64", BigInt64Array.from(ids, (i) => BigInt(i)), [1, T]);
    const feeds = { input_ids: input };
    // A graph with switchable heads requires head_mask (a plain input: onnxruntime-web cannot
    // feed an initializer-backed default). An older graph without it runs as before.
    if (this.session.inputNames.includes("head_mask")) {
      feeds.head_mask = new this.ort.Tensor("float32", mask ?? new Float32Array(L * H).fill(1), [L, H]);
    }
    // Likewise logit_positions; an older graph computes every position's logits.
    let at = Array.from({ length: T }, (_, i) => i);
    if (this.session.inputNames.includes("logit_positions")) {
      if (positions !== null) at = [...new Set(positions)].filter((q) => Number.isInteger(q) && q >= 0 && q < T);
      if (!at.length) at = [T - 1];
      feeds.logit_positions = new this.ort.Tensor("int64", BigInt64Array.from(at, (i) => BigInt(i)), [at.length]);
    }
    const res = await this.session.run(feeds);
    const logits = res.logits.data; // [1, at.length, V]
    const rows = new Map(at.map((q, i) => [q, logits.subarray(i * V, (i + 1) * V)]));
    return { T, L, H, V, mask, rows, attention: res.attention.data, scores: res.scores.data };
  }
}

/** The shared model for a folder (one fetch, one session), loading it on first call. */
export function loadModel(folder) {
  return once(folder, "model", async (e) => {
    // The wasm compile is the long pole (over a second), so the session is created the moment
    // the runtime module and the verified model bytes are in; the tokenizer loads beside it.
    const bytes = verified(folder, "model.onnx", e, counter(folder, e, "model.onnx"));
    const session = Promise.all([loadOrt(), bytes]).then(([ort, b]) =>
      ort.InferenceSession.create(b, { executionProviders: ["wasm"], logSeverityLevel: 3 }).catch((err) => {
        if (ortPromise) {
          ortPromise = null; // this instance may keep its failure: the next attempt starts afresh
          ortAttempt++;
        }
        throw err;
      }));
    const [ort, ready, tokenizer, meta] = await Promise.all([loadOrt(), session, loadTokenizer(folder), loadMeta(folder)]);
    return new Model(ort, ready, tokenizer, meta);
  });
}
