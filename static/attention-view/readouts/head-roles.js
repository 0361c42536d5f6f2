// @ts-check
// What each head does, as meta.json's `heads` says (measured at export on held-out text; see
// docs/model-files.md): a role label with the score that earned it ("previous token 0.83"),
// and a one-line definition of the role. Pure data: no DOM. A model without `heads` (older or
// custom exports) gets an empty map, and every caller then shows no labels.

/**
 * @typedef {import("../meta-type.js").Meta} Meta
 * @typedef {Meta["head_definitions"]} Defs
 *
 * @typedef {Object} HeadRole
 * @property {string} role  e.g. "previous token"
 * @property {string|null} score  the score that defines the role (null for "diffuse")
 * @property {number|null} value  that score for this head
 * @property {string} label  e.g. "previous token 0.83", or just the role; with the head's part in
 *   the circuit meta.json records, if any: "diffuse · feeds L2H4's induction"
 * @property {string} definition  what the role means, from meta.json `head_definitions` (and the
 *   circuit's sentence)
 */

/** @param {number|null|undefined} v */
function fixed(v) {
  return Number.isFinite(v) ? /** @type {number} */ (v).toFixed(2) : "";
}

/**
 * A score in a reader's words: its short hint from `head_definitions.scores` ("largest weight in
 * a row") and what it was measured on; the full definition ("mean largest weight in a row, over
 * q >= 1") only for a meta.json without hints.
 * @param {Defs} defs
 * @param {string} score
 */
function scoreWords(defs, score) {
  const entry = Array.isArray(defs.scores) ? defs.scores.find((s) => s && s.name === score) : null;
  if (entry && entry.hint) return entry.measured_on ? `${entry.hint} (on ${entry.measured_on})` : entry.hint;
  // head_definitions also holds one definition text per score name (meta.json's schema)
  return /** @type {Object<string, string|undefined>} */ (/** @type {unknown} */ (defs))[score] || score.replace(/_/g, " ");
}

/**
 * What a rule's role means (after "role: "), from the rule and `head_definitions`.
 * @param {Defs} defs
 * @param {Defs["roles"][number]} rule
 */
function roleMeaning(defs, rule) {
  if (!rule.score) return "no role score reaches its threshold; the head spreads its attention.";
  const even = defs.even_attention || {};
  const base = Number.isFinite(even[rule.score]) ? ` (even attention would give ${fixed(even[rule.score])})` : "";
  return `${scoreWords(defs, rule.score)}, at least ${rule.at_least}${base}.`;
}

/**
 * What each role means ("role: meaning"), one sentence per role, in the order of `head_definitions.roles`.
 * @param {Meta|null|undefined} meta
 */
export function roleDefinitions(meta) {
  const out = new Map();
  for (const { role, meaning } of roleMeanings(meta)) out.set(role, `${role}: ${meaning}`);
  return out;
}

/**
 * @param {Meta|null|undefined} meta
 * @returns {{role: string, meaning: string}[]}
 */
function roleMeanings(meta) {
  const defs = meta?.head_definitions;
  if (!defs || !Array.isArray(defs.roles)) return [];
  const seen = new Set();
  return defs.roles.filter((rule) => !seen.has(rule.role) && seen.add(rule.role))
    .map((rule) => ({ role: rule.role, meaning: roleMeaning(defs, rule) }));
}

/**
 * The roles this model's heads have, each with its meaning, in rule order: the legend under
 * the grid of heads. Empty without `heads`.
 * @returns {{role: string, meaning: string}[]}
 * @param {Meta|null|undefined} meta
 */
export function roleLegend(meta) {
  const had = new Set([...headRoles(meta).values()].map((r) => r.role));
  return roleMeanings(meta).filter(({ role }) => had.has(role));
}

/** @type {WeakMap<Meta, Map<string, HeadRole>>} */
const memo = new WeakMap(); // meta -> its roles: they do not change with the text

/**
 * Map "layer:head" (1-based) -> HeadRole; empty without meta.json `heads`.
 * @param {Meta|null|undefined} meta
 * @returns {Map<string, HeadRole>}
 */
export function headRoles(meta) {
  if (meta && memo.has(meta)) return /** @type {Map<string, HeadRole>} */ (memo.get(meta));
  const roles = new Map();
  if (meta) memo.set(meta, roles);
  if (!meta || !Array.isArray(meta.heads)) return roles;
  const rules = meta.head_definitions?.roles || [];
  const definitions = roleDefinitions(meta);
  for (const head of meta.heads) {
    if (!head || typeof head.role !== "string") continue;
    const rule = rules.find((r) => r.role === head.role);
    const score = rule?.score ?? null;
    const value = score && head.scores ? head.scores[score] : null;
    const label = Number.isFinite(value) ? `${head.role} ${fixed(value)}` : head.role;
    roles.set(`${head.layer}:${head.head}`, {
      role: head.role, score, value: Number.isFinite(value) ? value : null, label,
      definition: definitions.get(head.role) || head.role,
    });
  }
  for (const [key, part] of circuitParts(meta, roles)) {
    const role = roles.get(key);
    if (!role) continue;
    roles.set(key, { ...role, label: `${role.label} \u00b7 ${part.label}`, definition: `${role.definition} ${part.sentence}` });
  }
  return roles;
}

/** @param {{layer: number, head: number}} h */
const short = (h) => `L${h.layer}H${h.head}`;

/**
 * The circuit meta.json records (export/circuit.py: a later head and the earlier head it
 * composes with), as what each of the two does in it: the later head "reads L1H2", the earlier
 * one "feeds L2H4's induction", plus a sentence with the score it loses. Only while the later
 * head has the role of the score the circuit records (a training step before the circuit formed
 * keeps meta.json's record, but not the role).
 * @param {any} meta
 * @param {Map<string, HeadRole>} roles
 * @returns {Map<string, {label: string, sentence: string}>}
 */
function circuitParts(meta, roles) {
  const parts = new Map();
  const c = meta.circuit;
  const later = c?.head;
  const earlier = c?.composes_with;
  if (!later || !earlier) return parts;
  const role = roles.get(`${later.layer}:${later.head}`);
  const score = role?.score;
  if (!score || !Number.isFinite(c[score])) return parts;
  const words = score.replace(/_/g, " ");
  const off = Array.isArray(c.switch_off)
    ? c.switch_off.find((/** @type {Object<string, number>} */ x) => x && x.layer === earlier.layer && x.head === earlier.head) : null;
  const falls = Number.isFinite(off?.[score]) ? ` falls from ${fixed(c[score])} to ${fixed(off[score])}` : " falls";
  parts.set(`${later.layer}:${later.head}`, {
    label: `reads ${short(earlier)}`,
    sentence: `In the circuit: it reads what ${short(earlier)} writes; with ${short(earlier)} switched off, its ` +
      `${words} score${falls}.`,
  });
  parts.set(`${earlier.layer}:${earlier.head}`, {
    label: `feeds ${short(later)}\u2019s ${role.role}`,
    sentence: `In the circuit: ${short(later)} (${role.role}) reads what this head writes; with this head switched ` +
      `off, ${short(later)}\u2019s ${words} score${falls}.`,
  });
  return parts;
}
