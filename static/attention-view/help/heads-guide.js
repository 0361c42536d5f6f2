// @ts-check
// What the grid of heads is, said where the grid is: one or two sentences on what a layer and
// a head are (the counts from meta.json's config), and a legend of the role words the strips
// and thumbnails carry, each with its meaning from meta.json's head_definitions (never a number
// written here). Without head roles in meta.json, no legend.

import { h, setText } from "../core/dom.js";
import { roleLegend } from "../readouts/head-roles.js";

/** @param {number} n @param {string} word */
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/**
 * The sentences above the grid for a model of `config`'s shape, about the token «who».
 * @param {{n_layer: number, n_head: number}} config @param {string} who
 */
export function headsIntro(config, who) {
  const { n_layer: layers, n_head: heads } = config;
  const after = layers === 2 ? "the second reads what the first wrote" : "each reads what the ones before it wrote";
  const order = layers > 1 ? `The ${layers} layers read your text one after the other (${after})` : "One layer reads your text";
  return `${order}; ${layers > 1 ? "each" : "it"} has ${plural(heads, "head")}, and each head decides for itself how much of each earlier ` +
    `token it takes in. A strip is one head\u2019s row for ${who} (its cell outlined), earlier tokens on the left.`;
}

/** @type {import("../core/feature.js").Feature} */
export const headsGuide = {
  name: "heads-guide",
  compact: true,
  mount(slots, ctx) {
    const meta = ctx.meta();
    const intro = slots.put("heads-intro", h("p.help.heads-intro"));
    const legend = roleLegend(meta);
    if (legend.length) {
      const list = h("dl.role-legend");
      for (const { role, meaning } of legend) list.append(h("dt", { text: role }), h("dd", { text: meaning }));
      slots.put("heads-help", h("div.help.role-help", {},
        h("p.role-legend-title", { text: "The word under a head is its role, measured when the model was exported, with the score that earned it:" }),
        list));
    }
    return {
      paint(view) {
        if (view.out) setText(intro, headsIntro(view.meta.config, `\u00ab${view.names[view.shown]}\u00bb`));
      },
    };
  },
};
