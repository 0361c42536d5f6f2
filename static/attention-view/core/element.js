// @ts-check
// <attention-view>: the custom element itself — its attributes (each state key of its schema,
// schema.js, mirrored by a property), its lifecycle (connect, lazy start, attribute changes) and
// its public API (`ready`, `result`, `status`, `generate()`, `reload()`). Loading, computing and
// painting belong to the controller and the features. Importing this module defines nothing:
// ../widget.js makes the class for the features of ../features.js and their state
// (../state.js), and define() (the public entry, ../../attention-view.js, calls it) registers
// it, so a page can set attributes first or pick another tag name.

import { pinnedIndex } from "./state.js";
import { folderURL } from "../model/loader.js";
import { formatAblate } from "../model/head-set.js";
import { Controller } from "./controller.js";
import { callMethod } from "./feature.js";
import { MODEL_FOLDER, STYLESHEET } from "../paths.js";


/**
 * The element class for a list of features (../features.js FEATURES) and the state schema
 * assembled from them (../state.js SCHEMA).
 * @param {import("./feature.js").Feature[]} features
 * @param {import("./schema.js").StateSchema} schema
 */
export function viewClass(features, schema) {
  class AttentionView extends HTMLElement {
    /** @type {string|undefined} where the stylesheet is, for a page that cannot serve it beside the module */
    static styleSheetURL = undefined;

    static get observedAttributes() {
      return [...schema.names, "src", "loading"];
    }

    constructor() {
      super();
      // A page that cannot serve the sheet beside the module (a notebook) sets `styleSheetURL`.
      this._controller = new Controller(this, /** @type {typeof AttentionView} */ (this.constructor).styleSheetURL ?? STYLESHEET, features, schema);
    }

    /** The model folder as an absolute URL (attribute relative to the page). */
    get src() { return folderURL(this.getAttribute("src") ?? MODEL_FOLDER, document.baseURI); }
    set src(v) { this._setAttr("src", v); }
    get loading() { return this.getAttribute("loading") === "lazy" ? "lazy" : "eager"; }
    set loading(v) { this._setAttr("loading", v); }

    /** @param {string} name @param {unknown} v  what a property was set to (null removes the attribute) */
    _setAttr(name, v) {
      if (v === null || v === undefined) this.removeAttribute(name);
      else this.setAttribute(name, String(v));
    }

    // --- public API --------------------------------------------------------------------------

    /** Resolves with `result` once the live model has computed and drawn the current attributes. */
    get ready() { return this._controller.ready; }

    /** What is on screen (see result.js, `Result`); null before the first paint. */
    get result() { return this._controller.result(); }

    /** "idle" | "loading" | "preview" | "live" | "error" (feature.js Status); also `data-status`. */
    get status() { return this._controller.status; }

    /**
     * Lets the model continue the text: up to `maxTokens` tokens (default 20, never past the
     * 128-token window), picked with `temperature`, `topK` and `seed` (defaults: the attributes,
     * then 0.8, 40 and 1). Resolves with {text, tokens: [{id, text, p}], reason}; rejects with a
     * TypeError for a bad setting. Fires `change` (action "generate") for every token.
     */
    generate(options = {}) {
      if (this._controller.status === "idle") this._start();
      return callMethod(features, this._controller.ctx, "generate", options);
    }

    /** Halts a running generate() at once (its Promise resolves with what it wrote). */
    stop() { callMethod(features, this._controller.ctx, "stop"); }

    /** Starts over: a fresh download (bypassing the HTTP cache) and a fresh runtime start. */
    reload() {
      if (this._controller.status === "idle") this._start();
      else this._controller.retry();
    }

    // --- lifecycle ---------------------------------------------------------------------------

    connectedCallback() {
      if (this._controller.status !== "idle") return;
      if (this.loading === "lazy" && "IntersectionObserver" in window) {
        // Nothing at all (no download) until the element is near the viewport.
        this._observer ??= new IntersectionObserver((entries) => {
          if (entries.some((e) => e.isIntersecting)) {
            /** @type {IntersectionObserver} */ (this._observer).disconnect();
            this._start();
          }
        }, { rootMargin: "200px" });
        this._observer.observe(this);
      } else {
        this._start();
      }
    }

    disconnectedCallback() {
      this._observer?.disconnect();
      if (this._controller.status === "idle") this._observer = /** @type {IntersectionObserver|null} */ (null);
      // Removed from the page, nothing keeps writing into it; a move reconnects it before this runs.
      queueMicrotask(() => {
        if (!this.isConnected && features.some((f) => f.methods?.stop)) this.stop();
      });
    }

    /** @param {string} name @param {string|null} oldValue @param {string|null} newValue */
    attributeChangedCallback(name, oldValue, newValue) {
      if (oldValue === newValue) return;
      if (name === "src") this._controller.switchModel();
      else if (name === "loading") {
        if (newValue !== "lazy" && this._controller.status === "idle" && this.isConnected) this._start();
      } else this._controller.attributeChanged(name);
    }

    _start() {
      this._observer?.disconnect();
      this._controller.start();
    }
  }

  // Every state key is an attribute with a property. Properties marked `live` answer the resolved
  // (clamped, defaulted) value once meta.json is in, the others the attribute as written; a
  // property set writes the attribute (null removes it). `ablate` also takes [[1, 2], [2, 3]].
  for (const k of schema.keys) {
    Object.defineProperty(AttentionView.prototype, k.property, {
      configurable: true,
      get() {
        if (k.key === "token") {
          const { run, meta } = this._controller;
          return run && meta ? pinnedIndex(this._controller.state(), run.labels.length, run.labels) : k.initial(this.getAttribute("token"));
        }
        const state = k.live ? this._controller.state() : null;
        if (!state) return k.initial(this.getAttribute(k.key));
        return k.answer ? k.answer(state[k.key]) : state[k.key];
      },
      set(v) { this._setAttr(k.key, k.key === "ablate" && Array.isArray(v) ? formatAblate(v) : v); },
    });
  }
  return AttentionView;
}
