// Small DOM and formatting helpers shared by the panels. Text goes in through
// textContent only; bar lengths and colours go through SVG attributes and
// class names, because the site's CSP rejects inline style attributes.

// Number formats match the Jinja template's '%.4f', '%.5f' and '%.2e', so a
// panel redrawn by the browser looks exactly like the one the build rendered.
export const f4 = (x) => x.toFixed(4);
export const f5 = (x) => x.toFixed(5);
export function e2(x) {
  // JS writes 1.00e-5 where Python writes 1.00e-05.
  return x.toExponential(2).replace(/e([+-])(\d)$/, "e$10$2");
}
export const vec = (v) => `[${v.map(f4).join(", ")}]`;

export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`lab page is missing #${id}`);
  return el;
}

export function setText(id, text) {
  byId(id).textContent = text;
}

// The bar is an <svg viewBox="0 0 100 10"> holding one <rect>.
export function setBar(svg, p) {
  svg.querySelector("rect").setAttribute("width", (100 * p).toFixed(3));
}

// Same bucketing as the template's heat() macro: six levels per sign.
export function heatClass(x, scale) {
  const level = Math.min(5, Math.trunc((6 * Math.abs(x)) / scale));
  return `heat-${x < 0 ? "n" : "p"}${level}`;
}

export function setHeat(el, x, scale) {
  for (const c of [...el.classList]) if (c.startsWith("heat-")) el.classList.remove(c);
  el.classList.add(heatClass(x, scale));
}

// Fill an <ol> of bar items (each: optional label, svg bar, optional value).
export function setBarList(listId, probs, highlight = -1) {
  const items = byId(listId).children;
  probs.forEach((p, i) => {
    const li = items[i];
    setBar(li.querySelector("svg"), p);
    const value = li.querySelector(".slot-value");
    if (value) value.textContent = f4(p);
    li.classList.toggle("is-top", i === highlight);
  });
}

// Run `fn` at most once per animation frame while a slider is dragged.
export function throttled(fn) {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      fn();
    });
  };
}
