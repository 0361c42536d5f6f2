// @ts-check
// The element's controller: loads the model folder, paints golden.json while the runtime
// compiles, recomputes on every change, and owns the element's one status. Everything on
// screen belongs to a feature (../features.js): the controller mounts them, runs the model
// for the state, and hands every feature the view to paint (feature.js, the contract).

import { forget } from "../model/loader.js";
import { loadFolder, watchProgress } from "./load-folder.js";
import { StateReader } from "./state.js";
import { emptyRun } from "../model/runs.js";
import { toResult } from "../model/result.js";
import { ModelChoices } from "./model-choice.js";
import { buildShell, buildUI, paintFrame, paintStatus, reveal } from "./skeleton.js";
import { viewOf } from "./view.js";
import { wireKeys } from "./events.js";
import { deferred } from "./deferred.js";
import { makeContext } from "./feature.js";
import { Pump } from "./pump.js";
import { sentence } from "../model/failures.js";

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
    this.active = null; // the model the view on screen was computed by (the shipped one, or a part's choice)
    this.choices = new ModelChoices(this);
    this.golden = null; // the golden.json run, until the live model takes over
    this.run = this.vm = null; // what is on screen, and the view last painted
    this.previewToken = null; // the hovered chip, if any
    this.generation = 0; // bumps on every (re)load so that a stale load's answers are ignored
    this.folder = ""; // the `src` of the load under way (load-folder.js)
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

  /** The element's `result` (result.js toResult), with every feature's fields. */
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
      this.shell = buildShell(this.host, this.cssURL, () => this.tryAgain());
      watchProgress(this);
    }
    loadFolder(this);
  }

  /** The status line's "Try again": a part's model that failed to load, else the whole folder. */
  tryAgain() {
    if (!this.choices.failed) return this.retry();
    this.choices.failed = null; // its load was dropped when it failed: the next one starts afresh
    this.setStatus("loading", "trying again\u2026");
    this.schedule();
  }

  /** Forget the folder's downloads (and skip the HTTP cache), then load again. */
  retry() {
    forget(this.host.src);
    this.reset();
    loadFolder(this);
  }

  /** `src` changed: a new model, so nothing computed by the old one may stay on screen. */
  switchModel() {
    if (this.status === "idle") return;
    this.reset();
    this.meta = null;
    if (this.ui) this.clearView();
    loadFolder(this);
  }

  reset() {
    this.model = this.golden = this.active = this.choices.failed = null;
    this.renewReady();
  }

  /** A new `ready` promise once the last one has settled: the next update answers it. */
  renewReady() {
    if (this.readyD.settled) this.readyD = deferred();
  }

  /** Nothing on screen (a model whose numbers may not stay under another's name). */
  clearView() {
    this.run = this.vm = null;
    paintFrame(this.ui, null);
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
    // No "Try again" for a failure a retry cannot fix (failures.js: the page forbids WebAssembly).
    this.setStatus("error", sentence(`Could not ${what}: ${message}`), { retry: err?.retry !== false });
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
    if (this.status !== "error") this.renewReady();
    this.pump.schedule();
  }

  /** @param {Pump} pump */
  async update(pump) {
    if (!this.meta || (this.status === "error" && !this.choices.failed)) return;
    const state = this.state();
    let run = this.run;
    if (this.model) {
      run = await this.choices.run(this.model, pump);
      if (!run) return;
    } else if (state.text === "") {
      run = emptyRun(false);
    } else if (this.choices.of(state)) {
      return; // another model than the shipped one: nothing of it before the runtime is in
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
    // A part's model says which one it is (a training step's), so the line names what is on screen.
    const text = this.choices.of(this.state())?.live ?? "live: every number below is computed in your browser.";
    if (this.status !== "live") {
      this.setStatus("live", text);
      performance.mark("attention-view:live");
      this.host.dispatchEvent(new Event("load"));
      this.host.dispatchEvent(new Event("loadend"));
    } else if (this.shell.statusText.textContent !== text) {
      this.setStatus("live", text);
    }
    this.readyD.resolve(this.result());
  }
}
