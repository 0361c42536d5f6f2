// The model runner (no DOM): loads meta.json, golden.json, the tokenizer and one ORT session
// per model folder. Everything is cached at module level by the folder's resolved URL, so any
// number of <attention-view> elements on a page share one download of model.onnx and one
// session. A failed load is dropped from the cache so that a retry starts over.

const metaCache = new Map();
const goldenCache = new Map();
const tokenizerCache = new Map();
const modelCache = new Map();

/** The model folder as an absolute URL ending in "/". */
export function folderURL(src, base) {
  const url = new URL(src, base);
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url.href;
}

async function fetchOk(url, kind) {
  let response;
  try {
    response = await fetch(url, { credentials: "same-origin" });
  } catch (err) {
    throw new Error(`could not fetch ${url} (${err.message})`);
  }
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  return kind === "json" ? response.json() : response.arrayBuffer();
}

function once(cache, key, make) {
  if (!cache.has(key)) {
    const promise = make();
    cache.set(key, promise);
    promise.catch(() => cache.get(key) === promise && cache.delete(key));
  }
  return cache.get(key);
}

export function loadMeta(folder) {
  return once(metaCache, folder, () => fetchOk(folder + "meta.json", "json"));
}

export function loadGolden(folder) {
  return once(goldenCache, folder, () => fetchOk(folder + "golden.json", "json"));
}

/** Bytes a first visit downloads for the model itself (model.onnx + tokenizer.json). */
export function modelBytes(meta) {
  const files = meta.files || {};
  return ["model.onnx", "tokenizer.json"].reduce((n, f) => n + (files[f]?.bytes || 0), 0);
}

let ortPromise = null;
function loadOrt() {
  // Only the wasm build: the package's default entry pulls a 28 MB wasm with WebGPU support.
  ortPromise ??= import("./vendor/ort.wasm.min.mjs").then((ort) => {
    // One thread: faster on small machines at this size, and needs no COOP/COEP headers.
    ort.env.wasm.numThreads = 1;
    return ort;
  });
  ortPromise.catch(() => (ortPromise = null));
  return ortPromise;
}

/** The folder's tokenizer (tokenizer.json through @huggingface/tokenizers), shared. */
export function loadTokenizer(folder) {
  return once(tokenizerCache, folder, async () => {
    const [{ Tokenizer }, json] = await Promise.all([
      import("./vendor/tokenizers.min.mjs"),
      fetchOk(folder + "tokenizer.json", "json"),
    ]);
    return new Tokenizer(json, {}); // the second argument is required by 0.2.0
  });
}

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
   * Runs the graph on up to n_ctx ids: {T, L, H, V, logits, attention, scores} as flat
   * Float32Arrays straight from ORT (shapes in docs/model-files.md).
   */
  run(ids) {
    const job = this.queue.then(() => this._run(ids));
    this.queue = job.catch(() => {});
    return job;
  }

  async _run(ids) {
    const { n_layer: L, n_head: H, vocab_size: V, n_ctx } = this.config;
    const T = ids.length;
    if (T < 1 || T > n_ctx) throw new Error(`the model takes 1 to ${n_ctx} tokens, not ${T}`);
    const input = new this.ort.Tensor("int64", BigInt64Array.from(ids, (i) => BigInt(i)), [1, T]);
    const res = await this.session.run({ input_ids: input });
    const out = {
      T, L, H, V,
      logits: res.logits.data,
      attention: res.attention.data,
      scores: res.scores.data,
    };
    return out;
  }
}

/** The shared model for a folder (one fetch, one session), loading it on first call. */
export function loadModel(folder) {
  return once(modelCache, folder, async () => {
    // The wasm compile is the long pole (over a second), so the session is created the moment
    // the runtime module and the model bytes are in; the tokenizer and meta.json load beside it.
    const session = Promise.all([loadOrt(), fetchOk(folder + "model.onnx", "bytes")]).then(
      ([ort, bytes]) => ort.InferenceSession.create(new Uint8Array(bytes), { executionProviders: ["wasm"] }),
    );
    const [ort, ready, tokenizer, meta] = await Promise.all([
      loadOrt(), session, loadTokenizer(folder), loadMeta(folder),
    ]);
    return new Model(ort, ready, tokenizer, meta);
  });
}

/** Starts fetching the runtime without creating anything (for pages that will need it). */
export function prefetchRuntime() {
  return loadOrt().catch(() => {});
}
