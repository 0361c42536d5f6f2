// @ts-check
// What an element says when its view goes live or fails: the status line (through the
// controller's setStatus), the element's events (`load`, `loadend`, `error`) and its `ready`.

import { sentence } from "../model/failures.js";
import { yieldToPage } from "./slices.js";

/**
 * The live model has painted: the status line says so, naming a part's model (a training
 * step's) so that it names what is on screen; `load` and `loadend` once; `ready` resolves.
 * @param {import("./controller.js").Controller} c
 */
export function announceLive(c) {
  const text = c.choices.of(c.now())?.live ?? "live: every number below is computed in your browser.";
  if (c.status !== "live") {
    c.setStatus("live", text);
    performance.mark("attention-view:live");
    c.host.dispatchEvent(new Event("load"));
    c.host.dispatchEvent(new Event("loadend"));
    resolveReadyLater(c);
    return;
  }
  if (c.shell?.statusText.textContent !== text) c.setStatus("live", text);
  c.readyD.resolve(c.result());
}

/**
 * The first `ready` resolves with `el.result`, whose readouts are 10 ms of script while the
 * page's code is still cold (1 ms later on): computed in a task after the paint, unless another
 * update has begun meanwhile (that one resolves `ready`).
 * @param {import("./controller.js").Controller} c
 */
async function resolveReadyLater(c) {
  const ready = c.readyD;
  if (ready.settled) return;
  await yieldToPage();
  if (c.readyD === ready && !c.pump.running && !c.pump.scheduled) ready.resolve(c.result());
}

/**
 * Loading or running failed: the error on the status line, with "Try again" unless a retry
 * cannot fix it (failures.js: the page forbids WebAssembly); `ready` rejects; `error` and
 * `loadend` fire.
 * @param {import("./controller.js").Controller} c
 * @param {any} err
 * @param {string} what  what could not be done ("load the model")
 */
export function announceFailure(c, err, what) {
  const message = err && err.message ? err.message : String(err);
  c.setStatus("error", sentence(`Could not ${what}: ${message}`), { retry: err?.retry !== false });
  c.readyD.reject(err);
  c.host.dispatchEvent(new CustomEvent("error", { detail: { error: err, message } }));
  c.host.dispatchEvent(new Event("loadend"));
}
