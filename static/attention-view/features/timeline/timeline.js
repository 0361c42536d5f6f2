// @ts-check
// "Training timeline": the model as it was at each snapshot the trainer kept, from step 0 to
// the shipped model. A slider over the snapshots (←/→ on it; a screen reader hears "step 350
// of 1,500, held-out 2.31 bits per character"), a play button that walks through them, and a
// chart of the held-out curve and the heads' scores with the step on screen marked
// (chart.js). The `step` state key says which snapshot; this feature's `model` hands
// the controller that snapshot's model (model/timeline.js), so that everything on screen, the
// row, strips, heatmap, math, top 5, heads switched off, compare and Continue, is computed by
// that step's graph. Closed, it costs nothing: no byte of the timeline is fetched until the
// reader opens it (or a link names a step).

import { h, setText, setHidden, setAttr } from "../../core/dom.js";
import { hasTimeline, loadTimeline, loadedTimeline, loadStep, loadedStep, pointAt } from "../../model/timeline.js";
import { pointIndex, stepText, headText, mainScore, grouped } from "../../readouts/timeline.js";
import { TimelineChart } from "./chart.js";
import { TIMELINE_KEYS, TIMELINE_ACTIONS } from "./state.js";

/** @typedef {import("../../model/timeline.js").Timeline} Timeline */
/** @typedef {import("../../model/timeline.js").TimelinePoint} TimelinePoint */

const PLAY_MS = 1000; // each snapshot about a second on screen: time to see the row and the mark move
/** @param {number} bytes */
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(bytes < 1e6 ? 2 : 1)} MB`;
/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @type {import("../../core/feature.js").Feature} */
export const timeline = {
  name: "timeline",
  state: TIMELINE_KEYS,
  actions: TIMELINE_ACTIONS,
  mount(slots, ctx) {
    const meta = ctx.meta();
    const folder = () => /** @type {any} */ (ctx.host).src;
    if (!meta || !hasTimeline(folder(), meta)) return {}; // a model without snapshots: no control at all
    const snapshots = /** @type {NonNullable<typeof meta.timeline>} */ (meta.timeline).steps - 1;
    const ui = buildControl(meta, snapshots);
    slots.put("controls", ui.section);

    let open = false;
    let chart = /** @type {TimelineChart|null} */ (null);
    let failure = /** @type {Error|null} */ (null); // timeline.json could not be loaded
    let playing = /** @type {object|null} */ (null); // the walk under way, if any
    let direction = 1; // where the reader is heading: the snapshot that way is fetched ahead
    let width = 0; // the chart's width in pixels, from its ResizeObserver (never read in paint)
    let painted = { layer: 1, head: 1, step: /** @type {number|null} */ (null) };

    /** @param {TimelinePoint} point */
    const go = (point) => ctx.act({ type: "step", step: point.shipped ? null : point.step });

    /** The panel's own status line: timeline.json loading, or why it did not load. */
    function paintStatus() {
      const t = loadedTimeline(folder());
      setHidden(ui.statusLine, !!t);
      setHidden(ui.controls, !t);
      setText(ui.status, t ? "" : failure ? `Could not load the training timeline: ${failure.message}.`
        : "loading the training timeline\u2026");
      // When the view's own status line has the error and its "Try again", one button is enough.
      setHidden(ui.retry, !failure || ctx.status() === "error");
    }

    function fetchTimeline() {
      failure = null;
      paintStatus();
      loadTimeline(folder()).then(() => ctx.schedule(), (err) => {
        failure = err;
        paintStatus();
      });
    }

    /** @param {boolean} on */
    function setOpen(on) {
      open = on;
      setAttr(ui.toggle, "aria-expanded", String(on));
      setHidden(ui.body, !on);
      if (on) return fetchTimeline();
      stop();
      if (ctx.state()?.step !== null) ctx.act({ type: "step", step: null }); // closed: the shipped model
    }

    function stop() {
      playing = null;
      setText(ui.play, "\u25b6 Play");
      setAttr(ui.play, "aria-pressed", "false");
    }

    /** @param {Timeline} t */
    async function play(t) {
      const walk = (playing = {});
      setText(ui.play, "\u275a\u275a Pause");
      setAttr(ui.play, "aria-pressed", "true");
      direction = 1;
      let i = pointIndex(t, ctx.state()?.step ?? Infinity);
      if (i >= t.points.length - 1) i = -1; // at the shipped model: from the start
      while (playing === walk && ++i < t.points.length) {
        go(t.points[i]);
        try {
          await ctx.ready(); // on screen, then a pause to look at it
        } catch {
          break; // the snapshot failed: the status line says so
        }
        if (i < t.points.length - 1) await sleep(PLAY_MS);
      }
      if (playing === walk) stop();
    }

    /** Starts loading the snapshot next to `index` in the reader's direction (back from the shipped
     * model), so that the next step is at hand.
     * @param {Timeline} t @param {number} index */
    function prefetch(t, index) {
      const next = t.points[index === t.points.length - 1 ? index - 1 : index + direction];
      const base = ctx.model();
      if (next && !next.shipped && base && !loadedStep(folder(), next)) loadStep(folder(), t, next, base).catch(() => {});
    }

    ui.toggle.addEventListener("click", () => setOpen(!open));
    ui.retry.addEventListener("click", fetchTimeline);
    ui.play.addEventListener("click", () => {
      const t = loadedTimeline(folder());
      if (playing) stop();
      else if (t) play(t);
    });
    ui.slider.addEventListener("input", () => {
      const t = loadedTimeline(folder());
      if (!t) return;
      stop();
      const i = Number(ui.slider.value);
      direction = i >= pointIndex(t, ctx.state()?.step ?? Infinity) ? 1 : -1;
      setAttr(ui.slider, "aria-valuetext", stepText(t, t.points[i]));
      go(t.points[i]);
    });
    new ResizeObserver(([entry]) => {
      const w = Math.floor(entry.contentRect.width);
      if (Math.abs(w - width) < 8) return;
      width = w;
      // In the next frame: drawing inside the callback would be a layout change within it.
      requestAnimationFrame(() => {
        chart?.draw(width, painted.layer, painted.head);
        if (painted.step !== null) chart?.mark(painted.step);
      });
    }).observe(ui.plotArea);

    return {
      model(state) {
        if (state.step === null) return null;
        const t = loadedTimeline(folder());
        const point = t ? pointAt(t, state.step) : null;
        if (point?.shipped) return null;
        return {
          key: `step ${state.step}`,
          ready: point ? loadedStep(folder(), point) : null,
          load: async (shipped) => {
            const loaded = await loadTimeline(folder());
            const at = pointAt(loaded, /** @type {number} */ (state.step)); // a step: this model choice is for one
            return at.shipped ? shipped : loadStep(folder(), loaded, at, shipped);
          },
          loading: point ? `loading training step ${grouped(point.step)} (${megabytes(point.bytes ?? 0)})\u2026`
            : "loading the training timeline\u2026",
          what: point ? `load training step ${grouped(point.step)}` : "load the training timeline",
          live: point ? `live: every number below is computed in your browser, by the model at training step ${grouped(point.step)}.`
            : undefined,
        };
      },

      paint(view) {
        const { state } = view;
        if (state.step !== null && !open) setOpen(true); // a link or a script named a step
        if (!open) return;
        const t = loadedTimeline(folder());
        paintStatus();
        if (!t) return;
        if (chart?.timeline !== t) {
          chart = new TimelineChart(ctx.meta() ?? meta, t);
          ui.plotArea.replaceChildren(chart.root);
          setAttr(ui.slider, "max", String(t.points.length - 1));
          // A tick mark per snapshot under the slider.
          ui.ticks.replaceChildren(...t.points.map((_, i) => h("option", { value: String(i) })));
        }
        const asked = pointIndex(t, state.step ?? Infinity);
        if (ui.slider.value !== String(asked)) ui.slider.value = String(asked);
        setAttr(ui.slider, "aria-valuetext", stepText(t, t.points[asked]));
        // What is on screen is the run's model's step (a golden.json paint is the shipped model).
        const shown = view.run.model?.step ?? null;
        const point = /** @type {TimelinePoint} */ (shown === null ? t.points.at(-1) : pointAt(t, shown));
        setText(ui.readout, `Showing ${stepText(t, point)}.`);
        setText(ui.head, headText(point, state.layer, state.head, mainScore(chart.meta, t, state.layer, state.head)));
        painted = { layer: state.layer, head: state.head, step: point.step };
        chart.draw(width, state.layer, state.head);
        chart.mark(point.step);
        prefetch(t, asked);
      },
    };
  },
};

/**
 * The control's nodes: a toggle, and under it the slider, play button, readouts and chart.
 * @param {import("../../core/state.js").Meta} meta @param {number} snapshots  how many the timeline has
 */
function buildControl(meta, snapshots) {
  const each = megabytes(/** @type {NonNullable<typeof meta.timeline>} */ (meta.timeline).bytes / Math.max(1, snapshots));
  const toggle = h("button.tl-toggle", {
    type: "button", "aria-expanded": "false", "aria-controls": "tl-body", text: "Training timeline",
    title: `The model at ${snapshots} points of its training and as exported; each one is downloaded when you go to it (about ${each})`,
  });
  const play = h("button.tl-play", { type: "button", "aria-pressed": "false", text: "\u25b6 Play", title: "Walk through the snapshots, about a second each" });
  const slider = /** @type {HTMLInputElement} */ (h("input.tl-slider", {
    type: "range", min: "0", max: "0", step: "1", value: "0", list: "tl-ticks", "aria-label": "Training step",
  }));
  const ticks = h("datalist", { id: "tl-ticks" });
  const readout = h("span.tl-readout");
  const head = h("span.tl-head-line");
  const controls = h("div.tl-controls", { hidden: true }, play, slider, ticks, h("p.tl-readouts", {}, readout, " ", head));
  const status = h("span.tl-status-text");
  const retry = h("button.tl-retry", { type: "button", hidden: true, text: "Try again" });
  const plotArea = h("div.tl-plot-area");
  const statusLine = h("p.tl-status", { role: "status" }, status, " ", retry);
  const body = h("div.tl-body", { id: "tl-body", hidden: true }, controls, statusLine, plotArea);
  // A named group, not a section (a landmark): every view on a page has one of this name.
  const section = h("div.timeline", { role: "group", "aria-label": "Training timeline" }, toggle, body);
  return { section, toggle, body, controls, play, slider, ticks, readout, head, status, statusLine, retry, plotArea };
}
