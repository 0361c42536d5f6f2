// Entry point of the lab page: read the build-time reference numbers from the
// non-executed JSON block and hand them to each panel. The page is complete
// without this script (the build rendered every number); it adds the controls.
import { initWorld } from "./panel-world.js";
import { initScale } from "./panel-scale.js";
import { initJacobian } from "./panel-jacobian.js";
import { initRetrieval } from "./panel-retrieval.js";
import { initHeads } from "./panel-heads.js";

const data = JSON.parse(document.getElementById("lab-data").textContent);

// One broken panel should not take the other four down with it.
for (const init of [initWorld, initScale, initJacobian, initRetrieval, initHeads]) {
  try {
    init(data);
  } catch (err) {
    console.error(`lab: ${init.name} failed`, err);
  }
}
document.documentElement.classList.add("lab-ready");
