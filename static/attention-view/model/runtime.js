// @ts-check
// onnxruntime-web, started as early as a page can: compiling its 14 MB wasm is the longest part
// of a cold start (over a second), so the download and compile begin the moment the runtime's
// module is in, not once the model's bytes have arrived and been checked. The runtime has no
// call that only starts its backend; creating a session does, and the backend's start is
// shared by every later session, so a first create on no model at all (it fails once the
// backend is up: nothing is printed, nothing is kept) starts it. A failed start (its wasm
// missing, say) poisons that module instance, so the next attempt imports a fresh instance
// instead of reusing the memoised failure.

import { VENDOR } from "../paths.js";
import { heldRuntime } from "./held-files.js";

// Only the wasm build: the package's default entry pulls a 28 MB wasm with WebGPU support.
const ORT_MODULE = `${VENDOR}ort.wasm.min.mjs`;
// The one wasm this build of the runtime loads (site_builder/build.py copies it beside the module).
export const ORT_WASM = `${VENDOR}ort-wasm-simd-threaded.wasm`;
const FATAL_ONLY = 4; // onnxruntime's log severity: the start-up create fails by design, quietly

let ortPromise = null;
let ortAttempt = 0;

/** The runtime module, its wasm backend already starting. @returns {Promise<any>} */
export function loadRuntime() {
  // After a failed start the module instance remembers its failure, so a retry imports the
  // module under a new URL, i.e. a new instance that starts from scratch.
  const attempt = ortAttempt;
  // A host may hand over the runtime's module and its wasm's bytes (held-files.js).
  const { ort: given, wasm } = heldRuntime();
  ortPromise ??= (given ? Promise.resolve(given) : import(ORT_MODULE + (attempt ? `?attempt=${attempt}` : ""))).then((ort) => {
    if (wasm) ort.env.wasm.wasmBinary = wasm;
    // One thread: faster on small machines at this size, and needs no COOP/COEP headers.
    ort.env.wasm.numThreads = 1;
    // Warnings reach the console as errors, and a reader's console is not where a model
    // loader's notices belong: failures still throw and show in the status line.
    ort.env.logLevel = "error";
    if (attempt) {
      // The failed wasm answer may sit in the HTTP cache (a 404 sent with cache headers, a
      // truncated file): ask for it under a URL no cache has seen.
      ort.env.wasm.wasmPaths = { wasm: `${ORT_WASM}?attempt=${attempt}` };
    }
    ort.InferenceSession.create(new Uint8Array(0), { executionProviders: ["wasm"], logSeverityLevel: FATAL_ONLY })
      .catch(() => {}); // the real session reports a backend that failed to start
    return ort;
  });
  ortPromise.catch(() => runtimeFailed());
  return ortPromise;
}

/** A session could not be created: the next attempt imports a fresh runtime instance. */
export function runtimeFailed() {
  if (ortPromise) {
    ortPromise = null;
    ortAttempt++;
  }
}
