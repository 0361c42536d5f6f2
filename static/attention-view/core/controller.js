// @ts-check
// The element's controller: loads the model folder, paints golden.json while the runtime
// compiles, recomputes on every change, and owns the element's one status. Everything on
// screen belongs to a feature (../features.js): the controller mounts them, runs the model
// for the state, and hands every feature the view to paint (feature.js, the contract).

import { loadMeta, loadGolden, loadModel, forget, loaderEvents } from "../model/loader.js";
import { StateReader } from "./state.js";
import { goldenHeadStart, emptyRun } from "../model/runs.js";
import { toResult } from "../model/result.js";
import { currentRun } from "./current-run.js";
import { buildShell, buildUI, paintFrame, paintStatus, reveal, loadingText } from "./skeleton.js";
import { viewOf } from "./view.js";
import { wireKeys } from "./events.js";
import { deferred } from "./deferred.js";
import { makeContext } from "./feature.js";
import { Pump } from "./pump.js";

export class Controller {
  /**
   * @param {HTMLElement & {src: string}} host
   * @param {string} cssURL
   * @param {import("./feature.js").Feature[]} features
   */
  constructor(host, cssURL, features) {
    this.host = host;
    this.cssURL = cssURL;
    this.features = features;
    /** @type {import("./feature.js").Status} */
    this.status = "idle";
    this.readyD = deferred();
    this.meta = this.model = null; // meta.json, and the live model once loaded
    this.golden = null; // the golden.json run, until the live model takes over
    this.run = this.vm = null; // what is on screen, and the view last painted
    this.previewToken = null; // the hovered chip, if any
    this.generation = 0; // bumps on every (re)load so that a stale load's answers are ignored
    /** @type {import("./feature.js").Part[]} */
    this.parts = [];
    this.ctx = makeContext(this);
    this.states = new StateReader();
    this.pump = new Pump((pump) => this.update(pump), (err) => this.fail(err, "run the model"));
  }

  get ready() { return this.readyD.promise; }

  /** The resolved state (attributes + meta.json defaults), or null before meta.json. */
  state() {
    return this.meta ? { ...this.states.read(this.host, this.meta), preview: this.previewToken } : null;
  }

  /** The element's `result` (runs.js toResult), with every feature's fields. */
  result() {
    if (!this.run || !this.meta) return null;
    const view = viewOf(this.run, this.state(), this.meta);
    const result = toResult(this.run, view.state, view.pinned);
    for (const part of this.parts) part.result?.(result, view);
    return result;
  }

  /** The one place the status changes: status line, retry button and data-status together. */
  setStatus(status, text, { retry = false } = {}) {
    this.status = status;
    if (this.shell) paintStatus(this.shell, status, text, retry);
    if (this.host.dataset.status !== status) this.host.dataset.status = status;
  }

  start() {
    if (!this.shell) {
      this.shell = buildShell(this.host, this.cssURL, () => this.retry());
      loaderEvents.addEventListener("progress", (/** @type {any} */ e) => {
        const { folder, loaded } = e.detail;
        if (folder === this.folder && this.meta && ["loading", "preview"].includes(this.status)) {
          this.setStatus(this.status, loadingText(this.meta, loaded));
        }
      });
    }
    this.load();
  }

  /** "Try again": forget the folder's downloads (and skip the HTTP cache), then load again. */
  retry() {
    forget(this.host.src);
    this.reset();
    this.load();
  }

  /** `src` changed: a new model, so nothing computed by the old one may stay on screen. */
  switchModel() {
    if (this.status === "idle") return;
    this.reset();
    this.meta = this.run = null;
    if (this.ui) paintFrame(this.ui, null);
    this.load();
  }

  reset() {
    this.model = this.golden = null;
    if (this.readyD.settled) this.readyD = deferred();
  }

  async load() {
    const gen = ++this.generation;
    const folder = (this.folder = this.host.src);
    this.setStatus(this.run ? "preview" : "loading", loadingText(this.meta));
    this.host.dispatchEvent(new Event("loadstart"));
    try {
      const modelPromise = loadModel(folder); // starts the runtime and all downloads now
      modelPromise.catch(() => {});
      // Without a text attribute the default sentence is certain: fetch its golden run now.
      if (!this.host.hasAttribute("text")) loadGolden(folder).catch(() => {});
      const meta = await loadMeta(folder);
      if (gen !== this.generation) return;
      this.meta = meta;
      this.mount(meta);
      this.setStatus(this.status, loadingText(this.meta));
      // The first paint from golden.json, without waiting for the runtime (runs.js goldenHeadStart).
      const golden = meta.default && this.state().text === meta.default.text
        ? await goldenHeadStart(folder, meta, (run) => this.run === run && this.schedule()) : null;
      if (gen !== this.generation) return;
      if (golden && !this.model) this.golden = golden;
      this.schedule();
      const model = await modelPromise;
      if (gen !== this.generation) return;
      this.model = model;
      this.golden = null;
      this.schedule();
    } catch (err) {
      if (gen === this.generation) this.fail(err);
    }
  }

  /**
   * Builds the UI and mounts the features for the model's shape and the state's `compact`
   * (only the features marked part of the compact view); again when either changes.
   */
  mount(meta) {
    const compact = this.states.read(this.host, meta).compact === "1";
    const shape = `${meta.config.n_layer}x${meta.config.n_head}${compact ? " compact" : ""}`;
    if (this.ui && this.shape === shape) return;
    this.shape = shape;
    this.shell.ui.replaceChildren();
    this.ui = buildUI(this.shell);
    this.ui.root.classList.toggle("compact", compact);
    wireKeys(this.host, this.ui, this.ctx.act);
    const features = compact ? this.features.filter((f) => f.compact) : this.features;
    this.parts = features.map((f) => f.mount(this.ui.slots, this.ctx));
  }

  fail(err, what = "load the model") {
    const message = err && err.message ? err.message : String(err);
    this.setStatus("error", `Could not ${what}: ${message}.`, { retry: true });
    this.readyD.reject(err);
    this.host.dispatchEvent(new CustomEvent("error", { detail: { error: err, message } }));
    this.host.dispatchEvent(new Event("loadend"));
  }

  attributeChanged(name) {
    if (name === "text") this.previewToken = null;
    if (name === "compact" && this.meta && this.shell) this.mount(this.meta);
    this.schedule();
  }

  schedule() {
    if (this.readyD.settled && this.status !== "error") this.readyD = deferred();
    this.pump.schedule();
  }

  /** @param {Pump} pump */
  async update(pump) {
    if (!this.meta || this.status === "error") return;
    const state = this.state();
    const model = this.model;
    let run = this.run;
    if (model) {
      run = await currentRun(model, () => this.state(), run);
      if (!run || this.model !== model) return pump.again(); // typed (or switched model) meanwhile
      for (const part of this.parts) if (part.runs && !(await part.runs(state, model))) return pump.again();
    } else if (state.text === "") {
      run = emptyRun(false);
    } else if (this.golden && this.golden.text === state.text && !state.ablate) {
      run = this.golden;
    } else {
      return; // nothing to show until the model is ready; the fallback stays
    }
    this.run = run;
    const view = (this.vm = viewOf(run, this.state(), this.meta, this.focusChip));
    this.focusChip = false;
    paintFrame(this.ui, view);
    for (const part of this.parts) part.paint?.(view);
    if (!run.live && this.status !== "preview") this.setStatus("preview", this.shell.statusText.textContent);
    if (!this.painted) {
      this.painted = true;
      reveal(this.shell).then(() => requestAnimationFrame(() => performance.mark("attention-view:first-row")));
    }
    if (run.live) this.settle();
  }

  settle() {
    if (this.status !== "live") {
      this.setStatus("live", "live: every number below is computed in your browser.");
      performance.mark("attention-view:live");
      this.host.dispatchEvent(new Event("load"));
      this.host.dispatchEvent(new Event("loadend"));
    }
    this.readyD.resolve(this.result());
  }
}
