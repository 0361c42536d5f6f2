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

/** One sentence per role, from the rule list in `head_definitions.roles`. */
export function roleDefinitions(meta) {
  const defs = meta?.head_definitions;
  const out = new Map();
  if (!defs || !Array.isArray(defs.roles)) return out;
  const even = defs.even_attention || {};
  for (const rule of defs.roles) {
    if (out.has(rule.role)) continue;
    if (!rule.score) {
      out.set(rule.role, `${rule.role}: no role score reaches its threshold; the head spreads its attention.`);
      continue;
    }
    const what = defs[rule.score] || rule.score.replace(/_/g, " ");
    const base = Number.isFinite(even[rule.score]) ? ` (even attention would give ${fixed(even[rule.score])})` : "";
    out.set(rule.role, `${rule.role}: ${what}, at least ${rule.at_least}${base}.`);
  }
  return out;
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
