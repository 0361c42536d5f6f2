// @ts-check
// The timeline's chart: held-out bits per character over training (top) and the heads' main
// scores (bottom: the selected head strong, with its role's threshold dashed; the other heads
// faint; the opening view's weight in the pin's colour), the step on screen marked across
// both. SVG from the exported numbers (readouts/timeline.js), drawn at the pixel width it is
// shown at so that its text stays legible on a phone: rebuilt when that width or the selected
// head changes, and only the mark moves on a step change.

import { h } from "../../core/dom.js";
import { heldoutSeries, mainScore, scoreSeries, viewSeries, grouped } from "../../readouts/timeline.js";

const NS = "http://www.w3.org/2000/svg";
const HEIGHT = 246;
const LEFT = 40;
const RIGHT = 12;
const LOSS = { top: 20, bottom: 92 }; // the held-out panel, in pixels from the top
const SCORE = { top: 126, bottom: 202 }; // the scores panel (0 to 1)

/**
 * An SVG element; attributes as given, children appended.
 * @param {string} tag @param {Object<string, string|number>} [attrs] @param {...(Node|string)} children
 */
function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  el.append(...children);
  return el;
}

/**
 * About `count` round values from lo to hi (1, 2 or 5 times a power of ten apart).
 * @param {number} lo @param {number} hi @param {number} count
 */
export function niceTicks(lo, hi, count) {
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  /** @type {number[]} */
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** @typedef {import("../../model/timeline.js").TimelinePoint} TimelinePoint */

export class TimelineChart {
  /**
   * @param {import("../../core/state.js").Meta} meta
   * @param {import("../../model/timeline.js").Timeline} timeline
   */
  constructor(meta, timeline) {
    this.meta = meta;
    this.timeline = timeline;
    this.legend = h("p.tl-legend");
    this.root = h("figure.tl-chart", {}, h("div.tl-plot"), this.legend);
    this.drawn = ""; // width and head the SVG was drawn for
    this.losses = heldoutSeries(meta, timeline);
  }

  /**
   * Draws the chart `width` pixels wide for head `layer`.`head` (again only when either changed).
   * @param {number} width @param {number} layer @param {number} head
   */
  draw(width, layer, head) {
    const key = `${width} ${layer}.${head}`;
    if (width < 120 || key === this.drawn) return;
    this.drawn = key;
    const { timeline } = this;
    const last = /** @type {TimelinePoint} */ (timeline.points.at(-1)).step || 1;
    const right = width - RIGHT;
    const x = (this.x = (/** @type {number} */ step) => LEFT + ((right - LEFT) * step) / last);
    const bpcs = this.losses.map((p) => p.bpc);
    const [lo, hi] = [Math.floor(Math.min(...bpcs) * 10) / 10, Math.ceil(Math.max(...bpcs) * 10) / 10];
    const yLoss = (this.yLoss = (/** @type {number} */ bpc) => LOSS.bottom - ((LOSS.bottom - LOSS.top) * (bpc - lo)) / (hi - lo || 1));
    const yScore = (this.yScore = (/** @type {number} */ v) => SCORE.bottom - (SCORE.bottom - SCORE.top) * Math.min(1, Math.max(0, v)));
    /** @template {{step: number}} P @param {P[]} series @param {(p: P) => number} y @param {string} cls */
    const line = (series, y, cls) => svg("polyline", {
      class: cls, points: series.map((p) => `${x(p.step).toFixed(1)},${y(p).toFixed(1)}`).join(" "),
    });
    /** @type {SVGElement[]} */
    const parts = [];
    // Axes, grid and titles.
    for (const v of niceTicks(lo, hi, 2)) parts.push(...this.yTick(yLoss(v), v.toFixed(1), right));
    for (const v of [0, 0.5, 1]) parts.push(...this.yTick(yScore(v), String(v), right));
    for (const s of niceTicks(0, last, Math.max(2, Math.floor(width / 110)))) {
      parts.push(svg("line", { class: "tl-tick", x1: x(s), x2: x(s), y1: SCORE.bottom, y2: SCORE.bottom + 5 }),
        svg("text", { class: "tl-tick-label", x: x(s), y: SCORE.bottom + 18, "text-anchor": "middle" }, grouped(s)));
    }
    parts.push(svg("text", { class: "tl-title", x: LEFT, y: LOSS.top - 8 }, "held-out bits per character"),
      svg("text", { class: "tl-title", x: LEFT, y: SCORE.top - 8 }, "head scores"),
      svg("text", { class: "tl-tick-label", x: right, y: SCORE.bottom + 36, "text-anchor": "end" }, "training step"));
    // The held-out curve, a dot at each snapshot.
    parts.push(line(this.losses, (p) => yLoss(p.bpc), "tl-loss"));
    for (const p of timeline.points) parts.push(svg("circle", { class: "tl-snap", cx: x(p.step), cy: yLoss(p.heldout_bpc), r: 2.5 }));
    // Every head's main score, the selected one last (on top) and strong.
    const { n_layer: L, n_head: H } = this.meta.config;
    this.score = mainScore(this.meta, timeline, layer, head);
    for (let l = 1; l <= L; l++) {
      for (let hd = 1; hd <= H; hd++) {
        const s = mainScore(this.meta, timeline, l, hd);
        if (s && !(l === layer && hd === head)) parts.push(line(scoreSeries(timeline, l, hd, s.name), (p) => yScore(p.value), "tl-head"));
      }
    }
    const views = viewSeries(timeline);
    if (views.length) parts.push(line(views, (p) => yScore(p.value), "tl-view"));
    this.selected = this.score ? scoreSeries(timeline, layer, head, this.score.name) : [];
    if (this.score) {
      const y = yScore(this.score.atLeast);
      parts.push(svg("line", { class: "tl-threshold", x1: LEFT, x2: right, y1: y, y2: y }),
        line(this.selected, (p) => yScore(p.value), "tl-head tl-head-on"));
    }
    this.markLine = svg("line", { class: "tl-mark", y1: LOSS.top - 4, y2: SCORE.bottom });
    this.lossDot = svg("circle", { class: "tl-mark-dot", r: 4 });
    this.headDot = svg("circle", { class: "tl-mark-dot", r: 4 });
    parts.push(this.markLine, this.lossDot, this.headDot);
    const plot = svg("svg", { class: "tl-svg", width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}`, role: "img" }, ...parts);
    /** @type {Element} */ (this.root.firstElementChild).replaceChildren(plot);
    this.plot = plot;
    this.legendFor(layer, head);
    /** @type {number|null} */
    this.shownStep = null;
  }

  /** @param {number} y @param {string} label @param {number} right */
  yTick(y, label, right) {
    return [svg("line", { class: "tl-grid", x1: LEFT, x2: right, y1: y, y2: y }),
      svg("text", { class: "tl-tick-label", x: LEFT - 6, y: y + 4, "text-anchor": "end" }, label)];
  }

  /** @param {number} layer @param {number} head */
  legendFor(layer, head) {
    /** @type {HTMLElement[]} */
    const items = [];
    /** @param {string} cls @param {string} text */
    const key = (cls, text) => h("span.tl-key", {}, h(`span.tl-swatch.${cls}`), text);
    if (this.score) items.push(key("tl-swatch-head", `L${layer}H${head} ${this.score.label}`), key("tl-swatch-threshold", `what ${this.score.role} needs (${this.score.atLeast})`));
    if (viewSeries(this.timeline).length) items.push(key("tl-swatch-view", "the opening view's largest weight"));
    items.push(key("tl-swatch-others", "the other heads"));
    this.legend.replaceChildren(...items);
  }

  /**
   * Marks the step on screen, with a description for screen readers.
   * @param {number} step
   */
  mark(step) {
    if (!this.plot || step === this.shownStep) return; // draw() sets the plot and its marks
    this.shownStep = step;
    // draw() set them, before the plot
    const { x: xAt, yLoss, yScore, selected, plot } = /** @type {{x: (step: number) => number, yLoss: (bpc: number) => number,
      yScore: (v: number) => number, selected: {step: number, value: number}[], plot: Element}} */ (/** @type {unknown} */ (this));
    const point = /** @type {TimelinePoint} */ (this.timeline.points.find((p) => p.step === step) ?? this.timeline.points.at(-1));
    const x = xAt(point.step);
    /** @type {SVGElement} */ (this.markLine).setAttribute("x1", String(x));
    /** @type {SVGElement} */ (this.markLine).setAttribute("x2", String(x));
    /** @type {SVGElement} */ (this.lossDot).setAttribute("cx", String(x));
    /** @type {SVGElement} */ (this.lossDot).setAttribute("cy", String(yLoss(point.heldout_bpc)));
    const own = selected.find((p) => p.step === point.step);
    /** @type {SVGElement} */ (this.headDot).toggleAttribute("hidden", !own);
    if (own) {
      /** @type {SVGElement} */ (this.headDot).setAttribute("cx", String(x));
      /** @type {SVGElement} */ (this.headDot).setAttribute("cy", String(yScore(own.value)));
    }
    const first = this.timeline.points[0];
    const score = this.score && own
      ? `; ${this.score.label} of the selected head ${selected[0].value.toFixed(2)} at step ${grouped(first.step)}, ${own.value.toFixed(2)} here` : "";
    plot.setAttribute("aria-label", `Held-out bits per character over training, ${first.heldout_bpc.toFixed(2)} at step ` +
      `${grouped(first.step)} and ${point.heldout_bpc.toFixed(2)} at step ${grouped(point.step)}, which is marked${score}.`);
  }
}
