// Offline support for the site's own pages. build.py writes this file to the site root (a
// worker only controls pages at or below its own folder) behind one generated line that sets
// self.OFFLINE = {version, files}: the version changes whenever any file does, which is what
// makes the browser install a new worker and drop the old cache.
/* global self, caches, fetch */

const CACHE = `attention-live-${self.OFFLINE.version}`;

self.addEventListener("install", (event) => {
  // Everything, the 14 MB runtime included: a page that half-works offline is worse than none.
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(self.OFFLINE.files)));
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  // A folder URL ("/") is its index.html, as static servers answer it.
  const key = url.pathname.endsWith("/") ? new URL("index.html", url).href : request;
  // Cache first: every cached file belongs to this exact build (the cache is versioned).
  // ignoreSearch so that embed.html?text=… is served offline too.
  event.respondWith(caches.match(key, { ignoreSearch: true }).then((hit) => hit || fetch(request)));
});
