// <attention-view>: the custom element. It owns the lifecycle (lazy start, loading, errors,
// retry), turns user input into state actions, and keeps attributes, `ready` and events in
// step; the runner computes, the renderer draws. Importing this module defines nothing:
// call define() (attention-view.js does it for the one-script-tag embed).

import { folderURL, loadMeta, loadGolden, loadModel, loadTokenizer, modelBytes } from "./av-runner.js";
import { resolve, reduce, toAttributes, pinnedIndex, shownIndex, KEY_ACTIONS } from "./av-state.js";
import { liveRun, goldenRun, emptyRun, toResult } from "./av-runs.js";
import { buildShell, buildUI } from "./av-skeleton.js";
import { Renderer } from "./av-render.js";
import { heatmapRowAt } from "./av-charts.js";
import { renderMath } from "./av-math.js";
import { addExportBar } from "./av-toolbar.js";

const STATE_ATTRS = ["text", "layer", "head", "token", "view"];
const DEFAULT_SRC = new URL("model/", import.meta.url).href;
const CSS_URL = new URL("attention-view.css", import.meta.url).href;
const WIDE_PX = 820; // from here on the panels sit in two columns


function deferred() {
  const d = { settled: false };
  d.promise = new Promise((res, rej) => {
    d.resolve = (v) => { d.settled = true; res(v); };
    d.reject = (e) => { d.settled = true; rej(e); };
  });
  d.promise.catch(() => {}); // a rejection nobody awaits must not become a page error
  return d;
}

function intAttr(el, name) {
  const v = el.getAttribute(name);
  return v === null || v === "" || !Number.isFinite(Number(v)) ? null : Number(v);
}

export class AttentionView extends HTMLElement {
  static get observedAttributes() {
    return [...STATE_ATTRS, "src", "loading"];
  }

  constructor() {
    super();
    this._ready = deferred();
    this._meta = null;
    this._model = null;
    this._golden = null; // the golden.json run, until the live model takes over
    this._run = null; // what is on screen
    this._preview = null;
    this._started = false;
    this._loaded = false;
    this._failed = null;
    this._generation = 0; // bumps on src change/retry so stale loads are ignored
  }

  // --- attributes mirrored by properties -------------------------------------------------

  get text() { return this._meta ? this._state().text : this.getAttribute("text"); }
  set text(v) { this._setAttr("text", v); }
  get layer() { return this._meta ? this._state().layer : intAttr(this, "layer"); }
  set layer(v) { this._setAttr("layer", v); }
  get head() { return this._meta ? this._state().head : intAttr(this, "head"); }
  set head(v) { this._setAttr("head", v); }
  /** 0-based pinned token; null until the text is tokenized and no token attribute is set. */
  get token() {
    if (this._run && this._meta) return pinnedIndex(this._state(), this._run.labels.length);
    return intAttr(this, "token");
  }
  set token(v) { this._setAttr("token", v); }
  get view() { return this._meta ? this._state().view : this.getAttribute("view"); }
  set view(v) { this._setAttr("view", v); }
  get src() { return folderURL(this.getAttribute("src") ?? DEFAULT_SRC, document.baseURI); }
  set src(v) { this._setAttr("src", v); }
  get loading() { return this.getAttribute("loading") === "lazy" ? "lazy" : "eager"; }
  set loading(v) { this._setAttr("loading", v); }

  _setAttr(name, v) {
    if (v === null || v === undefined) this.removeAttribute(name);
    else this.setAttribute(name, String(v));
  }

  /** Resolves once the live model has computed and drawn the current attributes. */
  get ready() { return this._ready.promise; }

  /** {tokens, attention, scores, top, ...} of what is on screen; null before the first paint. */
  get result() {
    if (!this._run || !this._meta) return null;
    const state = this._state();
    return toResult(this._run, state, pinnedIndex(state, this._run.labels.length));
  }

  // --- lifecycle ---------------------------------------------------------------------------

  connectedCallback() {
    if (this._started) return;
    if (this.loading === "lazy" && "IntersectionObserver" in window) {
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
    if (!this._started) this._observer = null;
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (name === "src" && this._started) this._restart();
    else if (name === "loading" && newValue !== "lazy" && !this._started && this.isConnected) this._start();
    else if (STATE_ATTRS.includes(name)) {
      if (name === "text") this._preview = null;
      this._schedule();
    }
  }

  _start() {
    this._started = true;
    if (!this.shadowRoot) {
      this.attachShadow({ mode: "open" });
      this._r = buildShell(this.shadowRoot, CSS_URL);
      this._r.retry.addEventListener("click", () => this._restart());
    }
    this._load(++this._generation);
  }

  _restart() {
    this._failed = null;
    this._model = null;
    this._golden = null;
    this._loaded = false;
    if (this._ready.settled) this._ready = deferred();
    this._load(++this._generation);
  }

  async _load(gen) {
    const folder = this.src;
    this._status("loading", "loading the model\u2026");
    try {
      const modelPromise = loadModel(folder); // starts the runtime and all downloads now
      modelPromise.catch(() => {});
      // Without a text attribute the default sentence is certain: fetch its golden run now.
      if (!this.hasAttribute("text")) loadGolden(folder).catch(() => {});
      const meta = await loadMeta(folder);
      if (gen !== this._generation) return;
      this._meta = meta;
      this._ensureUI(meta);
      const mb = (modelBytes(meta) / 1e6).toFixed(1);
      this._status("loading", `loading the model (\u2248${mb} MB)\u2026`);
      if (meta.default && this._state().text === meta.default.text) {
        // First paint from golden.json, without waiting for anything else.
        const golden = await loadGolden(folder);
        if (gen !== this._generation) return;
        if (!this._model) {
          const run = (this._golden = goldenRun(golden, meta));
          loadTokenizer(folder).then((tokenizer) => {
            run.tokenizer = tokenizer; // names the predictions, which showed "…" until now
            if (this._run === run) this._schedule();
          }, () => {});
        }
      }
      this._schedule();
      const model = await modelPromise;
      if (gen !== this._generation) return;
      this._model = model;
      this._golden = null;
      this._schedule();
    } catch (err) {
      if (gen === this._generation) this._fail(err);
    }
  }

  _ensureUI(meta) {
    if (this._renderer) return;
    const r = buildUI(this._r, { nLayer: meta.config.n_layer, nHead: meta.config.n_head });
    this._renderer = new Renderer(r);
    addExportBar(this, r);
    r.input.addEventListener("input", () => this._act({ type: "text", text: r.input.value }));
    r.chips.addEventListener("click", (e) => {
      const chip = e.target.closest(".chip");
      if (chip) this._act({ type: "pin", token: Number(chip.dataset.index) });
    });
    r.chips.addEventListener("pointerover", (e) => {
      const chip = e.target.closest(".chip");
      if (chip && e.pointerType === "mouse") this._act({ type: "preview", token: Number(chip.dataset.index) });
    });
    r.chips.addEventListener("pointerleave", () => this._act({ type: "preview", token: null }));
    for (const mini of r.minis) {
      mini.button.addEventListener("click", () => {
        const { layer, head, view } = mini;
        this._act(view === "head" ? { type: "select", layer, head } : { type: "view", view, layer });
      });
    }
    r.heatmap.addEventListener("click", (e) => {
      if (this._run?.out) this._act({ type: "pin", token: heatmapRowAt(r.heatmap, e.clientY, this._run.out.T) });
    });
    r.math.addEventListener("toggle", () => {
      if (r.math.open && this._vm) renderMath(r, this._vm);
    });
    r.ui.addEventListener("keydown", (e) => this._onKey(e));
    new ResizeObserver(([entry]) => {
      r.ui.classList.toggle("wide", entry.contentRect.width >= WIDE_PX);
    }).observe(this);
  }

  _onKey(e) {
    if (e.target.closest("textarea, input") || e.ctrlKey || e.metaKey || e.altKey) return;
    const action = KEY_ACTIONS[e.key];
    if (!action) return;
    e.preventDefault();
    this._focusChip = action.type === "move" || e.target.classList.contains("chip");
    this._act(action);
  }

  // --- state -------------------------------------------------------------------------------

  _state() {
    const attrs = {};
    for (const name of STATE_ATTRS) attrs[name] = this.getAttribute(name);
    return { ...resolve(attrs, this._meta), preview: this._preview };
  }

  /** A user action: next state, reflected to attributes, then a `change` event. */
  _act(action) {
    if (!this._meta) return;
    const { n_layer: nLayer, n_head: nHead } = this._meta.config;
    const count = this._run ? this._run.labels.length : 0;
    const next = reduce(this._state(), action, { count, nLayer, nHead });
    if (action.type === "view" && action.layer) next.layer = action.layer;
    if (action.type === "preview") {
      if (next.preview !== this._preview) {
        this._preview = next.preview;
        this._schedule();
      }
      return;
    }
    this._preview = null;
    const attrs = toAttributes(next);
    for (const name of STATE_ATTRS) {
      if (attrs[name] === null) this.removeAttribute(name);
      else if (this.getAttribute(name) !== attrs[name]) this.setAttribute(name, attrs[name]);
    }
    this._schedule();
    const { text, token, layer, head, view } = next;
    this.dispatchEvent(new CustomEvent("change", {
      bubbles: true,
      detail: { text, token, layer, head, view, action: action.type },
    }));
  }

  // --- updates -----------------------------------------------------------------------------

  _schedule() {
    if (this._ready.settled && !this._failed) this._ready = deferred();
    if (this._scheduled) return;
    this._scheduled = true;
    queueMicrotask(() => {
      this._scheduled = false;
      this._pump();
    });
  }

  // One update at a time; changes that arrive meanwhile are folded into one more pass, so a
  // burst of keystrokes costs one run per pass, not one per key.
  async _pump() {
    if (this._pumping) {
      this._again = true;
      return;
    }
    this._pumping = true;
    try {
      do {
        this._again = false;
        await this._update();
      } while (this._again);
    } catch (err) {
      this._fail(err, "run the model");
    } finally {
      this._pumping = false;
    }
  }

  async _update() {
    if (!this._meta || this._failed) return;
    const state = this._state();
    let run = this._run;
    if (this._model) {
      if (!run || !run.live || run.text !== state.text) {
        run = state.text === "" ? emptyRun(true) : await liveRun(this._model, state.text);
        if (this._state().text !== run.text) {
          this._again = true; // typed meanwhile: skip painting a stale text
          return;
        }
      }
    } else if (state.text === "") {
      run = emptyRun(false);
    } else if (this._golden && this._golden.text === state.text) {
      run = this._golden;
    } else {
      return; // nothing to show until the model is ready; the fallback stays
    }
    this._run = run;
    this._paint(this._state(), run);
    if (run.live) this._settle();
  }

  _paint(state, run) {
    const count = run.labels.length;
    const vm = {
      run,
      out: run.out,
      labels: run.labels,
      names: run.names,
      state,
      pinned: pinnedIndex(state, count),
      shown: shownIndex(state, count),
      meta: this._meta,
      pieceOf: run.pieceOf,
    };
    this._vm = vm;
    const r = this._renderer;
    r.setInput(state.text);
    r.notice(this._noticeText(run));
    r.render(vm);
    const status = run.live ? "live" : "preview";
    if (this.dataset.status !== status) this.dataset.status = status;
    if (!this._painted) {
      this._painted = true;
      r.reveal().then(() => requestAnimationFrame(() => performance.mark("attention-view:first-row")));
    }
    if (this._focusChip && vm.pinned >= 0) {
      this._focusChip = false;
      r.chips[vm.pinned]?.el.focus();
    }
  }

  _noticeText(run) {
    if (run.text === "") return "Type a sentence above to see which earlier tokens each token attends to.";
    if (!run.truncated) return "";
    const { total, start } = run.truncated;
    const n = run.ids.length;
    return `This text is ${total} tokens long and the model reads at most ${n}, so only the last ${n} ` +
      `are shown: tokens ${start + 1}\u2013${total}, starting at \u00ab${run.names[0]}\u00bb.`;
  }

  _settle() {
    if (!this._loaded) {
      this._loaded = true;
      this._status("live", "live: every number below is computed in your browser.");
      performance.mark("attention-view:live");
      this.dispatchEvent(new Event("load"));
    }
    this._ready.resolve(this.result);
  }

  _status(kind, text, opts) {
    if (!this._r) return;
    if (this._renderer) this._renderer.status(kind, text, opts);
    else {
      this._r.status.dataset.kind = kind;
      this._r.statusText.textContent = text;
      this._r.retry.hidden = !opts?.retry;
    }
    if (kind !== "live") this.dataset.status = kind === "error" ? "error" : this._run ? "preview" : "loading";
  }

  _fail(err, what = "load the model") {
    this._failed = err;
    const message = err && err.message ? err.message : String(err);
    this._status("error", `Could not ${what}: ${message}.`, { retry: true });
    this.dataset.status = "error";
    this._ready.reject(err);
    this.dispatchEvent(new CustomEvent("error", { detail: { error: err, message } }));
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
