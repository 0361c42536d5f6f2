// @ts-check
// How the model places tokens (meta.json `positions`), for the math panel's split of a score
// into its parts and the chapter's sentences about scaling.

/**
 * The position scheme of a model from meta.json; a missing `positions` is the learned table
 * of models exported before the field existed.
 * @returns {{scheme: "learned"} | {scheme: "alibi", slope: (layer: number, head: number) => number}}
 * @param {Pick<import("../meta-type.js").Meta, "positions">} meta
 */
export function positionScheme(meta) {
  const p = meta.positions;
  if (p && p.scheme === "alibi" && Array.isArray(p.slopes)) {
    return { scheme: "alibi", slope: (layer, head) => Number(/** @type {number[][]} */ (p.slopes)[layer - 1]?.[head - 1] ?? 0) };
  }
  return { scheme: "learned" };
}
