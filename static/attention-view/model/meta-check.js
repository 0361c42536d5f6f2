// @ts-check
// meta.json checked once, as it arrives, against what the widget reads of it
// (docs/model-files.md, "What the widget checks"): a folder exported by hand or half deployed
// fails with the field that is wrong ("meta.json has no config.n_head") instead of an error
// deep in a panel ("Cannot read properties of undefined") or numbers that read "NaN%".

import { LoadFailure } from "./failures.js";
import { FORMAT_VERSION, REQUIRED } from "./meta-fields.js";

// The model's shape: every panel and every run of the graph needs each one.
const CONFIG = ["n_layer", "n_head", "n_ctx", "vocab_size", "d_model", "d_head"];

/** @param {unknown} v */
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
/** @param {any} v */
const isCount = (v) => Number.isInteger(v) && v > 0;

/** @param {unknown} value */
function shown(value) {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 39)}\u2026` : text;
}

/**
 * The value at `path` ("config.n_head") of `meta` (or `value`, for a key with dots in it: a
 * file's name), checked: `missing` says whether an absent field is wrong, `ok` whether a
 * present one is right (`what` says what it must be).
 */
/**
 * @param {any} meta  meta.json as parsed: what is checked here @param {string} path
 * @param {{missing: boolean, ok: (v: any) => boolean, what: string}} check @param {any} [value]
 */
function field(meta, path, { missing, ok, what }, value = path.split(".").reduce((v, k) => (isObject(v) ? v[k] : undefined), meta)) {
  if (value === undefined || value === null) {
    if (missing) throw new LoadFailure(`meta.json has no ${path}`);
    return value;
  }
  if (!ok(value)) throw new LoadFailure(`meta.json's ${path} must be ${what}, not ${shown(value)}`);
  return value;
}

/**
 * The first field of `keys` (from meta-fields.js: "[]" is every entry of a list) that `meta`
 * lacks, as a path ("heads[3].role"), or null. A null on the way holds nothing: the schema says
 * where null is allowed, and what is under it is required only when it is not null.
 * @param {any} meta
 * @param {string[]} keys
 */
function lacking(meta, keys) {
  /** @type {[any, string][]} */
  let nodes = [[meta, ""]];
  for (const key of keys) {
    /** @type {[any, string][]} */
    const next = [];
    for (const [node, at] of nodes) {
      if (node === null) continue;
      if (key === "[]") {
        if (Array.isArray(node)) node.forEach((entry, i) => next.push([entry, `${at}[${i}]`]));
        continue;
      }
      const path = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? (at ? `${at}.${key}` : key) : `${at}["${key}"]`;
      if (!isObject(node) || !(key in node)) return path;
      next.push([node[key], path]);
    }
    nodes = next;
  }
  return null;
}

/**
 * `meta` itself when it holds every field the widget reads, in the form it reads it; else a
 * LoadFailure naming the first wrong field.
 * @param {any} meta  meta.json, parsed
 */
export function checkMeta(meta) {
  if (!isObject(meta)) throw new LoadFailure(`meta.json must be an object, not ${shown(meta)}`);
  if (meta.format_version !== FORMAT_VERSION) {
    const has = meta.format_version === undefined ? "no format_version" : `format_version ${shown(meta.format_version)}`;
    throw new LoadFailure(`meta.json has ${has}, and this version reads format ${FORMAT_VERSION} only: export the model again with \`python -m export\``);
  }
  for (const keys of REQUIRED) {
    const path = lacking(meta, keys);
    if (path) throw new LoadFailure(`meta.json has no ${path}`);
  }
  field(meta, "config", { missing: true, ok: isObject, what: "an object" });
  for (const key of CONFIG) field(meta, `config.${key}`, { missing: true, ok: isCount, what: "a positive whole number" });
  const { n_layer: L, n_head: H } = meta.config;
  /** @param {string} path @param {(v: any) => boolean} ok @param {string} what @param {...any} value */
  const optional = (path, ok, what, ...value) => field(meta, path, { missing: false, ok, what }, ...value);
  if (optional("default", isObject, "an object")) {
    optional("default.text", (v) => typeof v === "string", "a string");
    optional("default.layer", (v) => Number.isInteger(v) && v >= 1 && v <= L, `a layer, 1 to ${L}`);
    optional("default.head", (v) => Number.isInteger(v) && v >= 1 && v <= H, `a head, 1 to ${H}`);
    optional("default.token", Number.isInteger, "a whole number");
  }
  if (optional("files", isObject, "an object")) {
    for (const [name, file] of Object.entries(meta.files)) {
      const at = `files["${name}"]`;
      if (!optional(at, isObject, "an object", file)) continue;
      optional(`${at}.bytes`, (v) => Number.isInteger(v) && v >= 0, "a number of bytes", file.bytes);
      optional(`${at}.sha256`, (v) => /^[0-9a-f]{64}$/.test(v), "64 hexadecimal digits", file.sha256);
    }
  }
  optional("heads", (v) => Array.isArray(v) && v.every((x) => isObject(x) && Number.isInteger(x.layer) && Number.isInteger(x.head)),
    "a list of {layer, head, …}");
  if (optional("positions", isObject, "an object")) {
    optional("positions.scheme", (v) => ["alibi", "learned"].includes(v), "\"alibi\" or \"learned\"");
    if (meta.positions.scheme === "alibi") {
      field(meta, "positions.slopes", {
        missing: true, what: `${L} lists of ${H} numbers (one per head)`,
        ok: (v) => Array.isArray(v) && v.length === L && v.every((r) => Array.isArray(r) && r.length === H && r.every(Number.isFinite)),
      });
    }
  }
  if (optional("timeline", isObject, "an object")) {
    field(meta, "timeline.manifest", { missing: true, ok: (v) => typeof v === "string", what: "a path" });
  }
  return meta;
}
