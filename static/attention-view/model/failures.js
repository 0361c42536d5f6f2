// @ts-check
// Why a load failed, in words an author can act on. The browser and onnxruntime report the
// symptom ("Failed to fetch", "no available backend found … Build with -sASSERTIONS for more
// info"); the cause is what a page's author needs: which file, and whether it is the page's
// Content-Security-Policy, a server without CORS headers, a wrong path or a 404. Where a retry
// cannot help (the page forbids WebAssembly), the error says so and the element offers none.

/** A load error whose message names its cause; `retry` false when trying again cannot help. */
export class LoadFailure extends Error {
  /** @param {string} message  @param {{retry?: boolean, cause?: unknown}} [options] */
  constructor(message, { retry = true, cause } = {}) {
    super(message);
    this.name = "LoadFailure";
    this.retry = retry;
    this.cause = cause;
  }
}

/**
 * The file's name without the query a retry adds.
 * @param {string} url
 */
function fileName(url) {
  return new URL(url).pathname.split("/").pop() || url;
}

/** @param {string} url */
function crossOrigin(url) {
  return new URL(url, document.baseURI).origin !== location.origin;
}

/**
 * A fetch that got no answer at all (a network error): from another origin that is most often
 * a server without CORS headers, which the browser reports only in the console.
 * @param {string} url
 * @param {unknown} cause
 */
export function unreachable(url, cause) {
  const name = fileName(url);
  return new LoadFailure(crossOrigin(url)
    ? `${name} could not be fetched from ${url}: it is on another origin, whose server must send CORS ` +
      "headers (Access-Control-Allow-Origin) for this page, and this page's Content-Security-Policy must " +
      "allow it (connect-src)"
    : `${name} could not be fetched from ${url}: the server did not answer`, { cause });
}

/**
 * A file of the model folder that the server answered with an error status.
 * @param {string} url
 * @param {number} status
 */
export function refused(url, status) {
  const name = fileName(url);
  const why = status === 404 ? ": no such file there (a wrong src, or the folder is not deployed)" : "";
  return new LoadFailure(`${name} answered HTTP ${status} at ${url}${why}`);
}

// The smallest valid WebAssembly module: the header alone.
const EMPTY_MODULE = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);

// What engines say when a page's CSP refuses a compile: the runtime's own error may be the only
// sign (an engine may let the empty module above through, or word its refusal its own way).
const CSP_WORDS = /Content Security Policy|\bCSP\b|wasm-unsafe-eval|'unsafe-eval'/i;

/**
 * Null when this page may compile WebAssembly, else why not (a LoadFailure): the engine refuses
 * the smallest module, or the runtime's own error (`said`) is the engine's CSP refusal. Asked
 * before the runtime starts in its worker too: a worker has a policy of its own, and the page's
 * word stands.
 * @param {string} [said]
 */
export async function wasmForbidden(said = "") {
  if (typeof WebAssembly !== "object") {
    return new LoadFailure("this browser has WebAssembly switched off, and the model runs on it", { retry: false });
  }
  let refusal = /** @type {unknown} */ (CSP_WORDS.test(said) ? said : null);
  try {
    // Instantiated, not only compiled: WebKit compiles under a policy that forbids wasm and
    // refuses at instantiation (Chromium and Firefox refuse at compilation).
    await WebAssembly.instantiate(EMPTY_MODULE);
  } catch (cause) {
    refusal = cause;
  }
  return refusal === null ? null : new LoadFailure("this page's Content-Security-Policy does not let it compile " +
    "WebAssembly: add 'wasm-unsafe-eval' to its script-src", { retry: false, cause: refusal });
}

/**
 * The HTTP status the runtime's wasm got, from the page's resource timing where the browser
 * records it (Chromium, Firefox), else from asking the server again (only the headers are
 * awaited); null when it arrived.
 * @param {string} url  the wasm's URL, without a query
 */
async function wasmStatus(url) {
  const recorded = () => /** @type {any} */ (performance.getEntriesByType("resource")
    .filter((e) => e.name.split("?")[0] === url && "responseStatus" in e).at(-1));
  // An entry is added in a task after the response ends: give it that task.
  const last = recorded() ?? await new Promise((resolve) => setTimeout(() => resolve(recorded()), 0));
  if (last) return last.responseStatus >= 400 ? last.responseStatus : null;
  const controller = new AbortController();
  try {
    const response = await fetch(url, { cache: "no-store", signal: controller.signal });
    return response.ok ? null : response.status;
  } catch {
    return null; // the runtime's own error stands
  } finally {
    controller.abort(); // the status is all this asks for, not 14 MB again
  }
}

/**
 * The runtime could not start (onnxruntime's "no available backend found"): the page forbids
 * WebAssembly, or the wasm file is missing; otherwise the runtime's own words, cleaned of its
 * build hints.
 * @param {unknown} err  what onnxruntime threw (from the worker: with the `wasmStatus` its request got)
 * @param {string} wasmURL  the wasm the runtime loads (runtime.js)
 */
export async function runtimeFailure(err, wasmURL) {
  const said = err instanceof Error ? err.message : String(err);
  const forbidden = await wasmForbidden(said);
  if (forbidden) return forbidden;
  // A worker's runtime reports what its own request got (the page cannot see it); undefined: ask.
  const known = /** @type {any} */ (err)?.wasmStatus;
  const status = known !== undefined ? known : await wasmStatus(wasmURL);
  if (status !== null) {
    return new LoadFailure(`the runtime's ${fileName(wasmURL)} answered HTTP ${status} at ${wasmURL}` +
      (status === 404 ? ": onnxruntime's files must sit in vendor/ beside attention-view.js" : ""), { cause: err });
  }
  return new LoadFailure(`the runtime (onnxruntime-web) could not start: ${said.replace(/\s*Build with -s\w+.*$/s, "")}`, { cause: err });
}

/**
 * A message as one sentence: exactly one full stop at its end.
 * @param {unknown} message
 */
export function sentence(message) {
  return `${String(message).trim().replace(/[.\s]+$/u, "")}.`;
}
