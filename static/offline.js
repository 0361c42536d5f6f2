// Registers the offline worker for the site's own pages (never for pages that merely embed
// the element: their owners decide about workers). It waits until the first view is live, so
// caching the runtime never competes with the first paint for the network or the CPU.

function register() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(new URL("../sw.js", import.meta.url)).catch((error) => {
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
