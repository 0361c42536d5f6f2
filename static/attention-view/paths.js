// @ts-check
// Every URL the widget loads by itself, from one module at the top of its folder: in the built
// site the widget is one bundled module at this same place (attention-view/widget.js, written
// by site_builder/build.py), so these resolve the same bundled or not.

/** The default model folder (the element's `src`), beside the public entry. */
export const MODEL_FOLDER = new URL("../model/", import.meta.url).href;

/** The element's stylesheet, beside the public entry, where embeds have always found it. */
export const STYLESHEET = new URL("../attention-view.css", import.meta.url).href;

/** Where site_builder/build.py copies onnxruntime-web and the tokenizer (they are not checked in). */
export const VENDOR = new URL("../vendor/", import.meta.url).href;

/** The site's root, for snippets that load this very copy of the widget ("Copy embed code"). */
export const SITE_ROOT = new URL("../../", import.meta.url).href;

/** The module worker that owns onnxruntime (model/session-worker.js; bundled in place by the build). */
export const SESSION_WORKER = new URL("./model/session-worker.js", import.meta.url).href;
