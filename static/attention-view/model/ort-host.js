// @ts-check
// What owns onnxruntime does, wherever it lives: the page's worker (session-worker.js) or, where
// a page cannot have one, the page itself (runtime.js). Sessions are fed and answer in plain
// {type, data, dims} records keyed by the graph's own input and output names, so a record
// crosses postMessage as it is, and a graph with more outputs needs no change here.

const FATAL_ONLY = 4; // onnxruntime's log severity: the start-up create fails by design, quietly

// The graph optimisations a session runs when it is created: "basic" (constant folding, redundant
// nodes), not the runtime's default "all" (fusions and layout passes too). At this model's size
// the fusions cost more to find than they save: creating the session took 49 ms instead of 125
// on a reload, a run at T = 128 the same 5 ms, and a cold load went live sooner (docs/bench.md).
const GRAPH_OPTIMIZATION = "basic";

/**
 * One tensor as it crosses between the page and the runtime.
 * @typedef {{type: string, data: Float32Array|BigInt64Array|Int32Array|Uint8Array, dims: readonly number[]}} Plain
 */

/**
 * Sets the runtime up and starts its backend at once: compiling its 14 MB wasm is the longest
 * part of a cold start (over a second). The runtime has no call that only starts its backend;
 * creating a session does, and the start is shared by every later session, so a first create
 * on no model at all (it fails once the backend is up: nothing is printed, nothing is kept)
 * starts it.
 * @param {any} ort  an onnxruntime-web module (its wasm build)
 * @param {{wasm?: ArrayBuffer|Uint8Array|null, wasmURL?: string|null}} options  the wasm's bytes
 *   (a host that handed them over), or the URL to ask for it under (a retry: one no cache has seen)
 */
export function startOrt(ort, { wasm = null, wasmURL = null } = {}) {
  if (wasm) ort.env.wasm.wasmBinary = wasm;
  if (wasmURL) ort.env.wasm.wasmPaths = { wasm: wasmURL };
  // One thread: faster on small machines at this size, and needs no COOP/COEP headers.
  ort.env.wasm.numThreads = 1;
  // Warnings reach the console as errors, and a reader's console is not where a model
  // loader's notices belong: failures still throw and show in the status line.
  ort.env.logLevel = "error";
  ort.InferenceSession.create(new Uint8Array(0), { executionProviders: ["wasm"], logSeverityLevel: FATAL_ONLY })
    .catch(() => {}); // the real session reports a backend that failed to start
}

/** A session on a graph's bytes. @param {any} ort  @param {Uint8Array} bytes */
export function openSession(ort, bytes) {
  return ort.InferenceSession.create(bytes, { executionProviders: ["wasm"], logSeverityLevel: 3,
    graphOptimizationLevel: GRAPH_OPTIMIZATION });
}

/**
 * One run: every output the graph has, by name.
 * @param {any} ort
 * @param {any} session
 * @param {Object<string, Plain>} feeds
 * @returns {Promise<Object<string, Plain>>}
 */
export async function runSession(ort, session, feeds) {
  const tensors = Object.fromEntries(Object.entries(feeds).map(([name, f]) => [name, new ort.Tensor(f.type, f.data, f.dims)]));
  const out = await session.run(tensors);
  return Object.fromEntries(Object.entries(out).map(([name, t]) => [name, { type: t.type, data: t.data, dims: t.dims }]));
}
