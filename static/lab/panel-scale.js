// Section 2: the variance of q.k grows with d_k, and unscaled scores saturate.
import { dotVariance, randomLogits, saturation } from "./math.js";
import { seededNormal } from "../shared/rng.js";
import { byId, f4, setBarList, setText, throttled } from "./dom.js";

const N_KEYS = 13;

export function initScale(data) {
  const slider = byId("scale-dk");
  const draws = data.section2.draws;
  // Draw n uses seed n, so "draw #3 at d_k = 64" means the same numbers to
  // every reader; the reference's own draw is draw 0 and comes from numpy.
  let drawNumber = 0;

  function redraw() {
    drawNumber += 1;
    const dk = 2 ** Number(slider.value);
    const normal = seededNormal(drawNumber);
    const v = dotVariance(dk, draws, normal);
    const sat = saturation(randomLogits(dk, N_KEYS, normal), dk);
    setText("scale-dk-value", String(dk));
    setText("scale-source", `Browser draw #${drawNumber} (seed ${drawNumber}), d_k = ${dk}`);
    setText("scale-var", f4(v.variance));
    setText("scale-ratio", f4(v.ratio));
    setText("scale-max-unscaled", f4(sat.maxUnscaled));
    setText("scale-max-scaled", f4(sat.maxScaled));
    setBarList("scale-bars-unscaled", sat.pUnscaled);
    setBarList("scale-bars-scaled", sat.pScaled);
  }

  const onSlide = throttled(redraw);
  // Show the width at once; the 10,000 draws follow on the next frame.
  slider.addEventListener("input", () => {
    setText("scale-dk-value", String(2 ** Number(slider.value)));
    onSlide();
  });
  byId("scale-draw").addEventListener("click", redraw);
}
