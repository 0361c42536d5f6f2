// @ts-check
// One file of a model folder: fetched (with the cache mode a retry asks for), aborted when no
// byte arrives for downloadTimeout() ms instead of leaving "loading…" on screen forever, its
// progress reported as bytes arrive, and checked against the sha256 meta.json records. Bytes a
// host handed over (held-files.js) are used instead of a download.

import { heldFile } from "./held-files.js";
import { unreachable, refused } from "./failures.js";

const DEFAULT_TIMEOUT_MS = 30_000; // no byte for 30 s: the connection is as good as dead
let timeoutMs = DEFAULT_TIMEOUT_MS;

/** How long a download may go without receiving a byte before it fails (ms). */
export function downloadTimeout() {
  return timeoutMs;
}

/**
 * Sets that limit for every element on the page; a non-positive value restores 30 s.
 * @param {number} ms
 */
export function setDownloadTimeout(ms) {
  timeoutMs = Number(ms) > 0 ? Number(ms) : DEFAULT_TIMEOUT_MS;
}

/**
 * The bytes of `folder + name`, aborted after downloadTimeout() ms without a byte.
 * @param {string} folder
 * @param {string} name
 * @param {{cache: RequestCache}} e  the folder's entry (loader.js): its cache mode
 * @param {(bytes: number) => void} [onBytes]
 */
export async function download(folder, name, e, onBytes = () => {}) {
  const held = heldFile(folder, name);
  if (held) return held;
  const url = folder + name;
  const controller = new AbortController();
  let timer = 0;
  let timedOut = false;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
  };
  /** @param {unknown} err */
  const why = (err) => timedOut
    ? new Error(`${name} stopped arriving (no data for ${Math.round(timeoutMs / 1000)} s)`)
    : unreachable(url, err);
  arm();
  try {
    let response;
    try {
      response = await fetch(url, { credentials: "same-origin", cache: e.cache, signal: controller.signal });
    } catch (err) {
      throw why(err);
    }
    if (!response.ok) throw refused(url, response.status);
    if (!response.body) return new Uint8Array(await response.arrayBuffer());
    const reader = response.body.getReader();
    const chunks = [];
    let size = 0;
    for (;;) {
      arm();
      let part;
      try {
        part = await reader.read();
      } catch (err) {
        throw why(err);
      }
      if (part.done) break;
      chunks.push(part.value);
      size += part.value.byteLength;
      onBytes(size);
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.byteLength;
    }
    return bytes;
  } finally {
    clearTimeout(timer);
  }
}

/** @param {ArrayBuffer} buffer */
function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Checks `bytes` against the sha256 meta.json records for `name`. Skipped (not failed) where
 * the page is no secure context (crypto.subtle is missing: plain http on a non-local host) or
 * meta.json records no hash for the file.
 * @param {string} name @param {Uint8Array} bytes @param {Pick<import("../meta-type.js").Meta, "files">} meta
 */
export async function verify(name, bytes, meta) {
  await checkSha256(name, bytes, meta.files?.[name]?.sha256, "meta.json");
}

/**
 * The same check against the hash `record` (the file that lists it: timeline.json) gives.
 * @param {string} name @param {Uint8Array} bytes @param {string|undefined} want @param {string} record
 */
export async function checkSha256(name, bytes, want, record) {
  if (!want || !globalThis.crypto?.subtle) return;
  const got = hex(await crypto.subtle.digest("SHA-256", /** @type {BufferSource} */ (bytes)));
  if (got !== want) throw new Error(`${name} is corrupt or from another version (its sha256 is not the one ${record} records)`);
}

/** @param {string} name @param {Uint8Array} bytes @returns {any} the file's JSON, not yet checked */
export function parseJSON(name, bytes) {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw new Error(`${name} is not valid JSON (${/** @type {Error} */ (err).message})`);
  }
}

