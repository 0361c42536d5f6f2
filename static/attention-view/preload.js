// @ts-check
// Optional head script for pages whose first <attention-view> is visible at once. It starts
// onnxruntime's wasm download and compile first, in the page's runtime worker (runtime.js and
// the few small modules it imports), before the widget's own module has even arrived: that
// compile is the longest part of a cold start. The runtime is one per page, and its started
// backend is shared by every session, so the widget's loader, arriving a moment later, finds
// it under way. Then it asks the widget's loader for the model, and the element later gets this very
// load (one fetch, one session). Load it with
//   <script type="module" async src=".../attention-view/preload.js">
// Pages whose views are all loading="lazy" should leave it out.

import { loadRuntime } from "./model/runtime.js";

// Early failures here must not become page errors: the element retries and reports.
loadRuntime().catch(() => {});
import("./widget.js").then(({ loadModel, MODEL_FOLDER }) => loadModel(MODEL_FOLDER)).catch(() => {});
