// @ts-check
// onnxruntime-web, started as early as a page can, in the page's one worker (session-worker.js):
// its download, its wasm's compile (the longest part of a cold start, over a second), every
// session and every run happen there, so typing and scrolling never wait for the model. The
// page's own thread runs it instead only where a worker cannot: a host that hands over the
// runtime's module (a notebook: held-files.js), a widget loaded from another origin (a browser
// starts a worker only from the page's own), or a page whose Content-Security-Policy forbids
// workers (docs/embedding.md: add worker-src 'self').
//
// A failed start (its wasm missing, say) poisons that runtime, so the next attempt starts a
// fresh one (a new worker, a new module instance) instead of reusing the memoised failure.

import { VENDOR, SESSION_WORKER } from "../paths.js";
import { heldRuntime } from "./held-files.js";
import { startOrt, openSession, runSession } from "./ort-host.js";
import { startWorkerRuntime, WorkerUnavailable } from "./worker-runtime.js";
import { wasmForbidden } from "./failures.js";

// Only the wasm build: the package's default entry pulls a 28 MB wasm with WebGPU support.
const ORT_MODULE = `${VENDOR}ort.wasm.min.mjs`;
// The one wasm this build of the runtime loads (the site build copies it beside the module).
export const ORT_WASM = `${VENDOR}ort-wasm-simd-threaded.wasm`;

/**
 * @typedef {import("./worker-runtime.js").Session} Session
 * @typedef {{where: "worker"|"page", createSession: (bytes: Uint8Array) => Promise<Session>}} Runtime
 */

// One runtime per page, kept on globalThis: preload.js is bundled with a copy of this module
// of its own, and the widget's copy must find the runtime preload.js started.
const shared = /** @type {{runtime: Promise<Runtime>|null, attempt: number}} */ (
  /** @type {Record<symbol, unknown>} */ (/** @type {unknown} */ (globalThis))[Symbol.for("attention-view.runtime")] ??= { runtime: null, attempt: 0 });

/** The runtime, its wasm backend already starting. @returns {Promise<Runtime>} */
export function loadRuntime() {
  const runtime = (shared.runtime ??= start(shared.attempt));
  runtime.catch(() => runtimeFailed());
  return runtime;
}

/** Whether the page has started its runtime (preload.js, or a view before). */
export function runtimeStarted() {
  return shared.runtime !== null;
}

/** A session could not be created: the next attempt starts a fresh runtime. */
export function runtimeFailed() {
  if (shared.runtime) {
    shared.runtime = null;
    shared.attempt++;
  }
}

/** @param {number} n  the attempt: after a failure, URLs no cache has seen */
async function start(n) {
  const query = n ? `?attempt=${n}` : "";
  // The failed wasm answer may sit in the HTTP cache (a 404 sent with cache headers, a
  // truncated file): a retry asks for it under a URL no cache has seen.
  const wasmURL = n ? ORT_WASM + query : null;
  const { ort: given, wasm } = heldRuntime();
  if (given) return onThisPage(given, { wasm, wasmURL });
  // The worker may compile what this page's policy forbids (a worker has its own policy): the
  // page's word stands, and the reader learns what to add. (Starting the worker before this
  // answers gave no earlier live result and a later preview: docs/bench.md.)
  const forbidden = await wasmForbidden();
  if (forbidden) throw forbidden;
  if (new URL(SESSION_WORKER).origin === location.origin) {
    try {
      return await startWorkerRuntime(SESSION_WORKER + query);
    } catch (err) {
      if (!(err instanceof WorkerUnavailable)) throw err;
    }
  }
  return onThisPage(await import(ORT_MODULE + query), { wasmURL });
}

/**
 * The runtime on the page's own thread. @returns {Runtime}
 * @param {any} ort  an onnxruntime-web module (ort-host.js startOrt) @param {{wasm?: ArrayBuffer|Uint8Array|null, wasmURL?: string|null}} options
 */
function onThisPage(ort, options) {
  startOrt(ort, options);
  return {
    where: "page",
    async createSession(bytes) {
      const session = await openSession(ort, bytes);
      return { inputNames: [...session.inputNames], outputNames: [...session.outputNames], run: (feeds) => runSession(ort, session, feeds) };
    },
  };
}
