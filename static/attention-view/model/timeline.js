// @ts-check
// A model folder's training timeline (docs/model-files.md, "timeline/"): timeline.json, checked
// against the sha256 meta.json records for it, and one onnxruntime session per snapshot, each
// the browser graph holding that step's weights. A snapshot's model shares the folder's
// tokenizer, meta.json and runtime with the shipped one; only its session differs, so every
// number on screen at a step is that step's graph's. Nothing here is fetched until asked for:
// a reader who never opens the timeline downloads none of it.

import { once, settled, loadMeta, createSession, Model } from "./loader.js";
import { download, parseJSON, checkSha256 } from "./download.js";
import { heldFile } from "./held-files.js";
import { loadRuntime } from "./runtime.js";
import { pointIndex } from "../readouts/timeline.js";

/**
 * One step of timeline.json: what every head did at that step, by the shipped heads' scores.
 * @typedef {Object} TimelinePoint
 * @property {number} step
 * @property {string|null} file  the snapshot's graph, beside timeline.json; null: the shipped model
 * @property {number} [bytes]
 * @property {string} [sha256]
 * @property {boolean} [shipped]
 * @property {number} heldout_bpc
 * @property {{layer: number, head: number, role: string, scores: Object<string, number|null>}[]} heads
 * @property {number} in_context_gain
 * @property {{top_weight: number, top_key: number}} default_view
 */
/**
 * @typedef {Object} Timeline
 * @property {TimelinePoint[]} points  by step; the last one is the shipped model
 * @property {{layer: number, head: number, role: string, score: string, at_least: number,
 *   step: number|null, value: number|null}[]} formed  each head with a role: the first step past
 *   its role's threshold
 * @property {number} steps_run
 * @property {string} folder  where its graphs are, relative to the model folder ("timeline/")
 */

const MANIFEST = "timeline.json";
/** @param {number} step */
const stepKey = (step) => `timeline step ${step}`;

// Loads that failed, by folder and key: their next try skips the HTTP cache, which may hold
// the bad answer (a truncated download, a half-deployed file).
/** @type {Set<string>} */
const failed = new Set();

/**
 * @template T
 * @param {string} folder @param {string} key @param {(e: {cache: RequestCache}) => Promise<T>} make
 */
function tried(folder, key, make) {
  return once(folder, key, async (e) => {
    const id = `${folder}\n${key}`;
    try {
      return await make({ cache: failed.has(id) ? "reload" : e.cache });
    } catch (err) {
      failed.add(id);
      throw err;
    }
  });
}

/**
 * Whether the folder has a timeline the widget can reach: meta.json points to one, and a host that
 * handed the model's files over (a notebook: held-files.js) handed over timeline.json too.
 * @param {string} folder @param {import("../meta-type.js").Meta} meta
 */
export function hasTimeline(folder, meta) {
  return !!meta.timeline && (!heldFile(folder, "meta.json") || !!heldFile(folder, meta.timeline.manifest));
}

/**
 * The folder's timeline.json, downloaded once and checked. @returns {Promise<Timeline>}
 * @param {string} folder
 */
export function loadTimeline(folder) {
  return tried(folder, MANIFEST, async (e) => {
    const meta = await loadMeta(folder);
    const pointer = meta.timeline;
    if (!pointer) throw new Error("this model has no training timeline");
    const bytes = await download(folder, pointer.manifest, e);
    await checkSha256(pointer.manifest, bytes, pointer.sha256, "meta.json");
    return checked(parseJSON(pointer.manifest, bytes), meta, pointer.manifest.replace(/[^/]*$/, ""));
  });
}

/**
 * The timeline if it has loaded, else null. @returns {Timeline|null}
 * @param {string} folder
 */
export function loadedTimeline(folder) {
  return settled(folder, MANIFEST);
}

/**
 * @param {any} timeline  timeline.json as parsed: this is the check
 * @param {import("../meta-type.js").Meta} meta @param {string} folder @returns {Timeline}
 */
function checked(timeline, meta, folder) {
  /** @param {string} why */
  const bad = (why) => new Error(`timeline.json is not a timeline of this model (${why})`);
  const points = timeline?.points;
  if (!Array.isArray(points) || points.length < 2) throw bad("it lists no snapshot");
  const heads = meta.config.n_layer * meta.config.n_head;
  points.forEach((p, i) => {
    const last = i === points.length - 1;
    if (!Number.isInteger(p?.step) || (i > 0 && p.step <= points[i - 1].step)) throw bad(`point ${i + 1} has no later step`);
    if (!last && !(typeof p.file === "string" && /^[\w.-]+\.onnx$/.test(p.file) && typeof p.sha256 === "string")) {
      throw bad(`step ${p.step} names no graph`);
    }
    if (last !== !!p.shipped) throw bad("its last point is not the shipped model");
    if (typeof p.heldout_bpc !== "number" || !Array.isArray(p.heads) || p.heads.length !== heads) {
      throw bad(`step ${p.step} does not measure the ${heads} heads`);
    }
  });
  return { ...timeline, formed: Array.isArray(timeline.formed) ? timeline.formed : [], folder };
}

/**
 * The point a step shows: the last snapshot at or before it (the first one before them all).
 * @param {Timeline} timeline @param {number} step
 */
export function pointAt(timeline, step) {
  return timeline.points[pointIndex(timeline, step)];
}

/**
 * The model of one snapshot: its graph downloaded (checked against the sha256 timeline.json
 * records) and a session of its own, with `base`'s tokenizer and meta.json (any model of the
 * folder). Shared like every file of the folder (loader.js once), so a prefetch and a step
 * change never download it twice.
 * @param {string} folder
 * @param {Timeline} timeline
 * @param {TimelinePoint} point
 * @param {Model} base
 * @returns {Promise<Model>}
 */
export function loadStep(folder, timeline, point, base) {
  return tried(folder, stepKey(point.step), async (e) => {
    const name = timeline.folder + point.file;
    const [runtime, bytes] = await Promise.all([loadRuntime(), download(folder, name, e)]);
    await checkSha256(name, bytes, point.sha256, "timeline.json");
    return new Model(await createSession(runtime, bytes), base.tokenizer, metaAt(base.meta, point), point.step);
  });
}

/**
 * meta.json as it was at a snapshot: its `heads` are that step's (every head's role and scores,
 * measured on the step's graph at export), so the role labels on screen are the step's; the
 * heads' example sentences were searched for the shipped model alone, so a step has none.
 * @param {import("../meta-type.js").Meta} meta @param {TimelinePoint} point
 */
function metaAt(meta, point) {
  // the step's heads have no example sentences (none was searched for)
  return /** @type {import("../meta-type.js").Meta} */ ({ ...meta, heads: point.heads });
}

/**
 * The snapshot's model if it has loaded, else null. @returns {Model|null}
 * @param {string} folder @param {TimelinePoint} point
 */
export function loadedStep(folder, point) {
  return settled(folder, stepKey(point.step));
}
