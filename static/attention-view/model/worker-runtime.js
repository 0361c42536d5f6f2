// @ts-check
// The page's side of session-worker.js: one module worker per page holds onnxruntime and every
// session, and answers each run with its outputs by name, their arrays transferred. A page
// that cannot have the worker (its Content-Security-Policy forbids workers) learns it here, as
// a WorkerUnavailable: the worker's error event, before the runtime's start was answered.

// The runtime's compiled wasm, never read: holding it for as long as the page lives is the point
// (session-worker.js says why).
/** @type {WebAssembly.Module|null} */
let keptModule = null;

/** The worker could not start: the page runs the model itself (runtime.js). */
export class WorkerUnavailable extends Error {}

/**
 * A session in the worker, used like ort-host.js's sessions on the page.
 * @typedef {{inputNames: string[], outputNames: string[],
 *   run: (feeds: Object<string, import("./ort-host.js").Plain>) => Promise<Object<string, import("./ort-host.js").Plain>>}} Session
 */

/**
 * Starts the worker, and onnxruntime in it: its backend starts as the worker's module runs.
 * @param {string} workerURL  session-worker.js (with ?attempt=N on a retry)
 * @returns {Promise<{where: "worker", createSession: (bytes: Uint8Array) => Promise<Session>}>}
 */
export function startWorkerRuntime(workerURL) {
  let worker;
  try {
    worker = new Worker(workerURL, { type: "module", name: "attention-view-runtime" });
  } catch (cause) {
    return Promise.reject(new WorkerUnavailable("this page may not start a worker", { cause }));
  }
  /** @type {Map<number, {resolve: (value: any) => void, reject: (err: Error) => void}>} */
  const pending = new Map();
  let next = 1;
  worker.addEventListener("message", ({ data }) => {
    if (data.kind === "compiled") {
      keptModule = data.module; // see session-worker.js: the next page load's worker reuses it
      return;
    }
    const asked = pending.get(data.id);
    if (!asked) return;
    pending.delete(data.id);
    if (!data.error) return asked.resolve(data.value);
    const { name, message, wasmStatus } = data.error;
    asked.reject(Object.assign(new Error(message), { name, wasmStatus }));
  });
  worker.addEventListener("error", (event) => {
    event.preventDefault(); // said here, not as a page error
    const err = new WorkerUnavailable("the model's worker did not start");
    for (const asked of pending.values()) asked.reject(err);
    pending.clear();
  });
  // Asked at once: the worker's messages wait until its module runs, and one round trip less
  // lies before the runtime's download.
  /**
   * @param {object} msg  a request of session-worker.js
   * @returns {Promise<any>}
   */
  const ask = (msg) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ ...msg, id });
  });
  return ask({ kind: "start" }).then(() => ({
    where: /** @type {"worker"} */ ("worker"),
    /** @param {Uint8Array} bytes  copied: the caller keeps its bytes */
    async createSession(bytes) {
      const { session, inputNames, outputNames } = await ask({ kind: "create", bytes });
      return { inputNames, outputNames, run: (feeds) => ask({ kind: "run", session, feeds }) };
    },
  }), (err) => {
    worker.terminate();
    throw err;
  });
}
