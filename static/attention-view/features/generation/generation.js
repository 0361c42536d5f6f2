// @ts-check
// The "Continue" controls under the text box: Continue / Stop / Undo, the number of tokens,
// temperature, top-k and seed behind a "Continue options" disclosure (closed unless a setting
// is set or wrong), a visible progress line, and a polite live region that
// announces the new tokens in batches (a screen reader hears "added «the» (43%), «Queen»
// (12%)" every second or so, not twenty interruptions). The writer (writer.js) does the
// work; this module only wires the controls to it and reports what it does.

import { h, setText, setHidden } from "../../core/dom.js";
import { checkSetting, DEFAULTS } from "../../model/sampler.js";
import { Writer } from "./writer.js";
import { GENERATION_KEYS, GENERATION_ACTIONS, SETTING_ATTRIBUTES } from "./state.js";
import { displayText, pieceLabel } from "../../model/token-labels.js";

const ANNOUNCE_EVERY_MS = 1200;

/** @typedef {import("../../core/feature.js").Context} Context */
/** @typedef {Record<"continue"|"stop"|"undo"|"error"|"options"|"more"|"status"|"choice"|"live", HTMLElement>
 *   & {inputs: Object<string, HTMLInputElement>}} Controls */

/** @type {[keyof typeof DEFAULTS, string, string, string][]} */
const FIELDS = [
  ["maxTokens", "tokens", "numeric", "How many tokens to add (never past the model's 128-token window)"],
  ["temperature", "temperature", "decimal", "0 = always the most likely token; higher = more surprising picks"],
  ["topK", "top-k", "numeric", "Pick only among the k most likely tokens"],
  ["seed", "seed", "numeric", "The same seed, text and settings give the same continuation"],
];

/** @param {string} text */
const quoted = (text) => `\u00ab${displayText(text).trim() || displayText(text)}\u00bb`;
/** @param {number} p */
const pct = (p) => (p > 0 && p < 0.005 ? "<1%" : `${Math.round(100 * p)}%`);
/** @param {number} n @param {string} word */
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** @type {WeakMap<Context, Writer>} */
const writers = new WeakMap(); // feature context -> its element's Writer

/**
 * The element's writer: made on first use, which may come before the controls mount.
 * @param {Context} ctx @returns {Writer}
 */
function writerOf(ctx) {
  if (!writers.has(ctx)) writers.set(ctx, new Writer(ctx));
  return /** @type {Writer} */ (writers.get(ctx));
}

/** @type {import("../../core/feature.js").Feature} */
export const generation = {
  name: "generation",
  state: GENERATION_KEYS,
  actions: GENERATION_ACTIONS,
  methods: {
    generate: (ctx, options) => writerOf(ctx).generate(options),
    stop: (ctx) => writerOf(ctx).stop(),
  },
  mount(slots, ctx) {
    const writer = writerOf(ctx);
    writer.ui = addControls(slots, ctx, writer);
    return {
      // For the permalink: the text before the model wrote, and what wrote the rest (writer.js).
      change(detail, next) {
        /** @type {{continued?: unknown}} */ (detail).continued = writer.continued(next.text);
      },
    };
  },
};

/**
 * Adds the controls under the text box for `writer`; the settings become attributes through
 * `ctx.act`, and so reach the permalink.
 * @param {import("../../core/skeleton.js").Slots} slots @param {Context} ctx @param {Writer} writer
 * @returns {import("./writer.js").WriterUI}
 */
function addControls(slots, ctx, writer) {
  const { host, act } = ctx;
  const textBox = /** @type {HTMLTextAreaElement} */ (ctx.textBox()); // built before the features mount
  const c = /** @type {Controls} */ ({});
  c.continue = h("button.gen-button.gen-continue", { type: "button", text: "Continue \u25b8", title: "Let the model write on, one token at a time" });
  c.stop = h("button.gen-button.gen-stop", { type: "button", text: "Stop", hidden: true });
  c.undo = h("button.gen-button.gen-undo", { type: "button", text: "Undo", hidden: true, title: "Remove what the model wrote" });
  c.error = h("p.gen-error", { id: "gen-error", "aria-live": "polite", hidden: true });
  c.inputs = {};
  const fields = FIELDS.map(([key, label, mode, title]) => {
    const input = /** @type {HTMLInputElement} */ (h("input.gen-input", {
      type: "text", inputmode: mode, autocomplete: "off", spellcheck: "false", "data-setting": key,
      "aria-describedby": c.error.id, title,
    }));
    c.inputs[key] = input;
    return h("label.gen-field", {}, h("span.gen-label", { text: label }), input);
  });
  c.inputs.maxTokens.value = String(DEFAULTS.maxTokens);
  // The sampling settings wait behind a disclosure: the first screen is for the attention.
  c.options = h("div.gen-settings", { id: "gen-options", hidden: true }, ...fields,
    h("p.help.gen-help", { text: "Temperature 0 always takes the most likely token; above 0 the model picks among " +
      "the top-k from a seeded generator, so the same text, settings and seed write the same continuation." }));
  c.more = h("button.disclosure.gen-more", {
    type: "button", "aria-expanded": "false", "aria-controls": c.options.id, text: "Continue options",
  });
  c.status = h("p.gen-status");
  // What the newest token was picked from: the five most likely tokens at the position it
  // was drawn for (the plain softmax of the run that picked it), the pick marked. The top 5
  // under the row is one step ahead: what the next token will be drawn from.
  c.choice = h("p.gen-choice", { hidden: true });
  c.live = h("p.sr-only", { "aria-live": "polite" });
  const box = h("div.gen", { role: "group", "aria-label": "Let the model write" },
    h("div.gen-buttons", {}, c.continue, c.stop, c.undo, c.more), c.options,
    c.status, c.choice, c.error, c.live);
  slots.put("controls", box);

  // --- the settings fields ---------------------------------------------------------------
  /** @param {keyof typeof DEFAULTS} key */
  const check = (key) => checkSetting(key, c.inputs[key].value);
  /** @param {keyof typeof DEFAULTS} key */
  const validate = (key) => {
    try {
      check(key);
      c.inputs[key].removeAttribute("aria-invalid");
      return null;
    } catch (err) {
      c.inputs[key].setAttribute("aria-invalid", "true");
      return /** @type {Error} */ (err).message;
    }
  };
  const showErrors = () => {
    const message = FIELDS.map(([key]) => validate(key)).find(Boolean) ?? null;
    showError(message);
    return message;
  };
  /** @param {string|null} message */
  const showError = (message) => {
    setHidden(c.error, !message);
    setText(c.error, message ?? "");
    if (message) showOptions(true); // the field to fix is in there
  };
  /** @param {boolean} open */
  const showOptions = (open) => {
    setHidden(c.options, !open);
    c.more.setAttribute("aria-expanded", String(open));
  };
  c.more.addEventListener("click", () => showOptions(c.options.hidden));
  // The fields show the attributes (a permalink's settings, or a script's), or the defaults.
  const syncFields = () => {
    for (const [key, name] of Object.entries(SETTING_ATTRIBUTES)) {
      const field = c.inputs[key];
      const value = host.getAttribute(name) ?? String(DEFAULTS[/** @type {keyof typeof DEFAULTS} */ (key)]);
      if (field.value !== value && field !== /** @type {ShadowRoot} */ (host.shadowRoot).activeElement) field.value = value;
      if (host.hasAttribute(name)) showOptions(true); // a link's own settings are shown, not hidden
    }
    showErrors();
  };
  // Valid settings become attributes (null: the default, no attribute).
  const commit = () => {
    if (showErrors()) return false;
    /** @type {Object<string, string|null>} */
    const next = {};
    let changed = false;
    for (const [key, name] of Object.entries(SETTING_ATTRIBUTES)) {
      const value = c.inputs[key].value.trim();
      const current = host.getAttribute(name);
      // A field left at what the attribute (or, without one, the default) says changes nothing.
      const same = value === (current ?? String(DEFAULTS[/** @type {keyof typeof DEFAULTS} */ (key)]));
      next[name] = same ? current : value === "" ? null : value;
      changed ||= !same;
    }
    if (changed) act({ type: "settings", ...next });
    return true;
  };
  for (const [key] of FIELDS) {
    const input = c.inputs[key];
    input.addEventListener("input", () => showErrors());
    if (key !== "maxTokens") input.addEventListener("change", commit);
    input.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
      if (e.key === "Enter") {
        e.preventDefault();
        start();
      }
    });
  }

  // --- the buttons -------------------------------------------------------------------------
  const focused = () => /** @type {ShadowRoot} */ (host.shadowRoot).activeElement;
  const start = () => {
    if (!commit()) return;
    writer.generate({ maxTokens: c.inputs.maxTokens.value }).catch(() => {}); // shown by the controls
  };
  c.continue.addEventListener("click", start);
  c.stop.addEventListener("click", () => writer.stop());
  // "Undone" is about the click that undid: the next change of the view clears it.
  let undone = false;
  c.undo.addEventListener("click", () => {
    const hadFocus = focused() === c.undo;
    if (writer.undo()) {
      setText(c.status, "Undone: the text is as it was before the model wrote.");
      setHidden(c.choice, true);
      undone = true;
    }
    if (hadFocus) c.continue.focus();
  });
  host.addEventListener("change", () => {
    if (!undone) return;
    undone = false;
    setText(c.status, "");
  });
  // Typing cancels a generation (the writer also notices any other change of the text).
  textBox.addEventListener("input", () => {
    writer.stop("edit");
    setHidden(c.choice, true); // about a token that may no longer be there
  });

  // The Undo button and the fields follow the attributes, whoever changed them.
  const refresh = () => setHidden(c.undo, writer.running || !writer.undoable());
  new MutationObserver((records) => {
    if (records.some((m) => m.attributeName !== "text")) syncFields();
    refresh();
  }).observe(host, { attributes: true, attributeFilter: ["text", ...Object.values(SETTING_ATTRIBUTES)] });
  syncFields();

  // --- announcements ---------------------------------------------------------------------
  /** @type {string[]} */
  let pending = [];
  let timer = 0;
  const flush = (tail = "") => {
    clearTimeout(timer);
    timer = 0;
    const parts = [];
    if (pending.length) parts.push(`added ${pending.join(", ")}.`);
    if (tail) parts.push(tail);
    pending = [];
    if (parts.length) setText(c.live, parts.join(" "));
  };

  // `run` holds the picked token as its last: it was drawn from the logits one position back.
  /** @param {{id: number, p: number}} pick @param {import("./writer.js").LiveRun} run */
  const showChoice = (pick, run) => {
    const top = run.out.topAt(run.ids.length - 2);
    const name = (/** @type {number} */ id) => `\u00ab${pieceLabel(/** @type {string} */ (run.pieceOf(id)))}\u00bb`; // a live run's
    const listed = top.map(({ id, p }) => `${id === pick.id ? "\u25b8 " : ""}${name(id)} ${pct(p)}`);
    if (!top.some(({ id }) => id === pick.id)) listed.push(`\u25b8 ${name(pick.id)} ${pct(pick.p)}`);
    setHidden(c.choice, false);
    setText(c.choice, `Picked from: ${listed.join(" \u00b7 ")}`);
  };

  /** @param {boolean} running */
  const setRunning = (running) => {
    const hadFocus = focused();
    setHidden(c.continue, running);
    setHidden(c.stop, !running);
    // Keyboard focus moves with the button it was on, so Enter can stop what Enter started.
    if (running && hadFocus === c.continue) c.stop.focus();
    if (!running && hadFocus === c.stop) c.continue.focus();
    refresh();
  };

  return {
    started(settings) {
      showError(null);
      setHidden(c.choice, true);
      pending = [];
      setRunning(true);
      setText(c.status, ctx.status() === "live" ? `Writing up to ${plural(settings.maxTokens, "token")}\u2026` : "Waiting for the model\u2026");
    },
    added(pick, run, n, count) {
      const label = quoted(run.labels[run.labels.length - 1].text || "\u22ef");
      setText(c.status, `Writing\u2026 ${n} of ${count}: ${label} (${pct(pick.p)})`);
      pending.push(`${label} (${pct(pick.p)})`);
      showChoice(pick, run);
      // The text box follows the new text as the chips do (it holds two lines, the text grows);
      // called after the render, so its new value is in.
      if (textBox !== /** @type {ShadowRoot} */ (host.shadowRoot).activeElement) textBox.scrollTop = textBox.scrollHeight;
      timer ||= setTimeout(() => flush(), ANNOUNCE_EVERY_MS);
    },
    finished(result, error = null) {
      setRunning(false);
      if (error) {
        flush();
        showError(error);
        setText(c.status, "");
        return;
      }
      if (!result) {
        setText(c.status, "Stopped."); // the count follows once the step in flight is dropped
        return;
      }
      const n = result.tokens.length;
      const how = {
        "max-tokens": `Added ${plural(n, "token")}.`,
        window: `Added ${plural(n, "token")}: the model's window of ${ctx.meta()?.config.n_ctx} tokens is full.`,
        stop: `Stopped after ${plural(n, "token")}.`,
        edit: `Stopped after ${plural(n, "token")}: the text changed.`,
      }[result.reason];
      setText(c.status, how + (n && result.reason !== "edit" ? " Undo removes them." : ""));
      flush(how);
    },
    error(message) {
      showError(message);
    },
  };
}
