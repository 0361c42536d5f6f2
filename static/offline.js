// Registers the offline worker (site_builder/sw.js, written to the site root by the build) for the
// site's own pages. Only the site's full pages load this module: never embed.html (an iframe
// must not install a site-wide cache) nor pages that merely embed the element (their owners
// decide about workers). It waits until the first view is live, so caching the runtime never
// competes with the first paint for the network or the CPU.
//
// The worker's scope is the site's own folder, and it answers only the site's own files; see
// site_builder/sw.js for how a new deploy reaches the reader without ever mixing two versions.
//
// Every page view looks for a new version itself instead of leaving it to the browser's update
// check, which asks the server whether sw.js changed since the copy it holds (If-Modified-Since)
// and believes a 304: a rollback to files with older modification times, or a server comparing
// to the second, would keep the old worker forever. The script is fetched past every cache, with
// no validator, and registered under a URL named by its own hash (sw.js?v=…): a script whose
// bytes changed is a URL the browser has never installed, and any cached copy of that URL holds
// exactly those bytes. Registering the URL already installed does nothing. Once a worker is in
// charge, it does the fetch (site_builder/sw.js, "deployed-script"): a check that fails while the server
// is down or the site half-built then leaves no error in the page's console.

const SCRIPT = new URL("../sw.js", import.meta.url);
const SCOPE = new URL("./", SCRIPT).href;
// While the site is being rebuilt, sw.js is missing for a moment (the build writes it last),
// and while the server is down the check fails: ask again a little later, a few times.
const RETRY_MS = 2000;
const RETRIES = 15;
// A worker of a version from before "deployed-script" never answers it.
const ASK_MS = 10000;

/** The URL the worker in charge found, or null when it does not answer. */
function askWorker(worker) {
  return new Promise((resolve, reject) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => resolve(null), ASK_MS);
    channel.port1.onmessage = ({ data }) => {
      clearTimeout(timer);
      if (data.url) resolve(new URL(data.url));
      else reject(new Error(data.error));
    };
    worker.postMessage("deployed-script", [channel.port2]);
  });
}

async function fetchScriptURL() {
  const response = await fetch(SCRIPT, { cache: "no-store" });
  if (!response.ok) throw new Error(`${SCRIPT.pathname}: HTTP ${response.status}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await response.arrayBuffer()));
  const hex = Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
  return new URL(`?v=${hex}`, SCRIPT);
}

async function deployedScriptURL() {
  const worker = navigator.serviceWorker.controller;
  if (!worker) return fetchScriptURL();
  return (await askWorker(worker)) ?? fetchScriptURL();
}

async function register(retries = RETRIES) {
  try {
    // updateViaCache "none": the browser's own update checks never trust the HTTP cache either.
    await navigator.serviceWorker.register(await deployedScriptURL(), { scope: SCOPE, updateViaCache: "none" });
  } catch (error) {
    // With a worker in place the site already works offline: a failed check is no news.
    const installed = await navigator.serviceWorker.getRegistration(SCOPE);
    if (!installed) console.warn("offline support unavailable:", error.message);
    else if (retries > 0) setTimeout(() => register(retries - 1), RETRY_MS);
  }
}

function start() {
  if ("serviceWorker" in navigator) register();
}

const firstView = document.querySelector("attention-view:not([loading='lazy'])");
if (firstView && !firstView.result?.live) {
  firstView.addEventListener("load", start, { once: true });
} else if (document.readyState === "complete") {
  start();
} else {
  window.addEventListener("load", start, { once: true });
}
