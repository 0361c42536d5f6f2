// @ts-check
// The contract every panel and feature of the view follows (docs/widget.md shows one written
// from scratch). A feature is one module exporting one object; ../features.js lists them, and
// the controller walks that list: it mounts each one when the model's shape is known, asks
// each for the extra runs it shows, paints each after every update, and lets each add its
// fields to `el.result`. Features talk to the element only through the context below.

import { dispatch } from "./dispatch.js";

/**
 * @typedef {import("./state.js").State} State
 * @typedef {import("./state.js").Meta} Meta
 * @typedef {import("./view.js").View} View
 * @typedef {import("./skeleton.js").Slots} Slots
 * @typedef {import("../model/loader.js").Model} Model
 * @typedef {import("../model/runs.js").Run} Run
 * @typedef {import("../model/result.js").Result} Result
 */

/**
 * @typedef {"idle"|"loading"|"preview"|"live"|"error"} Status
 * - idle: not started (a lazy element off-screen, or not yet connected); no request made
 * - loading: downloading or compiling; nothing of this model is on screen yet
 * - preview: painted without the live model (golden.json's default sentence, or an empty
 *   text) while it loads
 * - live: the live model has painted; later updates keep this status
 * - error: loading or running failed; the retry button shows and `ready` rejects
 * The element mirrors it as `data-status` (absent while idle), for CSS and tests.
 */

/**
 * What a feature may use of its element (one context per element, made by the controller).
 * @typedef {Object} Context
 * @property {HTMLElement} host  the <attention-view> element
 * @property {(action: object, opts?: {focusChip?: boolean}) => void} act  a user action (schema.js StateSchema.reduce)
 * @property {() => State|null} state  the resolved state; null before meta.json
 * @property {() => Meta|null} meta
 * @property {() => Model|null} model  the live model the view is computed by (the shipped one,
 *   or a training step's), once loaded
 * @property {() => Run|null} run  the run on screen
 * @property {() => View|null} view  the last painted view
 * @property {() => Promise<Result>} ready  resolves once the current state is drawn live
 * @property {() => Status} status
 * @property {(run: Run, action: object) => void} show  puts a run the feature computed on
 *   screen (a continuation: features/generation/writer.js), then applies `action` (its new text)
 * @property {() => void} schedule  asks for another update (a run the feature changed in place)
 * @property {() => HTMLTextAreaElement|null} textBox  the view's text box, once the UI is built
 * @property {import("./schema.js").StateSchema} schema  the element's state keys (core's and
 *   every feature's)
 */

/**
 * A mounted feature: what the controller calls on every update. Every member is optional.
 * @typedef {Object} Part
 * @property {(view: View) => void} [paint]  after every update, from the view on screen
 * @property {(state: State, model: Model) => Promise<boolean>} [runs]  the runs it shows besides
 *   the main one, computed before painting; resolves false when the state moved on meanwhile
 *   (the controller then updates again instead of painting)
 * @property {(result: Result, view: View) => void} [result]  adds its fields to `el.result`
 * @property {(detail: object, next: State) => void} [change]  adds its fields to a `change` event's detail
 * @property {(action: any, view: View|null) => any} [translate]  turns an action of its own
 *   ("story") into a state action (a jump), or null for nothing to do; undefined: not its action
 * @property {(state: State) => ModelChoice|null} [model]  another model than the shipped one
 *   for this state (a training step's: features/timeline/timeline.js); null: the shipped one
 */

/**
 * A model a feature chose for a state: everything on screen is then computed by it.
 * @typedef {Object} ModelChoice
 * @property {string} key  what was asked for ("step 350"): after a failure, asking for the same
 *   again waits for "Try again", asking for anything else goes ahead
 * @property {Model|null} ready  the model, when it has loaded
 * @property {(shipped: Model) => Promise<Model>} load  loads it (one download however often called)
 * @property {string} loading  the status line while it loads
 * @property {string} what  what could not be done when it fails ("load training step 350")
 * @property {string} [live]  the status line once its numbers are on screen
 */

/**
 * @typedef {Object} Feature
 * @property {string} name
 * @property {(slots: Slots, ctx: Context) => Part} mount  builds its nodes into `slots` (once
 *   per model shape: a model with other layer or head counts mounts every feature again)
 * @property {Object<string, (ctx: Context, ...args: any[]) => any>} [methods]  element methods it
 *   provides (generation: generate, stop); they may run before the feature is mounted
 * @property {boolean} [compact]  part of the compact view too (state.js COMPACT: the row and the
 *   grid of heads); the others do not mount there
 * @property {import("./state.js").StateKey[]} [state]  the state keys it owns: each one an
 *   attribute and property of the element, in links, embed code and the Python traits
 *   (schema.js assembles them with core's)
 * @property {Object<string, import("./actions.js").Reducer>} [actions]  what its actions do to
 *   the state, by action type (`act({type: "step", step: 350})`)
 */

/**
 * A feature's element method (generation: generate, stop), by name; it may run before the
 * feature has mounted (a script may call generate() before the model has even loaded).
 * @param {Feature[]} features
 * @param {Context} ctx
 * @param {string} name
 * @param {...any} args
 */
export function callMethod(features, ctx, name, ...args) {
  const feature = features.find((f) => f.methods?.[name]);
  if (!feature) throw new Error(`no feature of this view provides ${name}()`);
  return /** @type {NonNullable<Feature["methods"]>} */ (feature.methods)[name](ctx, ...args);
}

/**
 * The context of a controller's element.
 * @param {import("./controller.js").Controller} c
 * @returns {Context}
 */
export function makeContext(c) {
  return {
    host: c.host,
    schema: c.schema,
    act: (action, opts) => dispatch(c, action, opts),
    state: () => c.state(),
    meta: () => c.meta,
    model: () => c.active ?? c.model,
    run: () => c.run,
    view: () => c.vm,
    ready: () => c.ready,
    status: () => c.status,
    schedule: () => c.schedule(),
    textBox: () => c.ui?.input ?? null,
    show: (run, action) => {
      c.showRun(run);
      dispatch(c, action);
    },
  };
}
