// Section 1: one head on the 13-entity world; the reader picks the query row.
import { attention, rowSumError, topK } from "./math.js";
import { byId, e2, f4, setBar, setText, vec } from "./dom.js";

export function initWorld(data) {
  // Recomputed here from X and the weights rather than read from the
  // reference, so the panel shows the browser's own arithmetic.
  const head = attention(data.X, data.Wq, data.Wk, data.Wv);
  const select = byId("world-query");
  const rows = byId("world-rows").rows;

  function show(q) {
    const weights = head.A[q];
    const top = topK(weights, 3);
    for (let j = 0; j < rows.length; j++) {
      const cells = rows[j].cells; // th, type, raw, scaled, weight, bar
      cells[2].textContent = f4(head.raw[q][j]);
      cells[3].textContent = f4(head.scaled[q][j]);
      cells[4].textContent = f4(weights[j]);
      setBar(cells[5].querySelector("svg"), weights[j]);
      rows[j].classList.toggle("is-top", top.includes(j));
    }
    setText("world-top3", top.map((j) => `${data.names[j]} ${f4(weights[j])}`).join(", "));
    setText("world-output", vec(head.O[q]));
    setText("world-rowsum", e2(rowSumError(head.A)));
  }

  select.addEventListener("change", () => show(Number(select.value)));
}
