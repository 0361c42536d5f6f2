// The element's load-and-update controller: loads the model folder, paints golden.json while
// the runtime compiles, recomputes on every change, and owns the element's one status.
//
/**
 * @typedef {"idle"|"loading"|"preview"|"live"|"error"} Status
 * - idle: not started (a lazy element off-screen, or not yet connected); no request made
 * - loading: downloading or compiling; nothing of this model is on screen yet
 * - preview: painted without the live model (golden.json's default sentence, or an empty
 *   text) while it loads
 * - live: the live model has painted; later updates keep this status
 * - error: loading or running failed; the retry button shows and `ready` rejects
 * The element mirrors it as `data-status` (absent while idle), for CSS and tests.
 */

import {
  loadMeta, loadGolden, loadModel, loadTokenizer, modelBytes, forget, loaderEvents,
} from "./model-loader.js";
import { STATE_KEYS, resolve, reduce, toAttributes, pinnedIndex, shownIndex } from "./state.js";
import { goldenRun, emptyRun, toResult, viewPositions, ensureLogits } from "./runs.js";
import { maskedRun, compareRun, runMatches } from "./masked-run.js";
import { addInterventions, withInterventions } from "./interventions.js";
import { Writer } from "./generation.js";
import { addGenerateControls } from "./generate-controls.js";
import { buildShell, buildUI } from "./skeleton.js";
import { Renderer, viewModel, paintStatus } from "./renderer.js";
import { wireEvents, wirePageKeys } from "./events.js";
import { addExportBar } from "./export-bar.js";
import { addEmbedMenu } from "./embed-menu.js";
import { storyRanking } from "./story.js";
import { wordsOf, wordSpec } from "./words.js";

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

export class Controller {
  constructor(host, cssURL) {
    this.host = host;
    this.cssURL = cssURL;
    /** @type {Status} */
    this.status = "idle";
    this.readyD = deferred();
    this.meta = null;
    this.model = null; // the live model, once loaded
    this.golden = null; // the golden.json run, until the live model takes over
    this.run = null; // what is on screen
    this.previewToken = null; // the hovered chip, if any
    this.generation = 0; // bumps on every (re)load so that a stale load's answers are ignored
    this.folder = null;
    this.onProgress = (e) => this.progress(e.detail);
    this.writer = new Writer(this); // generate(), stop(), undo(): generation.js
  }

  get ready() { return this.readyD.promise; }

  /** The resolved state (attributes + meta.json defaults), or null before meta.json. */
  state() {
    if (!this.meta) return null;
    const attrs = {};
    for (const name of STATE_KEYS) attrs[name] = this.host.getAttribute(name);
    return { ...resolve(attrs, this.meta), preview: this.previewToken };
  }

  pinned() {
    return this.run && this.meta ? pinnedIndex(this.state(), this.run.labels.length, this.run.labels) : null;
  }

  /** Where `run` (of the state's text) needs next-token logits: runs.js viewPositions. */
  logitPositions(run) {
    const state = this.state();
    const n = run.labels.length;
    return viewPositions(n, pinnedIndex(state, n, run.labels), shownIndex(state, n, run.labels));
  }

  result() {
    if (!this.run || !this.meta) return null;
    const state = this.state();
    const pinned = pinnedIndex(state, this.run.labels.length, this.run.labels);
    return withInterventions(toResult(this.run, state, pinned), this.run, state, pinned, this.meta, this.second);
  }

  // --- status --------------------------------------------------------------------------------

  /** The one place the status changes: status line, retry button and data-status together. */
  setStatus(status, text, { retry = false } = {}) {
    this.status = status;
    if (this.refs) paintStatus(this.refs, status, text, retry);
    if (this.host.dataset.status !== status) this.host.dataset.status = status;
  }

  loadingText(percent = null) {
    if (!this.meta) return "loading the model\u2026";
    const mb = (modelBytes(this.meta) / 1e6).toFixed(1);
    return `loading the model (\u2248${mb} MB)\u2026${percent === null ? "" : ` ${percent}%`}`;
  }

  progress({ folder, loaded }) {
    if (folder !== this.folder || !this.meta || !["loading", "preview"].includes(this.status)) return;
    const total = modelBytes(this.meta);
    if (!total) return;
    // A percentage only while bytes are arriving: once they are all in, the runtime is still
    // compiling, and "100%" would claim the wait is over.
    const percent = loaded < total ? Math.floor((100 * loaded) / total) : null;
    this.setStatus(this.status, this.loadingText(percent));
  }

  // --- loading ---------------------------------------------------------------------------------

  start() {
    if (!this.host.shadowRoot) {
      this.host.attachShadow({ mode: "open" });
      this.refs = buildShell(this.host.shadowRoot, this.cssURL);
      this.refs.retry.addEventListener("click", () => this.retry());
      new ResizeObserver(([entry]) => {
        const wide = entry.contentRect.width >= WIDE_PX;
        if (wide === this.refs.ui.classList.contains("wide")) return;
        // In the next frame: a layout change inside the callback resizes the observed element
        // again, which browsers report as a window error ("ResizeObserver loop completed with
        // undelivered notifications"; WebKit does at a 1024 px window).
        requestAnimationFrame(() => this.refs.ui.classList.toggle("wide", wide));
      }).observe(this.host);
      loaderEvents.addEventListener("progress", this.onProgress);
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
    this.meta = null;
    this.run = null;
    this.renderer?.clear();
    this.load();
  }

  reset() {
    this.model = null;
    this.golden = null;
    if (this.readyD.settled) this.readyD = deferred();
  }

  async load() {
    const gen = ++this.generation;
    const folder = (this.folder = this.host.src);
    this.setStatus(this.run ? "preview" : "loading", this.loadingText());
    this.host.dispatchEvent(new Event("loadstart"));
    try {
      const modelPromise = loadModel(folder); // starts the runtime and all downloads now
      modelPromise.catch(() => {});
      // Without a text attribute the default sentence is certain: fetch its golden run now.
      if (!this.host.hasAttribute("text")) loadGolden(folder).catch(() => {});
      const meta = await loadMeta(folder);
      if (gen !== this.generation) return;
      this.meta = meta;
      this.ensureUI(meta);
      this.setStatus(this.status, this.loadingText());
      if (meta.default && this.state().text === meta.default.text) {
        // First paint from golden.json, without waiting for anything else. It is only a head
        // start: a folder without one (or with a bad one) still gets the live model's paint,
        // and the live model is what reports a real failure.
        const golden = await loadGolden(folder).catch(() => null);
        if (gen !== this.generation) return;
        if (golden && !this.model) {
          const run = (this.golden = goldenRun(golden, meta));
          loadTokenizer(folder).then((tokenizer) => {
            run.tokenizer = tokenizer; // names the predictions, which showed "…" until now
            if (this.run === run) this.schedule();
          }, () => {});
        }
      }
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

  /** Builds the UI for the model's layer and head counts; rebuilt when a new model has others. */
  ensureUI(meta) {
    const shape = `${meta.config.n_layer}x${meta.config.n_head}`;
    if (this.renderer && this.shape === shape) return;
    this.shape = shape;
    this.refs.ui.replaceChildren();
    const r = buildUI(this.refs, { nLayer: meta.config.n_layer, nHead: meta.config.n_head });
    this.renderer = new Renderer(r);
    const bar = addExportBar(this.host, r);
    this.embedMenu = addEmbedMenu(this.host, r, bar);
    this.interventions = addInterventions(r, (action) => this.act(action));
    this.writer.ui = addGenerateControls(this.host, r, this.writer, (action) => this.act(action));
    wireEvents(r, {
      act: (action, opts) => this.act(action, opts),
      heatmapSize: () => this.run?.out?.T ?? 0,
      cursor: () => this.renderer.cursor,
      mathOpened: () => this.vm && this.renderer.renderMath(this.vm),
    });
    wirePageKeys(this.host, (action) => this.act(action));
  }

  fail(err, what = "load the model") {
    const message = err && err.message ? err.message : String(err);
    this.setStatus("error", `Could not ${what}: ${message}.`, { retry: true });
    this.readyD.reject(err);
    this.host.dispatchEvent(new CustomEvent("error", { detail: { error: err, message } }));
    this.host.dispatchEvent(new Event("loadend"));
  }

  // --- state changes ---------------------------------------------------------------------------

  attributeChanged(name) {
    if (name === "text") this.previewToken = null;
    this.schedule();
  }

  /** A user action: next state, reflected to attributes, then a `change` event. */
  act(action, { focusChip = false } = {}) {
    if (!this.meta) return;
    if (action.type === "story" || action.type === "example") {
      action = this.storyJump(action);
      if (!action) return;
    }
    const { n_layer: nLayer, n_head: nHead } = this.meta.config;
    const count = this.run ? this.run.labels.length : 0;
    const labels = this.run ? this.run.labels : null;
    const next = reduce(this.state(), action, { count, nLayer, nHead, labels });
    if (action.type === "view" && action.layer) next.layer = action.layer;
    if (action.type === "preview") {
      if (next.preview !== this.previewToken) {
        this.previewToken = next.preview;
        this.schedule();
      }
      return;
    }
    this.focusChip = focusChip;
    this.previewToken = null;
    const attrs = toAttributes(next);
    for (const name of STATE_KEYS) {
      if (attrs[name] === null) this.host.removeAttribute(name);
      else if (this.host.getAttribute(name) !== attrs[name]) this.host.setAttribute(name, attrs[name]);
    }
    this.schedule();
    const { text, token } = next;
    // `word`: the pinned token as a word spec ("said#2") when one names it unambiguously and
    // the text is the run's (not a new text still to be tokenized); the permalink prefers it.
    const pinned = labels && text === this.run.text && token !== null ? pinnedIndex(next, count, labels) : -1;
    const word = pinned >= 0 ? wordSpec(wordsOf(labels), pinned) : null;
    this.host.dispatchEvent(new CustomEvent("change", {
      bubbles: true,
      detail: {
        ...Object.fromEntries(STATE_KEYS.map((name) => [name, next[name]])),
        word, continued: this.writer.continued(text), action: action.type,
      },
    }));
  }

  /**
   * "Find the story" ({type: "story", next}) and "See it do this" ({type: "example", layer,
   * head}) as a jump action; null when there is nothing to jump to. The story's place in its
   * ranking is kept (with the run it ranks) so that "Next" walks on and the view can say
   * which row of how many it shows.
   */
  storyJump(action) {
    if (action.type === "example") {
      const head = this.meta.heads?.find((x) => x.layer === action.layer && x.head === action.head);
      const ex = head?.example;
      if (!ex || typeof ex.text !== "string" || !Number.isInteger(ex.token)) return null;
      this.story = null;
      return { type: "jump", text: ex.text, token: ex.token, layer: head.layer, head: head.head };
    }
    const out = this.run?.out;
    if (!out) return null;
    const ranking = storyRanking(out);
    if (!ranking.length) return null;
    const index = action.next && this.story?.out === out ? (this.story.index + 1) % ranking.length : 0;
    this.story = { out, index, total: ranking.length, row: ranking[index] };
    const { layer, head, query } = this.story.row;
    return { type: "jump", layer, head, token: query };
  }

  // --- updates ---------------------------------------------------------------------------------

  schedule() {
    if (this.readyD.settled && this.status !== "error") this.readyD = deferred();
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  // One update at a time; changes that arrive meanwhile are folded into one more pass, so a
  // burst of keystrokes costs one run per pass, not one per key.
  async pump() {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        await this.update();
      } while (this.again);
    } catch (err) {
      this.fail(err, "run the model");
    } finally {
      this.pumping = false;
    }
  }

  async update() {
    if (!this.meta || this.status === "error") return;
    const state = this.state();
    const model = this.model;
    let run = this.run;
    if (model) {
      // A run from another model (src changed), another text or other heads off is
      // recomputed, never reused; so is compare mode's second run.
      const stale = (r, key) => {
        const now = this.state();
        return !runMatches(r, this.model, now?.[key], now?.ablate);
      };
      const positions = (r) => this.logitPositions(r);
      if (!runMatches(run, model, state.text, state.ablate)) {
        run = await maskedRun(model, state.text, state.ablate, run, { positions });
        if (stale(run, "text")) {
          this.again = true; // typed (or switched model) meanwhile: skip painting a stale run
          return;
        }
      }
      // A token pinned or hovered since the run was made: its predictions cost one more run.
      if (await ensureLogits(model, run, positions(run)) && stale(run, "text")) return void (this.again = true);
      this.second = await compareRun(model, state, this.second);
      if (this.second && stale(this.second, "compare")) return void (this.again = true);
    } else if (state.text === "") {
      run = emptyRun(false);
    } else if (this.golden && this.golden.text === state.text && !state.ablate) {
      run = this.golden;
    } else {
      return; // nothing to show until the model is ready; the fallback stays
    }
    this.run = run;
    this.paint(this.state(), run);
    if (run.live) this.settle();
  }

  paint(state, run) {
    const vm = (this.vm = viewModel(run, state, this.meta));
    vm.story = this.story?.out === run.out ? this.story : null;
    this.renderer.render(vm);
    this.interventions.paint(vm, this.host, this.second);
    if (!run.live && this.status !== "preview") this.setStatus("preview", this.refs.statusText.textContent);
    if (!this.painted) {
      this.painted = true;
      this.renderer.reveal().then(() => requestAnimationFrame(() => performance.mark("attention-view:first-row")));
    }
    if (this.focusChip && vm.pinned >= 0) {
      this.focusChip = false;
      this.renderer.focusChip(vm.pinned);
    }
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
