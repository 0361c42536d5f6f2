// The notebook widget's front end (anywidget): one <attention-view> per output, its state keys
// synced both ways with the Python traits, its live result sent back after every change, and
// the model run in the notebook's browser. Bundled into one module by bundle.mjs, since
// anywidget loads a module from a blob URL, where relative imports cannot resolve.
//
// Nothing is fetched: the model folder and onnxruntime's wasm come from the kernel as binary
// message buffers (held-files.js hands them to the loader), once per page for all widgets. The
// training timeline's files (about 12 MB for the shipped model) come one by one, when the view
// reads them (a step shown, the timeline opened), so that `step` works as on the page and a
// view that never shows a step costs none of them.
// The wire format of a state key is the element's attribute string (null = no attribute);
// the Python side turns it into its type.

import * as ort from "onnxruntime-web/wasm";
import * as tokenizers from "@huggingface/tokenizers";
// @ts-expect-error a module bundle.mjs makes (the element's style sheet, as text): tsc cannot resolve it
import SHEET from "attention-view-sheet";
import { define, STATE_KEYS } from "../../static/attention-view/widget.js";
import { holdFolder, holdRuntime } from "../../static/attention-view/model/held-files.js";

/**
 * What this module uses of anywidget's model. Trait values and messages are JSON from the
 * kernel (attention_live/widget.py), hence `unknown`.
 * @typedef {Object} WidgetModel
 * @property {(name: string) => unknown} get
 * @property {(name: string, value: unknown) => void} set
 * @property {() => void} save_changes
 * @property {(event: string, handler: (...args: any[]) => void) => void} on
 * @property {(event: string, handler: (...args: any[]) => void) => void} off
 * @property {(msg: object) => void} send
 * @typedef {{files: Object<string, Uint8Array>, later: string[]}} Files  files by name, and the ones sent on request
 * @typedef {{type?: string, want?: string, source?: string|null, name?: string|null, error?: string,
 *   names: string[], later?: string[]}} FilesMessage  the kernel's answer to a "files" request
 * @typedef {{asked: Map<string, Promise<Files>>, sheet?: string}} Shared
 */

// Shared by every module instance on the page: what was asked of a kernel, by content hash.
const shared = (/** @type {Record<symbol, Shared>} */ (/** @type {unknown} */ (globalThis))[Symbol.for("attention-live.notebook")] ??= { asked: new Map() });

/** @returns {string} */
function sheetURL() {
  shared.sheet ??= URL.createObjectURL(new Blob([/** @type {string} */ (SHEET)], { type: "text/css" }));
  return shared.sheet;
}

// Files from the kernel: one request per kind ("runtime", a model folder's hash, or one of its
// timeline files) per page. A kernel that cannot send a timeline file says why; the next try
// (the view's "Try again") asks again.
/**
 * @param {WidgetModel} model @param {"runtime"|"model"|"timeline"} want
 * @param {string|null} source  the model folder's content hash (null for the runtime)
 * @param {string|null} [name]  a timeline file
 * @returns {Promise<Files>}
 */
function ask(model, want, source, name = null) {
  // source is a hash for every kind but the runtime
  const key = /** @type {string} */ (want === "runtime" ? want : name === null ? source : `${source}/${name}`);
  if (!shared.asked.has(key)) {
    const answer = new Promise((resolve, reject) => {
      /** @param {FilesMessage} msg @param {ArrayBufferView[]} buffers */
      const onMessage = (msg, buffers) => {
        if (msg?.type !== "files" || msg.want !== want || msg.source !== source || (msg.name ?? null) !== name) return;
        model.off("msg:custom", onMessage);
        if (msg.error) {
          shared.asked.delete(key);
          reject(new Error(msg.error));
          return;
        }
        /** @param {ArrayBufferView} b */
        const bytes = (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
        resolve({ files: Object.fromEntries(msg.names.map((n, i) => [n, bytes(buffers[i])])), later: msg.later ?? [] });
      };
      model.on("msg:custom", onMessage);
      model.send({ type: "files", want, name });
    });
    shared.asked.set(key, answer);
  }
  return /** @type {Promise<Files>} */ (shared.asked.get(key));
}

// A file the kernel sends when the view first reads it: held in its place is a thenable, which
// download.js awaits like the bytes it stands for; only then is the kernel asked.
/**
 * @param {WidgetModel} model @param {string} source @param {string} name
 * @returns {PromiseLike<Uint8Array>}
 */
function onRequest(model, source, name) {
  return { then: (/** @type {(bytes: Uint8Array) => any} */ ok, /** @type {(err: unknown) => any} */ fail) => ask(model, "timeline", source, name).then(({ files }) => files[name]).then(ok, fail) };
}

/**
 * The folder URL the loader knows this model by: on the page's own origin, never fetched.
 * @param {string} source
 */
function folderOf(source) {
  return `${location.origin}/attention-live/model-${source.slice(0, 16)}/`;
}

/** @param {Element} el @param {string} name @param {unknown} value  a trait's value */
function setAttr(el, name, value) {
  if (value === null || value === undefined) el.removeAttribute(name);
  else if (el.getAttribute(name) !== String(value)) el.setAttribute(name, String(value));
}

/** @param {number[][][][]} nested */
const flat = (nested) => new DataView(Float32Array.from(nested.flat(3)).buffer);

// What Python's `result` is made of: the element's `result`, with the two [layer][head][query]
// [key] arrays as float32 bytes (exactly ORT's numbers) instead of nested lists; the attribution
// (a few thousand numbers at most) as the element has it.
/** @param {import("../../static/attention-view/model/result.js").Result} r */
function payload(r) {
  const L = r.attention.length;
  const H = L ? r.attention[0].length : 0;
  const T = r.tokens.length;
  return {
    live: r.live, text: r.text, tokens: r.tokens, token: r.token, layer: r.layer, head: r.head,
    view: r.view, scale: r.scale, ablated: r.ablated, top: r.top, topBaseline: r.topBaseline,
    nextToken: r.nextToken, truncated: r.truncated, compare: r.compare ? { text: r.compare.text } : null, step: r.step,
    // What pushed the predictions at the pinned token, and the logit lens (null for an older graph).
    target: r.target ?? null, attribution: r.attribution ?? null, lens: r.lens ?? null,
    shape: [L, H, T, T], attention: flat(r.attention), scores: flat(r.scores),
  };
}

/** @param {WidgetModel} model @param {import("../../static/attention-view/widget.js").AttentionViewElement} el */
function sync(model, el) {
  /** @type {string|null} */
  let sent = null;
  let queued = false;
  const publish = async () => {
    queued = false;
    try {
      await el.ready;
    } catch {
      return; // the element shows the failure and its retry button
    }
    const r = el.result;
    if (!r?.live) return;
    const key = JSON.stringify([r.text, r.tokens.length, r.token, r.layer, r.head, r.view, r.scale, r.ablated, r.compare?.text, r.step, r.target]);
    if (key === sent) return;
    sent = key;
    model.set("_result", payload(r));
    model.save_changes();
  };
  const later = () => {
    if (!queued) queueMicrotask(publish);
    queued = true;
  };
  const fromPython = STATE_KEYS.map((name) => {
    const handler = () => {
      setAttr(el, name, model.get(name));
      later();
    };
    model.on(`change:${name}`, handler);
    return () => model.off(`change:${name}`, handler);
  });
  const toPython = new MutationObserver((records) => {
    let changed = false;
    for (const name of new Set(records.map((r) => /** @type {string} */ (r.attributeName)))) {
      const value = el.getAttribute(name);
      if (value !== model.get(name)) {
        model.set(name, value);
        changed = true;
      }
    }
    if (changed) model.save_changes();
    later();
  });
  toPython.observe(el, { attributes: true, attributeFilter: STATE_KEYS });
  el.addEventListener("load", later);
  return () => {
    toPython.disconnect();
    fromPython.forEach((off) => off());
  };
}

/** @param {{model: WidgetModel, el: HTMLElement}} widget  anywidget's model and the output's element */
async function render({ model, el }) {
  const source = /** @type {string} */ (model.get("_source"));
  const [runtime, { files, later }] = await Promise.all([ask(model, "runtime", null), ask(model, "model", source)]);
  holdRuntime({ ort, tokenizers, wasm: runtime.files["ort-wasm-simd-threaded.wasm"] });
  const folder = folderOf(source);
  holdFolder(folder, { ...Object.fromEntries(later.map((name) => [name, onRequest(model, source, name)])), ...files });
  const cls = define();
  cls.styleSheetURL ??= sheetURL();
  const view = /** @type {import("../../static/attention-view/widget.js").AttentionViewElement} */ (document.createElement("attention-view"));
  for (const name of STATE_KEYS) setAttr(view, name, model.get(name));
  view.setAttribute("src", folder);
  const stop = sync(model, view);
  el.append(view);
  return () => {
    stop();
    view.remove();
  };
}

export default { render };
