// @ts-check
// Files and runtime modules handed to the loader as bytes and objects instead of fetched: a
// notebook widget receives the model folder and onnxruntime's wasm from its kernel (a notebook
// front end serves no such URLs, and nothing may come from a CDN). download.js, runtime.js and
// loader.js ask here first, and fetch only what nobody handed over.
//
// The store lives on globalThis: a notebook may import the widget's bundle more than once
// (one module instance per widget), while the <attention-view> class, and so the loader it
// uses, is the first instance's.

/**
 * @typedef {{ort?: any, wasm?: Uint8Array|ArrayBuffer|null, tokenizers?: typeof import("@huggingface/tokenizers")}} HeldRuntime
 *   `ort` is whatever onnxruntime-web module the host imported (ort-host.js takes it as it comes)
 * @typedef {{folders: Map<string, Object<string, Uint8Array|PromiseLike<Uint8Array>>>, runtime: HeldRuntime}} Store
 */

const store = (/** @type {Record<symbol, Store>} */ (/** @type {unknown} */ (globalThis))[Symbol.for("attention-view.held-files")] ??= { folders: new Map(), runtime: {} });

/**
 * Hands over the files of `folder` (an absolute URL ending in "/"): {name: Uint8Array}, or for a
 * file the host sends only once it is read (a notebook's training timeline) a PromiseLike of one,
 * which download.js awaits.
 * @param {string} folder @param {Object<string, Uint8Array|PromiseLike<Uint8Array>>} files
 */
export function holdFolder(folder, files) {
  store.folders.set(folder, { ...store.folders.get(folder), ...files });
}

/**
 * The bytes handed over for `folder + name`, or null (fetch it).
 * @param {string} folder @param {string} name
 */
export function heldFile(folder, name) {
  return store.folders.get(folder)?.[name] ?? null;
}

/**
 * Hands over the runtime: `ort` (an onnxruntime-web module, e.g. its wasm bundle), `wasm`
 * (the bytes of its wasm, so that it fetches none) and `tokenizers` (@huggingface/tokenizers).
 * @param {HeldRuntime} runtime
 */
export function holdRuntime(runtime) {
  Object.assign(store.runtime, runtime);
}

export function heldRuntime() {
  return store.runtime;
}
