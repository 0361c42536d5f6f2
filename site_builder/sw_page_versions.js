// Which version each open page is bound to, and dropping what no open page needs: the page
// records (the CLIENTS cache: client id -> version) and the deletion of old versions' caches.
// Not a script of its own: the build appends it to site_builder/sw.js (WORKER_SOURCES in
// site_builder/offline_manifest.py), so the deployed worker stays one classic script, and this
// part uses that script's constants (CLIENTS, PREFIX, CACHE, pageVersions, …) and helpers.
/* global self, caches, Response, URL, open, fileURL, CLIENTS, PREFIX, CACHE, pageVersions, loadedPages, lastAsked, ASKING_MS, opened */

function clientKey(id) {
  return fileURL(`.attention-live-page/${encodeURIComponent(id)}`);
}

// A page's record: {version, at, loaded}. `loaded` is set by the page's first request after its
// navigation: from then on the page exists as a client, and a record whose client is gone
// belongs to a closed page.
async function remember(clientId, version, loaded = false) {
  if (!clientId) return;
  pageVersions.set(clientId, version);
  const record = JSON.stringify({ version, at: Date.now(), loaded });
  await (await open(CLIENTS)).put(clientKey(clientId), new Response(record));
}

async function record(cache, request) {
  const hit = await cache.match(request);
  try {
    return hit ? JSON.parse(await hit.text()) : null;
  } catch {
    return null;
  }
}

async function versionOf(clientId) {
  if (!clientId) return null;
  if (pageVersions.has(clientId)) return pageVersions.get(clientId);
  const version = (await record(await open(CLIENTS), clientKey(clientId)))?.version ?? null;
  if (version) pageVersions.set(clientId, version);
  return version;
}

/** Drops what no open page needs: records of closed pages, caches of versions no page uses. */
async function prune() {
  const reg = self.registration;
  if (reg.installing || reg.waiting) return; // a newer version may be filling its cache
  const clients = await self.clients.matchAll({ includeUncontrolled: true, type: "all" });
  const openPages = new Set(clients.map((c) => c.id));
  const records = await open(CLIENTS);
  const keep = new Set([CACHE]);
  for (const request of await records.keys()) {
    const id = decodeURIComponent(new URL(request.url).pathname.split("/").pop());
    const page = await record(records, request);
    // A page whose navigation is still under way has no client yet: its fresh record stays.
    const arriving = page && !page.loaded && Date.now() - page.at < 5 * 60 * 1000;
    if (page && (openPages.has(id) || arriving)) {
      keep.add(PREFIX + page.version);
    } else {
      if (!(Date.now() - (lastAsked.get(id) ?? 0) < ASKING_MS)) {
        pageVersions.delete(id);
        loadedPages.delete(id);
        lastAsked.delete(id);
      }
      await records.delete(request);
    }
  }
  for (const name of await caches.keys()) {
    // "attention-live-<version>": the caches of the first worker, which kept no page records.
    const legacy = /^attention-live-[0-9a-f]{16}$/.test(name);
    if (legacy || (name.startsWith(PREFIX) && name !== CLIENTS && !keep.has(name))) {
      opened.delete(name);
      await caches.delete(name);
    }
  }
}

// Once per page load, at its first request (the page before it has closed by then), and on
// activation; one prune after another, never two at once.
let pruning = Promise.resolve();
function pruneSoon() {
  pruning = pruning.catch(() => {}).then(prune);
  return pruning;
}

self.addEventListener("activate", (event) => {
  // No clients.claim(): a page loaded without the worker stays with the network.
  event.waitUntil(pruneSoon());
});
