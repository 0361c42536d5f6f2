// @ts-check
// The element's one state schema: core's keys and actions (state.js CORE_KEYS, actions.js
// CORE_ACTIONS) and every feature's (the `state` and `actions` of its Feature), put together once per
// list of features (../state.js does it for ../features.js). Everything that reads or writes
// the state goes through it: the element's attributes and properties, `reduce`, the
// permalink, and the JSON the Python side reads.

import { CORE_KEYS } from "./state.js";
import { CORE_ACTIONS } from "./actions.js";

/**
 * @typedef {import("./state.js").StateKey} StateKey
 * @typedef {import("./state.js").State} State
 * @typedef {import("./state.js").Meta} Meta
 * @typedef {import("./actions.js").Reducer} Reducer
 * @typedef {import("./actions.js").Dims} Dims
 */

export class StateSchema {
  /**
   * @param {StateKey[]} keys  in the order links write them
   * @param {Object<string, Reducer>} actions  what each action type does to the state
   */
  constructor(keys, actions) {
    this.keys = keys;
    /** The keys' names in that order (the permalink and the iframe's query write them so). */
    this.names = keys.map((k) => k.key);
    this.actions = actions;
  }

  /** What the Python side reads (../state-schema.json, written by `make schema`). */
  json() {
    return {
      keys: this.keys.map((k) => ({
        key: k.key, property: k.property, type: k.type, fallback: k.fallback,
        ...(k.choices ? { choices: k.choices } : {}),
        // The value a link leaves out (it is what an absent key means anyway), if any.
        omitted: k.format(k.fallback) === null && k.fallback !== null ? k.fallback : null,
        doc: k.doc,
      })),
    };
  }

  /**
   * The resolved state from attribute strings (null when absent) and meta.json.
   * `token` stays null when it should follow the last token; a number is a token index, any
   * other string a word spec ("said", "said#2": words.js); state.js `pinnedIndex` resolves it.
   * @param {Object<string, string|null>} attrs
   * @param {Meta} meta
   * @returns {State}
   */
  resolve(attrs, meta) {
    const state = /** @type {any} */ ({});
    for (const k of this.keys) state[k.key] = k.parse(attrs[k.key] ?? null, attrs, meta);
    state.preview = null;
    for (const k of this.keys) if (k.derived) state[k.derived.name] = k.derived.read(attrs[k.key] ?? null, meta);
    return state;
  }

  /**
   * The next state after a user action (actions.js lists core's; each feature its own).
   * @param {State} state
   * @param {any} action
   * @param {Dims} dims
   * @returns {State}
   */
  reduce(state, action, dims) {
    if (!Object.hasOwn(this.actions, action.type)) throw new Error(`unknown action ${action.type}`);
    return this.actions[action.type](state, action, dims);
  }

  /**
   * The `State` typedef of this schema, as ../state-type.js holds it (`make schema` writes it):
   * each key's type follows from its kind, its choices and its fallback.
   */
  typedef() {
    const types = {
      token: "number|string|null", index: "number", heads: "string|null", step: "number|null", setting: "string|null",
    };
    /** @type {Object<string, string>} */
    const byKind = types;
    /** @param {StateKey} k */
    const typeOf = (k) => k.type === "choice" ? (k.choices ?? []).map((c) => JSON.stringify(c)).join("|")
      : k.type === "text" ? (k.fallback === null ? "string|null" : "string") : byKind[k.type];
    const fields = [
      ...this.keys.map((k) => [typeOf(k), k.key, k.doc]),
      ["number|null", "preview", "the hovered token, never an attribute"],
      ...this.keys.flatMap((k) => (k.derived ? [[k.derived.type, k.derived.name, k.derived.doc]] : [])),
    ];
    // What a property answers: the resolved value, or before meta.json the attribute as read
    // (element.js), so a choice may be any string then; `answer` gives a string.
    const properties = {
      text: "string|null", token: "number|null", index: "number|null", choice: "string|null", heads: "string",
      step: "number|null", setting: "string|null",
    };
    return [
      "// @ts-check",
      "// Written by `make schema` (site_builder/state_schema.mjs) from the widget's state schema (state.js):",
      "// do not edit; tests/test_state_schema.py fails when it is out of date.",
      "",
      "/**",
      " * The resolved state: every state key (core's and the features'), the hovered token and what",
      " * keys derive.",
      " * @typedef {Object} State",
      ...fields.map(([type, name, doc]) => ` * @property {${type}} ${name}  ${doc}`),
      " */",
      "",
      "/**",
      " * The element's property for every state key: what it answers (the resolved value once",
      " * meta.json is in; before, the attribute as read). Setting one writes the attribute (null",
      " * removes it).",
      " * @typedef {Object} StateProperties",
      ...this.keys.map((k) => ` * @property {${k.answer ? "string" : properties[k.type]}} ${k.property}  ${k.doc}`),
      " */",
      "",
      "export {};",
      "",
    ].join("\n");
  }

  /** Attribute values for a state (null = remove the attribute). @param {Object<string, any>} state */
  toAttributes(state) {
    return Object.fromEntries(this.keys.map((k) => [k.key, k.format(state[k.key] ?? null)]));
  }

  /**
   * Permalink fragment for a state, e.g. "#text=The%20Queen&token=6&layer=2&head=3&view=head".
   * @param {Object<string, any>} state
   */
  toHash(state) {
    const params = new URLSearchParams();
    for (const k of this.keys) {
      const value = state[k.key];
      if (value === null || value === undefined) continue;
      if (k.type === "choice" && k.format(value) === null) continue; // the default: keep old links unchanged
      params.set(k.key, String(value));
    }
    // URLSearchParams writes spaces as "+"; %20 survives being pasted into more places.
    return "#" + params.toString().replace(/\+/g, "%20");
  }

  /**
   * Attribute strings from a permalink fragment; keys that are absent come back null.
   * @param {string|null|undefined} hash
   */
  fromHash(hash) {
    const params = new URLSearchParams(String(hash || "").replace(/^#/, ""));
    /** @type {Object<string, string|null>} */
    const out = {};
    for (const key of this.names) out[key] = params.has(key) ? params.get(key) : null;
    return out;
  }
}

/**
 * Core's keys and actions with those of `features`. `order` is the order of the keys links
 * already carry: links written before stay as they were; a key it does not name follows them,
 * in the order the features declare theirs. A key or action declared twice, or a name in
 * `order` that nothing declares, is an error at once.
 * @param {import("./feature.js").Feature[]} features
 * @param {string[]} order
 */
export function assembleState(features, order) {
  const keys = [...CORE_KEYS];
  const actions = { ...CORE_ACTIONS };
  for (const feature of features) {
    for (const k of feature.state ?? []) {
      if (keys.some((other) => other.key === k.key)) throw new Error(`state key ${k.key} is declared twice (${feature.name})`);
      keys.push(k);
    }
    for (const [type, act] of Object.entries(feature.actions ?? {})) {
      if (Object.hasOwn(actions, type)) throw new Error(`action ${type} is declared twice (${feature.name})`);
      actions[type] = act;
    }
  }
  const unknown = order.filter((name) => !keys.some((k) => k.key === name));
  if (unknown.length) throw new Error(`the state keys' order names keys nothing declares: ${unknown.join(", ")}`);
  const rank = (/** @type {StateKey} */ k) => (order.includes(k.key) ? order.indexOf(k.key) : order.length);
  return new StateSchema([...keys].sort((a, b) => rank(a) - rank(b)), actions);
}

/** An element's resolved state, read from its attributes and parsed again only when they change. */
export class StateReader {
  /** @param {StateSchema} schema */
  constructor(schema) {
    this.schema = schema;
    this.key = "";
    /** @type {Meta|null} */
    this.meta = null;
    /** @type {State|null} */
    this.state = null;
  }

  /** @param {Element} host  @param {Meta} meta  @returns {State} */
  read(host, meta) {
    const attrs = Object.fromEntries(this.schema.names.map((name) => [name, host.getAttribute(name)]));
    const key = JSON.stringify(attrs);
    if (key !== this.key || meta !== this.meta || !this.state) {
      Object.assign(this, { key, meta, state: this.schema.resolve(attrs, meta) });
    }
    return /** @type {State} */ (this.state);
  }
}
