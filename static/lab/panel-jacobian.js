// Section 3: the softmax Jacobian for editable logits and a temperature.
import { jacobianPanel } from "./math.js";
import { byId, e2, f4, f5, setHeat, setText, vec } from "./dom.js";

// p_i (1 - p_i) peaks at 1/4, so that is the full scale of the heat colours.
const HEAT_SCALE = 0.25;

// The slider is logarithmic: value v gives T = 10^(v/20), 0.01 ... 10.
export const temperatureOf = (v) => 10 ** (v / 20);

function formatT(T) {
  return T < 0.1 ? T.toFixed(3) : T.toFixed(2);
}

export function initJacobian(data) {
  const s3 = data.section3;
  // Full-precision logits from the reference; an input box overwrites only its
  // own entry, so untouched logits keep every digit Python used.
  const z = s3.z.slice();
  const temp = byId("jac-temp");
  const cells = [...byId("jac-matrix").querySelectorAll("td")];

  function show() {
    const T = temperatureOf(Number(temp.value));
    const r = jacobianPanel(z, T, s3.h);
    setText("jac-temp-value", formatT(T));
    setText("jac-p", vec(r.p));
    r.J.flat().forEach((x, k) => {
      cells[k].textContent = f5(x);
      setHeat(cells[k], x, HEAT_SCALE);
    });
    setText("jac-max-entry", f5(r.maxEntry));
    setText("jac-max-p", f4(r.maxP));
    setText("jac-fd-diff", e2(r.maxDiff));
  }

  z.forEach((_, i) => {
    const box = byId(`jac-z-${i}`);
    box.addEventListener("input", () => {
      const x = Number.parseFloat(box.value);
      const ok = Number.isFinite(x) && Math.abs(x) <= 1e6;
      box.setAttribute("aria-invalid", String(!ok));
      if (!ok) return;
      z[i] = x;
      show();
    });
  });
  temp.addEventListener("input", show);
}
