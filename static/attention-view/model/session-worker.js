// @ts-check
// The page's one module worker that owns onnxruntime (worker-runtime.js starts it): the runtime's
// download, its wasm's compile, every session and every run happen here, so the page's thread
// only tokenizes and draws. Each answer's arrays are transferred, not copied.
//
// Requests (each with an `id`, answered by {id, value} or {id, error}):
//   {kind: "start"}                 answered once this module runs (its backend is starting)
//   {kind: "create", bytes}         a session on a graph: value {session, inputNames, outputNames}
//   {kind: "run", session, feeds}   value: every output by name, as ort-host.js's plain records
// Unasked, once: {kind: "compiled", module}  the runtime's compiled wasm, for the page to keep.

import { startOrt, openSession, runSession } from "./ort-host.js";
// The runtime is part of this worker: the build bundles its one-file build (the wasm's loader
// inlined) into this module, so the worker asks for the wasm as soon as it runs, where a runtime
// imported by URL took two more requests one after the other first (docs/bench.md).
// @ts-ignore: the build copies onnxruntime-web into vendor/; the source tree has no copy
import * as runtime from "../../vendor/ort.wasm.bundle.min.mjs";

// The page keeps the runtime's compiled wasm (worker-runtime.js) so that a reload is quick: V8
// hands the reloaded page's worker the module the previous page still holds in the same process,
// with every function compiled, where the code cache keeps only the optimised ones and leaves
// thousands to compile again on their first call (docs/bench.md has the traces and the A/B).
// This worker's isolate ends with its page, so the page holds it. onnxruntime neither
// takes a compiled module nor shows its own, so its streaming compile is watched here.
const instantiateStreaming = WebAssembly.instantiateStreaming;
/** @type {any} */ (WebAssembly).instantiateStreaming = async function (
  /** @type {Response|PromiseLike<Response>} */ source, /** @type {WebAssembly.Imports|undefined} */ imports) {
  const result = await instantiateStreaming.call(this, source, imports);
  try {
    self.postMessage({ kind: "compiled", module: result.module });
  } catch {
    // An engine that cannot post a module: the page keeps none, and a reload compiles again.
  }
  return result;
};

// The wasm, named for the runtime: inside this bundle its own guess (beside the module) is the
// worker's folder. A retry's worker runs as session-worker.js?attempt=N and asks for the wasm
// under a URL no cache has seen (runtime.js).
const wasmFile = new URL("../../vendor/ort-wasm-simd-threaded.wasm", import.meta.url).href;
const attempt = new URL(import.meta.url).searchParams.get("attempt");
startOrt(runtime, { wasmURL: attempt ? `${wasmFile}?attempt=${attempt}` : wasmFile });

/** @type {Map<number, any>} */
const sessions = new Map();
let nextSession = 1;

/**
 * The HTTP status this worker's request for the wasm got, as its resource timing records it
 * (Chromium, Firefox): null when it arrived, undefined when nothing records it. The page cannot
 * see a worker's requests, and asking the server again would be a second request.
 */
async function wasmStatus() {
  const recorded = () => /** @type {any} */ (performance.getEntriesByType("resource")
    .filter((e) => e.name.split("?")[0] === wasmFile && "responseStatus" in e).at(-1));
  // An entry is added in a task after the response ends: give it that task.
  const last = recorded() ?? await new Promise((resolve) => setTimeout(() => resolve(recorded()), 0));
  return last ? (last.responseStatus >= 400 ? last.responseStatus : null) : undefined;
}

const handlers = {
  start() {
    return null;
  },
  /** @param {{bytes: Uint8Array}} msg */
  async create(msg) {
    const session = await openSession(runtime, msg.bytes);
    const id = nextSession++;
    sessions.set(id, session);
    return { session: id, inputNames: [...session.inputNames], outputNames: [...session.outputNames] };
  },
  /** @param {{session: number, feeds: Object<string, import("./ort-host.js").Plain>}} msg */
  async run(msg) {
    const session = sessions.get(msg.session);
    if (!session) throw new Error("no such session");
    return runSession(runtime, session, msg.feeds);
  },
};

/** The buffers of a run's outputs, each once. @param {Object<string, {data: ArrayBufferView}>} outputs */
function buffers(outputs) {
  return [...new Set(Object.values(outputs).map((plain) => plain.data.buffer))];
}

self.onmessage = async ({ data: msg }) => {
  try {
    const value = await handlers[/** @type {keyof typeof handlers} */ (msg.kind)](msg);
    self.postMessage({ id: msg.id, value }, { transfer: msg.kind === "run" ? buffers(/** @type {Object<string, {data: ArrayBufferView}>} */ (value)) : [] });
  } catch (err) {
    const e = /** @type {Error} */ (err);
    const status = msg.kind === "create" ? await wasmStatus() : undefined;
    self.postMessage({ id: msg.id, error: { name: e?.name ?? "Error", message: e?.message ?? String(err), wasmStatus: status } });
  }
};
