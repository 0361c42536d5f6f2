// @ts-check
// The widget as one module: the element class (its features: features.js), define(), which
// registers it, and what the site's page scripts read of a view. In the built site this file
// is the bundle of everything it imports (site_builder/build.py, esbuild: one module, with a source
// map), so the pages, the public entry (../attention-view.js) and preload.js all import this
// one module and share one instance of the loader. Pages that set attributes before the
// element starts, or want another tag name, import define from here.

import { viewClass } from "./core/element.js";
import { FEATURES } from "./features.js";
import { SCHEMA } from "./state.js";

export { STATE_KEYS, fromHash, toHash } from "./state.js";
export { loadMeta, loadModel, setDownloadTimeout } from "./model/loader.js";
export { ranked, spread, wholePercent, viewName } from "./readouts/readouts.js";
export { positionScheme } from "./readouts/positions.js";
export { viewData } from "./share/export-scene.js";
export { MODEL_FOLDER } from "./paths.js";
export { grouped } from "./core/numbers.js";

/**
 * An <attention-view>: the element's own members and a property for every state key of its
 * schema (StateProperties, written by `make schema` from the same schema).
 * @typedef {InstanceType<ReturnType<typeof viewClass>> & import("./state-type.js").StateProperties} AttentionViewElement
 * @typedef {{new (): AttentionViewElement, prototype: AttentionViewElement, styleSheetURL: string|undefined}} AttentionViewClass
 */

export const AttentionView = /** @type {AttentionViewClass} */ (/** @type {unknown} */ (viewClass(FEATURES, SCHEMA)));

/**
 * Registers the element (default tag name attention-view); returns its class.
 * @returns {AttentionViewClass}
 */
export function define(name = "attention-view", registry = window.customElements) {
  const existing = registry.get(name);
  if (existing) return /** @type {AttentionViewClass} */ (/** @type {unknown} */ (existing));
  // A fresh subclass per name: one constructor cannot be registered under two names.
  const cls = class extends AttentionView {};
  registry.define(name, cls);
  return cls;
}
