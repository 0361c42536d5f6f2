// @ts-check
// What each head does, as meta.json's `heads` says (measured at export on held-out text; see
// docs/model-files.md): a role label with the score that earned it ("previous token 0.83"),
// and a one-line definition of the role. Pure data: no DOM. A model without `heads` (older or
// custom exports) gets an empty map, and every caller then shows no labels.

/**
 * @typedef {Object} HeadRole
 * @property {string} role  e.g. "previous token"
 * @property {string|null} score  the score that defines the role (null for "diffuse")
 * @property {number|null} value  that score for this head
 * @property {string} label  e.g. "previous token 0.83", or just the role
 * @property {string} definition  what the role means, from meta.json `head_definitions`
 */

function fixed(v) {
  return Number.isFinite(v) ? v.toFixed(2) : "";
}

/**
 * A score in a reader's words: its short hint from `head_definitions.scores` ("largest weight in
 * a row") and what it was measured on; the full definition ("mean largest weight in a row, over
 * q >= 1") only for a meta.json without hints.
 */
function scoreWords(defs, score) {
  const entry = Array.isArray(defs.scores) ? defs.scores.find((s) => s && s.name === score) : null;
  if (entry && entry.hint) return entry.measured_on ? `${entry.hint} (on ${entry.measured_on})` : entry.hint;
  return defs[score] || score.replace(/_/g, " ");
}

/** What a rule's role means (after "role: "), from the rule and `head_definitions`. */
function roleMeaning(defs, rule) {
  if (!rule.score) return "no role score reaches its threshold; the head spreads its attention.";
  const even = defs.even_attention || {};
  const base = Number.isFinite(even[rule.score]) ? ` (even attention would give ${fixed(even[rule.score])})` : "";
  return `${scoreWords(defs, rule.score)}, at least ${rule.at_least}${base}.`;
}

/** What each role means ("role: meaning"), one sentence per role, in the order of `head_definitions.roles`. */
export function roleDefinitions(meta) {
  const out = new Map();
  for (const { role, meaning } of roleMeanings(meta)) out.set(role, `${role}: ${meaning}`);
  return out;
}

/** @returns {{role: string, meaning: string}[]} */
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
 */
export function roleLegend(meta) {
  const had = new Set([...headRoles(meta).values()].map((r) => r.role));
  return roleMeanings(meta).filter(({ role }) => had.has(role));
}

const memo = new WeakMap(); // meta -> its roles: they do not change with the text

/** Map "layer:head" (1-based) -> HeadRole; empty without meta.json `heads`. */
export function headRoles(meta) {
  if (meta && memo.has(meta)) return memo.get(meta);
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
  return roles;
}
