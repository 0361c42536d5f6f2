// Registers the offline worker (site/sw.js, written to the site root by the build) for the
// site's own pages. Only the site's full pages load this module: never embed.html (an iframe
// must not install a site-wide cache) nor pages that merely embed the element (their owners
// decide about workers). It waits until the first view is live, so caching the runtime never
// competes with the first paint for the network or the CPU.
//
// The worker's scope is the site's own folder, and it answers only the site's own files; see
// site/sw.js for how a new deploy reaches the reader without ever mixing two versions.

function register() {
  if (!("serviceWorker" in navigator)) return;
  const script = new URL("../sw.js", import.meta.url);
  navigator.serviceWorker
    // updateViaCache "none": the update check never trusts the HTTP cache, whatever the
    // server's caching headers say about sw.js.
    .register(script, { scope: new URL("./", script).href, updateViaCache: "none" })
    .then((registration) => {
      // Registering again does not look for a new version; every page view should.
      if (registration.active && !registration.installing && !registration.waiting) {
        return registration.update();
      }
      return null;
    })
    .catch((error) => {
      console.warn("offline support unavailable:", error.message);
    });
}

const firstView = document.querySelector("attention-view:not([loading='lazy'])");
if (firstView && !firstView.result?.live) {
  firstView.addEventListener("load", register, { once: true });
} else if (document.readyState === "complete") {
  register();
} else {
  window.addEventListener("load", register, { once: true });
}
