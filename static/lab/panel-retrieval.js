// Section 4: orthonormal keys plus a sharp query give exact lookup; tilting
// the keys toward each other lets weight leak into the wrong slots.
import { lookup, requiredSharpness } from "./math.js";
import { byId, f4, setBarList, setText } from "./dom.js";

export function initRetrieval(data) {
  const s4 = data.section4;
  const cSlider = byId("ret-c");
  const tiltSlider = byId("ret-tilt");

  function show() {
    const c = Number(cSlider.value);
    const tilt = Number(tiltSlider.value);
    // Tilting by t degrees leaves an angle of 90 - t between any two keys.
    const rho = tilt >= 90 ? 1 : Math.sin((tilt * Math.PI) / 180);
    const r = lookup(s4.V, c, rho, s4.slot);
    setText("ret-c-value", c.toFixed(1));
    setText("ret-tilt-value", String(tilt));
    setText("ret-angle", String(90 - tilt));
    setText("ret-key-cos", f4(rho));
    setBarList("ret-bars", r.p);
    setText("ret-p2", f4(r.pSlot));
    setText("ret-closed", f4(r.closedForm));
    setText("ret-leak", f4(1 - r.pSlot));
    setText("ret-cos", f4(r.cos));
    const need = requiredSharpness(rho);
    setText("ret-needed", Number.isFinite(need) ? need.toFixed(2) : "none: the keys are identical");
  }

  cSlider.addEventListener("input", show);
  tiltSlider.addEventListener("input", show);
}
