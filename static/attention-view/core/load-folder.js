// @ts-check
// Loading an element's model folder, in the order that paints soonest: the runtime and every
// download start at once; meta.json builds the UI; golden.json paints the default sentence
// while the runtime compiles; then the live model takes over. A newer load (a changed `src`,
// "Try again") bumps `generation`, and every answer of an older one is dropped.

import { loadMeta, loadGolden, loadModel, loaderEvents } from "../model/loader.js";
import { goldenHeadStart } from "../model/runs.js";
import { loadingText } from "./skeleton.js";
import { deferred } from "./deferred.js";
import { newTask } from "./slices.js";

// Every view of a page gets meta.json, and later the model, in the same moment (one shared
// download): each builds its UI and runs the model in a task of its own, so that the page
// answers input in between (15 views doing it in one task blocked it for most of a second;
// bench/many_views.py). A new task, behind the others waiting, not a yield that keeps its place.

// A view that paints a preview first (golden.json: no text attribute, so the default sentence)
// asks for the model and the runtime's wasm only once that preview is on screen, unless the page
// started the runtime already (preload.js, for a page that wants its model live soonest): their
// 3-15 MB would share the link with the few kB the preview needs, and with the host page's own.
// A frame the browser does not render (off screen) never gets to paint: it waits this long.
const UNPAINTED_MS = 1000;

// The bytes received so far of each folder's model files: a view whose meta.json is read after
// the last progress event (a download that stalls early) still shows how far it got.
const received = new Map();
loaderEvents.addEventListener("progress", (/** @type {any} */ e) => received.set(e.detail.folder, e.detail.loaded));

/** @param {import("./controller.js").Controller} c */
export async function loadFolder(c) {
  const gen = c.beginLoad();
  const folder = c.folder;
  if (c.status === "error") received.delete(folder); // "Try again" downloads afresh
  c.setStatus(c.run ? "preview" : "loading", loadingText(c.meta));
  c.host.dispatchEvent(new Event("loadstart"));
  try {
    const previewShown = deferred();
    if (c.host.hasAttribute("text") || c.painted) previewShown.resolve(undefined); // no preview to wait for
    c.onScreen.promise.then(previewShown.resolve);
    setTimeout(previewShown.resolve, UNPAINTED_MS);
    const modelPromise = loadModel(folder, previewShown.promise); // the runtime and the model's downloads
    modelPromise.catch(() => {});
    // Without a text attribute the default sentence is certain: fetch its golden run now.
    if (!c.host.hasAttribute("text")) loadGolden(folder).catch(() => {});
    const meta = await loadMeta(folder);
    await newTask();
    if (gen !== c.generation) return;
    c.metaLoaded(meta);
    c.setStatus(c.status, loadingText(c.meta, received.get(folder) ?? null));
    // The first paint from golden.json, without waiting for the runtime (runs.js goldenHeadStart).
    const golden = meta.default && c.now().text === meta.default.text
      ? await goldenHeadStart(folder, meta, (run) => c.run === run && c.schedule()) : null;
    if (gen !== c.generation) return;
    c.goldenLoaded(golden);
    if (!golden) previewShown.resolve(undefined); // no preview to wait for
    const model = await modelPromise;
    await newTask();
    if (gen !== c.generation) return;
    c.modelLoaded(model);
  } catch (err) {
    if (gen === c.generation) c.fail(err);
  }
}

/**
 * The status line counts the folder's downloaded bytes while it loads.
 * @param {import("./controller.js").Controller} c
 */
export function watchProgress(c) {
  loaderEvents.addEventListener("progress", (/** @type {any} */ e) => {
    const { folder, loaded } = e.detail;
    if (folder === c.folder && c.meta && ["loading", "preview"].includes(c.status)) {
      c.setStatus(c.status, loadingText(c.meta, loaded));
    }
  });
}
