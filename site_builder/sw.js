// Offline support for the site's own files. build.py writes this file (sw_page_versions.js
// appended) to the site root as one script, behind one generated line, `self.OFFLINE = {version, files: {path: sha256}, lazy: {path: sha256},
// params}`: every built file with its hash (`lazy`: the model's training timeline, see below),
// a version that changes whenever any file does, and the view settings pages take from their
// query string (the widget's STATE_KEYS). Since the manifest is part of
// this script, any change to the site changes the worker's bytes, and the browser installs the
// new version on its next update check (offline.js asks for one on every page view).
//
// The rules, each against a failure seen before:
// - One version per page, always. A page is bound to the version its HTML came from (by its
//   client id, remembered in a small cache every worker version reads), and every request the
//   page makes is answered from that version's cache, even after a newer worker has taken over.
//   A version's cache is deleted only once no open page was loaded from it.
// - What a version caches is that version: every file is checked against its sha256 from the
//   manifest. Unchanged files are copied from the previous version's cache (after the same
//   check); all others are fetched by their hash (`path?sha256=…`, a URL no cache has seen for
//   other bytes) with `cache: "reload"`, past the browser's HTTP cache, whose month-old or
//   long-lived entries cannot be trusted after a deploy. No request of the worker's carries a
//   validator, so no server's 304 (say, after a rollback to files with older modification
//   times) can stand in for a file. Any mismatch (a deploy still in progress) fails the
//   install, and the next update check tries again.
// - A new version serves the next page load: it activates as soon as it is complete (the pages
//   already open keep their own version, see above), so a deploy reaches a reader who reloads
//   by the second reload: the first one runs the update check, the second is served the new
//   files. Nothing here keeps an event open for longer than its own work: the browser activates
//   a waiting version only once the active one has no event in flight.
// - Old versions go: once the last page loaded from a version has closed, its cache is deleted
//   (at the next page load), and so is the record of every closed page.
// - The training timeline (`lazy`, megabytes of snapshot graphs) is never precached: a reader who
//   never opens it downloads none of it. A timeline file a page fetches is kept in that page's
//   version's cache once its bytes prove to be the file the manifest lists, so a step opened
//   once works offline; a new version copies the unchanged ones over and fetches none.
// - Only the site's own files: the exact paths of the manifest, under the worker's own folder.
//   Anything else (other pages of the origin, unknown query strings) goes to the network
//   untouched. Pages take their view settings as a query (embed.html), and only those.
/* global self, caches, fetch, crypto, Response, URL */

const VERSION = self.OFFLINE.version;
const FILES = self.OFFLINE.files;
const LAZY = self.OFFLINE.lazy || {};
const SCOPE = new URL("./", self.location.href).href; // the site's folder, with its origin
const SCOPE_PATH = new URL(SCOPE).pathname;
// Cache names carry the site's folder, so two sites on one origin never touch each other's.
const PREFIX = `attention-live ${SCOPE_PATH} `;
const CACHE = PREFIX + VERSION;
const CLIENTS = `${PREFIX}pages`; // client id -> the version its HTML came from
// The view settings pages read from their query string (embed.html?text=…&layer=…).
const PAGE_PARAMS = new Set(self.OFFLINE.params || []);
// Types the page relies on whatever the server said: application/wasm lets the runtime compile
// the wasm while it streams in (with another type it downloads it again and compiles a copy).
const TYPES = { wasm: "application/wasm", mjs: "text/javascript", js: "text/javascript", json: "application/json",
  html: "text/html; charset=utf-8", css: "text/css", svg: "image/svg+xml", onnx: "application/octet-stream" };

const pageVersions = new Map(); // this worker's memory of the CLIENTS cache
const loadedPages = new Set(); // pages this worker has seen ask for a file
// When each page last asked for a file. An engine may not list a page among its clients until
// it is fully running (WebKit, on a busy machine): a page still asking for its files is open,
// whatever clients.matchAll says, so its version stays in memory even when its record goes.
const lastAsked = new Map();
const ASKING_MS = 60 * 1000;
const opened = new Map(); // cache name -> Promise<Cache>: one open per cache, not per request

function open(name) {
  if (!opened.has(name)) opened.set(name, caches.open(name));
  return opened.get(name);
}

function fileURL(path) {
  return new URL(path, SCOPE).href;
}

/** The manifest path a URL names, or null when it is not one of the site's files. */
function sitePath(url) {
  if (url.origin !== self.location.origin || !url.pathname.startsWith(SCOPE_PATH)) return null;
  let path;
  try {
    path = decodeURIComponent(url.pathname.slice(SCOPE_PATH.length));
  } catch {
    return null;
  }
  if (path === "" || path.endsWith("/")) path += "index.html"; // as static servers answer a folder
  return Object.hasOwn(FILES, path) || Object.hasOwn(LAZY, path) ? path : null;
}

/** Whether to answer this request from a cache at all. */
function answerable(request, url, path) {
  if (!url.search) return true;
  if (request.mode !== "navigate" || !path.endsWith(".html")) return false;
  return [...url.searchParams.keys()].every((name) => PAGE_PARAMS.has(name));
}

async function sha256(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function stored(path, bytes, type) {
  const ext = path.split(".").pop();
  return new Response(bytes, { headers: { "Content-Type": TYPES[ext] || type || "application/octet-stream" } });
}

/** A verified copy of `path` from an earlier version's cache, or null. */
async function fromEarlierCache(path, expected) {
  for (const name of await caches.keys()) {
    if (!name.startsWith(PREFIX) || name === CLIENTS || name === CACHE) continue;
    const hit = await (await caches.open(name)).match(fileURL(path));
    if (!hit) continue;
    const bytes = await hit.arrayBuffer();
    if ((await sha256(bytes)) === expected) return stored(path, bytes, hit.headers.get("Content-Type"));
  }
  return null;
}

async function fromNetwork(path, expected) {
  const url = `${fileURL(path)}?sha256=${expected}`; // static servers ignore the query; caches key by it
  const response = await fetch(url, { cache: "reload", credentials: "same-origin", redirect: "error" });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  const bytes = await response.arrayBuffer();
  const actual = await sha256(bytes);
  if (actual !== expected) {
    throw new Error(`${path} is not the file of version ${VERSION} (sha256 ${actual.slice(0, 12)}…, ` +
                    `expected ${expected.slice(0, 12)}…): the site is being deployed`);
  }
  return stored(path, bytes, response.headers.get("Content-Type"));
}

async function precache() {
  const cache = await caches.open(CACHE);
  const todo = Object.entries(FILES);
  async function worker() {
    while (todo.length) {
      const [path, expected] = todo.shift();
      const have = await cache.match(fileURL(path));
      if (have && (await sha256(await have.clone().arrayBuffer())) === expected) continue;
      const response = (await fromEarlierCache(path, expected)) || (await fromNetwork(path, expected));
      await cache.put(fileURL(path), response);
    }
  }
  try {
    await Promise.all([worker(), worker(), worker()]);
    for (const [path, expected] of Object.entries(LAZY)) {
      const earlier = await fromEarlierCache(path, expected);
      if (earlier) await cache.put(fileURL(path), earlier);
    }
  } catch (error) {
    opened.delete(CACHE);
    await caches.delete(CACHE); // never leave a half-filled cache under a version's name
    throw error;
  }
}

self.addEventListener("install", (event) => {
  // skipWaiting is safe here, unlike in a cache-first worker: pages that are open keep being
  // served the version they were loaded with (see versionOf), so taking over mixes nothing.
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

// A page's version (remember, versionOf) and pruneSoon, which deletes what no open page needs,
// are in site_builder/sw_page_versions.js: the build appends it to this file.

// offline.js asks, on every page view, under which URL the deployed worker script is to be
// registered: sw.js?v=<the first 16 hex digits of its sha256>, from a fetch with no validator and
// past every cache (see offline.js for why). Asked here rather than by the page, so that a check
// that finds the server down or the site half-built fails in the worker's console, not the page's.
async function deployedScriptURL() {
  const script = new URL(self.location.pathname, self.location.origin);
  const response = await fetch(script, { cache: "no-store", redirect: "error" });
  if (!response.ok) throw new Error(`${script.pathname}: HTTP ${response.status}`);
  return `${script.href}?v=${(await sha256(await response.arrayBuffer())).slice(0, 16)}`;
}

self.addEventListener("message", (event) => {
  if (event.data !== "deployed-script" || !event.ports[0]) return;
  const reply = event.ports[0];
  event.waitUntil(deployedScriptURL().then((url) => reply.postMessage({ url }),
    (error) => reply.postMessage({ error: error.message })));
});

async function answer(version, path, request) {
  if (version) {
    const hit = await (await open(PREFIX + version)).match(fileURL(path));
    if (hit) return hit;
  }
  let response;
  try {
    response = await fetch(request);
  } catch (error) {
    // Offline, for a page whose version this worker cannot tell or whose copy is gone (WebKitGTK
    // has left a reloaded page's modules unloaded so): this version's copy beats no file at all.
    const hit = await (await open(CACHE)).match(fileURL(path));
    if (hit) return hit;
    throw error;
  }
  return version === VERSION && Object.hasOwn(LAZY, path) && response.ok ? keep(path, response) : response;
}

/** A timeline file from the network, kept in this version's cache if it is the file listed. */
async function keep(path, response) {
  const bytes = await response.arrayBuffer();
  const copy = stored(path, bytes, response.headers.get("Content-Type"));
  if ((await sha256(bytes)) === LAZY[path]) await (await open(CACHE)).put(fileURL(path), copy.clone());
  return copy;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  const path = sitePath(url);
  if (path === null || !answerable(request, url, path)) return; // not ours: the network, untouched

  if (request.mode === "navigate") {
    // A page load: this version's HTML, and the new page is bound to this version.
    event.respondWith((async () => {
      const hit = await (await open(CACHE)).match(fileURL(path));
      if (!hit) return fetch(request);
      event.waitUntil(remember(event.resultingClientId, VERSION));
      return hit;
    })());
    return;
  }
  if (request.destination === "worker" && event.resultingClientId) {
    // A page's worker (the model's runtime: static/attention-view/model/runtime.js) is a client
    // of its own: it is bound to the version of the page that starts it, so that what it loads
    // (the runtime's module and wasm) is that version's, from the cache, like the page's files.
    const version = versionOf(event.clientId).then((v) => v ?? VERSION);
    event.respondWith(version.then((v) => answer(v, path, request)));
    event.waitUntil(version.then((v) => remember(event.resultingClientId, v, true)));
    return;
  }
  // Anything a page asks for comes from the version that page was loaded with. A page this
  // site's workers did not load (opened before the worker existed) gets the network.
  if (event.clientId) lastAsked.set(event.clientId, Date.now());
  const version = versionOf(event.clientId);
  event.respondWith(version.then((v) => answer(v, path, request)));
  if (event.clientId && !loadedPages.has(event.clientId)) {
    loadedPages.add(event.clientId);
    event.waitUntil(version.then((v) => v && remember(event.clientId, v, true)).then(pruneSoon));
  }
});
