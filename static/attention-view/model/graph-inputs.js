// @ts-check
// The graph's optional inputs, one rule with Python's (attention_live/feeds.py optional_feeds;
// the cases of tests/data/graph-input-cases.json): a graph exported before `head_mask` or
// `logit_positions` existed runs without them. Asked to switch heads off, such a graph is
// refused: it would compute every head on under a view that says some are off. Asked for some
// positions' logits, it computes every position's, which hold the ones asked for.

/**
 * What to feed a graph with these inputs besides `input_ids`.
 * @param {readonly string[]} inputNames  the session's
 * @param {number} T  tokens in the run
 * @param {number} L  layers
 * @param {number} H  heads per layer
 * @param {Float32Array|null} mask  layer-major, 0 = switched off; null = every head on
 * @param {number[]|null} positions  whose next-token logits to compute; null = every position
 *   (duplicates and positions outside 0…T-1 are dropped; none left: the last)
 * @returns {{headMask: Float32Array|null, logitPositions: number[]|null, at: number[]}}  the
 *   two inputs' values (null: the graph has no such input) and the positions whose logits come back, in order
 */
export function optionalFeeds(inputNames, T, L, H, mask, positions) {
  /** @param {string} name */
  const has = (name) => inputNames.includes(name);
  if (mask !== null && !has("head_mask")) {
    throw new Error("this model's graph has no head_mask input, so it cannot switch heads off: re-export it with the current exporter");
  }
  const headMask = has("head_mask") ? mask ?? new Float32Array(L * H).fill(1) : null;
  let at = Array.from({ length: T }, (_, i) => i);
  if (!has("logit_positions")) return { headMask, logitPositions: null, at };
  if (positions !== null) at = [...new Set(positions)].filter((q) => Number.isInteger(q) && q >= 0 && q < T);
  if (!at.length) at = [T - 1];
  return { headMask, logitPositions: at, at };
}
