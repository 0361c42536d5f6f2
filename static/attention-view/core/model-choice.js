// @ts-check
// Which model computes the view. Usually the shipped one; a feature may name another for the
// state (feature.js ModelChoice: the training timeline's snapshot at `step`). Such a model
// loads under its own status line, and one whose load failed is not asked for again until
// "Try again" (or until the state asks for another), so a broken snapshot never loops and
// never leaves another model's numbers on screen under its name.

import { currentRun } from "./current-run.js";
import { emptyRun } from "../model/runs.js";

/** @typedef {import("./feature.js").ModelChoice} ModelChoice */

export class ModelChoices {
  /** @param {import("./controller.js").Controller} c */
  constructor(c) {
    this.c = c;
    this.failed = null; // the key of the choice whose load failed, until "Try again"
  }

  /**
   * A part's model for `state`, or null for the shipped one.
   * @param {import("./state.js").State} state
   */
  of(state) {
    for (const part of this.c.parts) {
      const choice = part.model?.(state);
      if (choice) return choice;
    }
    return null;
  }

  /**
   * The run to paint for `state`, or null for nothing (yet): the live model's once loaded (`run`
   * below); before, an empty text's, or golden.json's when it is that run's text, with every
   * head on and the shipped model asked for; the fallback stays on screen otherwise.
   * @param {import("./state.js").State} state
   * @param {import("../model/loader.js").Model|null} shipped  the live model, once loaded
   * @param {import("../model/runs.js").Run|null} golden
   * @param {import("./pump.js").Pump} pump
   */
  async runFor(state, shipped, golden, pump) {
    if (shipped) return this.run(shipped, pump);
    if (state.text === "") return emptyRun(false);
    if (this.of(state)) return null; // another model than the shipped one: nothing of it before the runtime is in
    return golden && golden.text === state.text && !state.ablate ? golden : null;
  }

  /**
   * The model `choice` names, loaded first under its own status line (`shipped` without a
   * choice). Null while a failed choice waits for "Try again"; a choice of anything else goes
   * ahead.
   * @param {ModelChoice|null} choice @param {import("../model/loader.js").Model} shipped
   */
  async modelFor(choice, shipped) {
    const c = this.c;
    if (this.failed) {
      if (choice?.key === this.failed) return null;
      this.failed = null;
      c.renewReady();
    }
    if (!choice) return shipped;
    if (choice.ready) return choice.ready;
    c.setStatus("loading", choice.loading);
    c.host.dispatchEvent(new Event("loadstart"));
    return choice.load(shipped);
  }

  /**
   * The run for the current state on the model it asks for, or null when there is nothing to
   * paint (the state changed meanwhile and `pump` runs again, or the load failed and the view
   * says so).
   * @param {import("../model/loader.js").Model} shipped
   * @param {import("./pump.js").Pump} pump
   */
  async run(shipped, pump) {
    const c = this.c;
    const state = c.now();
    const choice = this.of(state);
    const again = () => {
      pump.again();
      return null;
    };
    let model;
    try {
      model = await this.modelFor(choice, shipped);
    } catch (err) {
      const failed = /** @type {ModelChoice} */ (choice); // only a choice's load can fail
      if (this.of(c.now())?.key !== failed.key) return again(); // asked for another meanwhile
      c.clearView(); // nothing computed by another model stays on screen under this one's name
      this.failed = failed.key;
      c.fail(err, failed.what);
      return null;
    }
    if (!model) return null;
    // Typed, switched model or chose another meanwhile: nothing stale is painted.
    const current = () => {
      const now = this.of(c.now());
      return c.model === shipped && (now ? now.ready : shipped) === model;
    };
    if (!current()) return again();
    c.computeWith(model);
    const run = await currentRun(model, () => c.now(), c.run);
    if (!run || !current()) return again();
    for (const part of c.parts) if (part.runs && !(await part.runs(state, model))) return again();
    return current() ? run : again();
  }
}
