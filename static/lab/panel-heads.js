// Section 5: two heads on the same world, concatenated and mixed by W_o.
import { multiHead, shape } from "./math.js";
import { seededNormal } from "../shared/rng.js";
import { byId, setBarList, setText, vec } from "./dom.js";

function randomMatrix(rows, cols, scale, normal) {
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => scale * normal()));
}

export function initHeads(data) {
  const s5 = data.section5;
  const select = byId("heads-query");
  const reference = { heads: s5.heads, Wo: s5.Wo };
  let weights = reference;
  let result = multiHead(data.X, weights.heads, weights.Wo);
  let drawNumber = 0;

  function show() {
    const q = Number(select.value);
    const tops = result.heads.map((h, i) => {
      setBarList(`head-${i + 1}-bars`, h.A[q], h.top1[q]);
      const name = data.names[h.top1[q]];
      setText(`head-${i + 1}-top`, name);
      return name;
    });
    const who = data.names[q];
    setText(
      "heads-verdict",
      tops[0] !== tops[1]
        ? `For ${who} the heads disagree: head 1 looks hardest at ${tops[0]}, head 2 at ${tops[1]}.`
        : `For ${who} both heads look hardest at ${tops[0]}.`,
    );
    setText("heads-out-row", vec(result.out[q]));
    setText("heads-out-shape", `(${shape(result.out).join(", ")})`);
  }

  function use(w, source) {
    weights = w;
    result = multiHead(data.X, weights.heads, weights.Wo);
    setText("heads-source", source);
    show();
  }

  byId("heads-redraw").addEventListener("click", () => {
    drawNumber += 1;
    const normal = seededNormal(1000 + drawNumber);
    const d = data.d_model;
    const k = data.d_k;
    // Same scales as the reference: weight_scale for the heads, 1/sqrt(d) for W_o.
    const heads = [0, 1].map(() => ({
      Wq: randomMatrix(d, k, data.weight_scale, normal),
      Wk: randomMatrix(d, k, data.weight_scale, normal),
      Wv: randomMatrix(d, k, data.weight_scale, normal),
    }));
    const Wo = randomMatrix(d, d, 1 / Math.sqrt(d), normal);
    use({ heads, Wo }, `Browser draw #${drawNumber} (seed ${1000 + drawNumber})`);
  });
  byId("heads-reset").addEventListener("click", () =>
    use(reference, `Python reference, seed ${data.seed}`),
  );
  select.addEventListener("change", show);
}
