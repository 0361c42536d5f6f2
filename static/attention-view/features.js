// @ts-check
// Every panel and feature of the view, each one module with one shape (core/feature.js). The
// controller walks this list: it mounts them in this order (a feature that puts nodes into a
// slot another one declares comes after it), updates and paints them in this order. Where each
// one's nodes appear on screen is declared by the slots (core/skeleton.js), not by this order.
// Adding a panel: one new module and one line here (docs/widget.md walks through one). The
// compact view (core/state.js COMPACT) mounts only those marked `compact`: the row and the grid.

import { row } from "./panels/row.js";
import { rowTable } from "./panels/row-table.js";
import { pinNote } from "./panels/pin-note.js";
import { strips } from "./panels/strips.js";
import { thumbnails } from "./panels/thumbnails.js";
import { heatmap } from "./panels/heatmap.js";
import { predictions } from "./panels/predictions.js";
import { attribution } from "./features/attribution/attribution.js";
import { math } from "./panels/math.js";
import { story } from "./features/story/story.js";
import { induction } from "./features/induction/induction.js";
import { compare } from "./features/compare/compare.js";
import { ablation } from "./features/ablation/ablation.js";
import { generation } from "./features/generation/generation.js";
import { timeline } from "./features/timeline/timeline.js";
import { exportBar } from "./share/export-bar.js";
import { embedMenu } from "./share/embed-menu.js";
import { headsGuide } from "./help/heads-guide.js";
import { tokenPieces } from "./help/token-pieces.js";

/** @type {import("./core/feature.js").Feature[]} */
export const FEATURES = [
  row,
  rowTable,
  pinNote,
  tokenPieces,
  story,
  induction,
  compare,
  exportBar,
  embedMenu,
  generation,
  timeline,
  strips,
  headsGuide,
  thumbnails,
  heatmap,
  predictions,
  attribution,
  ablation,
  math,
];
