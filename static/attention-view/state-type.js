// @ts-check
// Written by `make schema` (site_builder/state_schema.mjs) from the widget's state schema (state.js):
// do not edit; tests/test_state_schema.py fails when it is out of date.

/**
 * The resolved state: every state key (core's and the features'), the hovered token and what
 * keys derive.
 * @typedef {Object} State
 * @property {string} text  the text the model reads (its last n_ctx tokens)
 * @property {number|string|null} token  the pinned token: a 0-based index (negative from the end) or a word ("said#2")
 * @property {number} layer  1-based layer
 * @property {number} head  1-based head
 * @property {"head"|"average"|"rollout"} view  one head, the layer's average, or the rollout through the layer
 * @property {"share"|"relative"|"push"} scale  the colour scale: share of the row, × the even share, or the head's push toward the prediction through each key
 * @property {string|null} ablate  heads switched off, "1.2 2.3" (layer.head, 1-based)
 * @property {string|null} compare  compare mode's second text ("": on, nothing typed yet); absent: off
 * @property {number|null} step  a training step: the model as its last snapshot up to that step was; absent: the shipped model
 * @property {string|null} temperature  Continue's temperature (sampler.js checks it), as written
 * @property {string|null} topk  Continue's topK (sampler.js checks it), as written
 * @property {string|null} seed  Continue's seed (sampler.js checks it), as written
 * @property {"0"|"1"} compact  "1": only the row and the grid of heads (a small figure); absent: the whole view
 * @property {"1"|"2"|"3"|"4"|"5"|"next"} target  the prediction whose pushes "What pushed" shows: its rank in the top 5 (1-5), or next, the text's next token
 * @property {number|null} preview  the hovered token, never an attribute
 * @property {import("./model/head-set.js").Ablation} off  `ablate` read once: the heads switched off and what was malformed
 */

/**
 * The element's property for every state key: what it answers (the resolved value once
 * meta.json is in; before, the attribute as read). Setting one writes the attribute (null
 * removes it).
 * @typedef {Object} StateProperties
 * @property {string|null} text  the text the model reads (its last n_ctx tokens)
 * @property {number|null} token  the pinned token: a 0-based index (negative from the end) or a word ("said#2")
 * @property {number|null} layer  1-based layer
 * @property {number|null} head  1-based head
 * @property {string|null} view  one head, the layer's average, or the rollout through the layer
 * @property {string|null} scale  the colour scale: share of the row, × the even share, or the head's push toward the prediction through each key
 * @property {string} ablate  heads switched off, "1.2 2.3" (layer.head, 1-based)
 * @property {string|null} compare  compare mode's second text ("": on, nothing typed yet); absent: off
 * @property {number|null} step  a training step: the model as its last snapshot up to that step was; absent: the shipped model
 * @property {string|null} temperature  Continue's temperature (sampler.js checks it), as written
 * @property {string|null} topK  Continue's topK (sampler.js checks it), as written
 * @property {string|null} seed  Continue's seed (sampler.js checks it), as written
 * @property {string|null} compact  "1": only the row and the grid of heads (a small figure); absent: the whole view
 * @property {string|null} target  the prediction whose pushes "What pushed" shows: its rank in the top 5 (1-5), or next, the text's next token
 */

export {};
