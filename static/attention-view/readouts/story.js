// @ts-check
// "Find the story": every (layer, head, query) row of a run ranked by its single largest
// weight, so the button can jump to the most decisive row and "Next" walk down from there.
// Query 0 is skipped (it has only itself to look at) and so is each row's own token (a head
// that stays on the current token tells no story about the sentence). Pure; no DOM.

/** @type {WeakMap<import("../model/runs.js").Outputs, StoryRow[]>} */
const rankings = new WeakMap(); // out -> ranking, computed once per run on the first click

/**
 * @typedef {Object} StoryRow
 * @property {number} layer  1-based
 * @property {number} head  1-based
 * @property {number} query  0-based
 * @property {number} key  0-based, < query
 * @property {number} weight
 */

/**
 * @param {import("../model/runs.js").Outputs} out
 * @returns {StoryRow[]} heaviest first; ties in reading order (layer, head, query).
 */
export function storyRanking(out) {
  let ranking = rankings.get(out);
  if (ranking) return ranking;
  ranking = [];
  const { T, L, H } = out;
  const attention = out.attention.data;
  for (let l = 0; l < L; l++) {
    for (let hd = 0; hd < H; hd++) {
      for (let q = 1; q < T; q++) {
        const at = ((l * H + hd) * T + q) * T;
        let key = 0;
        for (let k = 1; k < q; k++) if (attention[at + k] > attention[at + key]) key = k;
        ranking.push({ layer: l + 1, head: hd + 1, query: q, key, weight: attention[at + key] });
      }
    }
  }
  // Stable sort: equal weights keep reading order.
  ranking.sort((a, b) => b.weight - a.weight);
  rankings.set(out, ranking);
  return ranking;
}
