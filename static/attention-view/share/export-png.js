// @ts-check
// The PNG export: paints a scene from export-scene.js with the canvas 2D API and encodes it.
// Painted directly rather than by loading the SVG into an image and drawing that: an SVG
// image would come from a blob: or data: URL, which the site's CSP (img-src 'self') blocks,
// while a canvas needs no URL at all. Items are painted in order, so the picture matches the
// SVG of the same scene.

import { FONT } from "./export-scene.js";

// Twice the CSS size: sharp on high-density screens and when scaled up on a slide.
export const PNG_SCALE = 2;

/** @typedef {CanvasRenderingContext2D|OffscreenCanvasRenderingContext2D} Context2D */

/**
 * @param {number} width @param {number} height
 * @returns {any} an OffscreenCanvas, or a canvas element where there is none (both draw the same)
 */
function makeCanvas(width, height) {
  if (typeof OffscreenCanvas === "function") return new OffscreenCanvas(width, height);
  const canvas = document.createElement("canvas");
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

/** @param {Context2D} ctx @param {import("./export-scene.js").RectItem} it */
function roundedRect(ctx, it) {
  ctx.beginPath();
  if (it.radius && ctx.roundRect) ctx.roundRect(it.x, it.y, it.w, it.h, it.radius);
  else ctx.rect(it.x, it.y, it.w, it.h);
}

/**
 * Paints `scene.items` on a 2D context already scaled to CSS pixels.
 * @param {Context2D} ctx @param {import("./export-scene.js").Scene} sc
 */
export function paintScene(ctx, sc) {
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, sc.width, sc.height);
  ctx.textBaseline = "alphabetic";
  for (const it of sc.items) {
    if (it.kind === "cell") {
      ctx.fillStyle = it.fill;
      ctx.fillRect(it.x, it.y, it.w, it.h);
    } else if (it.kind === "rect") {
      roundedRect(ctx, it);
      if (it.fill !== "none") {
        ctx.fillStyle = it.fill;
        ctx.fill();
      }
      if (it.stroke) {
        ctx.strokeStyle = it.stroke;
        ctx.lineWidth = /** @type {number} */ (it.strokeWidth); // set with every stroke
        ctx.stroke();
      }
    } else {
      ctx.font = `${it.bold ? "700 " : ""}${it.size}px ${FONT}`;
      ctx.fillStyle = it.fill;
      ctx.textAlign = it.anchor === "middle" ? "center" : it.anchor === "end" ? "right" : "left";
      // maxWidth squeezes a text the layout's width estimate got wrong, instead of letting
      // it spill over its neighbour.
      if (it.maxWidth) ctx.fillText(it.text, it.x, it.y, it.maxWidth);
      else ctx.fillText(it.text, it.x, it.y);
    }
  }
}

/**
 * The scene as a PNG Blob of PNG_SCALE times its CSS size.
 * @param {import("./export-scene.js").Scene} sc @returns {Promise<Blob>}
 */
export async function scenePNG(sc) {
  const canvas = makeCanvas(sc.width * PNG_SCALE, sc.height * PNG_SCALE);
  const ctx = canvas.getContext("2d");
  ctx.scale(PNG_SCALE, PNG_SCALE);
  paintScene(ctx, sc);
  if (canvas.convertToBlob) return canvas.convertToBlob({ type: "image/png" });
  return new Promise((resolve, reject) => {
    canvas.toBlob((/** @type {Blob|null} */ blob) => (blob ? resolve(blob) : reject(new Error("the browser could not encode a PNG"))), "image/png");
  });
}
