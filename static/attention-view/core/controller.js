// @ts-check
// The element's controller: loads the model folder, paints golden.json while the runtime
// compiles, recomputes on every change, and owns the element's one status. Everything on
// screen belongs to a feature (../features.js): the controller mounts them, runs the model
// for the state, and hands every feature the view to paint (feature.js, the contract).

import { forget } from "../model/loader.js";
import { loadFolder, watchProgress } from "./load-folder.js";
import { StateReader } from "./schema.js";
import { ModelChoices } from "./model-choice.js";
import { buildShell, buildUI, paintFrame, paintStatus, reveal } from "./skeleton.js";
import { viewOf, resultOf } from "./view.js";
import { wireKeys } from "./events.js";
import { deferred } from "./deferred.js";
import { makeContext } from "./feature.js";
import { Pump } from "./pump.js";
import { announceFailure, announceLive } from "./announce.js";
import { inSlices, yieldToPage } from "./slices.js";

/**
 * @typedef {import("./state.js").Meta} Meta
 * @typedef {import("../model/loader.js").Model} Model
 * @typedef {import("../model/runs.js").Run} Run
 * @typedef {import("./state.js").State} State
 * @typedef {import("./skeleton.js").Shell} Shell
 * @typedef {import("./skeleton.js").UI} UI
 */

export class Controller {
  /**
   * @param {HTMLElement & {src: string}} host
   * @param {string} cssURL
   * @param {import("./feature.js").Feature[]} features
   * @param {import("./schema.js").StateSchema} schema  core's state keys and the features'
   */
  constructor(host, cssURL, features, schema) {
    this.host = host;
    this.cssURL = cssURL;
    this.features = features;
    this.schema = schema;
    /** @type {import("./feature.js").Status} */ this.status = "idle";
    this.readyD = deferred();
    /** @type {Meta|null} meta.json */ this.meta = null;
    /** @type {Model|null} the shipped model, once loaded */ this.model = null;
    /** @type {Model|null} the model the view on screen was computed by (the shipped one, or a part's choice) */
    this.active = null;
    this.choices = new ModelChoices(this);
    /** @type {Run|null} the golden.json run, until the live model takes over */ this.golden = null;
    /** @type {Run|null} what is on screen */ this.run = null;
    /** @type {import("./view.js").View|null} the view last painted */ this.vm = null;
    /** @type {number|null} the hovered chip, if any */ this.previewToken = null;
    this.focusChip = false; // the pin moved by keyboard: the next paint moves focus to its chip
    this.painted = false; // the first paint has revealed the view
    this.onScreen = deferred(); // ... and is on screen (load-folder.js starts the runtime then)
    this.generation = 0; // bumps on every (re)load so that a stale load's answers are ignored
    this.folder = ""; // the `src` of the load under way (load-folder.js)
    /** @type {Shell|null} the element's shadow root and status line */ this.shell = null;
    /** @type {UI|null} the UI for the model's shape, once mounted */ this.ui = null;
    this.shape = ""; // the model's shape (and compactness) the UI was mounted for
    /** @type {import("./feature.js").Part[]} */ this.parts = [];
    /** @type {Promise<boolean>} the features' mount under way (slices.js), or done */
    this.mounting = Promise.resolve(true);
    this.ctx = makeContext(this);
    this.states = new StateReader(schema);
    this.pump = new Pump((pump) => this.update(pump), (err) => this.fail(err, "run the model"));
  }

  get ready() { return this.readyD.promise; }

  /** The resolved state (attributes + meta.json defaults), or null before meta.json. @returns {State|null} */
  state() { return this.meta ? { ...this.states.read(this.host, this.meta), preview: this.previewToken } : null; }
  /** The resolved state once meta.json is in (every update, action and load step after it). */
  now() { return /** @type {State} */ (this.state()); }

  // What the loading order (load-folder.js), the model choice, dispatch and features change:
  /** A new load of the folder `src` names; its number (an answer of an older one is dropped). */
  beginLoad() { this.folder = this.host.src; return ++this.generation; }
  /** meta.json is in: the UI for its model's shape. @param {Meta} meta */
  metaLoaded(meta) { this.meta = meta; this.mount(meta); }
  /** @param {Run|null} golden  golden.json's run, painted until the live model takes over */
  goldenLoaded(golden) { if (golden && !this.model) this.golden = golden; this.schedule(); }
  /** @param {Model} model  the live model: it computes every update from now on */
  modelLoaded(model) { this.model = model; this.golden = null; this.schedule(); }
  /** @param {Model} model  the model the update under way computes with (model-choice.js) */
  computeWith(model) { this.active = model; }
  /** @param {Run} run  a run a feature computed (a continuation), on screen until the next update */
  showRun(run) { this.run = run; }
  /**
   * A state action is written: the hover ends, and focus follows a pin moved by keyboard.
   * @param {boolean} focusChip
   */
  acted(focusChip) { this.focusChip = focusChip; this.previewToken = null; }
  /**
   * A hovered token (null: none); it stays inside the element, unlike every other action.
   * @param {number|null} token
   */
  hover(token) {
    if (token === this.previewToken) return;
    this.previewToken = token;
    this.schedule();
  }

  /** The element's `result` (result.js toResult), with every feature's fields. */
  result() { return this.run && this.meta ? resultOf(this.run, this.now(), this.meta, this.parts) : null; }

  /**
   * The one place the status changes: status line, retry button and data-status together.
   * @param {import("./feature.js").Status} status @param {string} text @param {{retry?: boolean}} [options]
   */
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
    paintFrame(/** @type {UI} */ (this.ui), null);
  }

  /**
   * Builds the UI and mounts the features for the model's shape and the state's `compact`
   * (only the features marked part of the compact view); again when either changes. The
   * features mount in slices (slices.js) while the UI is still hidden, before the first paint;
   * updates wait for them.
   * @param {Meta} meta
   */
  mount(meta) {
    const compact = this.states.read(this.host, meta).compact === "1";
    const shape = `${meta.config.n_layer}x${meta.config.n_head}${compact ? " compact" : ""}`;
    if (this.ui && this.shape === shape) return;
    this.shape = shape;
    const shell = /** @type {Shell} */ (this.shell);
    shell.ui.replaceChildren();
    const ui = (this.ui = buildUI(shell));
    ui.root.classList.toggle("compact", compact);
    wireKeys(this.host, ui, this.ctx.act);
    const features = compact ? this.features.filter((f) => f.compact) : this.features;
    /** @type {import("./feature.js").Part[]} */ const parts = (this.parts = []);
    const mountOne = (/** @type {import("./feature.js").Feature} */ f) => parts.push(f.mount(ui.slots, this.ctx));
    // A view on screen (the compact form toggled) remounts at once: no half-built frame.
    if (this.painted) features.forEach(mountOne);
    this.mounting = this.painted ? Promise.resolve(true) : inSlices(features, mountOne, () => this.ui === ui)
      .then(async (done) => { if (done) await yieldToPage(); return done; }); // the first paint: a task of its own
  }

  /** @param {unknown} err @param {string} [what] */
  fail(err, what = "load the model") { announceFailure(this, err, what); }

  /** @param {string} name */
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
    if (!(await this.mounting) || !this.meta || (this.status === "error" && !this.choices.failed)) return;
    const run = await this.choices.runFor(this.now(), this.model, this.golden, pump);
    if (!run) return;
    this.run = run;
    const view = (this.vm = viewOf(run, this.now(), this.meta, this.focusChip));
    this.focusChip = false;
    paintFrame(/** @type {UI} */ (this.ui), view);
    const parts = this.parts;
    const paintPart = (/** @type {import("./feature.js").Part} */ part) => part.paint?.(view);
    // The first paint, while the UI is still hidden, runs in slices: in one task it blocks a
    // phone for a fifth of a second. A view cleared or remounted meanwhile stops painting; its
    // own update follows. Once the view is on screen every paint runs at once, so that no frame
    // shows some panels painted and others not (the preview's numbers beside the live ones).
    if (this.painted) parts.forEach(paintPart);
    else if (!(await inSlices(parts, paintPart, () => this.vm === view && this.parts === parts))) return;
    const shell = /** @type {Shell} */ (this.shell);
    if (!run.live && !["preview", "error"].includes(this.status)) this.setStatus("preview", shell.statusText.textContent); // a failure during the run stays said
    if (!this.painted) {
      this.painted = true;
      reveal(shell).then(() => requestAnimationFrame(() => {
        performance.mark("attention-view:first-row");
        setTimeout(() => this.onScreen.resolve(undefined), 0); // after that frame's paint
      }));
    }
    if (run.live) announceLive(this);
  }
}
