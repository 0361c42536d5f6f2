// <attention-view>: the custom element itself — its attributes (each mirrored by a property),
// its lifecycle (connect, lazy start, attribute changes) and its public API (`ready`,
// `result`, `status`, `reload()`). Loading, computing and painting belong to the controller
// (controller.js). Importing this module defines nothing: call define() (the public entry,
// ../attention-view.js, does it for the one-script-tag embed), so a page can set attributes
// first or pick another tag name.

import { STATE_KEYS } from "./state.js";
import { folderURL } from "./model-loader.js";
import { formatAblate } from "./ablation.js";
import { Controller } from "./controller.js";

// Both beside the public entry (static/attention-view.js), where embeds have always found them.
const DEFAULT_SRC = new URL("../model/", import.meta.url).href;
const CSS_URL = new URL("../attention-view.css", import.meta.url).href;

function intAttr(el, name) {
  const v = el.getAttribute(name);
  return v === null || v === "" || !Number.isFinite(Number(v)) ? null : Number(v);
}

export class AttentionView extends HTMLElement {
  static get observedAttributes() {
    return [...STATE_KEYS, "src", "loading"];
  }

  constructor() {
    super();
    // A page that cannot serve the sheet beside the module (a notebook) sets `styleSheetURL`.
    this._controller = new Controller(this, this.constructor.styleSheetURL ?? CSS_URL);
  }

  // --- attributes mirrored by properties -------------------------------------------------
  // Once meta.json is in, the getters answer the resolved (clamped, defaulted) value.

  get text() { return this._controller.state()?.text ?? this.getAttribute("text"); }
  set text(v) { this._setAttr("text", v); }
  get layer() { return this._controller.state()?.layer ?? intAttr(this, "layer"); }
  set layer(v) { this._setAttr("layer", v); }
  get head() { return this._controller.state()?.head ?? intAttr(this, "head"); }
  set head(v) { this._setAttr("head", v); }
  /** 0-based pinned token; null until the text is tokenized and no token attribute is set. */
  get token() { return this._controller.pinned() ?? intAttr(this, "token"); }
  set token(v) { this._setAttr("token", v); }
  get view() { return this._controller.state()?.view ?? this.getAttribute("view"); }
  set view(v) { this._setAttr("view", v); }
  /** "share" (0–100%, the default) or "relative" (× the row's even share, log scale). */
  get scale() { return this._controller.state()?.scale ?? this.getAttribute("scale") ?? "share"; }
  set scale(v) { this._setAttr("scale", v); }
  /** Heads switched off, "1.2 2.3" (layer.head, 1-based; "" = none); set a string or [[1, 2], [2, 3]]. */
  get ablate() { return this._controller.state()?.ablate ?? this.getAttribute("ablate") ?? ""; }
  set ablate(v) { this._setAttr("ablate", Array.isArray(v) ? formatAblate(v) : v); }
  /** Compare mode's second text; null = compare mode off. */
  get compare() { return this._controller.state() ? this._controller.state().compare : this.getAttribute("compare"); }
  set compare(v) { this._setAttr("compare", v); }
  /** generate()'s defaults (generation.js): the attribute strings as written; null = not set. */
  get temperature() { return this.getAttribute("temperature"); }
  set temperature(v) { this._setAttr("temperature", v); }
  get topK() { return this.getAttribute("topk"); }
  set topK(v) { this._setAttr("topk", v); }
  get seed() { return this.getAttribute("seed"); }
  set seed(v) { this._setAttr("seed", v); }
  /** The model folder as an absolute URL (attribute relative to the page). */
  get src() { return folderURL(this.getAttribute("src") ?? DEFAULT_SRC, document.baseURI); }
  set src(v) { this._setAttr("src", v); }
  get loading() { return this.getAttribute("loading") === "lazy" ? "lazy" : "eager"; }
  set loading(v) { this._setAttr("loading", v); }

  _setAttr(name, v) {
    if (v === null || v === undefined) this.removeAttribute(name);
    else this.setAttribute(name, String(v));
  }

  // --- public API --------------------------------------------------------------------------

  /** Resolves with `result` once the live model has computed and drawn the current attributes. */
  get ready() { return this._controller.ready; }

  /** What is on screen (see runs.js, `Result`); null before the first paint. */
  get result() { return this._controller.result(); }

  /** "idle" | "loading" | "preview" | "live" | "error" (controller.js); also `data-status`. */
  get status() { return this._controller.status; }

  /**
   * Lets the model continue the text: up to `maxTokens` tokens (default 20, never past the
   * 128-token window), picked with `temperature`, `topK` and `seed` (defaults: the attributes,
   * then 0.8, 40 and 1). Resolves with {text, tokens: [{id, text, p}], reason}; rejects with a
   * TypeError for a bad setting. Fires `change` (action "generate") for every token.
   */
  generate(options = {}) {
    if (this._controller.status === "idle") this._start();
    return this._controller.writer.generate(options);
  }

  /** Halts a running generate() at once (its Promise resolves with what it wrote). */
  stop() { this._controller.writer.stop(); }

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
          this._observer.disconnect();
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
    if (this._controller.status === "idle") this._observer = null;
  }

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

/** Registers the element (default tag name attention-view); returns its class. */
export function define(name = "attention-view", registry = window.customElements) {
  const existing = registry.get(name);
  if (existing) return existing;
  // A fresh subclass per name: one constructor cannot be registered under two names.
  const cls = class extends AttentionView {};
  registry.define(name, cls);
  return cls;
}
